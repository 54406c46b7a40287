"""Rows of the ``matches`` and ``rounds`` tables from a played match (``engine.game.MatchResult``).

Game-neutral: the common columns come from ``MatchResult`` and the round records' common keys
(``engine/game.py``); a game's own round columns from its ``round_values(record, seat)``.
"""

from __future__ import annotations

from engine.game import get_game

from .schema import SchemaError, game_round_columns, rule_value


def _get(fault, name: str):
    return fault[name] if isinstance(fault, dict) else getattr(fault, name)


def _check_game(game: str, rules, result) -> None:
    if getattr(rules, "game", game) != game:
        raise SchemaError(f"the rules are of game {rules.game!r}, the rows of game {game!r}")
    if getattr(result, "game", game) != game:
        raise SchemaError(f"the result is of game {result.game!r}, the rows of game {game!r}")


def match_rows(run: str, match_id: str, deal_set: int, game: str, rules, result, faults: list,
               bots: list[dict]) -> list[dict]:
    """One row per seat of the ``matches`` table.

    ``faults``: harness ``Fault`` objects or dicts with ``seat``, ``kind``, ``reason``.
    ``bots``: one dict per seat, ``{"label", "version", "hash"}``.
    ``termination`` is the match's end reason, or the kind of the seat's first fault;
    ``fault_reason`` is that fault's reason (null without a fault); ``faults`` counts the seat's faults.
    """
    _check_game(game, rules, result)
    n = len(result.totals)
    if len(bots) != n:
        raise SchemaError(f"{match_id}: {n} seats but {len(bots)} bots")
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
            **rule_cols,
        })
    return rows


def round_rows(run: str, match_id: str, deal_set: int, game: str, rules, result) -> list[dict]:
    """One row per round (void rounds too) and seat of the ``rounds`` table. ``won``: the seat is the
    record's ``winner``, or one of its ``winners`` when a game has several (engine/game.py)."""
    _check_game(game, rules, result)
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
                "dealer": record["dealer"],
                "position": (seat - record["first"]) % n + 1,
                "score": record["seats"][seat]["score"],
                "won": seat in record["winners"] if "winners" in record else record.get("winner", -1) == seat,
                "turns": record["turns"],
                "void": void,
                **own,
            })
    return rows


__all__ = ["match_rows", "round_rows"]
