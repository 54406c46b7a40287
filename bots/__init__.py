"""In-process bots (they import only ``engine``): ``make_bot("greedy", seed)``, or another game's
``make_bot("cautious", seed, game="einundfuenfzig")``. ``builtin:`` names resolve within the game
being played (``builtin_bots(game)``). A name may carry the bot's parameters: ``mc:worlds=64``.

``BOTS`` is the one place bots are registered: per game (a name the engine's registry knows,
``engine.game.get_game``), its built-in bots by name and the reference bot that plays a seat out
after a fault. The engine cannot list bots (it imports nothing from here); the harness reads both."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass

from engine.game import UnknownGame, get_game

from .base import Bot


class LazyBots(Mapping):
    """Bot classes by name, each module imported when its class is first asked for: a protocol bot
    (bots/serve.py) that plays greedy starts without importing Monte Carlo or the other game's bots."""

    def __init__(self, where: dict):
        self.where = where  # name -> (module within bots, class name)

    def __getitem__(self, name: str):
        module, cls = self.where[name]
        return getattr(importlib.import_module(module, __name__), cls)

    def __iter__(self):
        return iter(self.where)

    def __len__(self) -> int:
        return len(self.where)

    def __contains__(self, name) -> bool:
        return name in self.where


@dataclass(frozen=True)
class GameBots:
    """The built-in bots of one game: ``bots`` (name -> class, ``cls(seed, **params)``) and ``reference``
    (the name of the one that plays a seat out after a fault)."""

    game: str
    bots: Mapping
    reference: str


BUILTIN = LazyBots({"random": (".random_bot", "RandomBot"), "greedy": (".greedy", "Greedy"),
                    "pairs": (".pairs", "PairsBot"), "outs": (".outs", "Outs"), "mc": (".mc", "MonteCarlo"),
                    "vgreedy": (".vgreedy", "VGreedy"), "vbot": (".vbot", "VBot")})  # Ellibir's
# Einundfünfzig's, as bots/einundfuenfzig.py registers them (BUILTIN, REFERENCE; tests/test_bots_lazy.py)
EINUNDFUENFZIG = LazyBots({"random": (".einundfuenfzig", "RandomBot"), "cautious": (".einundfuenfzig", "Cautious"),
                           "mc": (".einundfuenfzig", "MonteCarlo")})
BOTS = {b.game: b for b in (
    GameBots("ellibir", BUILTIN, "greedy"),
    GameBots("einundfuenfzig", EINUNDFUENFZIG, "cautious"),
)}
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


def game_bots(game: str = "ellibir") -> GameBots:
    """The registered bots of ``game``; raises UnknownBot for a game unknown or without bots."""
    if game not in BOTS:
        try:
            get_game(game)
        except UnknownGame as e:
            raise UnknownBot(str(e)) from None
        raise UnknownBot(f"no built-in bots for {game!r} (games with bots: {', '.join(sorted(BOTS))})")
    return BOTS[game]


def builtin_bots(game: str = "ellibir") -> dict:
    """The built-in bots of ``game`` by name; raises UnknownBot for a game without any."""
    return game_bots(game).bots


def reference_bot(game: str = "ellibir") -> str:
    """The bot that plays a seat out after a fault."""
    return game_bots(game).reference


def games_of(name: str) -> list[str]:
    """The games that have a built-in bot called ``name``."""
    return sorted(g for g, b in BOTS.items() if name in b.bots)


def parse_builtin(text: str, game: str = "ellibir") -> tuple:
    """``NAME`` or ``NAME:KEY=VALUE[:KEY=VALUE...]`` (e.g. ``mc:worlds=128``) -> (NAME, {KEY: value}).

    A bot's parameters are those its class lists in ``PARAMS`` (name -> int or float); ``none`` or
    ``off`` gives None. Raises UnknownBot with one line."""
    name, *parts = str(text).split(":")
    bots = builtin_bots(game)
    if name not in bots:
        raise UnknownBot(f"unknown bot {name!r} for {game} (built-in: {', '.join(bots)})")
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


def _param(name: str, key: str, value: str, kind):
    if value.lower() in ("none", "off"):
        return None
    try:
        out = kind(value)
    except ValueError:
        raise UnknownBot(f"bot {name}: {key} must be a {kind.__name__}, got {value!r}") from None
    if out < 0:
        raise UnknownBot(f"bot {name}: {key} must not be negative, got {value!r}")
    return out


def make_bot(name: str, seed=0, game: str = "ellibir") -> Bot:
    """A built-in bot of ``game`` by name, with parameters if the name carries any (``mc:worlds=64``)."""
    name, params = parse_builtin(name, game)
    return builtin_bots(game)[name](seed, **params)


__all__ = ["BOTS", "BUILTIN", "Bot", "GameBots", "Greedy", "MonteCarlo", "Outs", "PairsBot", "RandomBot", "UnknownBot", "VBot", "VGreedy",
           "builtin_bots", "game_bots", "games_of", "make_bot", "parse_builtin", "reference_bot"]
