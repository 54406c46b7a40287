"""The annotated match log: the engine's events with the harness's own events between them.

One JSON object a line (docs/match-log.md). The engine's events are written exactly as
``engine.events.to_lines`` writes them, so the engine can replay them; the harness adds events whose
``e`` starts with ``harness_``:

- ``harness_bots`` (right after ``match_start``): the bot in each seat (``name@version`` or
  ``builtin:NAME``) and the fault policy;
- ``harness_fault``: a seat's fault: its kind, reason, the decision count when it happened, the
  tail of the bot's stderr;
- ``harness_takeover``: the reference bot that plays the seat from then on, and from which decision;
- ``harness_result`` (last): totals, ranks after the fault policy, the end reason, the faulty seats.

``run_match`` emits the harness events through its ``on_event`` callback in the order they happen,
so a ``Recorder`` given as ``on_event`` collects the whole log. ``split`` separates the two kinds again
for the engine's replay.
"""

from __future__ import annotations

import json

from engine.events import CARD_FIELDS, event_json, read_lines, replay

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; without it every line is encoded alone
    orjson = None

PREFIX = "harness_"
FORMAT = 1  # the version of the harness events' fields (harness_bots carries it)


def is_harness(e: dict) -> bool:
    return str(e.get("e", "")).startswith(PREFIX)


def bots_event(labels: list, on_fault: str, game: str) -> dict:
    return {"e": "harness_bots", "format": FORMAT, "bots": list(labels), "on_fault": on_fault, "game": game}


def fault_events(fault, at: int) -> list:
    """The harness events of one ``players.Fault``: the fault, then the takeover when there was one."""
    out = [{"e": "harness_fault", "seat": fault.seat, "bot": fault.player, "kind": fault.kind,
            "reason": fault.reason, "decision": fault.decision, "at": at, "stderr": fault.stderr}]
    if fault.replaced_by:
        out.append({"e": "harness_takeover", "seat": fault.seat, "bot": fault.player, "by": fault.replaced_by,
                    "from_decision": fault.decision})
    return out


def result_event(result, on_fault: str, faults: list) -> dict:
    return {"e": "harness_result", "totals": list(result.totals), "ranks": list(result.ranks),
            "reason": result.reason, "on_fault": on_fault, "faulty": sorted({f.seat for f in faults})}


class Recorder:
    """An ``on_event`` callback that keeps every event, engine and harness, in order; ``then`` is
    called with each one too (a printer, say)."""

    def __init__(self, then=None):
        self.events: list = []
        self.then = then

    def __call__(self, e: dict) -> None:
        self.events.append(e)
        if self.then is not None:
            self.then(e)

    def text(self) -> str:
        return to_text(self.events)


def _line_encoder():
    """One compact JSON encoder for every line of every log (``json.dumps`` with options builds a new
    encoder for each call: most of the cost of a short line)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # no C accelerator: the pure-Python encoder, made once
        encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
        return encoder.encode
    c_encode = make(None, None, json.encoder.encode_basestring, None, ":", ",", False, False, True)
    return lambda o: "".join(c_encode(o, 0))


_encode = _line_encoder()


def to_text(events: list) -> str:
    """The annotated log as JSON lines (engine events in their card-string form), written for the
    whole match at once: one ``orjson`` call for the match (``_one_call``), or one encoder call a
    line where that does not apply. Both give the same lines."""
    if not events:
        return ""
    text = _one_call(events) if orjson is not None else None
    if text is None:
        text = "\n".join([_encode(e if is_harness(e) else event_json(e)) for e in events]) + "\n"
    return text


_BETWEEN = b'},{"e":'  # where one event ends and the next begins in a list of events encoded at once


def _one_call(events: list) -> str | None:
    """The log's lines from one ``orjson.dumps`` of the whole list, cut between events; None when
    that cannot be trusted to give the lines one encoder call a line gives.

    Past ``match_start``, the engine's events hold only ints, bools, None, card and decision
    strings, lists and dicts, which both encoders write alike (orjson refuses ints past 64 bits and
    lone surrogates: then None). ``match_start`` (the rules, which may hold floats, spelled
    differently by orjson) and the harness events (a bot's stderr among them) are written by the
    standard encoder and put in whole (``orjson.Fragment``). The cut is exact when every event
    begins with its "e" key and the list is cut into as many lines as it has events: a quote inside
    a JSON string is escaped, so ``},{"e":`` appears only between objects, and one more place (a
    nested list of such objects) would give one line too many."""
    items = []
    for e in events:
        kind = e.get("e")
        if kind.__class__ is not str or next(iter(e)) != "e":
            return None
        if kind.startswith(PREFIX):
            items.append(orjson.Fragment(_encode(e)))
        elif kind == "match_start":
            items.append(orjson.Fragment(_encode(event_json(e))))
        elif not e.keys().isdisjoint(CARD_FIELDS):
            items.append(event_json(e))
        else:
            items.append(e)
    try:
        blob = orjson.dumps(items)
    except (TypeError, ValueError):  # what orjson does not write (ints past 64 bits, lone surrogates)
        return None
    lines = blob[1:-1].split(_BETWEEN)
    if len(lines) != len(events):
        return None
    return b'}\n{"e":'.join(lines).decode() + "\n"


def split(events: list) -> tuple[list, list]:
    """(the engine's events, the harness's events) of an annotated log's parsed lines."""
    return [e for e in events if not is_harness(e)], [e for e in events if is_harness(e)]


def read(text: str) -> tuple[list, list]:
    """Parse and check an annotated log (or a plain event log): the engine's events are replayed
    (ValueError when they differ), and the replayed events are returned with the harness events
    put back in their places: (events in order, harness events)."""
    lines = read_lines(text)
    engine_events, notes = split(lines)
    again = replay(engine_events).events
    merged, k = [], 0
    for e in lines:
        if is_harness(e):
            merged.append(e)
        else:
            merged.append(again[k])
            k += 1
    return merged, notes


def labels_of(notes: list) -> list | None:
    return next((n["bots"] for n in notes if n["e"] == "harness_bots"), None)


__all__ = ["PREFIX", "FORMAT", "is_harness", "bots_event", "fault_events", "result_event", "Recorder", "to_text",
           "split", "read", "labels_of"]
