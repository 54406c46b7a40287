"""One round of Ellibir: the state and the decisions that change it (T1-T6, O1-O6, A1-A6, P1-P2, G1-G4).

``Round.apply`` judges a whole decision (O4): it works on a scratch copy and commits only when
every part is legal. A refusal raises nothing to the caller; it returns the Refusal, with the
penalty already charged when the opening itself was wrong.
"""

from __future__ import annotations

from .cards import JOKER, card_str, hand_value
from .deal import Deal, first_player
from .decisions import MELD_PLAYS, Draw, Play, Turn
from .errors import Refusal
from .game import NO_LOG
from .melds import PAIR, Meld, accepts, lay_off, make_meld, take_joker
from .rules import Rules
from .scoring import multiplier, round_scores

_new_round = object.__new__
OPENING_RULES = frozenset({"O1", "O2", "O5", "M1", "M2", "M3", "M4", "T2", "P1"})


class OpeningRefusal(Refusal):
    """A wrong opening: costs 50 (O4, S6)."""


class _Scratch:
    """The parts of a seat's state a decision may change, copied so that a refusal changes nothing."""

    __slots__ = ("hand", "size", "table", "table_copied", "opened", "method", "value", "declared",
                 "laid", "claim", "events", "star")

    def __init__(self, rnd: "Round", seat: int):
        self.hand = rnd.hands[seat][:]
        self.size = rnd.sizes[seat]
        self.table = rnd.table
        self.table_copied = False
        self.opened = rnd.opened[seat]
        self.method = rnd.open_method[seat]
        self.value = rnd.open_value[seat]
        self.declared = rnd.declared[seat]
        self.laid = []
        self.claim = False
        self.star = False
        self.events = []

    def own_table(self) -> list:
        if not self.table_copied:
            self.table = [m.copy() for m in self.table]
            self.table_copied = True
        return self.table

    def remove(self, cards) -> None:
        hand = self.hand
        for c in cards:
            if hand[c] <= 0:
                raise Refusal("T3", f"{card_str(c)} is not in your hand")
            hand[c] -= 1
        self.size -= len(cards)


class Round:
    def __init__(self, rules: Rules, deal: Deal, index: int = 0):
        n = rules.players
        self.rules = rules
        self.n = n
        self.index = index
        self.deal = deal
        self.dealer = deal.dealer
        self.first = first_player(deal.dealer, n)
        self.hands = [[0] * 53 for _ in range(n)]
        for seat, hand in enumerate(deal.hands):
            for c in hand:
                self.hands[seat][c] += 1
        self.sizes = [len(h) for h in deal.hands]
        self.stock = list(reversed(deal.stock))  # top of the stock is the end of the list
        self.cut = deal.cut
        self.cut_lies = deal.cut >= 0
        if self.cut_lies:
            self.stock.insert(0, deal.cut)
        self.joker_cutter = deal.joker_cutter
        self.cut_claim = -1
        self.cut_claim_turn = -1
        self.discards = []
        self.discarder_declared = False
        self.table: list[Meld] = []
        self.opened = [False] * n
        self.open_method = [None] * n
        self.open_value = [0] * n
        self.opened_turn = [-1] * n
        self.declared = [False] * n
        self.star = [False] * n
        self.marked = [[] for _ in range(n)]
        self.penalties = [[] for _ in range(n)]
        self.high_opening = 0
        self.turn = 1  # number of the turn in progress, counted over all seats
        self.seat = self.first
        self.phase = "play" if rules.deal == "fifteen" else "draw"
        self.taken = -1  # the card taken under P1 this turn: it may not be discarded
        self.over = False
        self.end = None  # "out", "exhausted", "max_turns"
        self.winner = -1
        self.finish = None
        self.scores = None
        self.record = None
        self.events: list[dict] = []

    # Search: cloning, and the game-neutral world interface (engine/search.py) ---------------------

    def clone(self, log: bool = False) -> "Round":
        """A copy whose play changes nothing here. With ``log=False`` (the fast path for simulations)
        the copy writes no events; with ``log=True`` it starts a fresh log of its own.

        Only the mutable parts are copied: the table's list and melds are never changed in place
        (a decision works on copies and commits a new list), so they are shared.
        """
        new = _new_round(Round)
        new.__dict__.update(self.__dict__)
        new.hands = [h[:] for h in self.hands]
        new.sizes = self.sizes[:]
        new.stock = self.stock[:]
        new.discards = self.discards[:]
        new.opened = self.opened[:]
        new.open_method = self.open_method[:]
        new.open_value = self.open_value[:]
        new.opened_turn = self.opened_turn[:]
        new.declared = self.declared[:]
        new.star = self.star[:]
        new.marked = [m[:] if m else [] for m in self.marked]
        new.penalties = [p[:] if p else [] for p in self.penalties]
        new.events = [] if log else NO_LOG
        return new

    def to_move(self):
        """The seat to decide, or None when the round is over."""
        return None if self.over else self.seat

    def utility(self, seat: int) -> float:
        """How good the finished round is for ``seat``: minus its round score (S1-S7), so higher is better."""
        return -self.scores[seat] if self.scores is not None else 0.0

    # Public helpers ----------------------------------------------------------------------------

    @property
    def top(self) -> int:
        return self.discards[-1] if self.discards else -1

    def is_layable(self, c: int, table=None) -> bool:
        """A5's test: would some table meld accept ``c`` as it stands?"""
        for m in self.table if table is None else table:
            if accepts(m, c):
                return True
        return False

    def threshold_now(self) -> int:
        """The meld-opening value required now (O1, O5)."""
        if self.rules.rising_threshold and self.high_opening:
            return max(self.rules.threshold, self.high_opening + 1)
        return self.rules.threshold

    def discard_blocked(self, seat: int) -> str | None:
        """Why ``seat`` may not take the top discard under T2, or None."""
        if not self.discards or self.first_turn_draw():
            return "T1: there is no discard to take"
        if self.rules.pairs_discard_block and self.discarder_declared and not self.declared[seat]:
            return "P2: a declared pairs player's discard may be taken only by a declared pairs player"
        if self.rules.layable_discard_dead and self.is_layable(self.top):
            return "T2: a discard that could be laid off is dead"
        return None

    def pair_take_blocked(self, seat: int) -> str | None:
        """Why ``seat`` may not take the top discard into hand under P1, or None."""
        if not self.discards or self.first_turn_draw():
            return "T1: there is no discard to take"
        if self.open_method[seat] == "melds":
            return "P1: a player who opened with melds cannot go for pairs"
        if self.rules.pairs_discard_block and self.discarder_declared and not self.declared[seat]:
            return "P2: a declared pairs player's discard may be taken only by a declared pairs player"
        top, hand = self.top, self.hands[seat]
        partner = hand[top] > 0 or hand[JOKER] > 0 if top != JOKER else any(hand[c] for c in range(52))
        if not partner:
            return "P1: the discard forms no pair with a card in your hand"
        marks = self.marked[seat]
        if all(c == top or c in marks for c in range(53) if hand[c]):
            return "T4: no card would remain to discard, since the taken card may not be discarded"
        return None

    def first_turn_draw(self) -> bool:
        return self.turn == 1

    def cut_takeable(self, seat: int) -> bool:
        if not self.cut_lies:
            return False
        if self.turn == 1 and seat == self.first and self.rules.deal == "fourteen":
            return True
        return (
            self.cut_claim == seat
            and self.cut_claim_turn < self.turn
            and self.hands[seat][self.cut] > 0
        )

    # Applying decisions ------------------------------------------------------------------------

    def apply(self, seat: int, decision) -> Refusal | None:
        """Apply a trusted or parsed decision; returns the refusal, or None when accepted."""
        if self.over:
            return Refusal("O4", "the round is over")
        if seat != self.seat:
            return Refusal("T1", f"it is seat {self.seat}'s turn")
        try:
            if isinstance(decision, Draw):
                if self.phase != "draw":
                    if self.first_turn_draw() and self.rules.deal == "fifteen":
                        raise Refusal("D4", "the first player's first turn has no draw: play and discard")
                    raise Refusal("T1", "you have drawn already: play and discard")
                self._draw(seat, decision)
            elif isinstance(decision, Turn):
                if self.phase != "play":
                    raise Refusal("T1", "draw first")
                self._turn(seat, decision)
            else:
                raise Refusal("O4", f"not a decision: {decision!r}")
        except OpeningRefusal as r:
            self.penalties[seat].append("O4")
            # public: the table learns of the penalty, not of the cards in the refused opening
            self.events.append({"e": "penalty", "seat": seat, "rule": "O4", "reason": f"a refused opening ({r.rule})"})
            return r
        except Refusal as r:
            return r
        return None

    def _draw(self, seat: int, d: Draw) -> None:
        src = d.source
        hand = self.hands[seat]
        if src == "stock":
            if not self.stock:
                self._end_round("exhausted")
                return
            c = self.stock.pop()
            if not self.stock:
                self.cut_lies = False
            hand[c] += 1
            self.sizes[seat] += 1
            self.events.append({"e": "draw", "seat": seat, "from": "stock"})
            self.events.append({"e": "drawn", "seat": seat, "card": c, "to": seat})
        elif src == "cut":
            if not self.cut_takeable(seat):
                raise Refusal("D6", "you may not take the face-up cut card now")
            self.stock.pop(0)
            self.cut_lies = False
            hand[self.cut] += 1
            self.sizes[seat] += 1
            self.events.append({"e": "draw", "seat": seat, "from": "cut", "card": self.cut})
        elif src == "pair":
            why = self.pair_take_blocked(seat)
            if why:
                raise Refusal(why[:2], why[4:])
            c = self.discards.pop()
            hand[c] += 1
            self.sizes[seat] += 1
            self.taken = c
            if not self.declared[seat]:
                self.declared[seat] = True
                self.events.append({"e": "declare", "seat": seat})
            self.events.append({"e": "draw", "seat": seat, "from": "pair", "card": c})
        else:
            self._take(seat, d)
            return
        self.phase = "play"

    def _take(self, seat: int, d: Draw) -> None:
        why = self.discard_blocked(seat)
        # O4: a card that may not be taken (P2, a dead discard under T2) is refused only after the
        # opening carried with it has been judged, so a wrong opening still costs 50.
        if why and (self.opened[seat] or why.startswith("T1")):
            raise Refusal(why[:2], why[4:])
        if not d.plays or any(p.kind not in MELD_PLAYS for p in d.plays):
            raise Refusal("T2", "taking the discard goes with the melds that lay it down, and only with them")
        c = self.top
        sc = _Scratch(self, seat)
        sc.hand[c] += 1
        sc.size += 1
        was_opened = sc.opened
        first = d.plays[0]
        if not was_opened and first.kind not in ("open", "pairs"):
            raise OpeningRefusal("T2", "a player who has not opened must open with the taken discard")
        # O4: the opening (and the taken card's place in it) is judged before anything else
        plays = d.plays if was_opened else d.plays[:1]
        for p in plays:
            self._play(seat, sc, p, taking=True)
        if not any(c in cards for kind, cards in sc.laid):
            err = OpeningRefusal if not was_opened else Refusal
            raise err("T2", "the taken discard is not in a meld laid down this turn")
        if why:
            raise Refusal(why[:2], why[4:])
        if not was_opened and len(d.plays) > 1:
            raise Refusal("T2", "taking the discard to open carries the opening only")
        if sc.size < 1:
            raise Refusal("T4", "one card must remain for the discard")
        self.discards.pop()
        self.events.append({"e": "draw", "seat": seat, "from": "discard", "card": c})
        self._commit(seat, sc)
        self.phase = "play"

    def _turn(self, seat: int, t: Turn) -> None:
        if t.plays:
            sc = _Scratch(self, seat)
            self._check_plays(seat, sc, t)
            hand, size, table = sc.hand, sc.size, sc.table
        else:
            sc, hand, size, table = None, self.hands[seat], self.sizes[seat], self.table
        c = t.discard
        if size < 1:
            raise Refusal("T4", "you may not lay down your last card: one must remain for the discard")
        if hand[c] <= 0:
            raise Refusal("T4", f"you cannot discard {card_str(c)}: it is not in your hand")
        if c == self.taken:
            raise Refusal("P1", "the discard taken to form a pair may not be discarded this turn")
        marks = self.marked[seat]
        if marks and hand[c] <= marks.count(c):
            raise Refusal("A6", f"{card_str(c)} was shown and may not be discarded this round")
        going_out = size == 1
        penalty = False
        shown = False
        if not going_out:
            opened = sc.opened if sc else self.opened[seat]
            scope = self.rules.layable_discard_scope
            if t.shown:
                if scope != "any" or opened:
                    raise Refusal("A6", "only a player who has not opened may show, under layable_discard_scope = any")
                if hand[c] < 2 or not self.is_layable(c, table):
                    raise Refusal("A6", "showing needs two identical layable cards in hand")
                shown = True
            elif (opened or scope == "any") and table and self.is_layable(c, table):
                penalty = True
        elif t.shown:
            raise Refusal("A6", "the going-out discard is not shown")
        if sc:
            self._commit(seat, sc)
            hand = self.hands[seat]
        hand[c] -= 1
        self.sizes[seat] -= 1
        self.discards.append(c)
        self.discarder_declared = self.declared[seat]
        if shown:
            self.marked[seat].append(c)
        self.events.append({"e": "discard", "seat": seat, "card": c, "shown": shown})
        if penalty:
            self.penalties[seat].append("A5")
            self.events.append({"e": "penalty", "seat": seat, "rule": "A5", "reason": f"{card_str(c)} could be laid off"})
        if going_out:
            self._go_out(seat, c)
            return
        self.taken = -1
        if self.turn >= self.rules.max_turns:
            self._end_round("max_turns")
            return
        self.turn += 1
        self.seat = (seat + 1) % self.n
        self.phase = "draw"

    def _check_plays(self, seat: int, sc: _Scratch, t: Turn) -> None:
        plays = t.plays
        opening = next((p for p in plays if p.kind in ("open", "pairs")), None)
        if opening is not None:
            self._check_opening_alone(seat, sc, opening, t)
        for p in plays:
            self._play(seat, sc, p, taking=False, turn=t)

    def _check_opening_alone(self, seat: int, sc: _Scratch, p: Play, t: Turn | None) -> None:
        """O4: the opening is judged first, so a wrong opening costs 50 whatever else is wrong."""
        melds = self._opening_melds(seat, sc, p)
        if p.kind == "open":
            self._check_open_value(sc, melds, t)

    def _opening_melds(self, seat: int, sc: _Scratch, p: Play) -> list:
        if sc.opened:
            raise Refusal("O1", "you have opened already")
        try:
            melds = [make_meld(kind, cards, seat) for kind, cards in p.melds]
        except Refusal as r:
            raise OpeningRefusal(r.rule, r.message) from None
        if p.kind == "open":
            if sc.declared:
                raise OpeningRefusal("P1", "a declared pairs player opens only with pairs")
            if any(m.kind == PAIR for m in melds):
                raise OpeningRefusal("O1", "a meld opening lays down runs and sets only")
        else:
            pairs = sum(1 for m in melds if m.kind == PAIR)
            combo = (pairs, len(melds) - pairs)
            if combo not in self.rules.pairs_openings:
                allowed = ", ".join(f"{a} pairs + {b} melds" for a, b in self.rules.pairs_openings)
                raise OpeningRefusal("O2", f"{combo[0]} pairs + {combo[1]} melds is not an allowed pairs opening ({allowed})")
        return melds

    def _check_open_value(self, sc: _Scratch, melds: list, t: Turn | None) -> int:
        value = sum(m.value for m in melds)
        need = self.rules.threshold
        if self.rules.rising_threshold and self.high_opening:
            rising = max(need, self.high_opening + 1)
            from_hand_out = t is not None and not any(p.kind in ("layoff", "joker") for p in t.plays) and (
                sum(p.laid for p in t.plays) == sc.size - 1
            )
            if not from_hand_out:
                need = rising
            if value < need:
                raise OpeningRefusal("O5", f"the opening is worth {value}; the rising threshold asks for {need}")
        if value < need:
            raise OpeningRefusal("O1", f"the opening is worth {value}; it needs at least {need}")
        return value

    def _play(self, seat: int, sc: _Scratch, p: Play, taking: bool, turn: Turn | None = None) -> None:
        kind = p.kind
        if kind in ("open", "pairs"):
            melds = self._opening_melds(seat, sc, p)
            if kind == "open" and taking:
                self._check_open_value(sc, melds, None)
            value = sum(m.value for m in melds)
            self._lay(sc, melds)
            sc.opened = True
            sc.method = "melds" if kind == "open" else "pairs"
            sc.value = value
            if kind == "pairs":
                sc.declared = True
            elif self.rules.star_bonus and value >= 100:
                sc.star = True
        elif kind == "meld":
            if not sc.opened:
                raise Refusal("A1", "lay down melds after opening")
            melds = [make_meld(k, cards, seat) for k, cards in p.melds]
            if any(m.kind == PAIR for m in melds):
                raise Refusal("A3", "a pair is laid beside pairs with the 'pair' play")
            self._lay(sc, melds)
        elif kind == "pair":
            self._pair_beside(seat, sc, p)
        elif taking:
            raise Refusal("T2", f"'{kind}' does not go with taking the discard")
        elif kind == "layoff":
            self._layoff(seat, sc, p)
        elif kind == "joker":
            self._joker(seat, sc, p, turn)
        elif kind == "declare":
            if sc.opened:
                raise Refusal("P1", "a player who has opened cannot declare pairs")
            if sc.declared:
                raise Refusal("P1", "you have declared pairs already")
            sc.declared = True
            sc.events.append({"e": "declare", "seat": seat})
        elif kind == "claim":
            self._claim(seat, sc, p)
        else:
            raise Refusal("O4", f"unknown play {kind!r}")

    def _lay(self, sc: _Scratch, melds: list) -> None:
        for m in melds:
            sc.remove(m.cards)
        table = sc.own_table()
        for m in melds:
            table.append(m)
            sc.laid.append((m.kind, tuple(m.cards)))
            sc.events.append({"e": "meld", "seat": m.owner, "index": len(table) - 1, "kind": m.kind,
                              "cards": list(m.cards), "beside": m.beside})

    def _pair_beside(self, seat: int, sc: _Scratch, p: Play) -> None:
        if not self.rules.pairs_layoff:
            raise Refusal("A3", "laying pairs beside pairs needs pairs_layoff = true")
        if not sc.opened:
            raise Refusal("A3", "lay down pairs after opening")
        target = p.target
        if not 0 <= target < self.n:
            raise Refusal("A3", f"no seat {target}")
        method = sc.method if target == seat else self.open_method[target]
        if method != "pairs":
            raise Refusal("A3", f"seat {target} did not open with pairs")
        melds = [make_meld(k, cards, seat) for k, cards in p.melds]
        if any(m.kind != PAIR for m in melds):
            raise Refusal("A3", "only pairs are laid beside pairs")
        for m in melds:
            m.beside = target
        self._lay(sc, melds)

    def _layoff(self, seat: int, sc: _Scratch, p: Play) -> None:
        if not sc.opened:
            raise Refusal("A2", "lay off after opening")
        table = sc.own_table()
        if not 0 <= p.target < len(table):
            raise Refusal("A2", f"no table meld {p.target}")
        c = p.cards[0]
        sc.remove((c,))
        lay_off(table[p.target], c, p.end)
        sc.events.append({"e": "layoff", "seat": seat, "index": p.target, "card": c, "end": p.end})

    def _joker(self, seat: int, sc: _Scratch, p: Play, turn: Turn | None) -> None:
        opening_later = turn is not None and any(q.kind in ("open", "pairs") for q in turn.plays)
        if not sc.opened and not opening_later:
            raise Refusal("A4", "take jokers after opening, or in the turn you open")
        table = sc.own_table()
        if not 0 <= p.target < len(table):
            raise Refusal("A4", f"no table meld {p.target}")
        meld = table[p.target]
        if self.rules.joker_take_from == "others" and meld.owner == seat:
            raise Refusal("A4", "jokers may be taken only from other players' melds (joker_take_from = others)")
        sc.remove(p.cards)
        freed = take_joker(meld, p.cards, self.rules.set_joker_swap)
        sc.hand[JOKER] += freed
        sc.size += freed
        sc.events.append({"e": "joker", "seat": seat, "index": p.target, "cards": list(p.cards), "freed": freed})

    def _claim(self, seat: int, sc: _Scratch, p: Play) -> None:
        if not self.rules.joker_in_cut or not self.cut_lies:
            raise Refusal("D6", "there is no face-up cut card to claim")
        if not sc.declared:
            raise Refusal("D6", "only a declared pairs player may claim the cut card")
        if self.cut_claim >= 0:
            raise Refusal("D6", f"seat {self.cut_claim} claimed the cut card first")
        c = p.cards[0]
        if c != self.cut or sc.hand[c] <= 0:
            raise Refusal("D6", "claiming shows a natural card identical to the cut card")
        sc.claim = True
        sc.events.append({"e": "claim", "seat": seat, "card": c})

    def _commit(self, seat: int, sc: _Scratch) -> None:
        self.hands[seat] = sc.hand
        self.sizes[seat] = sc.size
        self.table = sc.table
        if sc.opened and not self.opened[seat]:
            self.opened[seat] = True
            self.open_method[seat] = sc.method
            self.open_value[seat] = sc.value
            self.opened_turn[seat] = self.turn
            if sc.method == "melds":
                self.high_opening = max(self.high_opening, sc.value)
            self.events.append({"e": "opened", "seat": seat, "method": sc.method, "value": sc.value})
        self.declared[seat] = sc.declared
        if sc.star:
            self.star[seat] = True
        if sc.claim:
            self.cut_claim = seat
            self.cut_claim_turn = self.turn
        marks = self.marked[seat]
        if marks:
            self.marked[seat] = [c for c in marks if sc.hand[c] > 0]
        self.events.extend(sc.events)

    # The end of a round ------------------------------------------------------------------------

    def _go_out(self, seat: int, last: int) -> None:
        g2 = self.opened_turn[seat] == self.turn
        g3 = last == JOKER
        g4 = self.open_method[seat] == "pairs"
        self.finish = {"G2": g2, "G3": g3, "G4": g4}
        self.winner = seat
        self._end_round("out")

    def _end_round(self, reason: str) -> None:
        self.over = True
        self.end = reason
        n = self.n
        void = reason != "out" and (not any(self.opened) or self.rules.exhausted == "void")
        if void:
            self.scores = [0] * n
            mult = 1
        else:
            if self.winner >= 0:
                others = any(self.opened[s] for s in range(n) if s != self.winner)
                f = self.finish
                mult = multiplier(f["G2"], f["G3"], f["G4"], others)
            else:
                mult = 1
            self.scores = round_scores(
                self.winner, self.opened, self.declared,
                [hand_value(h) for h in self.hands],
                [len(p) for p in self.penalties], self.star, mult,
            )
        self.record = self._record(reason, void, mult)
        self.events.append({"e": "round_end", "record": self.record})

    def _record(self, reason: str, void: bool, mult: int) -> dict:
        seats = []
        for s in range(self.n):
            pen = {}
            for rule in self.penalties[s]:
                pen[rule] = pen.get(rule, 0) + 1
            seats.append({
                "opened": self.opened[s],
                "method": self.open_method[s],
                "value": self.open_value[s],
                "open_turn": self.opened_turn[s],
                "declared": self.declared[s],
                "star": self.star[s] and not void,
                "penalties": pen,
                "left": [card_str(c) for c in range(53) for _ in range(self.hands[s][c])],
                "left_value": hand_value(self.hands[s]),
                "score": self.scores[s],
            })
        return {
            "index": self.index,
            "dealer": self.dealer,
            "first": self.first,
            "end": reason,
            "void": void,
            "turns": self.turn,
            "winner": self.winner,
            "finish": self.finish,
            "multiplier": mult,
            "seats": seats,
        }
