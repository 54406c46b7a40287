"""Einundfünfzig (E1-E4): the children's game that shares Ellibir's name, behind the same game interface.

Cards are ints ``suit * 8 + rank`` (rank 0 is the 7, 7 the ace) with string forms ``7C`` … ``10H``
… ``AS`` that round-trip. A decision is a ``Play``: the card, the 7's value when the card is a 7,
and, on the first player's first decision when the face-up card is a 7 under
``start_seven = "first_player"``, the value of that 7 (``start``). Text forms: ``KH``, ``7H=1``,
``QS start=7``. Events carry card strings, so the log needs no conversion.

A match is ``rules.rounds`` games. Each game's record has the common keys of engine/game.py
(``winner`` is -1; ``winners`` lists the seats that did not lose); each seat's ``score`` is 1 for
the loser and 0 otherwise, and a match's totals are the games lost (E4).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field

from .einundfuenfzig_cards import (CARD_NAMES, HAND, LIMIT, N_CARDS, RANK_VALUES, SEVEN_VALUES, DecisionError,
                                   card_str, card_unicode, is_seven, low_value, parse_card, values_of)
from .einundfuenfzig_rules import GAME, Rules, make_rules, rules_from_dict
from .game import ACCEPTED, NO_LOG, Match, MatchResult, Outcome, SeatEvents, scramble_private
from .scoring import competition_ranks

# Decisions ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Play:
    """Put ``card`` on the pile; ``value`` is a 7's value (1 or 7); ``start`` the face-up 7's value (E2)."""

    card: int
    value: int | None = None
    start: int | None = None

    def to_json(self) -> dict:
        out = {"card": card_str(self.card)}
        if self.value is not None:
            out["value"] = self.value
        if self.start is not None:
            out["start"] = self.start
        return out

    def __str__(self) -> str:
        text = card_str(self.card) + (f"={self.value}" if self.value is not None else "")
        return text + (f" start={self.start}" if self.start is not None else "")


def _number(value, what: str, rule: str):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise DecisionError(rule, f"{what} must be 1 or 7, got {value!r}")
    return value


def play_from_json(data) -> Play:
    """``{"card": "7H", "value": 7, "start": 1}`` (value and start only where they apply)."""
    if not isinstance(data, dict):
        raise DecisionError("E3", f"a decision is an object like {{\"card\": \"KH\"}}, got {type(data).__name__}")
    unknown = sorted(set(data) - {"card", "value", "start"})
    if unknown:
        raise DecisionError("E3", f"unknown field {unknown[0]!r} in the decision (fields: card, value, start)")
    if "card" not in data:
        raise DecisionError("E3", "the decision names no card")
    return Play(parse_card(data["card"]), _number(data.get("value"), "value", "E1"),
                _number(data.get("start"), "start", "E2"))


def parse_play(text) -> Play:
    """``KH``, ``7H=1``, ``QS start=7``."""
    if not isinstance(text, str) or not text.split():
        raise DecisionError("E3", f"a decision is a card such as KH or 7H=7, got {text!r}")
    parts = text.split()
    card, _, value = parts[0].partition("=")
    start = None
    for extra in parts[1:]:
        name, sep, number = extra.partition("=")
        if name != "start" or not sep:
            raise DecisionError("E3", f"unexpected {extra!r} in the decision {text!r} (only start=1 or start=7)")
        start = _int_text(number, "start", "E2")
    return Play(parse_card(card), _int_text(value, "value", "E1") if value else None, start)


def _int_text(text: str, what: str, rule: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise DecisionError(rule, f"{what} must be 1 or 7, got {text!r}") from None


# Deals -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deal:
    """One game's deal (E2): the dealer, each seat's 5 cards, the face-up card, the talon top first."""

    dealer: int
    hands: tuple
    start: int
    talon: tuple

    def to_json(self) -> dict:
        return {"dealer": self.dealer, "hands": [[card_str(c) for c in h] for h in self.hands],
                "start": card_str(self.start), "talon": [card_str(c) for c in self.talon]}


def first_dealer(seed, players: int) -> int:
    return random.Random(f"{GAME}-dealer:{seed}").randrange(players)


def deal_from_seed(players: int, seed, index: int, dealer: int) -> Deal:
    """Game ``index`` of a match dealt from ``seed``: the same seed and index give the same cards."""
    deck = list(range(N_CARDS))
    random.Random(f"{GAME}-deal:{seed}:{index}").shuffle(deck)
    hands = [[] for _ in range(players)]
    for k in range(HAND * players):  # one card at a time, from the first player on
        hands[(dealer + 1 + k) % players].append(deck[k])
    start = deck[HAND * players]
    return Deal(dealer, tuple(tuple(h) for h in hands), start, tuple(deck[HAND * players + 1:]))


def deals_from_json(data, rules: Rules) -> list[Deal]:
    """Explicit deals (a list, or one deal); every deal must hold the 32 cards exactly once."""
    items = data if isinstance(data, list) else [data]
    out = []
    for n, item in enumerate(items):
        where = f"deal {n}"
        try:
            dealer, hands = item["dealer"], item["hands"]
            deal = Deal(dealer, tuple(tuple(parse_card(c) for c in h) for h in hands), parse_card(item["start"]),
                        tuple(parse_card(c) for c in item["talon"]))
        except (KeyError, TypeError) as e:
            raise ValueError(f"{where}: needs dealer, hands, start and talon ({e})") from None
        except DecisionError as e:
            raise ValueError(f"{where}: {e.message}") from None
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < rules.players:
            raise ValueError(f"{where}: dealer must be a seat 0 to {rules.players - 1}")
        if len(deal.hands) != rules.players or any(len(h) != HAND for h in deal.hands):
            raise ValueError(f"{where}: {rules.players} hands of {HAND} cards each (E2)")
        cards = [c for h in deal.hands for c in h] + [deal.start] + list(deal.talon)
        if sorted(cards) != list(range(N_CARDS)):
            raise ValueError(f"{where}: the cards must be the 32 cards, each once (E1)")
        out.append(deal)
    return out


# The view ----------------------------------------------------------------------------------------


@dataclass
class View:
    """What seat ``seat`` may know: its own hand, the pile, the totals, the sizes of the rest."""

    seat: int
    players: int
    round_index: int
    round_number: int
    dealer: int
    first: int
    turn: int
    to_move: int
    hand: list  # card ids, sorted
    pile: list  # card ids, the face-up start card first
    values: list  # the value each pile card counted; None for a face-up 7 not chosen yet
    total: int  # the running total (a face-up 7 not chosen yet counts 0)
    start_choice: bool  # this seat's decision must give the face-up 7's value (E2)
    talon_size: int
    hand_sizes: list
    totals: list  # games lost so far in the match
    rules: object
    # This game's events this seat may know: the public ones and its own private ones.
    events: list = field(repr=False, compare=False, default_factory=list)
    phase = "play"

    @property
    def history(self) -> list:
        return [e for e in self.events if "to" not in e]

    def to_json(self, history: bool = True) -> dict:
        """The view in JSON form; ``history=False`` leaves out the history (the protocol keeps its own)."""
        out = {
            "seat": self.seat, "players": self.players, "round": self.round_index, "round_number": self.round_number,
            "dealer": self.dealer, "first": self.first, "turn": self.turn, "to_move": self.to_move,
            "phase": self.phase, "hand": [card_str(c) for c in self.hand], "pile": [card_str(c) for c in self.pile],
            "values": list(self.values), "total": self.total, "start_choice": self.start_choice,
            "talon_size": self.talon_size, "hand_sizes": list(self.hand_sizes), "totals": list(self.totals),
        }
        if history:
            out["history"] = [dict(e) for e in self.history]
        return out


def legal_json(legal: dict) -> dict:
    out = dict(legal)
    if "cards" in legal:
        out["cards"] = [card_str(c) for c in legal["cards"]]
    return out


def legal_from_json(data: dict) -> dict:
    out = dict(data)
    if "cards" in data:
        out["cards"] = [parse_card(c) for c in data["cards"]]
    return out


def event_json(e: dict) -> dict:
    return e  # events already hold card strings


# One game ----------------------------------------------------------------------------------------


class Game:
    """One game (E2-E4), from its deal to the card that reaches 51."""

    def __init__(self, rules: Rules, deal: Deal, index: int, events: list):
        n = rules.players
        self.n = n
        self.index = index
        self.dealer = deal.dealer
        self.first = (deal.dealer + 1) % n
        self.hands = [sorted(h) for h in deal.hands]
        self.talon = list(reversed(deal.talon))  # top last
        self.start = deal.start
        start_value = None
        if is_seven(deal.start):
            if rules.start_seven != "first_player":
                start_value = int(rules.start_seven)
        else:
            start_value = RANK_VALUES[deal.start % 8]
        self.pile = [deal.start]
        self.values = [start_value]
        self.total = start_value or 0
        self.seat = self.first
        self.turn = 1
        self.played = [0] * n
        self.loser = -1
        self.events = events
        self.record: dict | None = None

    @property
    def start_pending(self) -> bool:
        return self.values[0] is None

    # Search: the game-neutral world interface (engine/search.py) ---------------------------------

    @property
    def over(self) -> bool:
        return self.loser >= 0

    def clone(self, log: bool = False) -> "Game":
        """A copy to play on; ``log=False`` (the fast path) writes no events, ``log=True`` a fresh log."""
        new = object.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.hands = [h[:] for h in self.hands]
        new.talon = self.talon[:]
        new.pile = self.pile[:]
        new.values = self.values[:]
        new.played = self.played[:]
        new.events = [] if log else NO_LOG
        return new

    def to_move(self):
        return None if self.loser >= 0 else self.seat

    def apply(self, seat: int, d: "Play") -> str | None:
        """Check and play a decision; the refusal as "RULE: reason", or None when it was played."""
        wrong = self.check(seat, d)
        if wrong is None:
            self.play(seat, d)
        return wrong

    def utility(self, seat: int) -> float:
        """-1 for the loser of the finished game (E4), 0 for the others."""
        return -1.0 if self.loser == seat else 0.0

    def draw(self) -> None:
        """E3: while the talon lasts, the player to move takes its top card."""
        if self.talon:
            c = self.talon.pop()
            hand = self.hands[self.seat]
            hand.append(c)
            hand.sort()
            self.events.append({"e": "draw", "seat": self.seat, "talon_size": len(self.talon)})
            self.events.append({"e": "drawn", "seat": self.seat, "card": CARD_NAMES[c], "to": self.seat})

    def check(self, seat: int, d: Play) -> str | None:
        """None, or the refusal as "RULE: reason"."""
        if seat != self.seat:
            return f"E3: it is seat {self.seat}'s turn"
        if not 0 <= d.card < N_CARDS or d.card not in self.hands[seat]:
            return f"E3: {card_str(d.card) if 0 <= d.card < N_CARDS else d.card} is not in your hand"
        if self.start_pending:
            if d.start not in SEVEN_VALUES:
                return "E2: the face-up card is a 7: give its value, start=1 or start=7"
        elif d.start is not None:
            return "E2: only the first player's first decision gives the face-up 7's value"
        if is_seven(d.card):
            if d.value not in SEVEN_VALUES:
                return f"E1: {card_str(d.card)} counts 1 or 7: give its value"
        elif d.value is not None and d.value != RANK_VALUES[d.card % 8]:
            return f"E1: {card_str(d.card)} counts {RANK_VALUES[d.card % 8]}, not {d.value}"
        return None

    def play(self, seat: int, d: Play) -> None:
        if d.start is not None:
            self.values[0] = d.start
            self.total += d.start
            self.events.append({"e": "start_value", "seat": seat, "value": d.start, "total": self.total})
        value = d.value if d.value is not None else RANK_VALUES[d.card % 8]
        self.hands[seat].remove(d.card)
        self.pile.append(d.card)
        self.values.append(value)
        self.total += value
        self.played[seat] += 1
        self.events.append({"e": "play", "seat": seat, "card": CARD_NAMES[d.card], "value": value,
                            "total": self.total})
        if self.total >= LIMIT:  # E4
            self.loser = seat
            self._finish()
            return
        self.seat = (seat + 1) % self.n
        self.turn += 1
        self.draw()

    def _finish(self) -> None:
        self.record = {
            "index": self.index, "dealer": self.dealer, "first": self.first, "turns": self.turn, "void": False,
            "winner": -1, "winners": [s for s in range(self.n) if s != self.loser], "loser": self.loser,
            "end": "lost", "start": card_str(self.start), "start_value": self.values[0], "final_total": self.total,
            "talon_left": len(self.talon),
            "seats": [{"score": int(s == self.loser), "played": self.played[s]} for s in range(self.n)],
        }


def determinise(view: View, rng, weight=None, tries: int = 20) -> Game:
    """A game consistent with what ``view``'s seat knows: its hand, the pile and its values, the
    hand and talon sizes. The other cards go to the other hands and the talon uniformly at random;
    ``weight(game) -> [0, 1]`` keeps a world with that probability (rejection, up to ``tries``)."""
    world = _sample(view, rng)
    if weight is not None:
        for _ in range(tries):
            if rng.random() < weight(world):
                break
            world = _sample(view, rng)
    return world


def _sample(view: View, rng) -> Game:
    seen = set(view.hand) | set(view.pile)
    pool = [c for c in range(N_CARDS) if c not in seen]
    rng.shuffle(pool)
    g = object.__new__(Game)
    g.n, g.index, g.dealer, g.first = view.players, view.round_index, view.dealer, view.first
    hands, at = [], 0
    for s in range(view.players):
        if s == view.seat:
            hands.append(sorted(view.hand))
            continue
        need = view.hand_sizes[s]
        hands.append(sorted(pool[at:at + need]))
        at += need
    if len(pool) - at != view.talon_size:
        raise ValueError(f"card accounting: {len(pool) - at} cards left for a talon of {view.talon_size}")
    g.hands, g.talon = hands, pool[at:]
    g.start, g.pile, g.values, g.total = view.pile[0], list(view.pile), list(view.values), view.total
    g.seat, g.turn, g.loser, g.events, g.record = view.to_move, view.turn, -1, NO_LOG, None
    g.played = [0] * view.players
    for e in view.events:
        if e.get("e") == "play":
            g.played[e["seat"]] += 1
    return g


def view_of(g: Game, seat: int, rules, totals: list, events: list) -> View:
    """The View of ``seat`` in game ``g``; ``events`` are the game's events this seat may know (copied)."""
    return View(
        seat=seat, players=g.n, round_index=g.index, round_number=g.index + 1, dealer=g.dealer,
        first=g.first, turn=g.turn, to_move=g.seat, hand=list(g.hands[seat]), pile=list(g.pile),
        values=list(g.values), total=g.total, start_choice=g.start_pending and g.seat == seat,
        talon_size=len(g.talon), hand_sizes=[len(h) for h in g.hands], totals=list(totals),
        rules=rules, events=list(events),
    )


def legal_of(g: Game, seat: int, match_over: bool = False) -> dict:
    """What ``seat`` may do now in game ``g`` (the match's ``legal``)."""
    out = {"seat": seat, "to_move": not match_over and not g.over and g.seat == seat, "phase": "play",
           "round": g.index, "turn": g.turn}
    if out["to_move"]:
        out.update(cards=list(g.hands[seat]), seven_values=list(SEVEN_VALUES), start_choice=g.start_pending,
                   total=g.total, limit=LIMIT)
    return out


# The match ---------------------------------------------------------------------------------------


class EinundfuenfzigMatch(Match):
    game = GAME

    def __init__(self, rules: Rules, seed, deals: list[Deal] | None = None):
        if getattr(rules, "game", None) != GAME:
            raise ValueError(f"{GAME} needs its own rules, got rules of {getattr(rules, 'game', None)!r}")
        self.rules = rules
        self.players = rules.players
        self.seed = seed
        self.deals = list(deals or [])
        self.totals = [0] * rules.players
        self.records: list = []
        self.reason = None
        self.events = [{"e": "match_start", "game": GAME, "rules": rules.normalised(), "seed": seed,
                        "deals": [d.to_json() for d in self.deals]}]
        self._next_dealer = self.deals[0].dealer if self.deals else first_dealer(seed, rules.players)
        self.seen = [SeatEvents(s) for s in range(rules.players)]  # what each seat's views hold
        self.game_state: Game | None = None
        self._start_game()

    def _start_game(self) -> None:
        index = len(self.records)
        if index < len(self.deals):
            deal = self.deals[index]
        else:
            deal = deal_from_seed(self.players, self.seed, index, self._next_dealer)
        g = Game(self.rules, deal, index, self.events)
        self.game_state = g
        self.round_start = len(self.events)
        self.events.append({
            "e": "round_start", "index": index, "number": index + 1, "dealer": g.dealer, "first": g.first,
            "start": card_str(g.start), "start_value": g.values[0], "hand_sizes": [HAND] * self.players,
            "talon_size": len(g.talon),
        })
        for seat, hand in enumerate(g.hands):
            self.events.append({"e": "hand", "seat": seat, "cards": [CARD_NAMES[c] for c in hand], "to": seat})
        self.events.append({"e": "talon", "cards": [CARD_NAMES[c] for c in reversed(g.talon)], "to": "nobody"})
        g.draw()

    def _finish_game(self) -> None:
        g = self.game_state
        record = g.record
        record["number"] = g.index + 1
        self.records.append(record)
        self.totals[g.loser] += 1
        self.events.append({"e": "round_end", "record": record})
        self._next_dealer = (g.dealer + 1) % self.players
        if len(self.records) >= self.rules.rounds:
            self.reason = "complete"
            res = self.result()
            self.events.append({"e": "match_end", "totals": res.totals, "ranks": res.ranks, "reason": res.reason})
        else:
            self._start_game()

    # The game interface --------------------------------------------------------------------------

    def to_move(self):
        return None if self.reason else self.game_state.seat

    @property
    def is_over(self) -> bool:
        return self.reason is not None

    def observe(self, seat: int) -> View:
        events = self.seen[seat].update(self.events, self.round_start)
        return view_of(self.game_state, seat, self.rules, self.totals, events)

    def legal(self, seat: int) -> dict:
        return legal_of(self.game_state, seat, self.reason is not None)

    def replay_part(self):
        return self.game_state

    def zones(self, g) -> dict:
        """The game ``g`` as replay zones (engine/replay.py): hands, the talon (face down), the pile with
        its running total, games lost so far."""
        over = g.loser >= 0
        return {
            "caption": f"game {g.index + 1}, turn {g.turn}: "
                       + (f"seat {g.loser} reached {LIMIT} and loses" if over else f"seat {g.seat} to play"),
            "hands": [{"seat": s, "cards": [CARD_NAMES[c] for c in h]} for s, h in enumerate(g.hands)],
            "piles": [{"id": "talon", "label": "talon", "cards": [CARD_NAMES[c] for c in g.talon], "face_down": True},
                      {"id": "pile", "label": "pile", "cards": [CARD_NAMES[c] for c in g.pile], "face_down": False}],
            "melds": [],
            "counters": [{"label": "total on the pile", "value": g.total}]
                        + [{"label": f"games lost seat {s}", "value": t} for s, t in enumerate(self.totals)],
            "to_move": None if over else g.seat,
        }

    def apply(self, seat: int, decision: Play) -> Outcome:
        if self.reason:
            return Outcome(False, "E4", "the match is over")
        g = self.game_state
        self.events.append({"e": "decision", "seat": seat, "text": str(decision), "to": seat})
        wrong = g.check(seat, decision)
        if wrong is not None:
            rule, _, reason = wrong.partition(": ")
            self.events.append({"e": "refused", "seat": seat, "rule": rule, "reason": reason, "penalty": 0,
                                "to": seat})
            return Outcome(False, rule, reason)
        g.play(seat, decision)
        if g.loser >= 0:
            self._finish_game()
        return ACCEPTED

    def apply_json(self, seat: int, data) -> Outcome:
        try:
            decision = play_from_json(data)
        except DecisionError as e:
            return Outcome(False, e.rule, e.message)
        return self.apply(seat, decision)

    def apply_text(self, seat: int, text: str) -> Outcome:
        try:
            decision = parse_play(text)
        except DecisionError as e:
            return Outcome(False, e.rule, e.message)
        return self.apply(seat, decision)

    def resampled(self, seat: int, rng) -> "EinundfuenfzigMatch":
        twin = copy.deepcopy(self)
        world = determinise(self.observe(seat), rng)
        g = twin.game_state
        others = [s for s in range(self.players) if s != seat]
        for s in others:
            g.hands[s] = world.hands[s]
        g.talon = world.talon
        scramble_private(twin.events, seat, {s: [CARD_NAMES[c] for c in world.hands[s]] for s in others}, rng)
        twin.seen = [SeatEvents(s) for s in range(self.players)]
        return twin

    def result(self) -> MatchResult:
        return MatchResult(game=GAME, totals=list(self.totals), ranks=competition_ranks(self.totals),
                           rounds=self.records, reason=self.reason or "unfinished")


def view_from_json(data: dict, rules, history: list | None = None, melds: dict | None = None) -> View:
    """The View from its JSON form (``View.to_json``; the protocol's view object) and the game's public events."""
    history = list(data.get("history", []) if history is None else history)
    return View(
        seat=data["seat"], players=data["players"], round_index=data["round"], round_number=data["round_number"],
        dealer=data["dealer"], first=data["first"], turn=data["turn"], to_move=data["to_move"],
        hand=[parse_card(c) for c in data["hand"]], pile=[parse_card(c) for c in data["pile"]],
        values=list(data["values"]), total=data["total"], start_choice=data["start_choice"],
        talon_size=data["talon_size"], hand_sizes=list(data["hand_sizes"]), totals=list(data["totals"]),
        rules=rules, events=history,
    )


# The results' rounds table (one row per game and seat).
ROUND_COLUMNS = {
    "lost": "bool",
    "final_total": "int16",  # the total the losing card reached
    "cards_played": "int16",  # by this seat in this game
    "start_value": "int16",  # what the face-up card counted (a 7: 1 or 7)
    "talon_left": "int16",  # cards still in the talon at the end
}


def round_values(record: dict, seat: int) -> dict:
    return {"lost": record["loser"] == seat, "final_total": record["final_total"],
            "cards_played": record["seats"][seat]["played"], "start_value": record["start_value"],
            "talon_left": record["talon_left"]}

__all__ = [
    "CARD_NAMES", "N_CARDS", "determinise", "legal_of", "view_of", "LIMIT", "SEVEN_VALUES", "Deal", "DecisionError", "EinundfuenfzigMatch", "Game", "Play",
    "Rules", "View", "card_str", "card_unicode", "deal_from_seed", "deals_from_json", "event_json", "is_seven",
    "legal_from_json", "legal_json", "low_value", "make_rules", "parse_card", "parse_play", "play_from_json", "view_from_json",
    "rules_from_dict", "values_of",
]
