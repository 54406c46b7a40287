"""The interface the harness drives, the same for every game.

A match is an object with: ``players``, ``to_move()`` (the seat to decide, or None when the match
is over), ``observe(seat)``, ``legal(seat)``, ``apply(seat, decision)`` (a trusted decision value),
``apply_json(seat, data)`` (anything a bot sent: parsed and checked), ``is_over``, ``result()`` and
``events``. Games register a factory under their name.
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


class Match:
    game = ""
    players = 0
    events: list

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


def new_match(game: str, rules, seed, deals=None) -> Match:
    """A new match of ``game`` under ``rules`` from a deal seed, with optional explicit deals (D3)."""
    from . import ellibir_match  # noqa: F401  (registers the built-in games)

    if game not in GAMES:
        raise KeyError(f"unknown game {game!r} (known: {', '.join(sorted(GAMES))})")
    return GAMES[game](rules, seed, deals)
