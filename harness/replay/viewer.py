"""The HTML match viewer: one self-contained file that steps through a match in the browser.

``viewer_html(lines, title)`` turns the lines of a match log (docs/match-log.md; harness events
optional) into a page: the steps of ``engine.replay.replay_steps`` as JSON in a non-executed
``<script type="application/json">`` block (every ``<``, ``>`` and ``&`` escaped, so no data can end
the block), with the one viewer script and style of ``assets/`` inline. The
Content-Security-Policy forbids loading anything and lets only that script and that style run (by
their hashes). The script builds the page with DOM calls and ``textContent`` only, so text from a
log (a bot's name, its stderr) is always shown as text. Nothing here knows a game: it draws zones.

The bots' own lines go next to the steps they belong to (harness/replay/bot_logs.py): a trace's stderr
lines and notes (``trace``: the text of ``play --trace FILE``), or the stderr tails a run kept
(``stderr``: {seat: text}, from ``RUN/stderr``).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import tempfile
from pathlib import Path

from engine.events import read_lines
from engine.replay import replay_steps

from .bot_logs import attach_stderr, attach_trace

ASSETS = Path(__file__).with_name("assets")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _compact(doc: dict) -> dict:
    """The document as the page needs it: face-down piles as a count (their order is hidden and the
    file stays small)."""
    for step in doc["steps"]:
        for pile in step["zones"]["piles"]:
            pile["count"] = len(pile["cards"])
            if pile.get("face_down"):
                pile["cards"] = []
    return doc


def script_json(value) -> str:
    """JSON that can sit inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left as such."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def viewer_html(lines: list[dict], title: str, names: list[str] | None = None, trace: str | None = None,
                stderr: dict | None = None) -> str:
    """The page of the match in ``lines`` (read from a log); ``names`` replaces the bots' names when
    the log has no ``harness_bots`` line; ``trace`` and ``stderr``: the bots' lines (module docstring).
    Raises ValueError for a log that does not replay."""
    doc = _compact(replay_steps(lines))
    if names and not any(e.get("e") == "harness_bots" for e in lines):
        doc["bots"] = list(names)
    if trace:
        attach_trace(doc, trace)
    if stderr:
        attach_stderr(doc, stderr)
    doc["title"] = title
    script = (ASSETS / "viewer.js").read_text(encoding="utf-8")
    style = (ASSETS / "viewer.css").read_text(encoding="utf-8")
    csp = f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style)}; img-src data:"
    bots = ", ".join(f"seat {s}: {b}" for s, b in enumerate(doc["bots"]))
    t = html.escape(title)
    return (
        "<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name=viewport content="width=device-width, initial-scale=1">\n'
        f"<title>{t}</title>\n<style>{style}</style>\n</head>\n<body>\n"
        f"<header><h1>{t}</h1><p class=sub>game {html.escape(doc['game'])}; {html.escape(bots)}"
        + (f"; on a fault: {html.escape(doc['on_fault'])}" if doc.get("on_fault") else "") + "</p></header>\n"
        "<div class=controls>"
        "<button id=prev-round title='previous round (Page Up)'>\u00ab round</button>"
        "<button id=prev-turn title='previous turn (\u2191, Shift+\u2190)'>\u2039 turn</button>"
        "<button id=prev title='previous decision (\u2190)'>\u25c0</button>"
        "<button id=next title='next decision (\u2192)'>\u25b6</button>"
        "<button id=next-turn title='next turn (\u2193, Shift+\u2192)'>turn \u203a</button>"
        "<button id=next-round title='next round (Page Down)'>round \u00bb</button>"
        "<select id=round-jump aria-label='jump to a round'></select>"
        "<select id=view aria-label='whose hands'></select>"
        "<span id=where class=where></span></div>\n"
        "<main><div id=caption class=caption></div><div id=decision class=decision></div><div id=notes></div>"
        "<div id=logs class=logs></div>"
        "<div class=table><div id=piles class=piles></div><div id=melds class=melds></div></div>"
        "<div id=hands></div><table class=counters><tbody id=counters></tbody></table>"
        "<h2 class=sub>What happened</h2><ol id=events class=events></ol>"
        "<p class=help>Keys: \u2190 \u2192 decision, \u2191 \u2193 turn, Page Up / Page Down round, Home / End.</p>"
        "</main>\n"
        f'<script type="application/json" id="replay-data">{script_json(doc)}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def write_viewer(lines: list[dict], path, title: str, names: list[str] | None = None, trace: str | None = None,
                 stderr: dict | None = None) -> Path:
    """Write the viewer of ``lines`` to ``path`` (whole: a temporary name, then renamed)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path}: is a folder; give the viewer file's name")
    if not path.parent.is_dir():
        raise ValueError(f"{path}: its folder {path.parent} does not exist")
    text = viewer_html(lines, title, names, trace, stderr)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def run_log_lines(run_dir, match_id: str) -> tuple[list[dict], list[str] | None]:
    """(the log's lines, the seating's bot labels) of a stored match of a run."""
    from results.store import RunStore

    from harness.runs.tournament import TournamentError, load_run
    from harness.runs import plan as planning

    plan = load_run(Path(run_dir))
    try:
        planned = planning.find_match(plan, match_id)
    except planning.PlanError as e:
        raise TournamentError(str(e)) from None
    try:
        text = RunStore(Path(run_dir)).read_log(match_id)
    except KeyError:
        raise TournamentError(f"match {match_id} is planned but not played yet") from None
    return read_lines(text), planned.get("seating")


__all__ = ["run_log_lines", "script_json", "viewer_html", "write_viewer"]


FIRST_OTHERS = 3  # viewers written next to a report besides the faulted matches
MOST_FAULTED = 20


def report_viewers(runs, report_path, first: int = FIRST_OTHERS) -> dict:
    """Write the viewers of a report's faulted matches (up to MOST_FAULTED) and of its ``first`` other
    matches into ``REPORT-matches/`` next to it; returns (run label, match id) -> path relative to the
    report. A match whose log is missing or does not replay gets no viewer (its row keeps the command)."""
    from results.report_parts import match_rows

    from harness.runs.faultlog import read_stderr

    report_path = Path(report_path)
    rows = match_rows(runs)
    chosen = rows.filter(rows["faults"] > 0).head(MOST_FAULTED).vstack(rows.filter(rows["faults"] == 0).head(first))
    folder = report_path.with_name(f"{report_path.stem}-matches")
    dirs = dict(zip(runs.names, runs.dirs))
    out = {}
    for r in chosen.iter_rows(named=True):
        name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in f"{r['run']}-{r['match_id']}") + ".html"
        try:
            lines, names = run_log_lines(dirs[r["run"]], r["match_id"])
            folder.mkdir(exist_ok=True)
            write_viewer(lines, folder / name, f"{r['run']} \u00b7 match {r['match_id']}", names,
                         stderr=read_stderr(dirs[r["run"]], r["match_id"]))
        except Exception:  # noqa: BLE001  (no log, or a damaged one: the row keeps its command)
            continue
        out[(r["run"], r["match_id"])] = f"{folder.name}/{name}"
    return out
