"""The outs bot: greedy with a one-card look-ahead for its discards.

Among greedy's first few discards (none that costs 50 under A5), it keeps the hand that the most
unseen cards would complete on the next draw: before opening, the cards that would let it open
(O1 at the turn's threshold); once opened, the cards that would let it go out (G1). Unseen cards
count with their copies (exact card tracking: ``engine.determinise.read_view``). Ties, and hands
that no single card completes, keep greedy's order. Everything else is greedy's.

Opened losers pay about 16 points a round against greedy and the unopened about 100, while the
winner gets -100 (docs/bots.md): the race to open and to go out decides a round, so the discard
that keeps the most ways to finish is worth more than the one that sheds the most points.
"""

from __future__ import annotations

from collections import Counter

from engine.determinise import read_view
from engine.solver import best_opening, going_out

from .greedy import Greedy
from .params import Param
from .plan import Plan

DISCARDS = 6


class Outs(Greedy):
    name = "outs"
    PARAMS = {"discards": Param(int, 1, 16)}  # builtin:outs:discards=10

    def __init__(self, seed=0, discards: int = DISCARDS):
        super().__init__(seed)
        self.discards = max(1, discards)

    def choose_discard(self, plan: Plan, cards: list) -> int:
        if plan.size <= 2:
            return super().choose_discard(plan, cards)
        order = cheap_order(self, plan, cards)[:self.discards]
        if len(order) < 2:
            return order[0]
        unseen = Counter(read_view(plan.view).unknown)
        counts = [outs(plan, c, unseen) for c in order]
        return order[counts.index(max(counts))]


def outs(plan: Plan, discard: int, unseen: Counter) -> int:
    """How many unseen cards would, drawn next, let the hand left after ``discard`` open (before
    opening) or go out (once opened)."""
    hand = plan.hand[:]
    hand[discard] -= 1
    need = plan.legal["threshold"]
    total = 0
    for card, copies in unseen.items():
        hand[card] += 1
        if plan.opened:
            total += copies if going_out(hand, plan.table) is not None else 0
        elif best_opening(hand, keep=1)[0] >= need:
            total += copies
        hand[card] -= 1
    return total


def cheap_order(greedy: Greedy, plan: Plan, cards: list) -> list:
    """Greedy's discard order, its own pick first, without the other discards that cost 50 (A5)."""
    order = greedy.discard_order(plan, cards)
    if len(order) < 2:
        return order
    key = greedy.discard_key(plan)
    return order[:1] + [c for c in order[1:] if not key(c)[0]]


__all__ = ["Outs", "cheap_order", "outs"]
