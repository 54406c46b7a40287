"""The interface the harness drives, the same for every game.

A match is an object with: ``players``, ``to_move()`` (the seat to decide, or None when the match
is over), ``observe(seat)``, ``legal(seat)``, ``apply(seat, decision)`` (a trusted decision value),
``apply_json(seat, data)`` (anything a bot sent: parsed and checked), ``is_over``, ``result()`` and
``events``. Games register a factory under their name.

A game also declares the columns it adds to the results' ``rounds`` table (one row per round and
seat): ``ROUND_COLUMNS`` (column name -> a type name from ``ROUND_TYPES``) and
``round_columns(record, seat)`` (that seat's values, read from one round record). The common
columns are filled from the keys every round record has: ``index`` (void rounds counted),
``number`` (0 for a void round), ``dealer``, ``first`` (seats are numbered in the order of play),
``turns``, ``void``, ``winner`` (-1 when nobody won; a game where several seats win lists them in
``winners`` instead) and ``seats[seat]["score"]``.

Each game brings what the harness needs to speak of it without knowing it (class attributes of its
match class, usually static functions): ``make_rules(preset, overrides)`` and ``rules_from_dict``
(its rules objects carry ``game``, ``players``, ``rounds``, ``normalised()`` and ``variant_id``),
``PRESETS``, ``deals_from_json(data, rules)`` (explicit deals), ``event_json(e)`` (an event's JSON
form), ``legal_json(legal)`` (``legal``'s JSON form) and ``apply_text(seat, text)`` (a decision's
text form, as the event log holds it). ``make_rules``, ``rules_from_dict`` and ``game_names`` here
reach them by the game's name.

The balance analysis (``results/balance.py``) knows no game: it reads a game's own round columns
by their names. ``finish_<X>`` (bool, true on a winner's row when the round was won "by X") gives
how rounds are won; ``pen_<RULE>`` (a number) the penalty a seat got in the round under rule RULE;
``open_method`` (string) and ``open_turn`` (integer; both null when the seat did not open) the
openings; ``end`` (string, the same on every row of a round, "exhausted" when the stock ran out)
how rounds end. A game without one of these columns simply has no such section.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Outcome:
    """What ``apply`` did: accepted, or refused with the rule id and reason."""

    accepted: bool
    rule: str = ""
    reason: str = ""
    penalty: int = 0

    def __str__(self) -> str:
        return "accepted" if self.accepted else f"{self.rule}: {self.reason}"


ACCEPTED = Outcome(True)


@dataclass
class MatchResult:
    game: str
    totals: list
    ranks: list
    rounds: list = field(default_factory=list)  # one record (a dict) per round played, void rounds too
    reason: str = "complete"  # X1: "complete", or why the match ended early


ROUND_TYPES = ("bool", "int16", "int32", "int64", "float64", "string")


class Match:
    game = ""
    players = 0
    events: list

    def replay_part(self):
        """The part of the match now being played (a round, a game): what ``zones`` draws."""
        raise NotImplementedError

    def zones(self, part) -> dict:
        """One replay step of ``part`` (a value ``replay_part`` gave) as generic zones, the same shape for
        every game (engine/replay.py): ``caption``, ``hands`` (seat, cards), ``piles`` (id, label, cards,
        face_down), ``melds`` (label, cards, owner) and ``counters`` (label, value); cards as strings."""
        raise NotImplementedError

    # The game's own columns of the results' rounds table: name -> a type name of ROUND_TYPES.
    # Every such column may hold None (null).
    ROUND_COLUMNS: dict[str, str] = {}

    @staticmethod
    def round_columns(record: dict, seat: int) -> dict:
        """The values of ``ROUND_COLUMNS`` for ``seat`` in one round record (a ``MatchResult.rounds`` item)."""
        return {}

    PRESETS: dict = {}

    @staticmethod
    def make_rules(preset: str = "standard", overrides: dict | None = None):
        raise NotImplementedError

    @staticmethod
    def rules_from_dict(data: dict):
        raise NotImplementedError

    @staticmethod
    def deals_from_json(data, rules) -> list:
        raise NotImplementedError

    @staticmethod
    def event_json(e: dict) -> dict:
        """An event (public or private) in its JSON form."""
        return e

    @staticmethod
    def legal_json(legal: dict) -> dict:
        return legal

    def to_move(self):
        raise NotImplementedError

    def observe(self, seat: int):
        raise NotImplementedError

    def legal(self, seat: int) -> dict:
        raise NotImplementedError

    def apply(self, seat: int, decision) -> Outcome:
        raise NotImplementedError

    def apply_json(self, seat: int, data) -> Outcome:
        raise NotImplementedError

    def apply_text(self, seat: int, text: str) -> Outcome:
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        raise NotImplementedError

    def result(self) -> MatchResult:
        raise NotImplementedError


class _NoLog(list):
    """An event log that keeps nothing: the fast path for simulations (a world's ``clone(log=False)``)."""

    __slots__ = ()

    def append(self, e) -> None:
        pass

    def extend(self, es) -> None:
        pass


NO_LOG = _NoLog()


class SeatEvents:
    """The events of the round in progress that one seat may know, copied once each as they come.

    A seat may know the public events (no ``"to"``) and its own private ones (``"to": seat``);
    another seat's refused opening is public only as "a refused opening", as the protocol sends it.
    ``update(log, start)`` reads the log from where it stopped (``start``: where the round began)
    and returns this seat's list; views get a copy of it, never the log itself.
    """

    __slots__ = ("seat", "start", "cursor", "events")

    def __init__(self, seat: int):
        self.seat = seat
        self.start = -1
        self.cursor = 0
        self.events: list = []

    def update(self, log: list, start: int) -> list:
        if start != self.start:
            self.start, self.cursor, self.events = start, start, []
        seat, out = self.seat, self.events
        for e in log[self.cursor:]:
            if e.get("to", seat) == seat:
                out.append(_seat_copy(e, seat))
        self.cursor = len(log)
        return out


def _seat_copy(e: dict, seat: int) -> dict:
    out = {k: (list(v) if type(v) is list else v) for k, v in e.items()}
    if out.get("e") == "penalty" and out.get("rule") == "O4" and out.get("seat") != seat:
        out["reason"] = "a refused opening"
    return out


GAMES = {}


class UnknownGame(ValueError):
    """A game name that names no registered game."""


def register(name: str, factory) -> None:
    GAMES[name] = factory


def game_factory(game: str):
    """The registered factory (usually the ``Match`` subclass) of ``game``."""
    from . import einundfuenfzig, ellibir_match  # noqa: F401  (registers the built-in games)

    if game not in GAMES:
        raise UnknownGame(f"unknown game {game!r} (known: {', '.join(sorted(GAMES))})")
    return GAMES[game]


def game_names() -> list[str]:
    game_factory("ellibir")
    return sorted(GAMES)


def make_rules(game: str, preset: str = "standard", overrides: dict | None = None):
    """The rules of ``game`` from a preset and field overrides; raises ValueError (one line)."""
    return game_factory(game).make_rules(preset, overrides)


def rules_from_dict(game: str, data: dict):
    """A game's rules from their normalised form (as run plans and event logs store them)."""
    return game_factory(game).rules_from_dict(data)


def new_match(game: str, rules, seed, deals=None) -> Match:
    """A new match of ``game`` under ``rules`` from a deal seed, with optional explicit deals (D3)."""
    return game_factory(game)(rules, seed, deals)
