"""An Ellibir view's JSON form (``View.to_json(history=False)``), built for every request of a seat at
a fraction of the cost: card names come from a table, and what a round only adds to (the discard
pile) or rarely changes (the melds on the table) is kept from the last request and reused.

``ViewJson(view)`` gives the same dict as ``view.to_json(history=False)``; tests/test_reuse.py
checks it against the engine over whole matches. Views of other games go to their own ``to_json``.
"""

from __future__ import annotations

from engine.cards import JOKER, N_IDS, card_str
from engine.observe import View

CARD = tuple(card_str(c) for c in range(N_IDS))


class ViewJson:
    """One seat's view-to-JSON converter, with what it keeps between requests."""

    def __init__(self):
        self.discard_ids: list = []
        self.discard_names: list = []
        self.melds: dict = {}  # (index, kind, base, cards, owner, beside) -> its JSON

    def __call__(self, view) -> dict:
        if type(view) is not View:
            return view.to_json(history=False)
        hand = []
        for c, n in enumerate(view.hand):
            if n:
                hand += [CARD[c]] * n
        return {
            "seat": view.seat,
            "players": view.players,
            "round": view.round_index,
            "round_number": view.round_number,
            "dealer": view.dealer,
            "first": view.first,
            "turn": view.turn,
            "to_move": view.to_move,
            "phase": view.phase,
            "hand": hand,
            "marked": [CARD[c] for c in view.marked],
            "table": [self._meld(i, m) for i, m in enumerate(view.table)],
            "discards": self._discards(view.discards),
            "can_take_discard": view.can_take_discard,
            "can_pair_take": view.can_pair_take,
            "cut": CARD[view.cut] if view.cut >= 0 else None,
            "cut_claim": view.cut_claim,
            "joker_cutter": view.joker_cutter,
            "stock_size": view.stock_size,
            "hand_sizes": view.hand_sizes,
            "opened": view.opened,
            "open_method": view.open_method,
            "declared": view.declared,
            "totals": view.totals,
            "penalties": view.penalties,
            "threshold": view.threshold,
            "pairs_openings": [list(p) for p in view.pairs_openings],
        }

    def _discards(self, ids: list) -> list:
        known = self.discard_ids
        if len(ids) < len(known) or ids[: len(known)] != known:
            known, self.discard_names = [], []
        names = self.discard_names + [CARD[c] for c in ids[len(known):]]
        self.discard_ids, self.discard_names = list(ids), names
        return list(names)

    def _meld(self, index: int, m) -> dict:
        key = (index, m.kind, m.base, tuple(m.cards), m.owner, m.beside)
        out = self.melds.get(key)
        if out is None:
            if len(self.melds) > 512:
                self.melds.clear()
            out = self.melds[key] = _meld_json(index, m)
        return out


def _meld_json(index: int, m) -> dict:
    """``engine.observe.meld_json`` with the card table."""
    stands = []
    for i, c in enumerate(m.cards):
        if c == JOKER:
            s = m.stands_for(i)
            stands.append(CARD[s] if s >= 0 else f"rank:{CARD[-1 - s][:-1]}")
    out = {"index": index, "kind": m.kind, "cards": [CARD[c] for c in m.cards], "owner": m.owner}
    if stands:
        out["jokers"] = stands
    if m.beside >= 0:
        out["beside"] = m.beside
    return out
