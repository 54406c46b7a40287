"""Full round states (worlds) sampled from what one seat knows: its View, and nothing else.

``determinise(view, rng)`` returns an Ellibir ``Round`` in which the seat's hand, the table, the
discard pile, the hand sizes, the stock size, the face-up cut card (at the bottom of the stock while
it lies) and its claim, the openings (method, value, turn), the declarations, the shown cards and
the penalties are as the seat knows them. Every card whose place the seat knows is in that place:
besides its own hand and what lies face up, a card another seat took into its hand from the
discard pile or the cut, a card it showed (A6, D6), a joker it kept from the cut or freed from the
table, until a card of that kind leaves its hand again. The other cards go, uniformly at random, to
the other hands and the stock. The world plays on without a log (``Round.clone``'s fast path).

``weight(world) -> float`` in [0, 1], when given, makes sampling less uniform by rejection: a world
is kept with that probability (a player who has not opened after many turns, say, is less likely
to hold an opening). After ``tries`` rejections the last world is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import JOKER, N_IDS, parse_card
from .ellibir import NO_LOG, Round


def _card(v) -> int:
    """A card id from an event's value: an id (the engine's log) or a card string (the protocol's)."""
    if v is None:
        return -1
    return v if isinstance(v, int) else parse_card(v)


@dataclass
class Knowledge:
    """What a seat knows of a round beyond its View's fields, read from the round's public events."""

    held: list  # per seat, counts of the cards it certainly holds (the seat's own hand: all of it)
    marked: list  # per seat, the cards shown (A6) that may still be in its hand
    open_value: list
    opened_turn: list
    cut: int = -1  # the deal's face-up cut card, lying or not
    cut_claim_turn: int = -1
    taken: int = -1  # the card the seat to move took under P1 this turn
    discarder_declared: bool = False
    high_opening: int = 0
    unknown: list = field(default_factory=list)  # the cards whose place the seat does not know


def read_view(view) -> Knowledge:
    """The seat's knowledge: its View, and the places of cards the public events reveal."""
    n, me = view.players, view.seat
    k = Knowledge(held=[[0] * N_IDS for _ in range(n)], marked=[[] for _ in range(n)],
                  open_value=[0] * n, opened_turn=[-1] * n)
    declared = [False] * n
    reader = _Reader(k, declared)
    for e in view.events:
        if "to" not in e:
            reader.read(e)
    k.held[me] = list(view.hand)
    k.marked[me] = list(view.marked)
    if view.phase != "play":
        k.taken = -1
    k.unknown = _unknown(view, k)
    return k


class _Reader:
    """Follows the public events of a round, keeping ``Knowledge`` up to date."""

    def __init__(self, k: Knowledge, declared: list):
        self.k = k
        self.declared = declared
        self.turn = 1
        self.stock = 0
        self.cut_lies = False

    def read(self, e: dict) -> None:
        handler = getattr(self, "on_" + e.get("e", ""), None)
        if handler is not None:
            handler(e)

    def _gain(self, seat: int, c: int, n: int = 1) -> None:
        self.k.held[seat][c] += n

    def _lose(self, seat: int, c: int) -> None:
        held = self.k.held[seat]
        if held[c] > 0:
            held[c] -= 1

    def on_round_start(self, e) -> None:
        k = self.k
        k.cut = _card(e.get("cut"))
        self.cut_lies = k.cut >= 0
        self.stock = e["stock_size"] + (1 if self.cut_lies else 0)
        if e.get("joker_cutter", -1) >= 0:
            self._gain(e["joker_cutter"], JOKER)

    def on_draw(self, e) -> None:
        seat, src = e["seat"], e["from"]
        self.k.taken = -1
        if src == "stock":
            self.stock -= 1
            if self.stock == 0 and self.cut_lies:  # the last card of the stock is the face-up cut card
                self.cut_lies = False
                self._gain(seat, self.k.cut)
            return
        c = _card(e["card"])
        if src == "cut":
            self.stock -= 1
            self.cut_lies = False
        elif src == "pair":
            self.k.taken = c
        self._gain(seat, c)

    def on_declare(self, e) -> None:
        self.declared[e["seat"]] = True

    def on_opened(self, e) -> None:
        k, seat = self.k, e["seat"]
        k.open_value[seat] = e["value"]
        k.opened_turn[seat] = self.turn
        if e["method"] == "melds":
            k.high_opening = max(k.high_opening, e["value"])
        else:
            self.declared[seat] = True

    def on_meld(self, e) -> None:
        for c in e["cards"]:
            self._lose(e["seat"], _card(c))

    def on_layoff(self, e) -> None:
        self._lose(e["seat"], _card(e["card"]))

    def on_joker(self, e) -> None:
        for c in e["cards"]:
            self._lose(e["seat"], _card(c))
        self._gain(e["seat"], JOKER, e["freed"])

    def on_claim(self, e) -> None:
        held = self.k.held[e["seat"]]
        c = _card(e["card"])
        held[c] = max(held[c], 1)
        self.k.cut_claim_turn = self.turn

    def on_discard(self, e) -> None:
        k, seat, c = self.k, e["seat"], _card(e["card"])
        self._lose(seat, c)
        if e.get("shown"):
            k.held[seat][c] = max(k.held[seat][c], 1)
            k.marked[seat].append(c)
        k.discarder_declared = self.declared[seat]
        k.taken = -1
        self.turn += 1


def _unknown(view, k: Knowledge) -> list:
    """The cards whose place the seat does not know, each copy once (card accounting, C1)."""
    left = [2] * N_IDS
    gone = [c for m in view.table for c in m.cards] + list(view.discards)
    if view.cut >= 0:
        gone.append(view.cut)
    for c in gone:
        left[c] -= 1
    for held in k.held:
        for c in range(N_IDS):
            left[c] -= held[c]
    if min(left) < 0:
        raise ValueError("the view accounts for more copies of a card than the pack holds")
    return [c for c in range(N_IDS) for _ in range(left[c])]


def determinise(view, rng, weight=None, tries: int = 20, knowledge: Knowledge | None = None) -> Round:
    """A world consistent with ``view``, drawn with ``rng`` (a random.Random); see the module's text.

    ``knowledge`` (from ``read_view(view)``) may be passed to sample many worlds of one view cheaply.
    """
    k = knowledge or read_view(view)
    world = _sample(view, k, rng)
    if weight is not None:
        for _ in range(tries):
            if rng.random() < weight(world):
                break
            world = _sample(view, k, rng)
    return world


def _sample(view, k: Knowledge, rng) -> Round:
    pool = k.unknown[:]
    rng.shuffle(pool)
    n, me = view.players, view.seat
    hands = []
    at = 0
    for s in range(n):
        hand = k.held[s][:]
        if s != me:
            need = view.hand_sizes[s] - sum(hand)
            if need < 0:
                raise ValueError(f"seat {s} is known to hold more cards than its hand size")
            for c in pool[at:at + need]:
                hand[c] += 1
            at += need
        hands.append(hand)
    stock = pool[at:]
    if view.cut >= 0:
        stock.insert(0, view.cut)
    if len(stock) != view.stock_size:
        raise ValueError(f"card accounting: {len(stock)} cards left for a stock of {view.stock_size}")
    return _world(view, k, hands, stock)


def _world(view, k: Knowledge, hands: list, stock: list) -> Round:
    rules, n = view.rules, view.players
    w = object.__new__(Round)
    w.rules, w.n, w.index, w.deal = rules, n, view.round_index, None
    w.dealer, w.first = view.dealer, view.first
    w.hands, w.sizes, w.stock = hands, list(view.hand_sizes), stock
    w.cut, w.cut_lies, w.joker_cutter = k.cut, view.cut >= 0, view.joker_cutter
    w.cut_claim = view.cut_claim
    w.cut_claim_turn = k.cut_claim_turn if view.cut_claim >= 0 else -1
    w.discards = list(view.discards)
    w.discarder_declared = k.discarder_declared
    w.table = [m.copy() for m in view.table]
    w.opened, w.open_method = list(view.opened), list(view.open_method)
    w.open_value, w.opened_turn = k.open_value[:], k.opened_turn[:]
    w.declared = list(view.declared)
    w.star = [bool(rules.star_bonus and view.open_method[s] == "melds" and k.open_value[s] >= 100) for s in range(n)]
    w.marked = [[c for c in k.marked[s] if hands[s][c] > 0] for s in range(n)]
    w.marked[view.seat] = list(view.marked)
    w.penalties = [list(p) for p in view.penalties]
    w.high_opening = k.high_opening
    w.turn, w.seat, w.phase = view.turn, view.to_move, view.phase
    w.taken = k.taken if view.phase == "play" else -1
    w.over, w.end, w.winner, w.finish, w.scores, w.record = False, None, -1, None, None, None
    w.events = NO_LOG
    return w


__all__ = ["Knowledge", "determinise", "read_view"]
