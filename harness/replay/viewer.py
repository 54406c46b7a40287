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
import copy
import hashlib
import html
import json
import os
import tempfile
from pathlib import Path

import orjson

from engine.events import read_lines
from engine.replay import replay_steps

from .bot_logs import attach_stderr, attach_trace

ASSETS = Path(__file__).with_name("assets")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


PILE_SHOWN = 8  # cards shown of a face-up pile (its top)


def _compact(doc: dict) -> dict:
    """The document as the page needs it, small: face-down piles as a count (their order is hidden), a
    face-up pile as its count and its top ``PILE_SHOWN`` cards, each event as its kind, words and rule,
    each accepted decision without its outcome, and
    each step's zones as what changed since the step before (``zones``: only the keys whose value
    changed; in ``hands``, null for a hand that did not change). The page rebuilds every step's zones
    once, when it opens (assets/viewer.js, ``unfold``)."""
    before = None
    for step in doc["steps"]:
        for pile in step["zones"]["piles"]:
            pile["count"] = len(pile["cards"])
            pile["cards"] = [] if pile.get("face_down") else pile["cards"][-PILE_SHOWN:]
        step["events"] = [{k: e[k] for k in ("e", "say", "rule") if e.get(k) is not None} for e in step["events"]]
        if step.get("outcome") and step["outcome"].get("accepted"):
            step["outcome"] = None  # only a refusal is shown
        whole = step["zones"]
        if before is not None:
            changed = {}
            for key, value in whole.items():
                if key == "hands" and isinstance(before.get(key), list) and len(before[key]) == len(value):
                    hands = [None if h == b else h for h, b in zip(value, before[key])]
                    if any(h is not None for h in hands):
                        changed[key] = hands
                elif key not in before or before[key] != value:
                    changed[key] = value
            step["zones"] = changed
        before = whole
    return doc


def script_json(value) -> str:
    """JSON that can sit inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left as such."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # an integer past 64 bits: the standard encoder writes it
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def viewer_html(lines: list[dict], title: str, names: list[str] | None = None, trace: str | None = None,
                stderr: dict | None = None) -> str:
    """The page of the match in ``lines`` (read from a log); ``names`` replaces the bots' names when
    the log has no ``harness_bots`` line; ``trace`` and ``stderr``: the bots' lines (module docstring).
    Raises ValueError for a log that does not replay."""
    return page_html(match_doc(lines, names), title, trace, stderr)


def match_doc(lines: list[dict], names: list[str] | None = None) -> dict:
    """What the viewer's page shows of the match in ``lines``, replayed (the costly part of a page, the
    same for every reader); ``names`` as for ``viewer_html``. Raises ValueError for a log that does not replay."""
    doc = _compact(replay_steps(lines))
    if names and not any(e.get("e") == "harness_bots" for e in lines):
        doc["bots"] = list(names)
    return doc


def page_html(doc: dict, title: str, trace: str | None = None, stderr: dict | None = None) -> str:
    """The viewer's page of a ``match_doc``, which is left as it was (the bots' lines go on a copy)."""
    doc = copy.deepcopy(doc) if trace or stderr else dict(doc)
    if trace:
        attach_trace(doc, trace)
    if stderr:
        attach_stderr(doc, stderr)
    doc["title"] = title
    script = (ASSETS / "viewer.js").read_text(encoding="utf-8")
    style = (ASSETS / "viewer.css").read_text(encoding="utf-8")
    csp = viewer_policy()
    # one line a seat: a bot's version may hold ", seat 1: builtin:greedy", never a line break
    bots = "".join(f"<span class=seat>{html.escape(f'seat {s}: {b}')}</span>" for s, b in enumerate(doc["bots"]))
    rules = f"; rules: {doc['variant']}" if doc.get("variant") else ""
    t = html.escape(title)
    return (
        "<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name=viewport content="width=device-width, initial-scale=1">\n'
        f"<title>{t}</title>\n<style>{style}</style>\n</head>\n<body>\n"
        f"<header><h1>{t}</h1><p class=sub>game {html.escape(doc['game'])}{html.escape(rules)}{bots}"
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
        "<main><div id=caption class=caption></div><div id=outcome class=outcome hidden></div>"
        "<div id=decision class=decision></div><div id=notes></div>"
        "<div id=logs class=logs></div>"
        "<div class=table><div id=piles class=piles></div><div id=melds class=melds></div></div>"
        "<div id=hands></div><table class=counters><tbody id=counters></tbody></table>"
        "<h2 class=sub>What happened</h2><ol id=events class=events></ol>"
        "<p class=help>Keys: \u2190 \u2192 decision, \u2191 \u2193 turn, Page Up / Page Down round, Home / End.</p>"
        "</main>\n"
        f'<script type="application/json" id="replay-data">{script_json(doc)}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def viewer_policy() -> str:
    """The viewer's Content-Security-Policy: nothing loaded, only its own script and style run (by hash)."""
    script = (ASSETS / "viewer.js").read_text(encoding="utf-8")
    style = (ASSETS / "viewer.css").read_text(encoding="utf-8")
    return f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style)}; img-src data:"


def write_viewer(lines: list[dict], path, title: str, names: list[str] | None = None, trace: str | None = None,
                 stderr: dict | None = None) -> Path:
    """Write the viewer of ``lines`` to ``path`` (whole: a temporary name, then renamed); never over one
    of a run folder's own files (results/integrity.py ``check_output``)."""
    from results.integrity import check_output

    if str(path) == "-":
        raise ValueError("--html - : the viewer is a file; give its name")
    path = Path(path)
    check_output(path, "the viewer")
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
    text, seating = run_log_text(run_dir, match_id)
    return read_lines(text), seating


def run_log_text(run_dir, match_id: str) -> tuple[str, list[str] | None]:
    """(the log as stored, the seating's bot labels) of a stored match of a run."""
    from results.store import RunStore

    from harness.runs.tournament import TournamentError, load_run, missing_log
    from harness.runs import plan as planning

    plan = load_run(Path(run_dir))
    try:
        planned = planning.find_match(plan, match_id)
    except planning.PlanError as e:
        raise TournamentError(str(e)) from None
    store = RunStore(Path(run_dir))
    try:
        text = store.read_log(match_id)
    except KeyError:
        raise TournamentError(missing_log(store, match_id)) from None
    return text, planned.get("seating")


__all__ = ["match_doc", "page_html", "run_log_lines", "run_log_text", "script_json", "viewer_html",
           "viewer_policy", "write_viewer"]


def viewer_name(run: str, match_id: str) -> str:
    """The file name of a match's viewer next to a report: ``RUN-MATCH.html``, other characters as ``_``."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in f"{run}-{match_id}") + ".html"


def report_viewers(runs, report_path, most: int | None = None) -> dict:
    """Write the viewer of every match a report lists (its match list: faulted ones first, at most
    ``results.report_parts.MAX_LISTED``, or ``most``) into ``REPORT-matches/`` next to it, so that any
    listed match is one click from its viewer; returns (run label, match id) -> path relative to the
    report. Each run's plan, log index and stderr files are read once. A match whose log is missing or
    does not replay gets no viewer (its row keeps the ``ellibir replay`` command)."""
    from results.report import viewers_folder
    from results.report_parts import MAX_LISTED, match_rows
    from results.store import RunStore

    from harness.runs.faultlog import stderr_of

    report_path = Path(report_path)
    rows = match_rows(runs).head(MAX_LISTED if most is None else most)
    folder = viewers_folder(report_path)
    dirs = dict(zip(runs.names, runs.dirs))
    seatings = {name: {m["id"]: m.get("seating") for m in (plan or {}).get("matches") or []}
                for name, plan in zip(runs.names, runs.plans)}
    stores, stderr = {}, {}
    for name in set(rows["run"].to_list()):
        stores[name] = RunStore(dirs[name])
        stderr[name] = stderr_of(stores[name], set(rows.filter(rows["run"] == name)["match_id"].to_list()))
    jobs = []
    for run, match_id in rows.select("run", "match_id").iter_rows():
        try:
            text = stores[run].read_log(match_id)
        except Exception:  # noqa: BLE001  (no log, or a damaged one: the row keeps its command)
            continue
        jobs.append((text, str(folder / viewer_name(run, match_id)), f"{run} \u00b7 match {match_id}",
                     seatings[run].get(match_id), stderr[run].get(match_id), (run, match_id)))
    if jobs:
        folder.mkdir(exist_ok=True)
    out = {}
    for key, written in _write_all(jobs):
        if written:
            out[key] = f"{folder.name}/{Path(written).name}"
    return out


PARALLEL_FROM = 16  # viewers: fewer are written in this process
WORKERS = 4  # processes that write viewers at most


def _write_one(job) -> tuple:
    """One viewer from its log's text: (key, the file written, or None when the log does not replay)."""
    text, path, title, names, stderr, key = job
    try:
        write_viewer(read_lines(text), path, title, names, stderr=stderr)
    except Exception:  # noqa: BLE001  (a log that does not replay: the row keeps its command)
        return key, None
    return key, path


def _write_all(jobs: list):
    """Every viewer of ``jobs``: in worker processes when there are many and several cores, else here,
    one after another. The workers are forked from a fresh server process (``forkserver``), never from
    this one: a fork of this process inherits whatever it runs (Ray's core worker, polars' threads, a
    signal handler) and such a child has died of it. A worker that dies all the same breaks the pool,
    and the viewers are then written here."""
    workers = min(WORKERS, os.cpu_count() or 1, len(jobs) // (PARALLEL_FROM // 2) or 1)
    if len(jobs) < PARALLEL_FROM or workers < 2:
        return [_write_one(job) for job in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
        pool = ProcessPoolExecutor(workers, mp_context=context)
    except (OSError, ValueError, RuntimeError):  # no worker processes here: one after another
        return [_write_one(job) for job in jobs]
    try:
        return list(pool.map(_write_one, jobs, chunksize=max(1, len(jobs) // (4 * workers))))
    except (BrokenProcessPool, OSError):
        return [_write_one(job) for job in jobs]
    finally:
        pool.shutdown(cancel_futures=True)


