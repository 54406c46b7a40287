"""The event log: JSON lines out, and replaying a logged match."""

from __future__ import annotations

import json

from .cards import JOKER, card_str
from .decisions import parse_decision
from .game import get_game

_CARD_KEYS = ("card", "cut")
CARD_FIELDS = (*_CARD_KEYS, "cards")  # the fields event_json rewrites; an event without them goes as it is


_NAMES = tuple(card_str(c) for c in range(JOKER + 1))


def _name(c: int) -> str:
    return _NAMES[c] if 0 <= c <= JOKER else card_str(c)


def event_json(e: dict) -> dict:
    """An event with its card ids written as card strings (a copy; the event is left as it is)."""
    out = dict(e)
    for k in _CARD_KEYS:
        v = out.get(k)
        if isinstance(v, int):
            out[k] = _name(v) if v >= 0 else None
    v = out.get("cards")
    if isinstance(v, list) and v and isinstance(v[0], int):
        out["cards"] = [_name(c) for c in v]
    return out


def to_lines(events) -> str:
    return "".join(json.dumps(event_json(e), separators=(",", ":")) + "\n" for e in events)


def read_lines(text: str) -> list[dict]:
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"line {n}: not JSON ({e.msg})") from None
    if not out or out[0].get("e") != "match_start":
        raise ValueError("an event log starts with a match_start event")
    return out


def replay(events: list[dict]):
    """Play the logged decisions again on a fresh match; returns the match.

    Raises ValueError when the replayed events differ from the log.
    """
    start = events[0]
    match = new_match_from_start(start)
    for e in events:
        if e.get("e") == "decision":
            match.apply_text(e["seat"], e["text"])
    again = [json.loads(json.dumps(event_json(x))) for x in match.events]
    logged = [json.loads(json.dumps(x)) for x in events]
    if again != logged:
        at = next((i for i, (a, b) in enumerate(zip(again, logged)) if a != b), min(len(again), len(logged)))
        raise ValueError(f"the replay differs from the log at event {at}")
    return match


def new_match_from_start(start: dict):
    """A fresh match of the logged game, rules, seed and deals (the log's match_start event)."""
    factory = get_game(start.get("game", "ellibir"))
    rules = factory.rules_from_dict(start["rules"])
    deals = factory.deals_from_json(start["deals"], rules) if start.get("deals") else None
    return factory.match(rules, start["seed"], deals)


__all__ = ["CARD_FIELDS", "event_json", "to_lines", "read_lines", "replay", "parse_decision"]
