"""Greedy's candidate turns, which vgreedy and vbot score and self-play's noise picks among: its plays
with each of its first discards, and waiting to open with the same discards."""

from __future__ import annotations

from .base import discardable
from .greedy import Greedy
from .outs import cheap_order
from .plan import Plan


class Option:
    """A candidate turn: the plays of ``plan`` and the discard ``card``."""

    __slots__ = ("plan", "card", "opened_before")

    def __init__(self, plan: Plan, card: int, opened_before: bool):
        self.plan, self.card, self.opened_before = plan, card, opened_before

    def turn(self):
        return self.plan.turn(self.card)

    def hand_after(self) -> list:
        hand = self.plan.hand[:]
        hand[self.card] -= 1
        return hand

    def score(self, scorer) -> float:
        hand = self.hand_after()
        if not any(hand):
            return scorer.going_out(self.opened_before, self.card)
        return scorer.next_draw(hand, self.plan.table, self.plan.opened)


def play_options(greedy: Greedy, view, legal: dict, discards: int, wait: int = 1) -> list:
    """Greedy's plays with its first ``discards`` discards, then waiting with as many (when greedy
    would open now and not go out): greedy's own turn first."""
    plan = Plan(view, legal)
    opened_before = plan.opened
    if plan.opened or greedy.open(plan):
        greedy.after_open(plan)
    cards = discardable(view, legal, plan.hand)
    if not cards:
        return [Fixed(greedy.play(view, legal))]
    first = greedy.choose_discard(plan, cards)
    order = [first] + [c for c in cheap_order(greedy, plan, cards) if c != first]
    out = [Option(plan, c, opened_before) for c in order[:discards]]
    if wait and plan.opened and not opened_before and plan.size > 1:
        waiting = Plan(view, legal)
        rest = cheap_order(greedy, waiting, discardable(view, legal, waiting.hand))
        out += [Option(waiting, c, False) for c in rest[:discards]]
    return out


class Fixed:
    """A turn decided without scoring (no card may be discarded: greedy's fallback)."""

    def __init__(self, decision):
        self.decision = decision

    def turn(self):
        return self.decision

    def score(self, scorer) -> float:
        return 0.0


__all__ = ["Fixed", "Option", "play_options"]
