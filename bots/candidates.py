"""Greedy's candidate turns, which vgreedy and vbot score and self-play's noise picks among: its plays
with each of its first discards, and waiting to open with the same discards; and (``plan_options``)
the plans greedy never plays, which vgreedy and vbot add when switched on."""

from __future__ import annotations

from engine.cards import JOKER
from engine.melds import make_meld
from engine.solver import best_opening, layable_cards

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


# Plans greedy never plays (issue 28, sixth stage) ---------------------------------------------------

PLAN_DISCARDS = 5  # the discards tried with each new plan: its first five safe ones in greedy's order
LEAST_SUBSETS = 3  # at most this many smallest opening subsets
HELD_SINGLES = 4  # at most this many plans that hold back one meld or one lay-off card each


def plan_options(greedy: Greedy, view, legal: dict, discards: int, least: int = 0, joker: int = 0,
                 hold: int = 0) -> list:
    """Candidate turns greedy never plays, each with its first ``min(discards, PLAN_DISCARDS)`` discards
    that cost nothing under A5. None where greedy goes out this turn (G1, G2).

    - ``least``: open (O1) with the smallest subsets of the best opening's melds that still reach the
      turn's threshold (and 100 where a star is at stake, O6), keeping the other melds in hand.
    - ``joker``: open, or once opened lay down, without the jokers in hand (they stay for later, a
      G3 discard among them); before opening, once with nothing more and once with the naturals'
      other melds and lay-offs.
    - ``hold``: lay down less this turn. On the opening turn, the opening alone; once opened, nothing
      but the discard, the new melds without lay-offs, the lay-offs without new melds, and greedy's
      turn with one meld or one kind of lay-off card held back.
    """
    if not (least or joker or hold):
        return []
    base = Plan(view, legal)
    opened_before = base.opened
    plans = []
    if not opened_before:
        if view.declared[view.seat] or greedy.open_and_go_out(base.copy()):
            return []
        need = legal["threshold"]
        value, melds = best_opening(base.hand, keep=1)
        if value >= need:
            if least:
                floor = max(need, 100) if base.rules.star_bonus and value >= 100 else need
                for subset in least_openings(melds, floor):
                    p = base.copy()
                    p.open(subset)
                    plans.append(p)
            if hold:
                p = base.copy()
                p.open(melds)
                plans.append(p)
        if joker and base.hand[JOKER]:
            naturals = base.hand[:]
            naturals[JOKER] = 0
            value, melds = best_opening(naturals, keep=0)
            if value >= need:
                p = base.copy()
                p.open(melds)
                plans.append(p)
                q = p.copy()
                _lay_without_jokers(greedy, q)
                plans.append(q)
    else:
        if base.size <= 1 or greedy.go_out(base.copy()):
            return []
        if hold:
            plans += held_plans(greedy, base)
        if joker and base.hand[JOKER]:
            q = base.copy()
            greedy.use_jokers(q)
            _lay_without_jokers(greedy, q)
            plans.append(q)
    out, seen = [], set()
    for p in plans:
        for c in safe_discards(greedy, p, min(discards, PLAN_DISCARDS)):
            option = Option(p, c, opened_before)
            key = str(option.turn())
            if key not in seen:
                seen.add(key)
                out.append(option)
    return out


def least_openings(melds: list, floor: int) -> list:
    """The subsets of ``melds`` worth at least ``floor`` from which no meld can be dropped, fewest cards
    first (then the least value), the whole list left out (greedy's own opening)."""
    melds = list(melds)
    n = len(melds)
    if n < 2 or n > 10:
        return []
    values = [make_meld(k, cs).value for k, cs in melds]
    found = []
    for mask in range(1, (1 << n) - 1):
        chosen = [i for i in range(n) if mask >> i & 1]
        total = sum(values[i] for i in chosen)
        if total < floor or any(total - values[i] >= floor for i in chosen):
            continue
        found.append((sum(len(melds[i][1]) for i in chosen), total, mask, [melds[i] for i in chosen]))
    found.sort(key=lambda f: f[:3])
    return [f[3] for f in found[:LEAST_SUBSETS]]


def held_plans(greedy: Greedy, base: Plan) -> list:
    """Once opened: turns that lay down less than greedy's (its joker takes kept where it lays down)."""
    plans = [base.copy()]  # the discard alone
    swapped = base.copy()
    greedy.use_jokers(swapped)
    melds = best_opening(swapped.hand, keep=1)[1]
    p = swapped.copy()
    p.meld(melds)
    plans.append(p)  # the new melds, no lay-offs
    p = swapped.copy()
    greedy.lay_off_all(p)
    plans.append(p)  # the lay-offs, no new melds
    singles = []
    if len(melds) > 1:
        for i in range(len(melds)):
            p = swapped.copy()
            p.meld(melds[:i] + melds[i + 1:])
            held = [0] * len(p.hand)
            for c in melds[i][1]:
                held[c] += 1
            greedy.lay_off_all(p, keep=held)
            singles.append(p)
    full = swapped.copy()
    full.meld(melds)
    laid = sorted({c for c in layable_cards(full.hand, full.table) if c != JOKER})
    for c in laid:
        p = full.copy()
        held = [0] * len(p.hand)
        held[c] = p.hand[c]
        greedy.lay_off_all(p, keep=held)
        singles.append(p)
    return plans + singles[:HELD_SINGLES]


def _lay_without_jokers(greedy: Greedy, plan: Plan) -> None:
    """The best new melds of the natural cards, then greedy's lay-offs; the jokers stay in hand."""
    naturals = plan.hand[:]
    naturals[JOKER] = 0
    plan.meld(best_opening(naturals, keep=0 if plan.hand[JOKER] else 1)[1])
    greedy.lay_off_all(plan)


def safe_discards(greedy: Greedy, plan: Plan, count: int) -> list:
    """The first ``count`` discards of ``plan`` in greedy's order that cost nothing under A5; none when
    the plan would lay down the last card (T4)."""
    if plan.size < 1:
        return []
    cards = discardable(plan.view, plan.legal, plan.hand)
    if not cards:
        return []
    if plan.size == 1:
        return cards[:1]
    key = greedy.discard_key(plan)
    return [c for c in greedy.discard_order(plan, cards) if not key(c)[0]][:count]


__all__ = ["Fixed", "Option", "least_openings", "plan_options", "play_options", "safe_discards"]
