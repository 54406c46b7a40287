"""Dealing a round (D2-D6) from a seed, or from a deal file (docs/deal-files.md)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import JOKER, N_CARDS, CardError, card_str, full_deck, parse_card
from .rules import Rules


class DealError(ValueError):
    """A deal file that does not describe a legal deal."""


@dataclass(frozen=True)
class Deal:
    dealer: int
    hands: tuple  # one tuple of card ids per seat
    stock: tuple  # top first; the face-up cut card, if any, is NOT in it (it lies below the stock)
    cut: int = -1  # the face-up cut card (D6), or -1
    joker_cutter: int = -1  # the seat that kept a joker from the cut (D6), or -1

    def to_json(self) -> dict:
        out = {
            "dealer": self.dealer,
            "hands": [[card_str(c) for c in h] for h in self.hands],
            "stock": [card_str(c) for c in self.stock],
        }
        if self.cut >= 0:
            out["cut"] = card_str(self.cut)
        if self.joker_cutter >= 0:
            out["joker_cutter"] = self.joker_cutter
        return out


def first_player(dealer: int, players: int) -> int:
    return (dealer + 1) % players


def cutter(rules: Rules, dealer: int) -> int:
    """D6: the dealer's left-hand neighbour."""
    if rules.direction == "anticlockwise":
        return (dealer - 1) % rules.players
    return first_player(dealer, rules.players)


def hand_sizes(rules: Rules, dealer: int, joker_cutter: int = -1) -> list[int]:
    sizes = [14] * rules.players
    if rules.deal == "fifteen":
        sizes[first_player(dealer, rules.players)] += 1
    return sizes


def round_rng(deal_seed, index: int) -> random.Random:
    """D3: the generator of round ``index`` (void rounds counted) of deal seed ``deal_seed``."""
    return random.Random(f"ellibir-deal:{deal_seed}:{index}")


def first_dealer(deal_seed, players: int) -> int:
    return random.Random(f"ellibir-dealer:{deal_seed}").randrange(players)


def deal_from_seed(rules: Rules, deal_seed, index: int, dealer: int) -> Deal:
    rng = round_rng(deal_seed, index)
    deck = full_deck()
    rng.shuffle(deck)
    cut, joker_cutter = -1, -1
    if rules.joker_in_cut:
        at = rng.randrange(2, N_CARDS - 2)
        picked = deck.pop(at)
        if picked == JOKER:
            joker_cutter = cutter(rules, dealer)
        else:
            cut = picked
    sizes = hand_sizes(rules, dealer)
    hands = [[] for _ in range(rules.players)]
    if joker_cutter >= 0:
        hands[joker_cutter].append(JOKER)
    order = [(first_player(dealer, rules.players) + i) % rules.players for i in range(rules.players)]
    pos = 0
    while any(len(hands[s]) < sizes[s] for s in order):
        for s in order:
            take = min(2, sizes[s] - len(hands[s]))
            hands[s].extend(deck[pos : pos + take])
            pos += take
    return Deal(dealer, tuple(tuple(h) for h in hands), tuple(deck[pos:]), cut, joker_cutter)


def deal_from_json(data, rules: Rules) -> Deal:
    """Read and check one deal of a deal file."""
    if not isinstance(data, dict):
        raise DealError("a deal is a JSON object with dealer, hands and stock")
    unknown = set(data) - {"dealer", "hands", "stock", "cut", "joker_cutter"}
    if unknown:
        raise DealError(f"unknown deal field {sorted(unknown)[0]!r}")
    dealer = data.get("dealer")
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < rules.players:
        raise DealError(f"dealer: expected a seat 0..{rules.players - 1}, got {dealer!r}")
    hands = data.get("hands")
    if not isinstance(hands, list) or len(hands) != rules.players:
        raise DealError(f"hands: expected {rules.players} hands, one per seat")
    try:
        hands = [tuple(parse_card(c) for c in _list(h, "hand")) for h in hands]
        stock = tuple(parse_card(c) for c in _list(data.get("stock"), "stock"))
        cut = parse_card(data["cut"]) if data.get("cut") is not None else -1
    except CardError as e:
        raise DealError(str(e)) from None
    joker_cutter = data.get("joker_cutter", -1)
    if joker_cutter is None:
        joker_cutter = -1
    _check_cut(rules, dealer, cut, joker_cutter, hands)
    sizes = hand_sizes(rules, dealer)
    for seat, hand in enumerate(hands):
        if len(hand) != sizes[seat]:
            raise DealError(f"hands[{seat}]: expected {sizes[seat]} cards, got {len(hand)}")
    _check_counts(hands, stock, cut)
    return Deal(dealer, tuple(hands), stock, cut, joker_cutter)


def _list(value, what: str) -> list:
    if not isinstance(value, list):
        raise DealError(f"{what}: expected a list of cards")
    return value


def _check_cut(rules: Rules, dealer: int, cut: int, joker_cutter: int, hands) -> None:
    if not rules.joker_in_cut:
        if cut >= 0 or joker_cutter != -1:
            raise DealError("cut and joker_cutter need joker_in_cut = true (D6)")
        return
    if cut == JOKER:
        raise DealError("cut: a joker from the cut is kept by the cutter (joker_cutter), not laid face up")
    if joker_cutter != -1:
        if joker_cutter != cutter(rules, dealer):
            raise DealError(f"joker_cutter: the cutter of this deal is seat {cutter(rules, dealer)}")
        if JOKER not in hands[joker_cutter]:
            raise DealError("joker_cutter: the cutter's hand holds no joker")
        if cut >= 0:
            raise DealError("a deal has either a face-up cut card or a joker_cutter, not both")
    elif cut < 0:
        raise DealError("joker_in_cut: the deal needs a face-up cut card or a joker_cutter (D6)")


def _check_counts(hands, stock, cut) -> None:
    cards = [c for h in hands for c in h] + list(stock) + ([cut] if cut >= 0 else [])
    if len(cards) != N_CARDS:
        raise DealError(f"the deal holds {len(cards)} cards, not {N_CARDS} (C1)")
    counts = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    for c, n in sorted(counts.items()):
        if n != 2:
            raise DealError(f"{card_str(c)} appears {n} times; every card appears twice (C1)")


def deals_from_json(data, rules: Rules) -> list[Deal]:
    """A deal file: one deal object, a list of them, or {"deals": [...]}."""
    if isinstance(data, dict) and "deals" in data:
        data = data["deals"]
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not data:
        raise DealError("a deal file holds a deal object or a non-empty list of them")
    out = []
    for i, d in enumerate(data):
        try:
            out.append(deal_from_json(d, rules))
        except DealError as e:
            raise DealError(f"deal {i}: {e}") from None
    return out
