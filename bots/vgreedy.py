"""The vgreedy bot: greedy's candidates, each scored by the learned value of the position V
(bots/value/) in expectation over the next draw.

Draws: greedy's take (the discard with the melds it makes) is scored by V of the position it leaves;
the stock by V's expectation over every unseen card kind, weighted by its unseen copies. Turns:
greedy's plays with each of its first ``discards`` discards (none that costs 50 under A5), and,
when greedy would open now without going out, waiting (no plays) with the same discards; each is
scored by V's expectation at the bot's next play, over the card it will draw then, and a turn that
goes out by its round margin. Ties keep greedy's order; the cut card and pair takes (D6, P1) are
greedy's.

Plans greedy never plays (issue 28, sixth stage; off by default, ``bots.candidates.plan_options``):
``least=1`` opens with the smallest subsets of its melds that reach the threshold, ``joker=1`` opens
or lays down without its jokers, ``hold=1`` lays down less than greedy this turn; each is added to
the candidates with its first few safe discards and scored by V like the others.

What a turn gives the others, which V does not see (issue 28; off by default, ``bots/others.py``):
``room=W`` charges W points a round per copy the others may hold of a card that the table accepts
after the turn (A2) and did not before (less those it no longer accepts), times the share of the
other seats that have opened; ``feed=W`` charges W points a round times the chance that the next
seat can take the discard (T2; ``feedu`` (0.25) of it when that seat has not opened). A turn that
goes out is charged nothing.

A value aligned with the rating (issue 28, ninth stage; off by default, ``bots/value/equity.py``):
``rank=1`` scores every candidate (and the draw) by the expected pairwise match result instead of V:
V's margin with a learned spread, pushed with the leads over each other seat through a match-equity
table of the rounds left; a turn that goes out by its round result through the table. ``room`` and
``feed`` charge nothing with it.
"""

from __future__ import annotations

import random
from collections import Counter

from engine.decisions import STOCK
from engine.determinise import read_view
from engine.rules import make_rules

from .base import Bot
from .candidates import plan_options, play_options
from .params import Param
from .greedy import Greedy
from .others import UNOPENED, Others
from .plan import Plan
from .value.equity import RankScorer, load_equity
from .value.model import for_rules
from .value.score import Scorer

DISCARDS = 10


class VGreedy(Bot):
    name = "vgreedy"
    PARAMS = {  # builtin:vgreedy:discards=10, builtin:vgreedy:gen=1
        "discards": Param(int, 1, 16), "wait": Param(int, 0, 1), "gen": Param(int, 0, 99), "draws": Param(int, 0, 53),
        "least": Param(int, 0, 1), "joker": Param(int, 0, 1), "hold": Param(int, 0, 1),
        "room": Param(float, 0, 100), "feed": Param(float, 0, 500),
        "feedu": Param(float, 0, 1), "rank": Param(int, 0, 1),
    }

    def __init__(self, seed=0, discards: int = DISCARDS, wait: int = 1, gen: int = 0, draws: int = 0, value=None,
                 least: int = 0, joker: int = 0, hold: int = 0, room: float = 0, feed: float = 0,
                 feedu: float = UNOPENED, rank: int = 0, equity=None):
        super().__init__(seed)
        self.rank = rank  # 1: score by the expected pairwise match result (bots/value/equity.py), not V
        self.equity = (equity or load_equity()) if rank else None
        self.room = room  # points a round per copy of a card the others may lay off anew (bots/others.py)
        self.feed = feed  # points a round for a certain take of the discard by the next seat
        self.feedu = feedu  # the share of that chance counted when the next seat has not opened
        self.plans = {"least": least, "joker": joker, "hold": hold}  # issue 28's plans, 1 = on
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

    def options(self, view, legal: dict) -> list:
        """Greedy's candidate turns (``play_options``), then the plans switched on, without repeats."""
        options = play_options(self.greedy, view, legal, self.discards, self.wait)
        if len(options) == 1 or not any(self.plans.values()):
            return options
        seen = {str(o.turn()) for o in options}
        for option in plan_options(self.greedy, view, legal, self.discards, **self.plans):
            key = str(option.turn())
            if key not in seen:
                seen.add(key)
                options.append(option)
        return options

    def play(self, view, legal: dict):
        options = self.options(view, legal)
        if len(options) == 1:
            return options[0].turn()
        values = self.scores(view, options)
        return options[values.index(max(values))].turn()

    def scores(self, view, options: list, scorer=None) -> list:
        """V's score of each option, less what ``room`` and ``feed`` charge for what it gives the others
        (a turn that goes out is charged nothing)."""
        if not (self.room or self.feed) or self.rank:  # rank=1 charges nothing (V's units are not the utility's)
            scorer = scorer or self.scorer(view)
            return [option.score(scorer) for option in options]
        k = read_view(view)
        unseen = Counter(k.unknown)
        scorer = scorer or self.scorer(view, unseen)
        others = Others(view, k, unseen, self.feedu)
        values = []
        for option in options:
            v = option.score(scorer)
            plan = getattr(option, "plan", None)
            if plan is not None and plan.size > 1:
                if self.room:
                    v -= self.room / 100 * others.room(plan.table)
                if self.feed:
                    v -= self.feed / 100 * others.feed(option.card, plan.table)
            values.append(v)
        return values

    def scorer(self, view, unseen=None) -> Scorer:
        sampled = {}
        if self.draws:
            rng = random.Random(f"vgreedy:{self.seed}:{view.round_index}:{view.turn}:{view.phase}")
            sampled = {"sample": self.draws, "rng": rng}
        if self.rank:
            return RankScorer(self.value, self.equity, view, unseen, **sampled)
        return Scorer(self.value, view, unseen, **sampled)


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


__all__ = ["DISCARDS", "VGreedy", "after_take"]
