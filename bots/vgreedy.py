"""The vgreedy bot: greedy's candidates, each scored by the learned value of the position V
(bots/value/) in expectation over the next draw.

Draws: greedy's take (the discard with the melds it makes) is scored by V of the position it leaves;
the stock by V's expectation over every unseen card kind, weighted by its unseen copies. Turns:
greedy's plays with each of its first ``discards`` discards (none that costs 50 under A5), and,
when greedy would open now without going out, waiting (no plays) with the same discards; each is
scored by V's expectation at the bot's next play, over the card it will draw then, and a turn that
goes out by its round margin. Ties keep greedy's order; the cut card and pair takes (D6, P1) are
greedy's.
"""

from __future__ import annotations

import random

from engine.decisions import STOCK
from engine.rules import make_rules

from .base import Bot, discardable
from .greedy import Greedy
from .outs import cheap_order
from .plan import Plan
from .value.model import for_rules
from .value.score import Scorer

DISCARDS = 10


class VGreedy(Bot):
    name = "vgreedy"
    PARAMS = {"discards": int, "wait": int, "gen": int, "draws": int}  # builtin:vgreedy:discards=10, builtin:vgreedy:gen=1

    def __init__(self, seed=0, discards: int = DISCARDS, wait: int = 1, gen: int = 0, draws: int = 0, value=None):
        super().__init__(seed)
        self.discards = max(1, discards)
        self.wait = wait
        self.draws = draws  # 0: the expectation over every unseen card kind; N: over N kinds drawn at random
        self.gen = gen  # 0: the shipped model; K: its generation K (bots/value/model.py)
        self.given = value
        self.value = value if value is not None else for_rules(make_rules(), gen)
        self.greedy = Greedy(seed)

    def start(self, seat: int, rules) -> None:
        """The shipped model trained on these rules, or the standard one (unless a model was given)."""
        super().start(seat, rules)
        self.greedy.start(seat, rules)
        if self.given is None:
            self.value = for_rules(rules, self.gen)

    def draw(self, view, legal: dict):
        first = self.greedy.draw(view, legal)
        if first.source != "take":
            return first
        scorer = self.scorer(view)
        taken = after_take(view, legal, first)
        if scorer.at_once(taken.hand, taken.table, taken.opened) >= scorer.this_draw(view.hand, view.table, legal["opened"]):
            return first
        return STOCK

    def play(self, view, legal: dict):
        options = play_options(self.greedy, view, legal, self.discards, self.wait)
        if len(options) == 1:
            return options[0].turn()
        scorer = self.scorer(view)
        values = [option.score(scorer) for option in options]
        return options[values.index(max(values))].turn()


    def scorer(self, view) -> Scorer:
        if not self.draws:
            return Scorer(self.value, view)
        rng = random.Random(f"vgreedy:{self.seed}:{view.round_index}:{view.turn}:{view.phase}")
        return Scorer(self.value, view, sample=self.draws, rng=rng)


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

    def score(self, scorer: Scorer) -> float:
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


def after_take(view, legal: dict, draw) -> Plan:
    """The plan after taking the discard with the melds of ``draw`` (T2)."""
    plan = Plan(view, legal)
    plan.hand[view.top] += 1
    for play in draw.plays:
        if play.kind == "open":
            plan.open(play.melds)
        else:
            plan.meld(play.melds)
    return plan


__all__ = ["DISCARDS", "Fixed", "Option", "VGreedy", "after_take", "play_options"]
