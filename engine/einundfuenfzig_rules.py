"""The rules configuration of Einundfünfzig (E1-E4): players, games per match, the starting 7.

``start_seven`` is kept as a string, ``"7"``, ``"1"`` or ``"first_player"``, so that its results
column has one type whatever the variant (a number given, 7 or 1, is read as its string).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields

from .rules import ConfigError, check_ranges, range_text, shown, unknown_field, variant_id

GAME = "einundfuenfzig"
START_SEVEN = ("7", "1", "first_player")
RANGES = {"players": (2, 4), "rounds": (1, 100)}  # (least, most), both included


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
                raise ConfigError(f"{name}: expected a whole number, got {shown(value)}")
        check_ranges(self, RANGES)
        if self.start_seven not in START_SEVEN:
            raise ConfigError(f"start_seven: expected one of 7, 1, first_player, got {shown(self.start_seven)}")

    def normalised(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def variant_id(self) -> str:
        return variant_id(self.game, self.normalised())

    def replace(self, **changes) -> "Rules":
        return dataclasses.replace(self, **changes)


PRESETS = {"standard": {}}
ALLOWED = {"players": range_text(*RANGES["players"]), "rounds": f"{range_text(*RANGES['rounds'])} (games per match)",
           "start_seven": ", ".join(START_SEVEN)}
_FIELDS = {f.name for f in fields(Rules)}


def _coerce(name: str, value):
    if name == "start_seven":
        return str(value).strip() if isinstance(value, (int, str)) and not isinstance(value, bool) else value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            raise ConfigError(f"{name}: expected a whole number, got {shown(value)}") from None
    return value


def make_rules(preset: str = "standard", overrides: dict | None = None) -> Rules:
    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {shown(preset)} for {GAME} (known: {', '.join(PRESETS)})")
    values = dict(PRESETS[preset])
    for name, value in (overrides or {}).items():
        if name not in _FIELDS:
            raise unknown_field(name, _FIELDS, GAME)
        values[name] = value
    return Rules(**{name: _coerce(name, value) for name, value in values.items()})


def rules_from_dict(data: dict) -> Rules:
    """A normalised form (as stored with results) back to Rules."""
    return make_rules("standard", data)
