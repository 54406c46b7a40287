"""The rules configuration: every variant field of RULES.md, presets, validation, variant id."""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
from dataclasses import dataclass, fields


class ConfigError(ValueError):
    """A rules configuration that cannot be played."""


CHOICES = {
    "deal": ("fifteen", "fourteen"),
    "direction": ("anticlockwise", "clockwise"),
    "exhausted": ("void", "score"),
    "set_joker_swap": ("one", "all"),
    "joker_take_from": ("any", "others"),
    "layable_discard_scope": ("opened", "any"),
}


# The range of each whole-number field, (least, most), both included: ``validate`` refuses a value
# outside it and ``ALLOWED`` says it in words (``ellibir rules``, docs/rules.md). The upper bounds keep
# every match finite and every value within the 64 bits its results column has: a round has at most
# ``max_turns`` turns and a match at most ``rounds`` counted rounds with at most ``max_void_rounds``
# void rounds before each.
RANGES = {
    "players": (2, 4),
    "rounds": (1, 100),
    "max_void_rounds": (1, 100),
    "max_turns": (1, 10_000),
    "threshold": (1, 1_000),
}
PAIRS_RANGE = (1, 8)  # pairs in an entry of pairs_openings (a hand of 15 cards holds at most 7, 8 with a draw)
MELDS_RANGE = (0, 5)  # melds in an entry of pairs_openings
MAX_PAIRS_OPENINGS = 16  # entries of pairs_openings


def shown(value, most: int = 60) -> str:
    """``repr(value)`` cut to ``most`` characters, for one-line messages about any input."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else f"a number of {len(str(abs(value)))} digits"
    return text if len(text) <= most else text[: most - 3] + "..."


def range_text(least: int, most: int) -> str:
    return f"{least} to {most}"


@dataclass(frozen=True)
class Rules:
    players: int = 4
    rounds: int = 11
    partners: bool = False
    max_void_rounds: int = 20
    max_turns: int = 1000
    deal: str = "fifteen"
    joker_in_cut: bool = False
    direction: str = "anticlockwise"
    exhausted: str = "void"
    threshold: int = 51
    rising_threshold: bool = False
    pairs_openings: tuple = ((5, 0), (4, 1))
    star_bonus: bool = False
    set_joker_swap: str = "one"
    joker_take_from: str = "any"
    pairs_layoff: bool = False
    layable_discard_scope: str = "opened"
    layable_discard_dead: bool = False
    pairs_discard_block: bool = False

    game = "ellibir"

    def __post_init__(self):
        validate(self)

    def normalised(self) -> dict:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = sorted(list(p) for p in value) if f.name == "pairs_openings" else value
        return out

    @property
    def variant_id(self) -> str:
        return variant_id(self.game, self.normalised())

    def replace(self, **changes) -> "Rules":
        return dataclasses.replace(self, **changes)


def variant_id(game: str, normalised: dict) -> str:
    text = json.dumps({"game": game, "rules": normalised}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def validate(r: Rules) -> None:
    for f in fields(r):
        value = getattr(r, f.name)
        if f.type in ("int", int) and (isinstance(value, bool) or not isinstance(value, int)):
            raise ConfigError(f"{f.name}: expected a whole number, got {shown(value)}")
        if f.type in ("bool", bool) and not isinstance(value, bool):
            raise ConfigError(f"{f.name}: expected true or false, got {shown(value)}")
    for name, allowed in CHOICES.items():
        if getattr(r, name) not in allowed:
            raise ConfigError(f"{name}: expected one of {', '.join(allowed)}, got {shown(getattr(r, name))}")
    check_ranges(r, RANGES)
    if r.partners and r.players != 4:
        raise ConfigError("partners: needs players=4 (X2)")
    _check_pairs_openings(r.pairs_openings)


def check_ranges(rules, ranges: dict) -> None:
    """Refuse a whole-number field outside its (least, most) range; the message is one line."""
    for name, (least, most) in ranges.items():
        value = getattr(rules, name)
        if not least <= value <= most:
            raise ConfigError(f"{name}: must be {range_text(least, most)}, got {shown(value)}")


def _check_pairs_openings(value) -> None:
    if not isinstance(value, tuple):
        raise ConfigError(f"pairs_openings: expected a list of [pairs, melds], got {shown(value)}")
    if len(value) > MAX_PAIRS_OPENINGS:
        raise ConfigError(f"pairs_openings: at most {MAX_PAIRS_OPENINGS} entries, got {len(value)}")
    for combo in value:
        ok = (
            isinstance(combo, tuple)
            and len(combo) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) for n in combo)
            and PAIRS_RANGE[0] <= combo[0] <= PAIRS_RANGE[1]
            and MELDS_RANGE[0] <= combo[1] <= MELDS_RANGE[1]
        )
        if not ok:
            raise ConfigError(f"pairs_openings: each entry must be [pairs, melds] with pairs "
                              f"{range_text(*PAIRS_RANGE)} and melds {range_text(*MELDS_RANGE)}, got {shown(combo)}")
    if len(set(value)) != len(value):
        raise ConfigError("pairs_openings: an entry is repeated")


PRESETS = {
    "standard": {},
    "tr-wiki": {
        "deal": "fourteen",
        "joker_in_cut": True,
        "direction": "clockwise",
        "pairs_openings": [[4, 1], [5, 1], [6, 0], [7, 0]],
        "pairs_discard_block": True,
        "pairs_layoff": True,
        "set_joker_swap": "all",
        "joker_take_from": "others",
        "layable_discard_dead": True,
    },
}

_FIELD_TYPES = {f.name: f.type for f in fields(Rules)}


def _coerce(name: str, value):
    """Turn JSON/TOML-like values into the dataclass's types."""
    if name == "pairs_openings":
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except (json.JSONDecodeError, RecursionError):
                raise ConfigError(f"pairs_openings: expected JSON like [[5,0],[4,1]], got {shown(value)}") from None
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"pairs_openings: expected a list of [pairs, melds], got {shown(value)}")
        return tuple(tuple(c) if isinstance(c, (list, tuple)) else c for c in value)
    kind = _FIELD_TYPES[name]
    if isinstance(value, str):
        if kind == "int":
            try:
                return int(value)
            except ValueError:
                raise ConfigError(f"{name}: expected a whole number, got {shown(value)}") from None
        if kind == "bool":
            if value.lower() in ("true", "yes", "1", "on"):
                return True
            if value.lower() in ("false", "no", "0", "off"):
                return False
            raise ConfigError(f"{name}: expected true or false, got {shown(value)}")
    return value


def parse_assignment(text: str) -> tuple[str, str]:
    """``FIELD=VALUE`` as given to ``--set``."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ConfigError(f"expected FIELD=VALUE, got {shown(text)}")
    return name.strip(), value.strip()


# What each field allows, in words (``ellibir rules``); fields of CHOICES list their values.
ALLOWED = {
    **{name: range_text(*bounds) for name, bounds in RANGES.items()},
    "partners": "true or false; needs players=4",
    "pairs_openings": f"a list of [pairs, melds] (at most {MAX_PAIRS_OPENINGS}) with pairs {range_text(*PAIRS_RANGE)}, "
                      f"melds {range_text(*MELDS_RANGE)}, e.g. [[5,0],[4,1]]",
    **{name: ", ".join(values) for name, values in CHOICES.items()},
}


def unknown_field(name: str, known, game: str = "") -> ConfigError:
    """The error for a rules field that does not exist, with the closest names as a suggestion."""
    close = difflib.get_close_matches(name, sorted(known), n=2, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else f" (fields: {', '.join(sorted(known))})"
    return ConfigError(f"unknown rules field {shown(name)}{' for ' + game if game else ''}{hint}")


def make_rules(preset: str = "standard", overrides: dict | None = None) -> Rules:
    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {shown(preset)} (known: {', '.join(PRESETS)})")
    values = dict(PRESETS[preset])
    for name, value in (overrides or {}).items():
        if name not in _FIELD_TYPES:
            raise unknown_field(name, _FIELD_TYPES)
        values[name] = value
    return Rules(**{name: _coerce(name, value) for name, value in values.items()})


def rules_from_dict(data: dict) -> Rules:
    """A normalised form (as stored with results) back to Rules."""
    return make_rules("standard", data)
