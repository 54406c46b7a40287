"""The greedy bot: opens as soon as it can, lays down and lays off all it can, goes out when it can."""

from __future__ import annotations

from itertools import chain
from operator import mul

from engine.cards import JOKER, VALUES
from engine.decisions import STOCK, Draw, Play, Turn
from engine.solver import best_opening, going_out, layable_cards, meldable

from .base import Bot, discardable, layable, penalised, safe_discard
from .plan import Plan


def discard_take(hand, top: int, opened: bool, declared: bool, threshold: int):
    """Greedy's choice on the discard ``top`` holding ``hand``: (the best melds with it, those that hold
    it) when it takes it (T2: a new run or set once opened, else an opening worth ``threshold``
    without a declaration of pairs), None when it leaves it."""
    hand = with_card(hand, top)
    if top != JOKER and not meldable(hand, top):
        return None
    value, melds = best_opening(hand, keep=1)
    with_top = [m for m in melds if top in m[1]]
    if not with_top or not opened and (declared or value < threshold):
        return None
    return melds, with_top


class Greedy(Bot):
    name = "greedy"
    layoff = True  # whether going out may lay cards off on the table's melds (restricted play turns it off)

    # Drawing -----------------------------------------------------------------------------------

    def draw(self, view, legal: dict) -> Draw:
        options = legal["draw"]
        if options["take"] and view.top >= 0:
            take = self.take_discard(view, legal)
            if take is not None:
                return take
        if options["cut"] and usefulness(view.hand, view.cut) >= 2:
            return Draw("cut")
        return STOCK

    def take_discard(self, view, legal: dict):
        """Take the discard when it completes an opening (T2) or, once opened, a new run or set."""
        opened = legal["opened"]
        found = discard_take(view.hand, view.top, opened, view.declared[self.seat], legal.get("threshold", 0))
        if found is None:
            return None
        melds, with_top = found
        if opened:
            return Draw("take", (Play("meld", (with_top[0],)),))
        return Draw("take", (Play("open", tuple(melds)),))

    # Playing -----------------------------------------------------------------------------------

    def play(self, view, legal: dict) -> Turn:
        plan = Plan(view, legal)
        if plan.opened or self.open(plan):
            self.after_open(plan)
        return self.finish(plan)

    def open(self, plan: Plan) -> bool:
        """Open this turn if the hand allows it: going out at once when possible (O1, O5, G2)."""
        if plan.view.declared[self.seat]:
            return False
        return self.open_and_go_out(plan) or self.open_with_melds(plan)

    def open_and_go_out(self, plan: Plan) -> bool:
        need, base = plan.legal["threshold"], plan.rules.threshold
        # The melds of a way out are one of the openings best_opening weighs: no way out is worth more
        # (and open_with_melds and keepers ask for the same hand's answer next).
        best = best_opening(plan.hand, keep=1)[0]
        out = None
        if best >= need:
            out = going_out(plan.hand, plan.table, min_value=need, min_melds=1, layoff=self.layoff)
        if out is None and base < need and best >= base:  # O5: going out from hand alone is held to the threshold
            out = going_out(plan.hand, plan.table, min_value=base, min_melds=1, layoff=False)
        if out is None or not self.can_discard(plan, out["left"][0]):
            return False
        plan.open(out["melds"])
        for index, c, end in out["layoffs"]:
            plan.layoff(index, c, end)
        return True

    def open_with_melds(self, plan: Plan) -> bool:
        """Open with the best runs and sets, taking a table joker first when that makes the opening (A4)."""
        need = plan.legal["threshold"]
        for trial in chain([plan], self.swapped(plan)):
            value, melds = best_opening(trial.hand, keep=1)
            if value >= need:
                plan.adopt(trial)
                plan.open(melds)
                return True
        return False

    def swapped(self, plan: Plan):
        """Copies of ``plan``, each after one joker swap the hand can make (A4)."""
        for index, given in plan.held_swaps():
            trial = plan.copy()
            trial.swap(index, given)
            yield trial

    def after_open(self, plan: Plan) -> None:
        if plan.size <= 1 or self.go_out(plan):
            return
        self.use_jokers(plan)
        self.lay_extra(plan)
        plan.meld(best_opening(plan.hand, keep=1)[1])
        self.lay_off_all(plan)

    def lay_extra(self, plan: Plan) -> None:
        """A hook for other bots: more plays before new melds and lay-offs."""

    def go_out(self, plan: Plan) -> bool:
        out = going_out(plan.hand, plan.table, layoff=self.layoff)
        if out is None or not self.can_discard(plan, out["left"][0]):
            return False
        plan.meld(out["melds"])
        for index, c, end in out["layoffs"]:
            plan.layoff(index, c, end)
        return True

    def use_jokers(self, plan: Plan) -> None:
        """Take table jokers while that leaves less dead weight in hand."""
        for _ in range(4):
            trials = list(self.swapped(plan))
            if not trials:
                return
            best, score = None, deadwood(plan)
            for trial in trials:
                left = deadwood(trial)
                if left < score:
                    best, score = trial, left
            if best is None:
                return
            plan.adopt(best)

    def lay_off_all(self, plan: Plan, keep: list | None = None) -> None:
        """Lay off every natural card that fits (A2), keeping one card to discard; jokers are kept, and
        ``keep[c]`` cards of each kind ``c`` when given (a plan that holds them back)."""
        changed = True
        while changed and plan.size > 1:
            changed = False
            for c in layable_cards(plan.hand, plan.table):
                if c == JOKER or (keep is not None and plan.hand[c] <= keep[c]):
                    continue
                if plan.size == 2 and not self.can_discard(plan, c, after_laying=True):
                    continue
                index = next(i for i, m in enumerate(plan.table) if layable(c, [m]))
                plan.layoff(index, c)
                changed = True
                break

    # Discarding --------------------------------------------------------------------------------

    def can_discard(self, plan: Plan, c: int, after_laying: bool = False) -> bool:
        """May ``c`` be discarded (or, ``after_laying``, the card left once ``c`` is laid)?"""
        hand = plan.hand
        if after_laying:
            hand = hand[:]
            hand[c] -= 1
            return bool(discardable(plan.view, plan.legal, hand))
        return c in discardable(plan.view, plan.legal, hand)

    def finish(self, plan: Plan) -> Turn:
        cards = discardable(plan.view, plan.legal, plan.hand)
        if not cards:
            view = plan.view
            return Turn((), safe_discard(view, plan.legal, view.hand, view.table))
        return plan.turn(self.choose_discard(plan, cards))

    def choose_discard(self, plan: Plan, cards: list) -> int:
        """The least useful card, then by value; never a layable card when that costs 50 (A5)."""
        if plan.size == 1:
            return cards[0]
        return min(cards, key=self.discard_key(plan))

    def discard_order(self, plan: Plan, cards: list) -> list:
        """``cards`` from the best discard to the worst, ``choose_discard``'s pick first."""
        if plan.size == 1:
            return list(cards)
        return sorted(cards, key=self.discard_key(plan))

    def discard_key(self, plan: Plan):
        hand, opened = plan.hand, plan.opened
        costly = set(layable_cards(hand, plan.table)) if penalised(plan.view, opened) else ()
        keep = self.keepers(plan)
        # Before opening an unopened hand pays 100 whatever it holds (S4): keep the high cards for the opening.
        sign = -1 if opened else 1
        return lambda c: (c in costly, c == JOKER, keep.get(c, 0) + usefulness(hand, c), sign * VALUES[c], c)

    def keepers(self, plan: Plan) -> dict:
        """Cards worth keeping beyond their neighbours: before opening, those of the best partial opening."""
        if plan.opened:
            return {}
        out = {}
        for _kind, cards in best_opening(plan.hand, keep=1)[1]:
            for c in cards:
                out[c] = 10
        return out


def with_card(hand, c: int) -> list:
    out = hand[:]
    out[c] += 1
    return out


def usefulness(hand, c: int) -> int:
    """How many cards of ``hand`` could share a run or a set with ``c`` (near ranks count double)."""
    if c == JOKER:
        return 99
    score = 0
    for d, w in _NEIGHBOURS[c]:
        if hand[d]:
            score += w
    return score


def _neighbours(c: int) -> tuple:
    """(card, weight) for the cards that count towards ``usefulness(hand, c)``."""
    rank, suit = c % 13, c // 13
    out = [(suit * 13 + rank + d, w) for d, w in ((-2, 1), (-1, 2), (1, 2), (2, 1)) if 0 <= rank + d <= 12]
    return tuple(out + [(s * 13 + rank, 2) for s in range(4) if s != suit])


_NEIGHBOURS = tuple(_neighbours(c) for c in range(52))


def deadwood(plan: Plan) -> int:
    """The value left in hand after the best new melds and single lay-offs of natural cards."""
    hand = plan.hand[:]
    for _kind, cards in best_opening(hand, keep=1)[1]:
        for c in cards:
            hand[c] -= 1
    for c in layable_cards(hand, plan.table):
        if c != JOKER:
            hand[c] = 0
    return sum(map(mul, VALUES, hand))
