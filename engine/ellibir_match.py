"""A match of Ellibir: rounds in turn, dealer rotation, totals and the end of the match (D2, D3, X1, X2)."""

from __future__ import annotations

import copy

from .cards import cards_of
from .deal import Deal, deal_from_seed, first_dealer
from .decisions import decision_from_json, parse_decision
from .determinise import determinise
from .ellibir import Round
from .errors import Refusal
from .game import ACCEPTED, Match, MatchResult, Outcome, SeatEvents, scramble_private
from .observe import legal, observe
from .rules import Rules
from .scoring import PENALTY, match_ranks


class EllibirMatch(Match):
    game = "ellibir"

    def __init__(self, rules: Rules, seed, deals: list[Deal] | None = None):
        self.rules = rules
        self.players = rules.players
        self.seed = seed
        self.deals = list(deals or [])
        self.totals = [0] * rules.players
        self.records = []
        self.counted = 0
        self.void_streak = 0
        self.reason = None
        self.events = [{
            "e": "match_start", "game": self.game, "rules": rules.normalised(), "seed": seed,
            "deals": [d.to_json() for d in self.deals],
        }]
        self._next_dealer = self.deals[0].dealer if self.deals else first_dealer(seed, rules.players)
        self.seen = [SeatEvents(s) for s in range(rules.players)]  # what each seat's views hold
        self.round: Round | None = None
        self._start_round()

    def _start_round(self) -> None:
        index = len(self.records)
        if index < len(self.deals):
            deal = self.deals[index]
        else:
            deal = deal_from_seed(self.rules, self.seed, index, self._next_dealer)
        self.round = Round(self.rules, deal, index)
        self.round.events = self.events
        self.round_start = len(self.events)
        self.events.append({
            "e": "round_start", "index": index, "number": self.counted + 1, "dealer": deal.dealer,
            "first": self.round.first, "cut": deal.cut, "joker_cutter": deal.joker_cutter,
            "hand_sizes": list(self.round.sizes), "stock_size": len(deal.stock),
        })
        for seat, hand in enumerate(deal.hands):
            self.events.append({"e": "hand", "seat": seat, "cards": sorted(hand), "to": seat})
        self.events.append({"e": "stock", "cards": list(deal.stock), "to": "nobody"})

    def _finish_round(self) -> None:
        rnd = self.round
        record = rnd.record
        record["number"] = 0 if record["void"] else self.counted + 1
        self.records.append(record)
        self._next_dealer = (rnd.dealer + 1) % self.players
        if record["void"]:
            self.void_streak += 1
        else:
            self.void_streak = 0
            self.counted += 1
            for s, score in enumerate(rnd.scores):
                self.totals[s] += score
        if self.counted >= self.rules.rounds:
            self.reason = "complete"
        elif self.void_streak >= self.rules.max_void_rounds:
            self.reason = "void_rounds"
        if self.reason:
            res = self.result()
            self.events.append({"e": "match_end", "totals": res.totals, "ranks": res.ranks, "reason": res.reason})
        else:
            self._start_round()

    # The game interface ------------------------------------------------------------------------

    def replay_part(self):
        return self.round

    def zones(self, rnd) -> dict:
        """The round ``rnd`` as replay zones (engine/replay.py): hands, stock (face down), the face-up cut
        card while it lies, the discard pile (top last), the table's melds, totals and round scores."""
        from .cards import CARD_NAMES as name, cards_of

        stock = rnd.stock[1:] if rnd.cut_lies else rnd.stock
        piles = [{"id": "stock", "label": "stock", "cards": [name[c] for c in stock], "face_down": True}]
        if rnd.cut_lies:
            piles.append({"id": "cut", "label": "cut card", "cards": [name[rnd.cut]], "face_down": False})
        piles.append({"id": "discard", "label": "discard pile", "cards": [name[c] for c in rnd.discards],
                      "face_down": False})
        counters = [{"label": f"total seat {s}", "value": t} for s, t in enumerate(self.totals)]
        if rnd.scores is not None:
            counters += [{"label": f"round score seat {s}", "value": v} for s, v in enumerate(rnd.scores)]
        over = rnd.scores is not None
        return {
            "caption": f"round {rnd.index + 1}, turn {rnd.turn}: "
                       + ("the round is over" if over else f"seat {rnd.seat} to {rnd.phase}"),
            "hands": [{"seat": s, "cards": [name[c] for c in cards_of(h)], "opened": rnd.opened[s]}
                      for s, h in enumerate(rnd.hands)],
            "piles": piles,
            "melds": [{"label": m.kind, "cards": [name[c] for c in m.cards], "owner": m.owner} for m in rnd.table],
            "counters": counters,
            "to_move": None if over else rnd.seat,
        }

    def to_move(self):
        return None if self.reason else self.round.seat

    def phase(self) -> str:
        return self.round.phase

    @property
    def is_over(self) -> bool:
        return self.reason is not None

    def observe(self, seat: int):
        return observe(self, seat)

    def legal(self, seat: int) -> dict:
        return legal(self.round, seat)

    def apply(self, seat: int, decision) -> Outcome:
        if self.reason:
            return Outcome(False, "X1", "the match is over")
        rnd = self.round
        self.events.append({"e": "decision", "seat": seat, "text": str(decision), "to": seat})
        charged = len(rnd.penalties[seat])
        refusal = rnd.apply(seat, decision)
        if rnd.over:
            self._finish_round()
        if refusal is None:
            if len(rnd.penalties[seat]) > charged:  # A5: an accepted discard that could be laid off
                return Outcome(True, "A5", "the discard could be laid off", PENALTY)
            return ACCEPTED
        penalty = PENALTY if rnd.penalties[seat] and rnd.penalties[seat][-1] == "O4" and _is_opening(refusal) else 0
        self.events.append({"e": "refused", "seat": seat, "rule": refusal.rule, "reason": refusal.message,
                            "penalty": penalty, "to": seat})
        return Outcome(False, refusal.rule, refusal.message, penalty)

    def apply_json(self, seat: int, data) -> Outcome:
        try:
            decision = decision_from_json(data)
        except Refusal as r:
            return Outcome(False, r.rule, r.message)
        return self.apply(seat, decision)

    def apply_text(self, seat: int, text: str) -> Outcome:
        try:
            decision = parse_decision(text)
        except Refusal as r:
            return Outcome(False, r.rule, r.message)
        return self.apply(seat, decision)

    def resampled(self, seat: int, rng) -> "EllibirMatch":
        twin = copy.deepcopy(self)
        world = determinise(self.observe(seat), rng)
        rnd = twin.round
        others = [s for s in range(self.players) if s != seat]
        for s in others:
            rnd.hands[s], rnd.marked[s] = world.hands[s], world.marked[s]
        rnd.stock = world.stock
        scramble_private(twin.events, seat, {s: cards_of(world.hands[s]) for s in others}, rng)
        twin.seen = [SeatEvents(s) for s in range(self.players)]  # views rebuilt from the changed log
        return twin

    def result(self) -> MatchResult:
        return MatchResult(
            game=self.game,
            totals=list(self.totals),
            ranks=match_ranks(self.totals, self.rules.partners),
            rounds=self.records,
            reason=self.reason or "unfinished",
        )


def _is_opening(refusal) -> bool:
    from .ellibir import OpeningRefusal

    return isinstance(refusal, OpeningRefusal)


# The results' rounds table (engine/game.py). ``open_method``, ``open_value`` and ``open_turn``
# are null for a seat that did not open. ``finish_G2/G3/G4`` (how the round was won) are set on
# the winner's row only and false on every other row (all false when nobody went out).
ROUND_COLUMNS = {
    "opened": "bool",
    "open_method": "string",  # "melds" or "pairs"
    "open_value": "int16",
    "open_turn": "int16",
    "declared": "bool",
    "star": "bool",
    "finish_G2": "bool",
    "finish_G3": "bool",
    "finish_G4": "bool",
    "multiplier": "int16",
    "pen_O4": "int16",
    "pen_A5": "int16",
    "cards_left": "int16",
    "left_value": "int32",
    "end": "string",  # "out", "exhausted", "max_turns"
}


def round_values(record: dict, seat: int) -> dict:
    s = record["seats"][seat]
    opened = bool(s["opened"])
    won = record["winner"] == seat and record.get("finish") is not None
    finish = record["finish"] if won else {}
    pen = s["penalties"]
    return {
        "opened": opened,
        "open_method": s["method"] if opened else None,
        "open_value": s["value"] if opened else None,
        "open_turn": s["open_turn"] if opened else None,
        "declared": bool(s["declared"]),
        "star": bool(s["star"]),
        "finish_G2": bool(finish.get("G2", False)),
        "finish_G3": bool(finish.get("G3", False)),
        "finish_G4": bool(finish.get("G4", False)),
        "multiplier": record["multiplier"],
        "pen_O4": pen.get("O4", 0),
        "pen_A5": pen.get("A5", 0),
        "cards_left": len(s["left"]),
        "left_value": s["left_value"],
        "end": record["end"],
    }
