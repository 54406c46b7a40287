"""Quick paired strength check on duplicate deals, in process: a bot at one seat against greedy at
the others, paired with the all-greedy round on the same deal and seat (lower round score is better).

    nice -n 10 .venv/bin/python -m benchmarks.paired mc 200 [players] [first_deal]

Prints the mean paired score difference (bot minus greedy in the same seat of the same deal) with
its standard error, round wins of each, and the bot's CPU time per decision. A development tool:
the project's ratings (``ellibir tournament`` then ``ellibir ratings``) give the figures of record."""

from __future__ import annotations

import math
import sys
import time

from bots import make_bot
from engine import make_rules, new_match


def play_round(rules, deal: int, names: list, seed: str, timed: int | None = None, make=make_bot):
    match = new_match("ellibir", rules, deal)
    bots = [make(n, f"{seed}:{deal}:{s}") for s, n in enumerate(names)]
    for bot in bots:
        if hasattr(bot, "watch"):  # benchmarks/ceiling.py: a bot that is shown the true state
            bot.watch(match)
    for s, bot in enumerate(bots):
        bot.start(s, rules)
    times = []
    while not match.is_over:
        s = match.to_move()
        view, legal = match.observe(s), match.legal(s)
        start = time.process_time()
        decision = bots[s].decide(view, legal)
        if s == timed:
            times.append(time.process_time() - start)
        if not match.apply(s, decision).accepted:
            bots[s].refused(None)
    record = match.result().rounds[0]
    scores = [record["seats"][s]["score"] for s in range(rules.players)]
    return scores, times


def paired(name: str, deals: int, players: int = 4, first: int = 0, other: str = "greedy", make=make_bot) -> dict:
    rules = make_rules("standard", {"players": players, "rounds": 1})
    diffs, wins, base_wins, times = [], 0, 0, []
    for deal in range(first, first + deals):
        seat = deal % players
        base, _ = play_round(rules, deal, [other] * players, "g")
        names = [other] * players
        names[seat] = name
        got, t = play_round(rules, deal, names, "b", timed=seat, make=make)
        times += t
        diffs.append(got[seat] - base[seat])
        wins += got[seat] == min(got) and got[seat] < 0
        base_wins += base[seat] == min(base) and base[seat] < 0
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    times.sort()
    return {"bot": name, "deals": n, "diff": round(mean, 1), "se": round(sd / math.sqrt(n), 1),
            "wins": wins / n, "greedy_wins": base_wins / n,
            "median_s": round(times[len(times) // 2], 4) if times else 0,
            "p90_s": round(times[int(len(times) * 0.9)], 4) if times else 0}


if __name__ == "__main__":
    args = sys.argv[1:]
    print(paired(args[0], int(args[1]), int(args[2]) if len(args) > 2 else 4, int(args[3]) if len(args) > 3 else 0))
