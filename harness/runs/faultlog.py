"""What a tournament keeps of its bots' faults: each bot program's stderr and decision times per match,
and the list of faults that ``ellibir faults RUN`` shows.

The stderr of every bot program (the tail, at most ``players.STDERR_LIMIT`` bytes per bot and match)
goes to ``RUN/stderr/TASK.jsonl.gz``, one JSON line per match and seat of a bot program:
``{"match_id", "seat", "bot", "stderr", "times_ms"}``, written whole (temporary name, then renamed)
after the task's part. ``times_ms`` is each of the bot's own decision times in order (milliseconds,
to the microsecond; a stand-in's after a fault left out), the list whose count, sum and longest are
the seat's ``decisions``, ``time_sum`` and ``time_max`` in ``matches``; runs written before it have
no ``times_ms``, and lines only for seats that wrote stderr. A task whose results could not be
written leaves no stderr file. The file belongs to the task's part (results/store.py): a match's
stderr is read from the file of the part that holds the match, and compaction (results/compact.py)
merges the files with their parts.

A fault's kind and reason are in the ``matches`` table (``termination``, ``fault_reason``); its
stderr tail, the decision it happened at and the reference bot that took the seat over are in the
match's annotated log (harness/match/log.py, ``RUN/logs``).
"""

from __future__ import annotations

import gzip
import json
import math
import os
import uuid

STDERR_DIR = "stderr"
MAX_TIMES = 100_000  # decision times kept of one seat of a match
TAIL_SHOWN = 2_000  # characters of stderr that ``ellibir faults`` shows per fault


def bot_stderr(players: list) -> dict:
    """{seat: stderr text} of the players that are bot programs and wrote something."""
    out = {}
    for seat, p in enumerate(players):
        text = getattr(p, "stderr", "")
        if text:
            out[seat] = text
    return out


def bot_times(players: list) -> dict:
    """{seat: its decision times in milliseconds} of the players that are bot programs."""
    return {seat: [round(t[0] * 1000, 3) for t in p.times] for seat, p in enumerate(players)
            if hasattr(p, "stderr") and hasattr(p, "times")}


def save_stderr(run_dir, task_id: str, results: list) -> None:
    """Write the stderr and decision times of one task's matches (``jobs.MatchResult`` items, as
    ``distributed.play_batch`` returns them)."""
    lines = []
    for r in results:
        stderr = {int(k): v for k, v in (r.stderr or {}).items()}
        times = {int(k): v for k, v in (getattr(r, "times", None) or {}).items()}
        for seat in sorted(set(stderr) | set(times)):
            record = {"match_id": r.id, "seat": seat, "bot": r.seating[seat], "stderr": stderr.get(seat, "")}
            if seat in times:
                record["times_ms"] = times[seat]
            lines.append(json.dumps(record, ensure_ascii=False))
    if not lines:
        return
    from results.store import RunStore

    final = RunStore(run_dir).path(STDERR_DIR, task_id)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".{task_id}.{uuid.uuid4().hex}.tmp"
    try:
        with open(tmp, "xb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as gz:
            gz.write(("\n".join(lines) + "\n").encode())
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)


def read_stderr(run_dir, match_id: str, store=None) -> dict:
    """{seat: stderr text} of one match (empty when nothing was kept), from the stderr file of the part
    that holds it (``store``: the run's ``RunStore``, to reuse its index of match ids); a damaged file
    gives the whole lines before the damage."""
    return _stderr(_records(run_dir, match_id, store))


def read_stderr_and_times(run_dir, match_id: str, store=None) -> tuple[dict, dict]:
    """(``read_stderr``, {seat: its decision times in milliseconds}) of one match, its file read once; a
    seat whose times the run did not keep (a run written before they were) is left out of the second."""
    records = _records(run_dir, match_id, store)
    return _stderr(records), _times(records)


def stderr_of(store, ids: set) -> dict:
    """{match id: {seat: stderr text}} of the matches ``ids`` of one run (``store``: its ``RunStore``) that
    kept any, each stderr file read once."""
    found = {match_id: _stderr(records) for match_id, records in _records_of(store, set(ids)).items()}
    return {match_id: stderr for match_id, stderr in found.items() if stderr}


def valid_times(listed) -> bool:
    """Whether ``listed`` is a list of decision times: finite, non-negative numbers of milliseconds."""
    return isinstance(listed, list) and all(
        isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t >= 0 for t in listed)


def _stderr(records: dict) -> dict:
    return {seat: str(item.get("stderr", "")) for seat, item in records.items() if item.get("stderr")}


def _times(records: dict) -> dict:
    return {seat: item["times_ms"] for seat, item in records.items() if valid_times(item.get("times_ms"))}


def _records(run_dir, match_id: str, store=None) -> dict:
    """{seat: its line of the stderr file} of one match."""
    from results.store import RunStore

    return _records_of(store or RunStore(run_dir), {match_id}).get(match_id, {})


def _records_of(store, ids: set) -> dict:
    """{match id: {seat: its line of the stderr file}} of the matches ``ids`` (a line that is not a stderr
    record is skipped; a damaged file gives the whole lines before the damage)."""
    from results.store import SchemaError, stderr_lines

    parts: dict = {}
    for match_id in ids:
        try:
            task = store.holder(match_id)
        except (OSError, SchemaError):
            continue
        if task is not None:
            parts.setdefault(task, set()).add(match_id)
    out: dict = {}
    for task, wanted in parts.items():
        keys = [json.dumps(m, ensure_ascii=False).encode() for m in wanted] if len(wanted) == 1 else None
        for line in stderr_lines(store.path(STDERR_DIR, task)):
            if keys is not None and keys[0] not in line:  # one match: skip the others' lines unparsed
                continue
            try:
                item = json.loads(line)
                if item.get("match_id") in wanted:
                    out.setdefault(item["match_id"], {})[int(item["seat"])] = item
            except (ValueError, TypeError, KeyError, AttributeError):
                continue  # a line that is not a stderr record
    return out


def fault_notes(run_dir, match_id: str) -> list:
    """The ``harness_fault`` and ``harness_takeover`` events of a stored match's annotated log."""
    from results.store import RunStore

    try:
        text = RunStore(run_dir).read_log(match_id)
    except (KeyError, OSError, ValueError):
        return []
    out = []
    for line in text.splitlines():
        if '"harness_fault"' in line or '"harness_takeover"' in line:
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def list_faults(run_dir, plan: dict | None = None) -> list:
    """Every fault of a run, in match order: match id, deal set, seat, bot, kind, reason, the decision it
    happened at, who took the seat over, the stderr tail, and the command that reruns the match. Each
    part is read whole first, and with ``plan`` (its ``run.json``) the stored ids are checked against it,
    as every analysis does (results/integrity.py): a damaged or copied part is refused, naming it."""
    import polars as pl

    from results.integrity import IntegrityError, check_parts, id_problems
    from results.store import RunStore

    store = RunStore(run_dir)
    check_parts(store)
    problems = id_problems(store, plan) if plan is not None else []
    if problems:
        raise IntegrityError(f"{run_dir}: {'; '.join(problems)}: repair the run first")
    rows = (store.scan("matches").filter(pl.col("faults") > 0)
            .select("match_id", "deal_set", "seat", "bot", "termination", "fault_reason", "faults")
            .sort("match_id", "seat").collect().to_dicts())
    out = []
    notes_of: dict = {}
    for r in rows:
        if r["match_id"] not in notes_of:
            notes_of[r["match_id"]] = fault_notes(run_dir, r["match_id"])
        notes = [n for n in notes_of[r["match_id"]] if n.get("seat") == r["seat"]]
        fault = next((n for n in notes if n["e"] == "harness_fault"), {})
        takeover = next((n for n in notes if n["e"] == "harness_takeover"), {})
        tail = fault.get("stderr")
        if tail is None:
            tail = read_stderr(run_dir, r["match_id"], store).get(r["seat"], "")
        out.append({
            "match_id": r["match_id"], "deal_set": r["deal_set"], "seat": r["seat"], "bot": r["bot"],
            "kind": r["termination"], "reason": r["fault_reason"], "faults": r["faults"],
            "decision": fault.get("decision"), "taken_over_by": takeover.get("by"),
            "stderr_tail": (tail or "")[-TAIL_SHOWN:],
            "rerun": rerun_command(run_dir, r["match_id"]),
        })
    return out


def rerun_command(run_dir, match_id: str) -> str:
    """The command that plays a stored match again with its trace on the terminal (add
    ``--bot SEAT=FOLDER`` to put another version of a bot in a seat)."""
    import shlex

    return shlex.join(["ellibir", "rerun", str(run_dir), match_id, "--trace", "-"])


__all__ = ["STDERR_DIR", "MAX_TIMES", "bot_stderr", "bot_times", "save_stderr", "read_stderr",
           "read_stderr_and_times", "stderr_of", "valid_times", "fault_notes", "list_faults", "rerun_command"]
