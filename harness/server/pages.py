"""Server-rendered pages (Jinja2, everything escaped, no script): the leaderboard, log-in and sign-up,
upload, a bot's page, the organiser's page, and a page for a refusal. Every form carries the
session's CSRF token (``csrf``), which web.py checks on every POST."""

from __future__ import annotations

from jinja2 import DictLoader, Environment, select_autoescape

from .settings import SETTLE, half_width

BASE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{% block title %}ellibir arena{% endblock %}</title></head>
<body>
<nav><a href="/">leaderboard</a>
{% if user %} · <a href="/upload">upload a bot</a>{% if user.admin %} · <a href="/admin">organiser</a>{% endif %}
 · signed in as <span id="who">{{ user.name }}</span>
<form method="post" action="/logout"><input type="hidden" name="csrf" value="{{ csrf }}">
<button type="submit">log out</button></form>
{% else %} · <a href="/login">log in</a> · <a href="/signup">sign up</a>{% endif %}</nav>
{% block body %}{% endblock %}
</body></html>
"""

LEADERBOARD = """{% extends "base" %}{% block body %}
<h1>ellibir arena</h1>
{% for entry in ladders %}
<h2>{{ entry.game }}, {{ entry.players }} players, {{ entry.name }}</h2>
{% if entry.problem %}<p>{{ entry.problem }}</p>{% else %}
<p>{{ entry.scale }}</p>
<table>
<tr><th>bot</th><th>rating</th><th>95% interval</th><th>games</th><th></th></tr>
{% for b in entry.bots|sort(attribute="lo_key", reverse=True) %}
<tr><td>{{ b.bot }}</td><td>{{ b.shown }}</td><td>{{ b.interval }}</td><td>{{ b.games }}</td>
<td>{% if b.withdrawn %}withdrawn{% elif b.provisional %}provisional{% endif %}</td></tr>
{% endfor %}
</table>{% endif %}
{% else %}<p>No ladder yet: no version has finished its matches.</p>
{% endfor %}
<h2>Versions</h2>
<table id="versions">
<tr><th>bot</th><th>version</th><th>owner</th><th>status</th></tr>
{% for v in versions %}<tr><td><a href="/bots/{{ v.name|urlencode }}">{{ v.name }}</a></td><td>{{ v.version }}</td>
<td>{{ v.owner }}</td><td>{{ v.status }}</td></tr>
{% endfor %}
</table>
{% endblock %}"""

ACCOUNT = """{% extends "base" %}{% block body %}
<h1>{{ heading }}</h1>
{% if error %}<p class="error" id="error">{{ error }}</p>{% endif %}
<form method="post" action="{{ action }}">
<input type="hidden" name="csrf" value="{{ csrf }}">
<label>name <input name="name" autocomplete="username" required value="{{ name }}"></label>
<label>password <input name="password" type="password" autocomplete="{{ autocomplete }}" required></label>
<button type="submit">{{ heading }}</button>
</form>
{% endblock %}"""

UPLOAD = """{% extends "base" %}{% block body %}
<h1>Upload a bot</h1>
<p>A zip or tar (plain, gzip, bzip2 or xz) of your bot folder: its <code>bot.toml</code> and its
files, the folder itself or one folder holding it. A new version is checked by a worker before it
plays on the ladder. From the command line: <code>ellibir bot submit FOLDER --server URL</code>
with a token from <code>POST /api/login</code>.</p>
{% if error %}<p class="error" id="error">{{ error }}</p>{% endif %}
<form method="post" action="/upload" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="{{ csrf }}">
<input type="file" name="archive" required>
<button type="submit">upload</button>
</form>
{% endblock %}"""

BOT = """{% extends "base" %}{% block title %}{{ bot.name }} · ellibir arena{% endblock %}{% block body %}
<h1>{{ bot.name }}</h1>
<p>by {{ bot.owner }}</p>
{% if uploaded %}<p id="next">Version {{ uploaded }} is uploaded and waits for its check: a worker
plays its check matches in the sandbox. Reload this page to see the result; a version that passes
then plays on the ladder, one that fails shows its log here.</p>{% endif %}
{% for v in bot.versions %}
<section class="version" id="v-{{ loop.index }}">
<h2>version {{ v.version }}: <span class="status">{{ v.status }}</span></h2>
<p>content {{ v.hash }}…</p>
{% if v.ratings %}<table><tr><th>ladder</th><th>rating</th><th>95% interval</th><th>games</th></tr>
{% for h in v.ratings %}<tr><td>{{ h.ladder }}</td><td>{{ h.rating }}</td><td>{{ h.interval }}</td><td>{{ h.games }}</td></tr>
{% endfor %}</table>{% endif %}
{% if v.log is not none %}<h3>The check's log (only you see it)</h3><pre class="log">{{ v.log }}</pre>{% endif %}
{% if v.deleted %}<p class="deleted">Deleted by its owner: its files are gone and it plays no more; its matches and
ratings stay, as other bots' results depend on them.</p>
{% elif bot.mine %}<details class="delete"><summary>delete this version</summary>
<p>Its files are removed from the server and no longer count against your storage, and it plays no
more. Its matches, replays and ratings stay, marked withdrawn (other bots' results depend on them);
its name stays yours, and this version cannot be uploaded again with other content.</p>
<form method="post" action="/bots/{{ bot.name|urlencode }}/delete"><input type="hidden" name="csrf" value="{{ csrf }}">
<input type="hidden" name="version" value="{{ v.version }}"><button type="submit">delete version {{ v.version }}</button></form>
</details>{% endif %}
</section>
{% endfor %}
{% if bot.matchups %}<h2>Matchups</h2>
<table id="matchups"><tr><th>against</th><th>ahead</th><th>behind</th><th>level</th></tr>
{% for m in bot.matchups %}<tr><td>{{ m.bot }}</td><td>{{ m.ahead }}</td><td>{{ m.behind }}</td><td>{{ m.level }}</td></tr>
{% endfor %}</table>{% endif %}
{% if bot.matches %}<h2>Recent matches</h2><ul id="matches">
{% for m in bot.matches %}<li><a href="/runs/{{ m.run }}/matches/{{ m.match|urlencode }}">{{ m.match }}</a>
{% if bot.mine %} · <a href="/runs/{{ m.run }}/matches/{{ m.match|urlencode }}/logs">your logs</a>{% endif %}</li>
{% endfor %}</ul>{% endif %}
{% endblock %}"""

LOGS = """{% extends "base" %}{% block body %}
<h1>Your bots' logs of match {{ match }}</h1>
<p><a href="/runs/{{ run }}/matches/{{ match|urlencode }}">the match in the viewer</a></p>
{% for s in seats %}<section class="seat">
<h2>seat {{ s.seat }}: {{ s.bot }}</h2>
<table><tr><th>decisions</th><th>refused</th><th>mean time</th><th>longest</th><th>least bank left</th></tr>
<tr><td>{{ s.decisions }}</td><td>{{ s.refusals }}</td><td>{{ s.mean }}</td><td>{{ s.longest }}</td><td>{{ s.bank }}</td></tr></table>
<h3>Each decision's time</h3>
{% if s.times is none %}<p class="times">not kept: this run was played before each decision's time was kept</p>
{% else %}<p>The longest is marked; a time over the move time ({{ move_time }}) drew on the bot's bank.</p>
<table class="times"><tr><th>decision</th><th>time (ms)</th><th></th></tr>
{% for t in s.times %}<tr><td>{{ t.n }}</td><td class="ms">{{ t.ms }}</td>
<td>{{ t.marks }}</td></tr>
{% endfor %}</table>{% endif %}
<h3>stderr (its tail)</h3><pre class="stderr">{{ s.stderr }}</pre>
</section>{% endfor %}
{% endblock %}"""

ADMIN = """{% extends "base" %}{% block body %}
<h1>Organiser</h1>
<p id="queue">The queue is {{ "paused" if paused else "running" }}.</p>
<form method="post" action="/admin/queue"><input type="hidden" name="csrf" value="{{ csrf }}">
<input type="hidden" name="paused" value="{{ "false" if paused else "true" }}">
<button type="submit" id="toggle">{{ "resume the queue" if paused else "pause the queue" }}</button></form>
<h2>Versions</h2>
<table>{% for v in versions %}<tr><td>{{ v.name }}</td><td>{{ v.version }}</td><td>{{ v.status }}</td><td>
{% if v.status != "disabled" %}<form method="post" action="/admin/disable"><input type="hidden" name="csrf" value="{{ csrf }}">
<input type="hidden" name="name" value="{{ v.name }}"><input type="hidden" name="version" value="{{ v.version }}">
<button type="submit">disable</button></form>{% endif %}</td></tr>{% endfor %}</table>
<h2>Workers</h2>
<table id="workers">{% for w in workers %}<tr><td>{{ w.name }}</td><td>{{ "volunteer" if w.volunteer else "trusted" }}</td>
<td class="flagged">{% if w.flagged %}flagged: {{ w.flagged }}{% endif %}</td><td>
<form method="post" action="/admin/purge"><input type="hidden" name="csrf" value="{{ csrf }}">
<input type="hidden" name="worker" value="{{ w.name }}"><button type="submit">purge</button></form></td></tr>{% endfor %}</table>
<h2>Failed jobs</h2>
{% if failed %}<table id="failed"><tr><th>job</th><th>bot</th><th>kind</th><th>failures</th><th>the last reason</th><th></th></tr>
{% for j in failed %}<tr><td>{{ j.job }}</td><td>{{ j.name }} {{ j.version }}</td><td>{{ j.kind }}</td><td>{{ j.failures }}</td>
<td>{{ j.reason }}</td><td><form method="post" action="/admin/requeue"><input type="hidden" name="csrf" value="{{ csrf }}">
<input type="hidden" name="job" value="{{ j.job }}"><button type="submit">requeue</button></form></td></tr>
{% endfor %}</table>{% else %}<p>None.</p>{% endif %}
{% endblock %}"""

REFUSED = """{% extends "base" %}{% block body %}
<h1>{{ code }}</h1>
<p class="error" id="error">{{ message }}</p>
{% endblock %}"""

_env = Environment(loader=DictLoader({"base": BASE, "leaderboard": LEADERBOARD, "account": ACCOUNT,
                                      "upload": UPLOAD, "bot": BOT, "logs": LOGS, "admin": ADMIN, "refused": REFUSED}),
                   autoescape=select_autoescape(default=True, default_for_string=True))


def render(template: str, **values) -> str:
    values.setdefault("user", None)
    values.setdefault("csrf", "")
    return _env.get_template(template).render(**values)


def leaderboard_page(ladders: list, versions: list, settle: float = SETTLE, **values) -> str:
    """The ladders, bots sorted by the lower end of their interval ("provisional" while it reaches
    further than ±``settle``, the server's Settings.settle), and every version's status."""
    shown = []
    for entry in ladders:
        bots = []
        for b in entry.get("bots", []):
            lo, hi, rating = b.get("lo"), b.get("hi"), b.get("rating")
            bots.append({**b, "lo_key": lo if lo is not None else float("-inf"),
                         "shown": "—" if rating is None else f"{rating:.0f}",
                         "interval": f"[{lo:.0f}, {hi:.0f}]" if lo is not None and hi is not None else "—",
                         "provisional": entry.get("anchor") != b["bot"] and half_width(lo, hi) > settle})
        shown.append({**entry, "bots": bots})
    return render("leaderboard", ladders=shown, versions=versions, **values)
