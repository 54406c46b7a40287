"""What the value of a position is learned from: a seat's hand and what it knows of the round.

A position is the moment a seat is about to play (after its draw): its hand, the table, whether it
has opened, and the round as its View shows it. ``Context`` holds what does not depend on the hand
(the others' hand sizes and openings, the stock, the threshold, the match totals); ``hand_row`` the
rest, from the meld solver and exact card tracking (the unseen copies of each card). A bot scores a
hypothetical hand (after a discard and a draw) with the same context, moved on by one round of turns.

The names in ``FEATURES`` travel with the weights (bots/value/model.py): a weights file whose list
differs from this one is refused.
"""

from __future__ import annotations

from collections import Counter

from engine.cards import JOKER, VALUES
from engine.determinise import read_view
from engine.solver import best_opening, going_out, layable_cards

HAND = (
    "size", "points", "jokers", "opened", "declared", "pairs",
    # before opening (zero once opened)
    "u_meld_value", "u_can_open", "u_gap", "u_left", "u_left_points", "u_out_at_once",
    "u_set_partials", "u_run_partials", "u_outs",
    # once opened (zero before)
    "o_can_go_out", "o_left", "o_left_points", "o_high_card",
    "o_set_partials", "o_run_partials", "o_outs",
)
CONTEXT = (
    "stock", "turn", "threshold", "players", "table_melds", "score_lead",
    "opp1_size", "opp1_opened", "opp1_declared",
    "opp2_present", "opp2_size", "opp2_opened", "opp2_declared",
    "opp3_present", "opp3_size", "opp3_opened", "opp3_declared",
    "opp_opened", "opp_min_size",
)
FEATURES = HAND + CONTEXT
FEATURE_VERSION = 1  # raise with any change to what a feature means


class Context:
    """The hand-free part of a position: read once per decision from a View."""

    def __init__(self, view, unseen: Counter | None = None, ahead: int = 0):
        self.view = view
        self.seat = view.seat
        self.threshold = view.threshold
        self.unseen = unseen if unseen is not None else Counter(read_view(view).unknown)
        self.row = context_row(view, ahead)

    def moved_on(self, ahead: int) -> "Context":
        """The same context ``ahead`` turns later (the stock and the turn count move on)."""
        other = Context.__new__(Context)
        other.__dict__.update(self.__dict__)
        other.row = context_row(self.view, ahead)
        return other


def context_row(view, ahead: int = 0) -> list:
    n, me = view.players, view.seat
    opp = [(me + k) % n for k in range(1, n)]
    row = [
        max(0, view.stock_size - ahead) / 50, (view.turn + ahead) / 60, view.threshold / 100, n / 4,
        len(view.table) / 10, score_lead(view.totals, me) / 200,
    ]
    for k in range(3):
        if k < len(opp):
            s = opp[k]
            slot = [view.hand_sizes[s] / 15, float(view.opened[s]), float(view.declared[s])]
        else:
            slot = [0.0, 0.0, 0.0]
        row += slot if k == 0 else [float(k < len(opp))] + slot
    row.append(sum(view.opened[s] for s in opp) / 3)
    row.append(min((view.hand_sizes[s] for s in opp), default=15) / 15)
    return row


def score_lead(totals, seat: int) -> float:
    """How far the seat's match total is below the others' mean (low totals win, X1)."""
    others = [t for s, t in enumerate(totals) if s != seat]
    return (sum(others) / len(others) - totals[seat]) if others else 0.0


def hand_row(hand, table, opened: bool, declared: bool, threshold: int, unseen: Counter) -> list:
    """The hand's features (``HAND``), for ``hand`` (counts by card id) at the moment of playing."""
    present = [c for c in range(53) if hand[c]]
    size = points = pairs = 0
    for c in present:
        k = hand[c]
        size += k
        points += VALUES[c] * k
        pairs += k >= 2 and c != JOKER
    value, melds = best_opening(hand, keep=1)
    left = list(hand)
    for _kind, cards in melds:
        for c in cards:
            left[c] -= 1
    row = [size / 15, points / 100, float(hand[JOKER]), float(opened), float(declared), pairs / 7]
    if opened:
        for c in layable_cards(left, table):
            if c != JOKER:
                left[c] = 0
        naturals = [c for c in present if c != JOKER and left[c]]
        sets, runs, outs = partials(naturals, unseen)
        high = max((VALUES[c] for c in naturals), default=0)
        out = going_out(hand, table) is not None
        row += [0.0] * 9 + [float(out), sum(left) / 15, _points(left, present) / 100, high / 11, sets / 4, runs / 4,
                            outs / 20]
        return row
    naturals = [c for c in present if c != JOKER and left[c]]
    sets, runs, outs = partials(naturals, unseen)
    can = value >= threshold
    at_once = can and going_out(hand, table, min_value=threshold, min_melds=1, layoff=False) is not None
    row += [min(value / threshold, 2.0), float(can), max(0, threshold - value) / threshold, sum(left) / 15,
            _points(left, present) / 100, float(at_once), sets / 4, runs / 4, outs / 20]
    row += [0.0] * 7
    return row


def _points(counts, present) -> int:
    return sum(VALUES[c] * counts[c] for c in present)


def partials(naturals, unseen: Counter) -> tuple:
    """Two-card parts of runs and sets among the natural cards ``naturals`` (card ids, ascending, each
    once) left outside melds, and the unseen copies of the cards that would complete one of them (each
    card counted once, jokers included)."""
    sets = runs = 0
    wanted = set()
    suits_of = {}
    have = set(naturals)
    for c in naturals:
        suits_of.setdefault(c % 13, []).append(c // 13)
        r = c % 13
        if r < 12 and c + 1 in have:
            runs += 1
            if r > 0:
                wanted.add(c - 1)
            if r < 11:
                wanted.add(c + 2)
        if r < 11 and c + 2 in have and c + 1 not in have:
            runs += 1
            wanted.add(c + 1)
    for rank, suits in suits_of.items():
        if len(suits) >= 2:
            sets += 1
            wanted.update(s * 13 + rank for s in range(4) if s not in suits)
    outs = sum(unseen.get(c, 0) for c in wanted)
    if sets or runs:
        outs += unseen.get(JOKER, 0)
    return sets, runs, outs


def features(view) -> list:
    """The features of ``view``'s position as it stands (its seat about to play)."""
    ctx = Context(view)
    return hand_row(view.hand, view.table, view.opened[view.seat], view.declared[view.seat], view.threshold,
                    ctx.unseen) + ctx.row


__all__ = ["CONTEXT", "Context", "FEATURES", "FEATURE_VERSION", "HAND", "context_row", "features", "hand_row",
           "partials", "score_lead"]
