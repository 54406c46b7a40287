"""Cards as small ints (C1-C3).

A card identity is ``suit * 13 + rank`` with rank 0 for the two and 12 for the ace, so the cards of
one suit are consecutive and a run is a range of ids. The joker is 52. The two copies of a card
share one id: a hand is a vector of 53 counts.
"""

from __future__ import annotations

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_NAMES = ("C", "D", "H", "S")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
JOKER = 52
N_IDS = 53
N_CARDS = 106
ACE = 12

RANK_VALUES = (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11)
JOKER_VALUE = 25
VALUES = tuple(RANK_VALUES[c % 13] for c in range(52)) + (JOKER_VALUE,)


class CardError(ValueError):
    """A card string that names no card."""


def card(rank: int, suit: int) -> int:
    return suit * 13 + rank


def rank_of(c: int) -> int:
    return c % 13


def suit_of(c: int) -> int:
    return c // 13


CARD_NAMES = tuple(RANK_NAMES[c % 13] + SUIT_NAMES[c // 13] for c in range(JOKER)) + ("JK",)


def card_str(c: int) -> str:
    return CARD_NAMES[c]


def card_unicode(c: int) -> str:
    if c == JOKER:
        return "🃏"
    return RANK_NAMES[c % 13] + SUIT_SYMBOLS[c // 13]


_PARSE = {card_str(c): c for c in range(N_IDS)}


def parse_card(text: str) -> int:
    try:
        return _PARSE[text]
    except (KeyError, TypeError):
        raise CardError(f"not a card: {text!r} (expected forms like 2C, 10H, QS, AD or JK)") from None


def parse_cards(texts) -> list[int]:
    if isinstance(texts, str):
        texts = texts.split()
    if not isinstance(texts, (list, tuple)):
        raise CardError(f"expected a list of cards, got {type(texts).__name__}")
    return [parse_card(t) for t in texts]


def cards_str(cards) -> str:
    return " ".join(card_str(c) for c in cards)


def full_deck() -> list[int]:
    """The 106 cards (C1): two of each of the 52 cards and two jokers."""
    return [c for c in range(52) for _ in range(2)] + [JOKER, JOKER]


def counts_of(cards) -> list[int]:
    counts = [0] * N_IDS
    for c in cards:
        counts[c] += 1
    return counts


def cards_of(counts) -> list[int]:
    out = []
    for c, n in enumerate(counts):
        if n:
            out += (c,) * n
    return out


def hand_value(counts) -> int:
    """Penalty value of the cards in a hand (C3, S3)."""
    return sum(VALUES[c] * n for c, n in enumerate(counts) if n)
