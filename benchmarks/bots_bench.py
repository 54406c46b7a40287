"""Full rounds per second with four in-process greedy bots (observation and legal info included)."""

from __future__ import annotations

import time

from bots import make_bot
from engine import make_rules, new_match


def greedy_rounds(rounds_wanted: int = 300, seed: int = 1) -> float:
    """The same 300-odd rounds every run, timed in CPU seconds (steadier than wall time here)."""
    rules = make_rules(overrides={"rounds": 1, "players": 4})
    rounds = 0
    start = time.process_time()
    while rounds < rounds_wanted:
        match = new_match("ellibir", rules, seed + rounds)
        bots = [make_bot("greedy", seed + i) for i in range(4)]
        for seat, bot in enumerate(bots):
            bot.start(seat, rules)
        while not match.is_over:
            seat = match.to_move()
            view, legal = match.observe(seat), match.legal(seat)
            bot = bots[seat]
            decision = bot.draw(view, legal) if view.phase == "draw" else bot.play(view, legal)
            outcome = match.apply(seat, decision)
            if not outcome.accepted:
                bot.refused(outcome)
        rounds += len(match.result().rounds)
    return rounds / (time.process_time() - start)
