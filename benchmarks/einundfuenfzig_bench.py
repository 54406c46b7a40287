"""Einundfünfzig games per second with four in-process random bots (observation and legal information
included), and, as the baseline measured in the same run, Ellibir rounds per second with four
random bots through the same loop."""

from __future__ import annotations

import time

from bots import make_bot
from engine.game import make_rules, new_match


def _play(game: str, bots: str, rules, seed: int) -> int:
    """One match with in-process bots, as the harness drives it; returns its rounds (games)."""
    match = new_match(game, rules, seed)
    players = [make_bot(bots, seed + i, game) for i in range(rules.players)]
    for seat, bot in enumerate(players):
        bot.start(seat, rules)
    while not match.is_over:
        seat = match.to_move()
        bot = players[seat]
        outcome = match.apply(seat, bot.decide(match.observe(seat), match.legal(seat)))
        if not outcome.accepted:
            bot.refused(outcome)
    return len(match.result().rounds)


def rate(game: str, wanted: int, seed: int = 1) -> float:
    """Rounds per CPU second over matches of one round each, the same ones every run."""
    rules = make_rules(game, "standard", {"players": 4, "rounds": 1})
    done = 0
    start = time.process_time()
    while done < wanted:
        done += _play(game, "random", rules, seed + done)
    return done / (time.process_time() - start)


def games_per_second(games: int = 3000, ellibir_rounds: int = 60) -> dict:
    return {"games": rate("einundfuenfzig", games), "ellibir_rounds": rate("ellibir", ellibir_rounds)}


if __name__ == "__main__":
    print(games_per_second())
