"""What a candidate turn gives the other seats, which V (the seat's own position) does not see
(issue 28): the lay-off room its melds open (A2) and the chance that the next seat takes its
discard (T2). vgreedy's ``room`` and ``feed`` weigh them; both are cheap counts of card copies.

The copies of a card the others may hold are its unseen copies (``engine.determinise``'s card
tracking) plus those another seat is known to hold (a discard it took, a joker it freed).
"""

from __future__ import annotations

from engine.cards import ACE, JOKER
from engine.melds import accepted_cards

UNOPENED = 0.25  # an unopened next seat takes only with an opening (T2): this share of the chance


def accepted(table) -> set:
    """The natural cards some meld of ``table`` accepts as it stands (A2)."""
    out = set()
    for m in table:
        f = m.fits
        out.update(accepted_cards(m) if f is None else f)
    out.discard(JOKER)
    return out


class Others:
    """The others' side of one play decision of ``view``'s seat, from its knowledge ``k``
    (``engine.determinise.read_view``) and the unseen copies ``unseen`` (a Counter)."""

    def __init__(self, view, k, unseen, unopened: float = UNOPENED):
        n, me = view.players, view.seat
        self.view = view
        self.copies = [unseen.get(c, 0) for c in range(JOKER + 1)]
        for s in range(n):
            if s != me:
                held = k.held[s]
                for c in range(JOKER + 1):
                    self.copies[c] += held[c]
        self.before = accepted(view.table)
        others = [s for s in range(n) if s != me]
        self.opened_share = sum(view.opened[s] for s in others) / len(others) if others else 0.0
        self.before_copies = sum(self.copies[c] for c in self.before)
        # the next seat: how likely it holds a card kind (known copies first)
        nxt = (me + 1) % n
        self.next = nxt
        held = k.held[nxt]
        unknown_hand = max(0, view.hand_sizes[nxt] - sum(held))
        total = sum(unseen.values())
        share = min(1.0, unknown_hand / total) if total else 0.0
        self.hold = [1.0 if held[c] else 1.0 - (1.0 - share) ** unseen.get(c, 0) for c in range(JOKER + 1)]
        self.next_opened = bool(view.opened[nxt])
        self.next_declared = bool(view.declared[nxt])
        rules = view.rules
        self.blocked = bool(rules.pairs_discard_block and view.declared[me] and not self.next_declared)
        self.dead_rule = bool(rules.layable_discard_dead)
        self.unopened = unopened
        self._feed = {}

    def room(self, table) -> float:
        """The copies the others may hold of cards the table accepts after a turn, less those it accepted
        before, times the share of the other seats that have opened (who may lay off now, A2)."""
        if not self.opened_share:
            return 0.0
        after = accepted(table)
        if after == self.before:
            return 0.0
        return (sum(self.copies[c] for c in after) - self.before_copies) * self.opened_share

    def feed(self, card: int, table) -> float:
        """The chance that the next seat can take ``card`` as the discard: it holds two cards that make a
        run or set with it (a joker for either), each held independently; a share ``UNOPENED`` of that
        when it has not opened (it must open with the take; ``unopened``); 0 where taking is refused (T2, P2)."""
        if self.blocked:
            return 0.0
        if self.dead_rule and card in accepted(table):
            return 0.0
        if card in self._feed:
            return self._feed[card]
        hold = self.hold
        if self.next_declared:
            p = 1.0 - (1.0 - hold[card]) * (1.0 - hold[JOKER])  # a pair (P1)
        elif card == JOKER:
            p = 1.0
        else:
            rank, suit = card % 13, card // 13
            base = card - rank
            near = [base + r for r in (rank - 2, rank - 1, rank + 1, rank + 2) if 0 <= r <= ACE]
            same = [s * 13 + rank for s in range(4) if s != suit]
            pairs = []
            for a, b in ((-2, -1), (-1, 1), (1, 2)):
                if 0 <= rank + a <= ACE and 0 <= rank + b <= ACE:
                    pairs.append((card + a, card + b))
            pairs += [(same[0], same[1]), (same[0], same[2]), (same[1], same[2])]
            miss = 1.0
            for a, b in pairs:
                miss *= 1.0 - hold[a] * hold[b]
            j = hold[JOKER]
            if j:
                for x in near + same:
                    miss *= 1.0 - j * hold[x]
            p = 1.0 - miss
            if not self.next_opened:
                p *= self.unopened
        self._feed[card] = p
        return p


__all__ = ["Others", "UNOPENED", "accepted"]
