"""Server-rendered pages (Jinja2, everything escaped, no script): for now the leaderboard."""

from __future__ import annotations

from jinja2 import Environment, select_autoescape

SETTLED = 25.0  # Elo: a rating is provisional while its 95% interval reaches further than this either side

_env = Environment(autoescape=select_autoescape(default=True, default_for_string=True))

LEADERBOARD = _env.from_string("""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ellibir arena</title></head>
<body>
<h1>ellibir arena</h1>
{% for entry in ladders %}
<h2>{{ entry.game }}, {{ entry.players }} players, {{ entry.name }}</h2>
{% if entry.problem %}<p>{{ entry.problem }}</p>{% else %}
<p>{{ entry.scale }}</p>
<table>
<tr><th>bot</th><th>rating</th><th>95% interval</th><th>games</th><th></th></tr>
{% for b in entry.bots|sort(attribute="lo_key", reverse=True) %}
<tr><td>{{ b.bot }}</td><td>{{ b.shown }}</td><td>{{ b.interval }}</td><td>{{ b.games }}</td>
<td>{% if b.provisional %}provisional{% endif %}</td></tr>
{% endfor %}
</table>{% endif %}
{% else %}<p>No ladder yet: no version has finished its matches.</p>
{% endfor %}
<h2>Versions</h2>
<table>
<tr><th>bot</th><th>version</th><th>owner</th><th>status</th></tr>
{% for v in versions %}<tr><td>{{ v.name }}</td><td>{{ v.version }}</td><td>{{ v.owner }}</td><td>{{ v.status }}</td></tr>
{% endfor %}
</table>
</body></html>
""")


def leaderboard_page(ladders: list, versions: list) -> str:
    """The ladders, bots sorted by the lower end of their interval ("provisional" while it is wider than
    ±SETTLED), and every version's status."""
    shown = []
    for entry in ladders:
        bots = []
        for b in entry.get("bots", []):
            lo, hi, rating = b.get("lo"), b.get("hi"), b.get("rating")
            bots.append({**b, "lo_key": lo if lo is not None else float("-inf"),
                         "shown": "—" if rating is None else f"{rating:.0f}",
                         "interval": f"[{lo:.0f}, {hi:.0f}]" if lo is not None and hi is not None else "—",
                         "provisional": entry.get("anchor") != b["bot"] and (
                             lo is None or hi is None or (hi - lo) / 2 > SETTLED)})
        shown.append({**entry, "bots": bots})
    return LEADERBOARD.render(ladders=shown, versions=versions)
