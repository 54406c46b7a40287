"""Restricted play (Jaffe et al.): the pairs bot (greedy that also goes for pairs) with one or more
mechanics taken away, so that what a mechanic is worth is what the bot loses without it.

``builtin:restricted:take=1`` never takes the discard; each parameter is 1 to take a mechanic away
and 0 (the default) to keep it. With every parameter 0 it plays as ``builtin:pairs``. Greedy never
waits to open (it opens as soon as its hand allows), so "never wait to open" is its own play and has
no bot here."""

from __future__ import annotations

from engine.decisions import STOCK, Draw

from .params import Param
from .pairs import PairsBot
from .plan import Plan

MECHANICS = {"pairs": "never declare pairs", "take": "never take the discard", "layoff": "never lay off",
             "swap": "never swap a joker", "discard": "a random discard"}


class Restricted(PairsBot):
    name = "restricted"
    PARAMS = {m: Param(int, 0, 1) for m in MECHANICS}  # builtin:restricted:layoff=1

    def __init__(self, seed=0, pairs: int = 0, take: int = 0, layoff: int = 0, swap: int = 0, discard: int = 0):
        super().__init__(seed)
        self.without = {m for m, off in zip(MECHANICS, (pairs, take, layoff, swap, discard)) if off}
        self.layoff = "layoff" not in self.without  # going out with melds alone

    def for_pairs(self, view) -> bool:
        if "pairs" in self.without:
            return False
        return super().for_pairs(view)

    def draw(self, view, legal: dict) -> Draw:
        chosen = super().draw(view, legal)
        if "take" in self.without and chosen.source in ("take", "pair"):
            return STOCK
        return chosen

    def swapped(self, plan: Plan):
        if "swap" in self.without:
            return iter(())
        return super().swapped(plan)

    def lay_off_all(self, plan: Plan) -> None:
        if self.layoff:
            super().lay_off_all(plan)

    def lay_extra(self, plan: Plan) -> None:
        if self.layoff:
            super().lay_extra(plan)

    def choose_discard(self, plan: Plan, cards: list) -> int:
        if "discard" in self.without:
            return self.rng.choice(sorted(cards))
        return super().choose_discard(plan, cards)
