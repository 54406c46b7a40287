"""What each seat's own bot did in a played match, for the results' play columns (results/schema.py):
its decision times and least bank (from its player), its refused decisions, and the round from which
the reference bot played for it (both from the match's annotated log, harness/match/log.py).

A seat's figures are its own bot's only: whatever the reference bot did after a fault is left out.
"""

from __future__ import annotations

from results.rows import play_values


def stand_in_rounds(events: list) -> dict:
    """Seat -> the index of the first round in which the reference bot played for it: the round under
    way when its bot faulted, or the next round when the fault came between two rounds."""
    first, current, next_round = {}, None, 0
    for e in events:
        kind = e.get("e")
        if kind == "round_start":
            current = e.get("index", next_round)
        elif kind == "round_end":
            next_round = (current if current is not None else next_round) + 1
            current = None
        elif kind == "harness_takeover" and e["seat"] not in first:
            first[e["seat"]] = current if current is not None else next_round
    return first


def own_refusals(events: list, seats: int) -> list:
    """Per seat, the refused decisions of its own bot (before any takeover)."""
    counts, replaced = [0] * seats, set()
    for e in events:
        kind = e.get("e")
        if kind == "refused" and e.get("seat") not in replaced and 0 <= e.get("seat", -1) < seats:
            counts[e["seat"]] += 1
        elif kind == "harness_takeover":
            replaced.add(e["seat"])
    return counts


def seat_play(players: list, events: list) -> list:
    """``results.rows.play_values`` of each seat: ``players`` are the seats' own players (not their
    stand-ins), ``events`` the match's annotated log."""
    refusals = own_refusals(events, len(players))
    out = []
    for seat, player in enumerate(players):
        times = [t[0] for t in getattr(player, "times", ())]
        bank = getattr(player, "bank", None) if getattr(player, "clocked", False) else None
        out.append(play_values(times, refusals[seat], bank))
    return out


__all__ = ["own_refusals", "seat_play", "stand_in_rounds"]
