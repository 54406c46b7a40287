"""Decision times of the mc bot at its default budget: one mc against three greedy, CPU time."""

from __future__ import annotations

import time

from bots import make_bot
from engine import make_rules, new_match


def mc_decision_times(deals: int = 6, name: str = "mc", seed: int = 1) -> dict:
    """Median and 90th percentile seconds per mc decision over ``deals`` one-round matches, mc at every seat."""
    rules = make_rules("standard", {"players": 4, "rounds": 1})
    times = []
    for deal in range(deals):
        seat = deal % 4
        match = new_match("ellibir", rules, seed + deal)
        bots = [make_bot(name if s == seat else "greedy", f"{seed}:{deal}:{s}") for s in range(4)]
        for s, bot in enumerate(bots):
            bot.start(s, rules)
        while not match.is_over:
            s = match.to_move()
            view, legal = match.observe(s), match.legal(s)
            start = time.process_time()
            decision = bots[s].decide(view, legal)
            if s == seat:
                times.append(time.process_time() - start)
            if not match.apply(s, decision).accepted:
                bots[s].refused(None)
    times.sort()
    return {"median": times[len(times) // 2], "p90": times[int(len(times) * 0.9)], "decisions": len(times)}
