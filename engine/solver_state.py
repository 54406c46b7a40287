"""The meld search's state (engine/solver.py): a hand and the search's counters in one int, and
the natural cards no meld or pair could hold, which every search removes first.

The remaining hand and the search's small state live in one int, so that a memo key is one int and
every move is one subtraction:

* bits ``2c, 2c+1`` (c < 52): how many copies of natural card ``c`` remain (0..3);
* 4 bits at ``_JS``: jokers remaining; 4 bits at ``_PS``: pairs still to form;
  4 bits at ``_MS``: runs/sets still to form (exactly, or at least, depending on the search);
* from ``_LS`` up: cards still to leave in hand (exactly, or at least).
"""

from __future__ import annotations

from .cards import ACE, JOKER, N_IDS

_JS, _PS, _MS, _LS = 104, 108, 112, 116
_NAT = (1 << 104) - 1
_J1, _P1, _M1, _L1 = 1 << _JS, 1 << _PS, 1 << _MS, 1 << _LS
_F4 = 15  # field mask for J, P, M


# Encoding ------------------------------------------------------------------------------------------


def _check_counts(counts) -> None:
    if len(counts) != N_IDS:
        raise ValueError(f"a hand is a count vector of length {N_IDS}, got {len(counts)}")


def _lane_mask(keep: int, lane: int) -> int:
    """The low ``keep`` bits of every ``lane``-bit lane of a 512-bit int."""
    return sum(((1 << keep) - 1) << k for k in range(0, 512, lane))


_BYTE_HIGH = _lane_mask(8, 8) ^ _lane_mask(2, 8)  # a count above 3 in a byte lane
# halving the lanes five times takes one byte per card to two bits per card
_SQUEEZE = tuple((lane // 2 - width, _lane_mask(2 * width, lane))
                 for width, lane in ((2, 16), (4, 32), (8, 64), (16, 128), (32, 256), (64, 512)))


def _encode(counts) -> int:
    """The natural cards and jokers of ``counts`` as one int (fields P, M, L zero)."""
    _check_counts(counts)
    x = _BYTE_HIGH
    if type(counts) is list:
        try:
            x = int.from_bytes(bytes(counts[:52]), "little")  # a byte per card
        except (ValueError, TypeError):
            pass
    if x & _BYTE_HIGH:  # not a list, or a count outside 0..3: the slow way, which says which
        x = 0
        for c in range(52):
            n = counts[c]
            if n:
                if not 0 < n <= 3:
                    raise ValueError(f"count of card {c} must be 0..3, got {n}")
                x += n << (2 * c)
    else:
        for shift, mask in _SQUEEZE:
            x = (x | (x >> shift)) & mask
    j = counts[JOKER]
    if not 0 <= j <= _F4:
        raise ValueError(f"joker count must be 0..15, got {j}")
    return x + j * _J1


def _naturals(S: int):
    """(card, count) for the natural cards of state S, lowest first."""
    nat = S & _NAT
    out = []
    while nat:
        low = nat & -nat
        c = (low.bit_length() - 1) >> 1
        n = (nat >> (2 * c)) & 3
        out.append((c, n))
        nat -= n << (2 * c)
    return out


def _card_list(S: int) -> list:
    out = []
    for c, n in _naturals(S):
        out.extend([c] * n)
    out.extend([JOKER] * ((S >> _JS) & _F4))
    return out


# one bit per card in the low bit of its 2-bit lane, for ranks allowing c+1, c+2, c-1, c-2 in the suit
_LANES = sum(1 << (2 * c) for c in range(52))
_R_LE11 = sum(1 << (2 * c) for c in range(52) if c % 13 <= ACE - 1)
_R_LE10 = sum(1 << (2 * c) for c in range(52) if c % 13 <= ACE - 2)
_R_GE1 = sum(1 << (2 * c) for c in range(52) if c % 13 >= 1)
_R_GE2 = sum(1 << (2 * c) for c in range(52) if c % 13 >= 2)


def _live_lanes(S: int, pairs: bool, melds: bool = True) -> int:
    """Lane mask (bit 2c) of the natural cards of S that some run/set (if ``melds``) or pair (if
    ``pairs``) made from the cards of S could hold (M1-M4). Bit-parallel over all 52 cards."""
    nat = S & _NAT
    q = (nat | (nat >> 1)) & _LANES  # present
    j = (S >> _JS) & _F4
    live = 0
    if melds:
        if j >= 2:
            return q  # c + JK + JK is a set
        up1 = (q >> 2) & _R_LE11  # c+1 present (same suit)
        up2 = (q >> 4) & _R_LE10
        dn1 = (q << 2) & _R_GE1
        dn2 = (q << 4) & _R_GE2
        # other suits of the same rank: c +- 13, 26, 39 (ids outside 0..51 shift out of the lanes)
        ones = twos = 0
        for x in (q >> 26, q >> 52, q >> 78, (q << 26) & _LANES, (q << 52) & _LANES, (q << 78) & _LANES):
            twos |= ones & x
            ones |= x
        if j:
            live = up1 | up2 | dn1 | dn2 | ones
        else:
            live = (up1 & up2) | (dn1 & up1) | (dn2 & dn1) | twos
    if pairs:
        live |= _LANES if j else (nat >> 1) & _LANES  # a joker pairs anything; else two copies
    return live & q


def _dead(S: int, pairs: bool, melds: bool = True) -> tuple[int, int]:
    """The copies of the natural cards of S that no run/set (if ``melds``) and no pair (if ``pairs``)
    made from S can hold, as (bits to subtract from S, how many cards)."""
    nat = S & _NAT
    dead = ((nat | (nat >> 1)) & _LANES) & ~_live_lanes(S, pairs, melds)
    if not dead:
        return 0, 0
    x = nat & (dead * 3)
    return x, (x & _LANES).bit_count() + 2 * ((x >> 1) & _LANES).bit_count()


def _drop_dead(S: int, pairs: bool, melds: bool = True) -> tuple[int, int]:
    """Remove the dead natural cards (see ``_dead``): (state without them, how many were removed).

    Those cards stay in hand in every solution, so removing them first is exact.
    """
    x, n = _dead(S, pairs, melds)
    return S - x, n
