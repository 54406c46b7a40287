"""Void rounds and the first player's advantage with one bot at every seat, in process.

    nice -n 10 .venv/bin/python -m benchmarks.void_study mc 30 101 [players]

One-round matches on deals 0..N-1 under the standard rules with the given opening threshold: the
share of void rounds (nobody went out), of those the share where somebody had opened, and the first
player's round wins and mean score against the others' mean (lower is better), and how the decided
rounds were won (``won_by``: a plain finish, or G2 all at once, G3 with a joker, G4 from pairs; a
round can count under two of these)."""

from __future__ import annotations

import math
import sys

from bots import make_bot
from engine import make_rules, new_match


def study(name: str, deals: int, threshold: int = 101, players: int = 4) -> dict:
    rules = make_rules("standard", {"players": players, "rounds": 1, "threshold": threshold})
    void = opened_void = first_wins = 0
    edges = []
    ways = {"normal": 0, "G2": 0, "G3": 0, "G4": 0}
    for deal in range(deals):
        match = new_match("ellibir", rules, deal)
        first = match.round.first
        bots = [make_bot(name, f"void:{deal}:{s}") for s in range(players)]
        for s, bot in enumerate(bots):
            bot.start(s, rules)
        while not match.is_over:
            s = match.to_move()
            if not match.apply(s, bots[s].decide(match.observe(s), match.legal(s))).accepted:
                bots[s].refused(None)
        record = match.result().rounds[0]
        seats = record["seats"]
        scores = [seats[s]["score"] for s in range(players)]
        if record["void"]:
            void += 1
            opened_void += any(seats[s].get("opened") for s in range(players))
        else:
            first_wins += record["winner"] == first
            finish = record["finish"] or {}
            marks = [g for g in ("G2", "G3", "G4") if finish.get(g)]
            for g in marks or ["normal"]:
                ways[g] += 1
        others = [scores[s] for s in range(players) if s != first]
        edges.append(scores[first] - sum(others) / len(others))
    mean = sum(edges) / deals
    sd = math.sqrt(sum((e - mean) ** 2 for e in edges) / (deals - 1))
    return {"bot": name, "deals": deals, "threshold": threshold, "void": void / deals,
            "void_after_opening": opened_void / deals, "first_wins_of_decided": first_wins / max(1, deals - void),
            "first_edge": round(mean, 1), "first_edge_se": round(sd / math.sqrt(deals), 1),
            "won_by": {k: round(v / max(1, deals - void), 3) for k, v in ways.items()}}


if __name__ == "__main__":
    a = sys.argv[1:]
    print(study(a[0], int(a[1]), int(a[2]) if len(a) > 2 else 101, int(a[3]) if len(a) > 3 else 4))
