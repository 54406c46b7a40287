"""Run one match: the engine's game interface, one player per seat, the fault policy. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass

from engine import new_match

from .players import MAX_REFUSALS, Seat, make_player, player_seed


@dataclass(frozen=True)
class MatchSpec:
    """Everything needed to play one match again."""

    game: str
    rules: object
    seed: int
    bots: tuple  # player names in seat order, e.g. ("builtin:greedy", "builtin:random")
    deals: tuple = ()
    max_refusals: int = MAX_REFUSALS


def run_match(game: str, rules, seed, players: list, deals=None, on_event=None, max_refusals: int = MAX_REFUSALS):
    """Play a match to its end; returns (MatchResult, events, faults).

    ``on_event`` is called with every event as it happens. The match stops early only when a seat
    stalls (its reference bot refused too); the result then says "unfinished".
    """
    match = new_match(game, rules, seed, deals)
    if len(players) != match.players:
        raise ValueError(f"{game} under these rules needs {match.players} players, got {len(players)}")
    seats = [Seat(i, p, rules, seed, max_refusals) for i, p in enumerate(players)]
    faults, decisions, shown, last = [], 0, 0, None
    shown = _emit(match.events, shown, on_event)
    while not match.is_over:
        seat = match.to_move()
        legal = match.legal(seat)
        turn = (seat, legal.get("round"), legal.get("turn"))  # games without turn numbers: the seat
        if turn != last:
            seats[seat].new_turn()
            last = turn
        decision = seats[seat].decide(match.observe(seat), legal, decisions, faults)
        outcome = match.apply(seat, decision)
        decisions += 1
        shown = _emit(match.events, shown, on_event)
        if not outcome.accepted:
            seats[seat].refused(outcome, decisions, faults)
            if seats[seat].stalled:
                break
    return match.result(), match.events, faults


def _emit(events: list, shown: int, on_event) -> int:
    if on_event is not None:
        for e in events[shown:]:
            on_event(e)
    return len(events)


def run_spec(spec: MatchSpec, on_event=None):
    """``run_match`` for a MatchSpec: builds the players from their names."""
    players = [make_player(name, player_seed(spec.seed, seat)) for seat, name in enumerate(spec.bots)]
    return run_match(spec.game, spec.rules, spec.seed, players, list(spec.deals) or None, on_event, spec.max_refusals)


def summary(spec: MatchSpec, result, faults: list) -> dict:
    """The match as one JSON-ready document: rules, variant, seed, bots, rounds, totals, ranks, faults."""
    return {
        "game": spec.game,
        "rules": spec.rules.normalised(),
        "variant": spec.rules.variant_id,
        "seed": spec.seed,
        "bots": list(spec.bots),
        "rounds": result.rounds,
        "totals": result.totals,
        "ranks": result.ranks,
        "reason": result.reason,
        "faults": [f.to_json() for f in faults],
    }
