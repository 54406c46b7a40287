"""In-process bots (they import only ``engine``): ``make_bot("greedy", seed)``, or another game's
``make_bot("cautious", seed, game="einundfuenfzig")``. ``builtin:`` names resolve within the game
being played (``builtin_bots(game)``). A name may carry the bot's parameters: ``mc:worlds=64``.

A game's built-in bots are declared with the game itself, once (``engine/games/NAME.py``: its
``GameSpec.bots``, name -> ``"module:Class"``, and its ``reference``); this package reads that
declaration and imports a bot's module only when the bot is asked for."""

from __future__ import annotations

import functools
import importlib
from contextlib import contextmanager
from contextvars import ContextVar
from collections.abc import Mapping
from dataclasses import dataclass

from engine.game import UnknownGame, game_names, get_game

from .base import Bot


class LazyBots(Mapping):
    """Bot classes by name, each module imported when its class is first asked for: a protocol bot
    (bots/serve.py) that plays greedy starts without importing Monte Carlo or the other game's bots."""

    def __init__(self, where: dict):
        self.where = where  # name -> "module:Class"
        self.found: dict = {}  # name -> the class, once imported

    def __getitem__(self, name: str):
        cls = self.found.get(name)
        if cls is None:
            module, _, attr = self.where[name].partition(":")
            cls = self.found[name] = getattr(importlib.import_module(module), attr)
        return cls

    def __iter__(self):
        return iter(self.where)

    def __len__(self) -> int:
        return len(self.where)

    def __contains__(self, name) -> bool:
        return name in self.where


@dataclass(frozen=True)
class GameBots:
    """The built-in bots of one game: ``bots`` (name -> class, ``cls(seed, **params)``), ``reference``
    (the name of the one that plays a seat out after a fault) and ``field`` (the others a bot meets in
    ``bot check``)."""

    game: str
    bots: Mapping
    reference: str
    field: tuple = ()


_CLASSES = {"Greedy": ".greedy", "MonteCarlo": ".mc", "Outs": ".outs", "PairsBot": ".pairs", "RandomBot": ".random_bot",
            "VBot": ".vbot", "VGreedy": ".vgreedy"}


def __getattr__(name: str):
    """``bots.Greedy`` and the other classes, imported on first use."""
    if name in _CLASSES:
        return getattr(importlib.import_module(_CLASSES[name], __name__), name)
    if name == "einundfuenfzig":
        return importlib.import_module(".einundfuenfzig", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnknownBot(ValueError):
    """A bot name that names no built-in bot."""


# Bots for analysis only (a class with ``ANALYSIS_ONLY``: the clairvoyant bot, which sees every hand and
# the stock) are refused here, where every built-in name is read, unless ``analysis_bots()`` allows
# them: only a skill study's own tables do (harness/runs/study.py). Tournaments, sweeps, the ladder,
# the arena, play, bot check, and the names a person gives a study all come through here.
_ANALYSIS = ContextVar("analysis_bots", default=False)


@contextmanager
def analysis_bots():
    """Within this block, bots for analysis only may be named."""
    token = _ANALYSIS.set(True)
    try:
        yield
    finally:
        _ANALYSIS.reset(token)


def analysis_only(name: str, game: str = "ellibir") -> bool:
    """Whether the built-in bot ``name`` (parameters allowed) is for analysis only."""
    bots = builtin_bots(game)
    base = str(name).split(":")[0]
    return base in bots and bool(getattr(bots[base], "ANALYSIS_ONLY", False))


@functools.cache
def game_bots(game: str = "ellibir") -> GameBots:
    """The declared bots of ``game``; raises UnknownBot for a game unknown or without bots."""
    try:
        spec = get_game(game)
    except UnknownGame as e:
        raise UnknownBot(str(e)) from None
    if not spec.bots:
        raise UnknownBot(f"no built-in bots for {game!r}")
    return GameBots(game, LazyBots(dict(spec.bots)), spec.reference, tuple(spec.field))


def registered_bots() -> dict[str, GameBots]:
    """Every game that has built-in bots, with them."""
    return {g: game_bots(g) for g in game_names() if get_game(g).bots}


def builtin_bots(game: str = "ellibir") -> dict:
    """The built-in bots of ``game`` by name; raises UnknownBot for a game without any."""
    return game_bots(game).bots


def check_field(game: str = "ellibir") -> list[str]:
    """The bots a submitted bot meets in ``bot check``, seat after seat: the reference bot, then the
    game's field."""
    bots = game_bots(game)
    return [bots.reference, *bots.field]


def reference_bot(game: str = "ellibir") -> str:
    """The bot that plays a seat out after a fault."""
    return game_bots(game).reference


def games_of(name: str) -> list[str]:
    """The games that have a built-in bot called ``name``."""
    return sorted(g for g, b in registered_bots().items() if name in b.bots)


def parse_builtin(text: str, game: str = "ellibir") -> tuple:
    """``NAME`` or ``NAME:KEY=VALUE[:KEY=VALUE...]`` (e.g. ``mc:worlds=128``) -> (NAME, {KEY: value}).

    A bot's parameters are those its class lists in ``PARAMS`` (name -> ``base.Param``: a whole number
    or a number within its range, or ``none``/``off`` for None where allowed). Raises UnknownBot with one line."""
    name, *parts = str(text).split(":")
    bots = builtin_bots(game)
    if name not in bots:
        raise UnknownBot(f"unknown bot {name!r} for {game} (built-in: {', '.join(bots)})")
    if analysis_only(name, game) and not _ANALYSIS.get():
        raise UnknownBot(f"bot {name} is for analysis only (it sees every hand and the stock): it plays only in the "
                         f"tables a skill study adds itself (ellibir study skill), never in a run you name it in")
    known = getattr(bots[name], "PARAMS", {})
    params = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or key not in known:
            listed = ", ".join(known) or "none"
            raise UnknownBot(f"bot {name}: {part!r} is not KEY=VALUE with KEY one of its parameters ({listed})")
        if key in params:
            raise UnknownBot(f"bot {name}: parameter {key} given twice")
        params[key] = _param(name, key, value, known[key])
    return name, params


def parameters() -> list[tuple]:
    """(game, bot, parameter, default, allowed) of every built-in bot's parameters: what docs/bots.md lists."""
    import inspect

    rows = []
    for game, found in registered_bots().items():
        for name in found.bots:
            cls = found.bots[name]
            defaults = inspect.signature(cls.__init__).parameters
            for key, param in getattr(cls, "PARAMS", {}).items():
                default = defaults[key].default
                rows.append((game, name, key, "off" if default is None else str(default), param.allowed()))
    return rows


def _param(name: str, key: str, value: str, param):
    try:
        return param.parse(value)
    except ValueError as e:
        shown = value if len(value) <= 40 else value[:37] + "..."
        raise UnknownBot(f"bot {name}: {key} {e}, got {shown!r}") from None


def make_bot(name: str, seed=0, game: str = "ellibir", **extra) -> Bot:
    """A built-in bot of ``game`` by name, with parameters if the name carries any (``mc:worlds=64``);
    ``extra`` goes to its class as well (a value bot's ``value``: other weights)."""
    name, params = parse_builtin(name, game)
    return builtin_bots(game)[name](seed, **params, **extra)


__all__ = ["Bot", "GameBots", "parameters", "Greedy", "MonteCarlo", "Outs", "PairsBot", "RandomBot", "UnknownBot", "VBot", "VGreedy", "builtin_bots", "check_field",
           "analysis_bots", "analysis_only", "game_bots", "games_of", "make_bot", "parse_builtin", "reference_bot", "registered_bots"]
