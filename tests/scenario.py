"""Helpers for the rule tests: deals built from a few given hands, and strict ways to drive a match.

A test names only the cards that matter. ``build_deal`` pads each hand to its size (D4/D5) and
fills the stock with the remaining cards in a fixed order, after the cards the test puts on top.
Values that a test expects are computed here independently of the engine (``value``).
"""

from __future__ import annotations

from engine import make_rules, new_match
from engine.cards import JOKER, card_str, cards_of, parse_card
from engine.deal import Deal, deal_from_json, hand_sizes

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("C", "D", "H", "S")

# C3, written out again so that expected scores do not come from the engine's own table.
_RANK_VALUE = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
               "J": 10, "Q": 10, "K": 10, "A": 11}


def value(cards) -> int:
    """C3 penalty value of cards given as a string ("AS 9H JK") or a list of card strings."""
    total = 0
    for c in split(cards):
        total += 25 if c == "JK" else _RANK_VALUE[c[:-1]]
    return total


def split(cards) -> list[str]:
    if isinstance(cards, str):
        return cards.split()
    return list(cards)


def ids(cards) -> list[int]:
    return [parse_card(c) for c in split(cards)]


def all_cards() -> list[str]:
    """The 106 cards (C1) in the fixed fill order: rank by rank, suit by suit, both copies, jokers last."""
    out = [r + s for _ in range(2) for r in RANKS for s in SUITS]
    return out + ["JK", "JK"]


def rules(preset: str = "standard", **overrides):
    return make_rules(preset, overrides)


def build_deal(r, hands, dealer: int = 0, top=(), cut=None, joker_cutter=None, fill=None) -> Deal:
    """A checked Deal (through ``deal_from_json``) from partial hands.

    ``hands`` has one entry per seat: a card string list/str, or None. Each hand is padded to the
    size the rules give it with cards from the pool (``fill`` first if given, then the fixed
    order). ``top`` goes on top of the stock, top first; the rest of the pool follows.
    """
    assert len(hands) == r.players
    pool = all_cards()

    def take(card: str) -> None:
        try:
            pool.remove(card)
        except ValueError:
            raise AssertionError(f"scenario uses {card} more than twice") from None

    sizes = hand_sizes(r, dealer)
    fixed = [split(h) if h is not None else [] for h in hands]
    for h in fixed:
        for c in h:
            take(c)
    for c in split(top):
        take(c)
    if cut is not None:
        take(cut)
    extra = split(fill) if fill else []
    for c in extra:
        take(c)
    pool = extra + pool
    out_hands = []
    for seat, h in enumerate(fixed):
        need = max(0, sizes[seat] - len(h))  # a hand too large is left for deal_from_json to refuse
        # pad with non-jokers first, so that a padded hand never holds a joker by accident
        pad = [c for c in pool if c != "JK"][:need]
        for c in pad:
            pool.remove(c)
        out_hands.append(h + pad)
    data = {"dealer": dealer, "hands": out_hands, "stock": split(top) + pool}
    if cut is not None:
        data["cut"] = cut
    if joker_cutter is not None:
        data["joker_cutter"] = joker_cutter
    return deal_from_json(data, r)


def start(hands, preset: str = "standard", dealer: int = 0, top=(), cut=None, joker_cutter=None,
          fill=None, rounds: int = 1, seed=1, more_deals=(), **overrides):
    """A match of ``len(hands)`` players whose first round is built from ``hands``."""
    overrides.setdefault("players", len(hands))
    overrides.setdefault("rounds", rounds)
    r = make_rules(preset, overrides)
    d = build_deal(r, hands, dealer, top, cut, joker_cutter, fill)
    return new_match("ellibir", r, seed, [d, *more_deals])


# Driving a match ------------------------------------------------------------------------------


def snapshot(m) -> dict:
    """Everything a refused decision must leave alone (O4), penalties apart."""
    rnd = m.round
    return {
        "round": rnd.index,
        "hands": [h[:] for h in rnd.hands],
        "sizes": list(rnd.sizes),
        "table": [(x.kind, list(x.cards), x.base, x.owner, x.beside) for x in rnd.table],
        "discards": list(rnd.discards),
        "stock": list(rnd.stock),
        "cut_lies": rnd.cut_lies,
        "cut_claim": rnd.cut_claim,
        "opened": list(rnd.opened),
        "open_method": list(rnd.open_method),
        "open_value": list(rnd.open_value),
        "declared": list(rnd.declared),
        "marked": [list(x) for x in rnd.marked],
        "star": list(rnd.star),
        "high_opening": rnd.high_opening,
        "turn": rnd.turn,
        "seat": rnd.seat,
        "phase": rnd.phase,
        "taken": rnd.taken,
        "over": rnd.over,
        "totals": list(m.totals),
    }


def ok(m, seat: int, text: str):
    out = m.apply_text(seat, text)
    assert out.accepted, f"seat {seat}: {text!r} refused: {out}"
    return out


def refused(m, seat: int, text: str, rule: str, penalty: int = 0):
    """Apply ``text``, expect a refusal naming ``rule`` with ``penalty``, and check O4: nothing else changed."""
    before = snapshot(m)
    pens = [list(p) for p in m.round.penalties]
    out = m.apply_text(seat, text)
    assert not out.accepted, f"seat {seat}: {text!r} was accepted, expected a refusal under {rule}"
    assert out.rule == rule, f"seat {seat}: {text!r} refused under {out.rule} ({out.reason}), expected {rule}"
    assert out.penalty == penalty, f"{text!r}: penalty {out.penalty}, expected {penalty}"
    assert snapshot(m) == before, f"{text!r}: a refused decision changed the state (O4)"
    if penalty:
        pens[seat].append("O4")
    assert [list(p) for p in m.round.penalties] == pens, f"{text!r}: penalties {m.round.penalties}, expected {pens}"
    return out


def hand(m, seat: int) -> list[str]:
    return [card_str(c) for c in cards_of(m.round.hands[seat])]


def same_cards(a, b) -> bool:
    return sorted(split(a)) == sorted(split(b))


def table(m) -> list[str]:
    return [str(x) for x in m.round.table]


def top_discard(m) -> str | None:
    t = m.round.top
    return card_str(t) if t >= 0 else None


def pass_turn(m, seat: int) -> None:
    """Draw from the stock and discard a card that costs no penalty (the drawn one if it can)."""
    rnd = m.round
    ok(m, seat, "stock")
    if rnd is not m.round or rnd.over:
        return
    drawn = rnd.events[-1]["card"]
    h = rnd.hands[seat]
    choices = [drawn] + [c for c in range(53) if h[c] and c != drawn]
    for c in choices:
        if c != JOKER and not rnd.is_layable(c) and c not in rnd.marked[seat]:
            ok(m, seat, f"discard {card_str(c)}")
            return
    ok(m, seat, f"discard {card_str(drawn)}")


def round_record(m, index: int = -1) -> dict:
    return m.records[index]


def scores(m, index: int = -1) -> list[int]:
    return [s["score"] for s in m.records[index]["seats"]]


__all__ = [
    "JOKER", "build_deal", "start", "ok", "refused", "snapshot", "hand", "same_cards", "table", "top_discard",
    "pass_turn", "round_record", "scores", "value", "ids", "split", "all_cards", "rules",
]
