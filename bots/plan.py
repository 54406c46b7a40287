"""A turn being planned: the plays so far, with the hand and table they leave (a bot's scratch copy)."""

from __future__ import annotations

from engine.cards import JOKER
from engine.decisions import Play, Turn
from engine.melds import lay_off, layoff_ends, make_meld, swap_options, take_joker


class Plan:
    def __init__(self, view, legal: dict):
        self.view = view
        self.legal = legal
        self.rules = view.rules
        self.seat = view.seat
        self.hand = view.hand[:]
        self.table = list(view.table)  # melds are shared until changed: see ``_own``
        self.plays = []
        self.opened = bool(legal.get("opened"))

    def copy(self) -> "Plan":
        other = Plan.__new__(Plan)
        other.__dict__.update(self.__dict__)
        other.hand = self.hand[:]
        other.table = self.table[:]
        other.plays = self.plays[:]
        return other

    def adopt(self, other: "Plan") -> None:
        """Take over the plays, hand and table of ``other`` (a copy that tried something)."""
        self.__dict__.update(other.__dict__)

    @property
    def size(self) -> int:
        return sum(self.hand)

    def _lay(self, kind: str, melds, target: int = -1) -> None:
        melds = tuple((k, tuple(cs)) for k, cs in melds)
        for k, cs in melds:
            for c in cs:
                self.hand[c] -= 1
            meld = make_meld(k, cs, self.seat)
            meld.beside = target
            self.table.append(meld)
        self.plays.append(Play(kind, melds, target))

    def open(self, melds, kind: str = "open") -> None:
        """Open with runs and sets (O1), or with pairs and melds (``kind="pairs"``, O2)."""
        self._lay(kind, melds)
        self.opened = True

    def meld(self, melds) -> None:
        if melds:
            self._lay("meld", melds)

    def pair_beside(self, seat: int, pairs) -> None:
        self._lay("pair", pairs, seat)

    def _own(self, index: int):
        """Meld ``index`` as a copy of this plan's own, to change (copy on write: the view and other
        plans may hold the same Meld object)."""
        meld = self.table[index] = self.table[index].copy()
        return meld

    def layoff(self, index: int, c: int, end=None) -> None:
        meld = self._own(index)
        if end is None:
            end = layoff_ends(meld, c)[0]
        lay_off(meld, c, end)
        self.hand[c] -= 1
        self.plays.append(Play("layoff", (), index, (c,), end))

    def swap(self, index: int, given) -> None:
        freed = take_joker(self._own(index), given, self.rules.set_joker_swap)
        for c in given:
            self.hand[c] -= 1
        self.hand[JOKER] += freed
        self.plays.append(Play("joker", (), index, tuple(given)))

    def held_swaps(self) -> list:
        """The joker swaps (A4) the hand can make now: (table index, natural cards given)."""
        out = []
        rules, hand = self.rules, self.hand
        own_kept = rules.joker_take_from == "others"
        for i, m in enumerate(self.table):
            if JOKER not in m.cards or (own_kept and m.owner == self.seat):
                continue
            for given in swap_options(m, rules.set_joker_swap):
                if all(hand[c] >= given.count(c) for c in given):
                    out.append((i, given))
        return out

    def uses_table(self) -> bool:
        return any(p.kind in ("layoff", "joker") for p in self.plays)

    def turn(self, discard: int) -> Turn:
        return Turn(tuple(self.plays), discard)
