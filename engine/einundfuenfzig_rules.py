"""The rules configuration of Einundfünfzig (E1-E4): players, games per match, the starting 7.

``start_seven`` is kept as a string, ``"7"``, ``"1"`` or ``"first_player"``, so that its results
column has one type whatever the variant (a number given, 7 or 1, is read as its string).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields

from .rules import ConfigError, unknown_field, variant_id

GAME = "einundfuenfzig"
START_SEVEN = ("7", "1", "first_player")


@dataclass(frozen=True)
class Rules:
    players: int = 4
    rounds: int = 1  # games per match
    start_seven: str = "first_player"

    game = GAME

    def __post_init__(self):
        for name in ("players", "rounds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{name}: expected a whole number, got {value!r}")
        if not 2 <= self.players <= 4:
            raise ConfigError(f"players: must be 2 to 4, got {self.players}")
        if self.rounds < 1:
            raise ConfigError(f"rounds: must be at least 1, got {self.rounds}")
        if self.start_seven not in START_SEVEN:
            raise ConfigError(f"start_seven: expected one of 7, 1, first_player, got {self.start_seven!r}")

    def normalised(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def variant_id(self) -> str:
        return variant_id(self.game, self.normalised())

    def replace(self, **changes) -> "Rules":
        return dataclasses.replace(self, **changes)


PRESETS = {"standard": {}}
ALLOWED = {"players": "2 to 4", "rounds": "1 or more (games per match)", "start_seven": ", ".join(START_SEVEN)}
_FIELDS = {f.name for f in fields(Rules)}


def _coerce(name: str, value):
    if name == "start_seven":
        return str(value).strip() if isinstance(value, (int, str)) and not isinstance(value, bool) else value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            raise ConfigError(f"{name}: expected a whole number, got {value!r}") from None
    return value


def make_rules(preset: str = "standard", overrides: dict | None = None) -> Rules:
    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {preset!r} for {GAME} (known: {', '.join(PRESETS)})")
    values = dict(PRESETS[preset])
    for name, value in (overrides or {}).items():
        if name not in _FIELDS:
            raise unknown_field(name, _FIELDS, GAME)
        values[name] = value
    return Rules(**{name: _coerce(name, value) for name, value in values.items()})


def rules_from_dict(data: dict) -> Rules:
    """A normalised form (as stored with results) back to Rules."""
    return make_rules("standard", data)
