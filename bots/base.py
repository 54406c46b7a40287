"""The in-process bot interface, and the simplest legal decisions every bot falls back on."""

from __future__ import annotations

import random

from engine.cards import JOKER, N_IDS, VALUES
from engine.decisions import STOCK, Draw, Turn
from engine.melds import accepts


class Bot:
    """A bot decides for one seat. The harness calls ``start`` once per match, then ``decide``.

    ``decide`` hands the draw phase to ``draw`` and the play phase to ``play``. After a refusal
    (``refused``) the same seat decides again: the bot then falls back on the simplest legal
    decision, and on a random one after further refusals, so it never repeats itself forever.
    """

    name = "base"

    def __init__(self, seed=0):
        self.seed = seed
        self.rng = random.Random(seed)
        self.seat = -1
        self.rules = None
        self._moment = None
        self._refusals = 0

    def start(self, seat: int, rules) -> None:
        self.seat = seat
        self.rules = rules

    def decide(self, view, legal: dict):
        moment = (view.round_index, view.turn, view.phase)
        if moment != self._moment:
            self._moment = moment
            self._refusals = 0
        if self._refusals:
            return self.fallback(view, legal)
        if legal.get("phase") == "draw":
            return self.draw(view, legal)
        return self.play(view, legal)

    def draw(self, view, legal: dict) -> Draw:
        return STOCK

    def play(self, view, legal: dict) -> Turn:
        return Turn((), safe_discard(view, legal, view.hand, view.table))

    def refused(self, outcome) -> None:
        self._refusals += 1

    def clock(self, limit: float, bank: float) -> None:
        """The time this decision has (seconds) and the bank left, when a protocol loop knows them."""

    def fallback(self, view, legal: dict):
        if legal.get("phase") == "draw":
            return STOCK
        if self._refusals == 1:
            return Turn((), safe_discard(view, legal, view.hand, view.table))
        return Turn((), self.rng.choice(discardable(view, legal, view.hand) or [JOKER]))


def discardable(view, legal: dict, hand) -> list[int]:
    """The card ids that may be discarded from ``hand`` (T4, P1, A6).

    ``legal["must_keep"]`` lists the shown copies (A6, ``view.marked``) and the card taken under P1,
    which may not be discarded at all in that turn.
    """
    marked = view.marked
    taken = legal.get("must_keep")
    if not marked and not taken:
        return [c for c in range(N_IDS) if hand[c] > 0]
    marked = list(marked)
    taken = list(taken or ())
    for c in marked:
        if c in taken:
            taken.remove(c)
    return [c for c in range(N_IDS) if hand[c] > marked.count(c) and c not in taken]


def penalised(view, opened: bool) -> bool:
    """Would a layable discard cost 50 (A5)?"""
    return opened or view.rules.layable_discard_scope == "any"


def layable(c: int, table) -> bool:
    return any(accepts(m, c) for m in table)


def safe_discard(view, legal: dict, hand, table, opened=None) -> int:
    """The simplest good discard: not layable when that costs 50, not a joker, the highest value."""
    if opened is None:
        opened = legal.get("opened", False)
    cards = discardable(view, legal, hand) or [c for c in range(N_IDS) if hand[c]]
    costly = penalised(view, opened) and sum(hand) > 1
    return min(cards, key=lambda c: (costly and layable(c, table), c == JOKER, -VALUES[c], c))
