"""The interface the harness drives, the same for every game, and the one registry of games.

A game is declared once, in a module of ``engine/games/`` named after it, as a ``GameSpec`` (below)
passed to ``register``: its name, its match class, its rules type, how many players, its rules presets
and their readers, the codecs of everything that crosses a boundary (events, decisions, views, legal
information, deals), the columns it adds to the results' ``rounds`` table, its words (``text``), and
its built-in bots (named by where their classes live in ``bots/``, imported only there) with the
reference bot among them. ``get_game(name)`` imports ``engine/games/NAME.py`` the first time and
returns its declaration; ``game_names()`` lists the modules of ``engine/games/``. No list of games is
kept anywhere: a third game is its rules modules and one file in ``engine/games/``.

A match is an object with: ``players``, ``to_move()`` (the seat to decide, or None when the match
is over), ``observe(seat)``, ``legal(seat)``, ``apply(seat, decision)`` (a trusted decision value),
``apply_json(seat, data)`` (anything a bot sent: parsed and checked), ``apply_text(seat, text)``
(a decision's text form, as the event log holds it), ``is_over``, ``result()``, ``events``, and for
the replay model ``replay_part()`` and ``zones(part)``; for the conformance tests
``resampled(seat, rng)`` (the same match with the cards ``seat`` cannot see dealt again).

The ``rounds`` table: ``GameSpec.round_columns`` (column name -> a type name from ``ROUND_TYPES``) and
``GameSpec.round_values(record, seat)`` (that seat's values, read from one round record). The common
columns are filled from the keys every round record has: ``index`` (void rounds counted),
``number`` (0 for a void round), ``dealer``, ``first`` (seats are numbered in the order of play),
``turns``, ``void``, ``winner`` (-1 when nobody won; a game where several seats win lists them in
``winners`` instead) and ``seats[seat]["score"]``.

The balance analysis (``results/balance.py``) knows no game: it reads a game's own round columns
by their names. ``finish_<X>`` (bool, true on a winner's row when the round was won "by X") gives
how rounds are won; ``pen_<RULE>`` (a number) the penalty a seat got in the round under rule RULE;
``open_method`` (string) and ``open_turn`` (integer; both null when the seat did not open) the
openings; ``opened`` (bool) whether the seat opened, ``left_value`` (a number) what the cards left in
its hand counted; ``end`` (string, the same on every row of a round, "exhausted" when the stock ran
out) how rounds end. A game without one of these columns simply has no such section. ``pen_<RULE>``
counts penalties; what one costs is ``GameSpec.penalty_points[RULE]`` (results/breakdown.py).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Callable


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

    def resampled(self, seat: int, rng) -> "Match":
        """A copy of the match in which everything ``seat`` cannot see is dealt again, consistently with
        its view (the other hands, the stock), and the log's entries private to other seats say
        otherwise: ``seat``'s view and legal information must not change (observation hygiene)."""
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
    and returns this seat's list; views get a copy of it, never the log itself. ``update(log, start,
    end)`` stops at ``end``: what a view taken when the log was that long holds (``later``).
    """

    __slots__ = ("seat", "start", "cursor", "events")

    def __init__(self, seat: int):
        self.seat = seat
        self.start = -1
        self.cursor = 0
        self.events: list = []

    def update(self, log: list, start: int, end: int | None = None) -> list:
        if end is None:
            end = len(log)
        if start != self.start:
            self.start, self.cursor, self.events = start, start, []
        seat, out = self.seat, self.events
        if end < self.cursor:  # a view of an earlier moment, read after a later one: not what came since
            return out[:len(out) - sum(1 for e in log[end:self.cursor] if e.get("to", seat) == seat)]
        for e in log[self.cursor:end]:
            if e.get("to", seat) == seat:
                out.append(_seat_copy(e, seat))
        self.cursor = end
        return out

    def later(self, log: list, start: int) -> "Later":
        """This seat's events as the log stands now, copied only when first read (``Later.read``)."""
        return Later(self, log, start, len(log))


class Later:
    """A seat's events up to a moment of the log (``SeatEvents.later``), not copied yet: a view whose
    bot never reads its events costs no copies."""

    __slots__ = ("seen", "log", "start", "end")

    def __init__(self, seen: SeatEvents, log: list, start: int, end: int):
        self.seen, self.log, self.start, self.end = seen, log, start, end

    def read(self) -> list:
        """The events as ``SeatEvents.update`` would have returned them at that moment (a new list)."""
        return list(self.seen.update(self.log, self.start, self.end))


def _seat_copy(e: dict, seat: int) -> dict:
    out = {k: (list(v) if type(v) is list else v) for k, v in e.items()}
    if out.get("e") == "penalty" and out.get("rule") == "O4" and out.get("seat") != seat:
        out["reason"] = "a refused opening"
    return out


def scramble_private(events: list, seat: int, hidden: dict, rng) -> None:
    """Rewrite, in place, the log entries private to a seat other than ``seat`` (``"to"``): their cards
    become ``hidden[to]`` (that seat's cards dealt again) or shuffled, their decision text "hidden"."""
    for e in events:
        to = e.get("to")
        if to is None or to == seat:
            continue
        if "cards" in e:
            e["cards"] = list(hidden.get(to, list(reversed(e["cards"]))))
        if "card" in e and hidden.get(to):
            e["card"] = rng.choice(list(hidden[to]))
        if "text" in e:
            e["text"] = "hidden"


def _identity(x):
    return x


@dataclass(frozen=True)
class GameSpec:
    """A game, declared once (by its module, through ``register``).

    ``match``: its ``Match`` subclass, ``match(rules, seed, deals)``. ``rules``: its rules type (what
    ``make_rules`` gives: ``game``, ``players``, ``rounds``, ``normalised()``, ``variant_id``).
    ``players``: the fewest and most seats. ``presets`` with ``make_rules(preset, overrides)`` and
    ``rules_from_dict(normalised)``; ``deals_from_json(data, rules)`` (explicit deals, D3).
    Codecs, each the inverse of a value's own form: ``event_json`` (an engine event -> its JSON form),
    ``parse_decision`` (text -> decision; ``str(decision)`` is the text), ``decision_from_json``
    (a bot's JSON -> decision, raising the game's error; ``decision.to_json()`` the other way),
    ``view_from_json(data, rules, history)`` (``view.to_json()`` the other way), ``legal_json`` and
    ``legal_from_json``. ``round_columns`` and ``round_values``: the results' rounds table (above);
    ``penalty_points``: rule -> the points one penalty under it adds to a scored round's score (the
    ``pen_<RULE>`` columns count penalties).
    ``text``: the game told in words for people (engine/match_text.py), or None for plain lines.
    ``bots``: its built-in bots, name -> ``"module:Class"`` of ``bots/`` (the engine never imports
    them: bots/__init__.py does, when one is asked for); ``reference``: the one among them that plays
    a seat out after a fault; ``field``: the others a submitted bot meets beside it in ``bot check``,
    seat after seat (the arena's own field).
    """

    name: str
    match: type
    rules: type
    players: tuple = (2, 4)
    presets: dict = field(default_factory=dict)
    make_rules: Callable | None = None
    rules_from_dict: Callable | None = None
    deals_from_json: Callable | None = None
    event_json: Callable = _identity
    parse_decision: Callable | None = None
    decision_from_json: Callable | None = None
    view_from_json: Callable | None = None
    legal_json: Callable = _identity
    legal_from_json: Callable = _identity
    round_columns: dict = field(default_factory=dict)
    round_values: Callable | None = None
    penalty_points: dict = field(default_factory=dict)
    text: type | None = None
    bots: dict = field(default_factory=dict)
    reference: str = ""
    field: tuple = ()


GAMES_PACKAGE = f"{__package__}.games"  # one module a game, named after it, declares it
GAMES: dict[str, GameSpec] = {}


class UnknownGame(ValueError):
    """A game name that names no registered game."""


def register(game: GameSpec) -> GameSpec:
    if not isinstance(game, GameSpec):
        raise TypeError("register takes a GameSpec")
    if getattr(game.match, "game", game.name) != game.name:
        raise ValueError(f"game {game.name!r}: its match class says {game.match.game!r}")
    if game.bots and game.reference not in game.bots:
        raise ValueError(f"game {game.name!r}: its reference bot {game.reference!r} is not one of its bots")
    GAMES[game.name] = game
    return game


def _declared() -> list[str]:
    """The games declared in ``engine/games/``: the names of its modules (none is imported)."""
    package = importlib.import_module(GAMES_PACKAGE)
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))


def _load(name: str | None = None) -> None:
    """Import the declaration of ``name`` (a bot process then loads one game), or every game's."""
    for module in [name] if name in _declared() else _declared():
        importlib.import_module(f"{GAMES_PACKAGE}.{module}")


def get_game(name: str) -> GameSpec:
    """The registered game called ``name``; raises UnknownGame (one line)."""
    if name not in GAMES and isinstance(name, str):
        _load(name)
    if name not in GAMES:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(game_names())})")
    return GAMES[name]


def game_names() -> list[str]:
    """Every game: those declared in ``engine/games/`` and any registered otherwise."""
    return sorted(set(_declared()) | set(GAMES))


def make_rules(game: str, preset: str = "standard", overrides: dict | None = None):
    """The rules of ``game`` from a preset and field overrides; raises ValueError (one line)."""
    return get_game(game).make_rules(preset, overrides)


def rules_from_dict(game: str, data: dict):
    """A game's rules from their normalised form (as run plans and event logs store them)."""
    return get_game(game).rules_from_dict(data)


def new_match(game: str, rules, seed, deals=None) -> Match:
    """A new match of ``game`` under ``rules`` from a deal seed, with optional explicit deals (D3)."""
    return get_game(game).match(rules, seed, deals)
