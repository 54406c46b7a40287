"""The pairs bot: goes for pairs (P1, O2) when dealt three or more pairs, and plays greedy otherwise."""

from __future__ import annotations

from engine.cards import JOKER, VALUES
from engine.decisions import STOCK, Draw, Play, Turn
from engine.solver import best_pairs_opening, going_out

from .base import discardable, layable, penalised
from .greedy import Greedy, with_card
from .plan import Plan

DEAL_PAIRS = 3


class PairsBot(Greedy):
    name = "pairs"

    def __init__(self, seed=0):
        super().__init__(seed)
        self.dealt = {}  # round index -> pairs in the hand dealt

    def decide(self, view, legal: dict):
        if view.round_index not in self.dealt:
            self.dealt = {view.round_index: count_pairs(view.hand)}
        return super().decide(view, legal)

    def for_pairs(self, view) -> bool:
        """Going for pairs this round: declared already, or dealt enough pairs and free to declare."""
        if view.declared[self.seat]:
            return True
        return view.open_method[self.seat] is None and self.dealt.get(view.round_index, 0) >= DEAL_PAIRS

    # Drawing -----------------------------------------------------------------------------------

    def draw(self, view, legal: dict) -> Draw:
        opened = legal["opened"]
        if opened and view.open_method[self.seat] == "pairs" and view.rules.pairs_layoff and self.pair_take(view, legal):
            return Draw("pair")
        if opened or not self.for_pairs(view):
            return super().draw(view, legal)
        options = legal["draw"]
        if options["take"] and view.top >= 0:
            take = self.take_to_open(view, legal)
            if take is not None:
                return take
        if self.pair_take(view, legal):
            return Draw("pair")
        if options["cut"] and view.hand[view.cut] == 1:
            return Draw("cut")
        return STOCK

    def take_to_open(self, view, legal: dict):
        top = view.top
        found = best_pairs_opening(with_card(view.hand, top), legal["pairs_openings"], keep=1)
        if found is None:
            return None
        _combo, pairs, melds = found
        if not any(top in cards for _kind, cards in pairs + melds):
            return None
        return Draw("take", (Play("pairs", tuple(pairs + melds)),))

    def pair_take(self, view, legal: dict) -> bool:
        """P1: the discard pairs with an identical natural card, and another card stays free to discard."""
        top = view.top
        if not legal["draw"]["pair"] or top < 0 or top == JOKER or view.hand[top] != 1:
            return False
        rest = view.hand[:]
        rest[top] = 0
        return len(discardable(view, {"must_keep": list(view.marked)}, rest)) > 0

    # Playing -----------------------------------------------------------------------------------

    def play(self, view, legal: dict) -> Turn:
        if legal["opened"] or not self.for_pairs(view):
            return super().play(view, legal)
        plan = Plan(view, legal)
        if not view.declared[self.seat]:
            plan.plays.append(Play("declare"))
        if legal.get("can_claim_cut"):
            plan.plays.append(Play("claim", (), -1, (view.cut,)))
        if self.pairs_go_out(plan) or self.pairs_open(plan):
            self.after_open(plan)
        return self.finish(plan)

    def pairs_go_out(self, plan: Plan) -> bool:
        for pairs, melds in plan.legal["pairs_openings"]:
            out = going_out(plan.hand, plan.table, pairs=pairs, min_melds=melds, layoff=self.layoff)
            if out is not None and self.can_discard(plan, out["left"][0]):
                plan.open(out["pairs"] + out["melds"][:melds], kind="pairs")
                plan.meld(out["melds"][melds:])
                for index, c, end in out["layoffs"]:
                    plan.layoff(index, c, end)
                return True
        return False

    def pairs_open(self, plan: Plan) -> bool:
        found = best_pairs_opening(plan.hand, plan.legal["pairs_openings"], keep=1)
        if found is None:
            return False
        trial = plan.copy()
        trial.open(found[1] + found[2], kind="pairs")
        if not discardable(trial.view, trial.legal, trial.hand):
            return False
        plan.adopt(trial)
        return True

    def lay_extra(self, plan: Plan) -> None:
        """A3: lay identical pairs beside a pairs opener's pairs, keeping one card to discard."""
        if not plan.rules.pairs_layoff:
            return
        methods = list(plan.view.open_method)
        if plan.opened and any(p.kind == "pairs" for p in plan.plays):
            methods[self.seat] = "pairs"
        targets = [s for s, m in enumerate(methods) if m == "pairs"]
        if not targets:
            return
        for c in range(52):
            if plan.hand[c] == 2 and plan.size > 2:
                plan.pair_beside(targets[0], [("pair", (c, c))])

    # Discarding --------------------------------------------------------------------------------

    def choose_discard(self, plan: Plan, cards: list) -> int:
        if plan.opened or plan.size == 1 or not self.for_pairs(plan.view):
            return super().choose_discard(plan, cards)
        costly = penalised(plan.view, plan.opened)
        hand = plan.hand
        return min(cards, key=lambda c: (costly and layable(c, plan.table), c == JOKER, hand[c] >= 2, -VALUES[c], c))


def count_pairs(hand) -> int:
    """Pairs in a hand: two identical natural cards, or a natural card and a joker (M3)."""
    doubles = sum(1 for c in range(52) if hand[c] >= 2)
    singles = sum(1 for c in range(52) if hand[c] == 1)
    return doubles + min(hand[JOKER], singles)
