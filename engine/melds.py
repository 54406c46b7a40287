"""Runs, sets and pairs (M1-M5): checking them, what their jokers stand for, lay-offs and joker swaps.

A meld is written as a kind and its cards in position order. In a run the cards go from low to
high and a joker stands for the card at its position, so ``run 5S JK JK`` is 5-6-7 of spades and
``run JK JK 5S`` is 3-4-5. In a set a joker stands for the set's rank; in a pair, for its partner.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import ACE, JOKER, RANK_VALUES, VALUES, card_str
from .errors import Refusal

RUN, SET, PAIR = "run", "set", "pair"
KINDS = (RUN, SET, PAIR)
KIND_LETTER = {RUN: "R", SET: "S", PAIR: "P"}
LETTER_KIND = {v: k for k, v in KIND_LETTER.items()}


@dataclass(slots=True)
class Meld:
    """A meld on the table. ``base`` is the run's lowest card, the set's rank, or the pair's card."""

    kind: str
    cards: list
    base: int
    owner: int = -1
    beside: int = -1  # A3: the pairs opener whose pairs this pair was laid beside
    fits: tuple | None = field(default=None, compare=False, repr=False)  # accepted_cards, until it changes
    swaps: tuple | None = field(default=None, compare=False, repr=False)  # (set_joker_swap, swap_options), the same

    def stands_for(self, i: int) -> int:
        """The card position ``i`` stands for; in a set only its rank is fixed, given as -1 - rank."""
        if self.kind == RUN:
            return self.base + i
        if self.kind == PAIR:
            return self.base
        c = self.cards[i]
        return c if c != JOKER else -1 - self.base

    @property
    def value(self) -> int:
        """Opening value (O1): jokers count as what they stand for."""
        if self.kind == RUN:
            low = self.base % 13
            return sum(RANK_VALUES[low : low + len(self.cards)])
        if self.kind == SET:
            return RANK_VALUES[self.base] * len(self.cards)
        return 2 * VALUES[self.base]

    @property
    def jokers(self) -> int:
        return self.cards.count(JOKER)

    def natural_suits(self) -> set:
        return {c // 13 for c in self.cards if c != JOKER}

    def __str__(self) -> str:
        return meld_str(self.kind, self.cards)

    def copy(self) -> "Meld":
        other = _new_meld(Meld)  # skips __init__: every field is set here
        other.kind = self.kind
        other.cards = self.cards[:]
        other.base = self.base
        other.owner = self.owner
        other.beside = self.beside
        other.fits = self.fits
        other.swaps = self.swaps
        return other


_new_meld = object.__new__


def meld_str(kind: str, cards) -> str:
    return f"{KIND_LETTER[kind]}[{' '.join(card_str(c) for c in cards)}]"


def make_meld(kind: str, cards, owner: int = -1) -> Meld:
    """Check a meld written by a player (M1-M4) and return it, or raise a Refusal."""
    cards = list(cards)
    naturals = [c for c in cards if c != JOKER]
    if not naturals:
        raise Refusal("M4", f"{meld_str(kind, cards) if kind in KINDS else cards} has no natural card")
    if kind == RUN:
        return Meld(RUN, cards, _run_base(cards), owner)
    if kind == SET:
        _check_set(cards, naturals)
        return Meld(SET, cards, naturals[0] % 13, owner)
    if kind == PAIR:
        if len(cards) != 2 or (len(naturals) == 2 and naturals[0] != naturals[1]):
            raise Refusal("M3", f"{meld_str(kind, cards)} is not two identical cards or a card and a joker")
        return Meld(PAIR, cards, naturals[0], owner)
    raise Refusal("M1", f"unknown meld kind {kind!r} (expected run, set or pair)")


def _run_base(cards) -> int:
    if len(cards) < 3:
        raise Refusal("M1", f"{meld_str(RUN, cards)}: a run needs at least 3 cards")
    first = next(i for i, c in enumerate(cards) if c != JOKER)
    suit, low = cards[first] // 13, cards[first] % 13 - first
    if low < 0 or low + len(cards) - 1 > ACE:
        raise Refusal("M1", f"{meld_str(RUN, cards)}: a run stays within 2..A")
    for i, c in enumerate(cards):
        if c != JOKER and (c // 13 != suit or c % 13 != low + i):
            raise Refusal("M1", f"{meld_str(RUN, cards)}: not one suit in unbroken rank order")
    return suit * 13 + low


def _check_set(cards, naturals) -> None:
    if not 3 <= len(cards) <= 4:
        raise Refusal("M2", f"{meld_str(SET, cards)}: a set has 3 or 4 cards")
    if len({c % 13 for c in naturals}) != 1:
        raise Refusal("M2", f"{meld_str(SET, cards)}: a set's cards share one rank")
    if len({c // 13 for c in naturals}) != len(naturals):
        raise Refusal("M2", f"{meld_str(SET, cards)}: two cards of one suit in a set")


# Lay-offs (A2) ---------------------------------------------------------------------------------

LOW, HIGH = "low", "high"


def layoff_ends(meld: Meld, c: int) -> tuple:
    """Where ``c`` could be laid off onto ``meld`` (A2): a tuple of LOW/HIGH for a run, (HIGH,) for a set."""
    if meld.kind == RUN:
        low = meld.base % 13
        high = low + len(meld.cards) - 1
        suit = meld.base // 13
        if c == JOKER:
            return tuple(end for end, ok in ((LOW, low > 0), (HIGH, high < ACE)) if ok)
        if c // 13 != suit:
            return ()
        if c % 13 == low - 1:
            return (LOW,)
        if c % 13 == high + 1:
            return (HIGH,)
        return ()
    if meld.kind == SET:
        if len(meld.cards) >= 4:
            return ()
        if c == JOKER or (c % 13 == meld.base and c // 13 not in meld.natural_suits()):
            return (HIGH,)
    return ()


def accepted_cards(meld: Meld) -> tuple:
    """Every card A2 would accept onto ``meld`` as it stands, the joker included."""
    if meld.fits is None:
        meld.fits = _accepted(meld)
    return meld.fits


def _accepted(meld: Meld) -> tuple:
    if meld.kind == RUN:
        low = meld.base % 13
        high = low + len(meld.cards) - 1
        out = [meld.base - 1] if low > 0 else []
        if high < ACE:
            out.append(meld.base + len(meld.cards))
        return tuple(out) + ((JOKER,) if out else ())
    if meld.kind == SET and len(meld.cards) < 4:
        suits = meld.natural_suits()
        return tuple(s * 13 + meld.base for s in range(4) if s not in suits) + (JOKER,)
    return ()


def accepts(meld: Meld, c: int) -> bool:
    return c in accepted_cards(meld)


def layable(table, hand) -> list[int]:
    """The cards of ``hand`` (counts) that some meld of ``table`` accepts (A2, A5)."""
    fits = set()
    for m in table:
        f = m.fits
        fits.update(accepted_cards(m) if f is None else f)
    return sorted([c for c in fits if hand[c]])


def lay_off(meld: Meld, c: int, end: str | None = None) -> None:
    """Add ``c`` to ``meld``; ``end`` picks the end of a run for a joker. Raises Refusal (A2)."""
    ends = layoff_ends(meld, c)
    if not ends:
        raise Refusal("A2", f"{card_str(c)} does not fit {meld}")
    if end is None:
        if len(ends) > 1:
            raise Refusal("M4", f"say which end of {meld} the joker goes to (low or high)")
        end = ends[0]
    elif end not in ends:
        raise Refusal("A2", f"{card_str(c)} does not fit the {end} end of {meld}")
    meld.fits = meld.swaps = None
    if meld.kind == RUN and end == LOW:
        meld.cards.insert(0, c)
        meld.base -= 1
    else:
        meld.cards.append(c)


# Joker swaps (A4) ------------------------------------------------------------------------------


def swap_options(meld: Meld, set_joker_swap: str) -> list[tuple]:
    """The card groups that free a joker from ``meld``: each a sorted tuple of natural cards."""
    known = meld.swaps
    if known is None or known[0] != set_joker_swap:
        known = meld.swaps = (set_joker_swap, tuple(_swap_options(meld, set_joker_swap)))
    return list(known[1])


def _swap_options(meld: Meld, set_joker_swap: str) -> list[tuple]:
    if JOKER not in meld.cards:
        return []
    if meld.kind == RUN:
        return [(meld.base + i,) for i, c in enumerate(meld.cards) if c == JOKER]
    if meld.kind == PAIR:
        return [(meld.base,)]
    missing = [s for s in range(4) if s not in meld.natural_suits()]
    if set_joker_swap == "one" or meld.base == ACE:
        return [(s * 13 + meld.base,) for s in missing]
    return [tuple(s * 13 + meld.base for s in missing)]


def take_joker(meld: Meld, given, set_joker_swap: str) -> int:
    """Put the natural cards ``given`` into ``meld`` for its jokers (A4); returns the jokers freed."""
    given = tuple(sorted(given))
    if given not in swap_options(meld, set_joker_swap):
        raise Refusal("A4", f"{' '.join(card_str(c) for c in given) or 'nothing'} does not free a joker from {meld}")
    meld.fits = meld.swaps = None
    if meld.kind == SET:
        naturals = [c for c in meld.cards if c != JOKER] + list(given)
        jokers_left = max(0, len(meld.cards) - len(naturals))
        freed = meld.jokers - jokers_left
        meld.cards = naturals + [JOKER] * jokers_left
        return freed
    i = meld.cards.index(JOKER) if meld.kind == PAIR else given[0] - meld.base
    meld.cards[i] = given[0]
    return 1
