"""The bots' own lines beside the steps of the viewer (harness/replay/viewer.py): a trace, or a run's stderr.

A trace (``play --trace FILE``, harness/players/trace.py) has every stderr line (``!``) and harness note
(``#``) of each seat in order, between the requests (``>`` lines of type ``request``) the seat was
sent. The seat's k-th request is its k-th decision in the log (a refused decision is asked for
again, and logged again), so a line belongs to the step of the request before it; lines before a
seat's first request (its start, its ``hello``) belong to the deal, the first step.

A run keeps only the tail of each bot's stderr per match (``RUN/stderr``, harness/runs/faultlog.py),
with no positions: it is shown at the seat's last own decision, marked as the tail at the end of
the match. A seat whose fault is in the log already shows that tail at its fault.

Each step gets ``logs``: ``[{"seat", "bot", "kind" ("stderr" or "note"), "text"}]``, text as written
(the page shows it with ``textContent``, never as markup).
"""

from __future__ import annotations

import json
import re

LINE = re.compile(r"^\S+ seat (\d+) (\S+) ([><!#]) ?(.*)$")
KINDS = {"!": "stderr", "#": "note"}
MOST_LINES = 2_000  # per step and seat: a bot that writes without end cannot make the page huge
MOST_CHARS = 2_000  # per line


def _own_steps(doc: dict) -> dict:
    """{seat: [the index of the step of each of its own decisions, in order]} (not a reference bot's)."""
    out: dict = {}
    for step in doc["steps"]:
        if step["decision"] is not None and not step["played_by"]:
            out.setdefault(step["seat"], []).append(step["index"])
    return out


def _add(doc: dict, index: int, seat: int, bot: str, kind: str, text: str) -> None:
    step = doc["steps"][index]
    logs = step.setdefault("logs", [])
    if sum(1 for x in logs if x["seat"] == seat) >= MOST_LINES:
        return
    logs.append({"seat": seat, "bot": bot, "kind": kind, "text": text[:MOST_CHARS]})


def attach_trace(doc: dict, text: str) -> int:
    """Put a trace's stderr lines and notes on the steps they belong to; returns how many were placed.
    Raises ValueError when the trace names a seat the match does not have."""
    own = _own_steps(doc)
    asked = {}  # seat -> requests seen
    placed = 0
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        seat, bot, direction, rest = int(m[1]), m[2], m[3], m[4]
        if not 0 <= seat < doc["players"]:
            raise ValueError(f"the trace names seat {seat}; the match has {doc['players']} seats")
        if direction == ">":
            if '"request"' in rest and _is_request(rest):
                asked[seat] = asked.get(seat, 0) + 1
            continue
        if direction not in KINDS:
            continue
        k = asked.get(seat, 0)
        steps = own.get(seat, [])
        index = 0 if k == 0 or not steps else steps[min(k, len(steps)) - 1]
        _add(doc, index, seat, bot, KINDS[direction], rest)
        placed += 1
    return placed


def _is_request(text: str) -> bool:
    try:
        return json.loads(text).get("type") == "request"
    except (ValueError, AttributeError):
        return False


def attach_stderr(doc: dict, stderr: dict) -> int:
    """Put a run's stderr tails ({seat: text}) at each seat's last own decision (the deal when it made
    none), unless the seat's fault already shows it; returns how many lines were placed."""
    own = _own_steps(doc)
    shown = {h.get("seat") for s in doc["steps"] for h in s["harness"]
             if h.get("e") == "harness_fault" and h.get("stderr")}
    placed = 0
    for seat, text in sorted(stderr.items()):
        seat = int(seat)
        if seat in shown or not text or not 0 <= seat < doc["players"]:
            continue
        index = own[seat][-1] if own.get(seat) else 0
        _add(doc, index, seat, doc["bots"][seat], "note", "stderr tail, as kept at the end of the match:")
        for line in str(text).splitlines():
            _add(doc, index, seat, doc["bots"][seat], "stderr", line)
            placed += 1
    return placed


__all__ = ["attach_stderr", "attach_trace"]
