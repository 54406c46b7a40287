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
``turns``, ``void``, ``winner`` (-1 when nobody won) and ``seats[seat]["score"]``.
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

    # The game's own columns of the results' rounds table: name -> a type name of ROUND_TYPES.
    # Every such column may hold None (null).
    ROUND_COLUMNS: dict[str, str] = {}

    @staticmethod
    def round_columns(record: dict, seat: int) -> dict:
        """The values of ``ROUND_COLUMNS`` for ``seat`` in one round record (a ``MatchResult.rounds`` item)."""
        return {}

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

    @property
    def is_over(self) -> bool:
        raise NotImplementedError

    def result(self) -> MatchResult:
        raise NotImplementedError


GAMES = {}


def register(name: str, factory) -> None:
    GAMES[name] = factory


def game_factory(game: str):
    """The registered factory (usually the ``Match`` subclass) of ``game``."""
    from . import ellibir_match  # noqa: F401  (registers the built-in games)

    if game not in GAMES:
        raise KeyError(f"unknown game {game!r} (known: {', '.join(sorted(GAMES))})")
    return GAMES[game]


def new_match(game: str, rules, seed, deals=None) -> Match:
    """A new match of ``game`` under ``rules`` from a deal seed, with optional explicit deals (D3)."""
    return game_factory(game)(rules, seed, deals)
