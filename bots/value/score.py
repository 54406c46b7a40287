"""Scoring positions with V: now (after a known draw), or in expectation over the next draw from the
stock (every unseen card kind, weighted by its unseen copies), or at once when a turn goes out."""

from __future__ import annotations

from engine.cards import JOKER, VALUES
from engine.scoring import NOT_OPENED, OUT_SCORE, multiplier

from .features import Context, hand_row


class Scorer:
    """V for the positions one decision of ``view``'s seat can lead to (a cache per decision)."""

    def __init__(self, value, view, unseen=None, sample: int = 0, rng=None):
        """``sample`` > 0: the expectations over a draw use that many card kinds drawn with ``rng`` in
        proportion to their unseen copies (the same ones for every candidate), not every kind."""
        self.value = value
        self.view = view
        self.seat = view.seat
        self.declared = view.declared[view.seat]
        self.now = Context(view, unseen)
        self.unseen = self.now.unseen
        self.later = self.now.moved_on(view.players)  # the next play of this seat: a round of turns on
        self.kinds = sorted(self.unseen)
        self.copies = sum(self.unseen.values())
        self.weights = [self.unseen[c] for c in self.kinds]
        if sample and self.kinds and sample < len(self.kinds):
            self.kinds = sorted(rng.choices(self.kinds, weights=self.weights, k=sample))
            self.weights = [1] * sample
        self.total = sum(self.weights)

    def rows(self, hand, table, opened: bool, ctx: Context, draws=None) -> list:
        """Feature rows of ``hand`` (plus each card of ``draws``) at ``ctx``."""
        thr, unseen, declared = ctx.threshold, self.unseen, self.declared
        if draws is None:
            return [hand_row(hand, table, opened, declared, thr, unseen) + ctx.row]
        out = []
        for c in draws:
            hand[c] += 1
            out.append(hand_row(hand, table, opened, declared, thr, unseen) + ctx.row)
            hand[c] -= 1
        return out

    def at_once(self, hand, table, opened: bool) -> float:
        """V of the position with ``hand`` now (after a draw whose card is known)."""
        return self.value(self.rows(list(hand), table, opened, self.now))[0]

    def this_draw(self, hand, table, opened: bool) -> float:
        """V's expectation after drawing from the stock now, over the card drawn."""
        return self._expected(hand, table, opened, self.now)

    def next_draw(self, hand, table, opened: bool) -> float:
        """V's expectation at the seat's next play, over the card it will draw from the stock."""
        return self._expected(hand, table, opened, self.later)

    def _expected(self, hand, table, opened: bool, ctx: Context) -> float:
        if not self.copies:
            return self.value(self.rows(list(hand), table, opened, ctx))[0]
        values = self.value(self.rows(list(hand), table, opened, ctx, self.kinds))
        return sum(v * w for v, w in zip(values, self.weights)) / self.total

    def going_out(self, opened_before: bool, last: int) -> float:
        """The round margin (in hundreds, as V) of going out now with ``last`` as the final discard: the
        others pay by their openings (S3-S5), an opened hand at the unseen cards' mean value a card."""
        paid = self.paid_out(opened_before, last)
        return (sum(paid) / len(paid) - OUT_SCORE) / 100

    def paid_out(self, opened_before: bool, last: int) -> list:
        """What each other seat (in seat order) pays when this seat goes out now (``going_out``)."""
        view, me = self.view, self.seat
        others = [s for s in range(view.players) if s != me]
        mult = multiplier(not opened_before, last == JOKER, view.open_method[me] == "pairs",
                          any(view.opened[s] for s in others))
        mean_card = (sum(VALUES[c] * k for c, k in self.unseen.items()) / self.copies) if self.copies else 7.0
        paid = []
        for s in others:
            base = mean_card * view.hand_sizes[s] if view.opened[s] else NOT_OPENED
            paid.append(mult * base * (2 if view.declared[s] else 1))
        return paid


__all__ = ["Scorer"]
