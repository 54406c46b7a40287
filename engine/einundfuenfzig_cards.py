"""Einundfünfzig's 32 cards (E1): ints ``suit * 8 + rank`` (rank 0 is the 7, 7 the ace), their string
forms ``7C`` … ``10H`` … ``AS`` and values, and the error a decision that breaks a rule raises."""

from __future__ import annotations

RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("C", "D", "H", "S")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
RANK_VALUES = (None, 8, 0, -1, 2, 3, 4, 1)  # E1; the 7 is 1 or 7 by choice
SEVEN_VALUES = (1, 7)
N_CARDS = 32
HAND = 5
LIMIT = 51
CARD_NAMES = tuple(RANKS[c % 8] + SUITS[c // 8] for c in range(N_CARDS))
_PARSE = {name: c for c, name in enumerate(CARD_NAMES)}


def card_str(c: int) -> str:
    return CARD_NAMES[c]


def card_unicode(c: int) -> str:
    return RANKS[c % 8] + SUIT_SYMBOLS[c // 8]


def is_seven(c: int) -> bool:
    return c % 8 == 0


def parse_card(text) -> int:
    try:
        return _PARSE[text]
    except (KeyError, TypeError):
        raise DecisionError("E1", f"not a card of the 32-card pack: {text!r} (7C … 10H … AS)") from None


def values_of(c: int) -> tuple:
    """The values card ``c`` may count (E1)."""
    v = RANK_VALUES[c % 8]
    return SEVEN_VALUES if v is None else (v,)


def low_value(c: int) -> int:
    return min(values_of(c))


class DecisionError(ValueError):
    """A decision that cannot be read or breaks a rule; ``rule`` is its E id."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
