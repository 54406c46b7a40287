"""Rows of the ``matches`` and ``rounds`` tables from a played match (``engine.game.MatchResult``).

Game-neutral: the common columns come from ``MatchResult`` and the round records' common keys
(``engine/game.py``); a game's own round columns from its ``round_values(record, seat)``.
"""

from __future__ import annotations

import bisect
import math

from engine.game import get_game

from .schema import PLAY_COLUMNS, TIME_BIN_COLUMNS, TIME_BINS, SchemaError, game_round_columns, rule_value


def _get(fault, name: str):
    return fault[name] if isinstance(fault, dict) else getattr(fault, name)


def _check_game(game: str, rules, result) -> None:
    if getattr(rules, "game", game) != game:
        raise SchemaError(f"the rules are of game {rules.game!r}, the rows of game {game!r}")
    if getattr(result, "game", game) != game:
        raise SchemaError(f"the result is of game {result.game!r}, the rows of game {game!r}")


def play_values(times: list, refusals: int, bank_left: float | None) -> dict:
    """The ``PLAY_COLUMNS`` of one seat: its bot's decision times (seconds), its refused decisions, the
    least bank it had left (None without a clock)."""
    bins = [0] * len(TIME_BIN_COLUMNS)
    for t in times:
        bins[bisect.bisect_right(TIME_BINS, t)] += 1
    out = {"decisions": len(times), "refusals": refusals, "time_sum": float(math.fsum(times)),
           "time_max": float(max(times)) if times else None,
           "bank_left": float(bank_left) if bank_left is not None else None,
           **dict(zip(TIME_BIN_COLUMNS, bins))}
    assert list(out) == [name for name, _, _ in PLAY_COLUMNS]
    return out


def match_rows(run: str, match_id: str, deal_set: int, game: str, rules, result, faults: list,
               bots: list[dict], play: list[dict]) -> list[dict]:
    """One row per seat of the ``matches`` table.

    ``faults``: harness ``Fault`` objects or dicts with ``seat``, ``kind``, ``reason``.
    ``bots``: one dict per seat, ``{"label", "version", "hash"}``. ``play``: one dict per seat of
    ``play_values``.
    ``termination`` is the match's end reason, or the kind of the seat's first fault;
    ``fault_reason`` is that fault's reason (null without a fault); ``faults`` counts the seat's faults.
    """
    _check_game(game, rules, result)
    n = len(result.totals)
    if len(bots) != n or len(play) != n:
        raise SchemaError(f"{match_id}: {n} seats but {len(bots)} bots and {len(play)} seats' play")
    by_seat: dict[int, list] = {}
    for f in faults:
        by_seat.setdefault(_get(f, "seat"), []).append(f)
    variant = rules.variant_id
    rule_cols = {f"rule_{k}": rule_value(v) for k, v in rules.normalised().items()}
    rows = []
    for seat in range(n):
        mine = by_seat.get(seat, [])
        bot = bots[seat]
        rows.append({
            "game": game,
            "run": run,
            "match_id": match_id,
            "deal_set": deal_set,
            "seat": seat,
            "bot": bot["label"],
            "bot_version": bot.get("version", ""),
            "bot_hash": bot.get("hash", ""),
            "total": result.totals[seat],
            "rank": result.ranks[seat],
            "termination": _get(mine[0], "kind") if mine else result.reason,
            "faults": len(mine),
            "fault_reason": _get(mine[0], "reason") if mine else None,
            "variant": variant,
            **play[seat],
            **rule_cols,
        })
    return rows


def round_rows(run: str, match_id: str, deal_set: int, game: str, rules, result, bots: list[dict],
               stand_in: dict | None = None) -> list[dict]:
    """One row per round (void rounds too) and seat of the ``rounds`` table. ``won``: the seat is the
    record's ``winner``, or one of its ``winners`` when a game has several (engine/game.py).
    ``bots``: one dict per seat with its ``label``; ``stand_in``: seat -> the index of the first round
    in which the reference bot played for it (after a fault)."""
    _check_game(game, rules, result)
    stand_in = stand_in or {}
    factory = get_game(game)
    declared = [name for name, _, _ in game_round_columns(game)]
    fill = factory.round_values
    variant = rules.variant_id
    rows = []
    for record in result.rounds:
        n = len(record["seats"])
        void = bool(record["void"])
        for seat in range(n):
            own = fill(record, seat) if declared else {}
            if set(own) != set(declared):
                raise SchemaError(f"{game}: round_values gave {sorted(own)}, round_columns declares {sorted(declared)}")
            rows.append({
                "game": game,
                "run": run,
                "match_id": match_id,
                "deal_set": deal_set,
                "variant": variant,
                "round_index": record["index"],
                "round_number": 0 if void else record.get("number", 0),
                "seat": seat,
                "bot": bots[seat]["label"],
                "dealer": record["dealer"],
                "position": (seat - record["first"]) % n + 1,
                "score": record["seats"][seat]["score"],
                "won": seat in record["winners"] if "winners" in record else record.get("winner", -1) == seat,
                "turns": record["turns"],
                "void": void,
                "stand_in": seat in stand_in and record["index"] >= stand_in[seat],
                **own,
            })
    return rows


__all__ = ["match_rows", "play_values", "round_rows"]
