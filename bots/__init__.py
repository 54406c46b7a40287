"""In-process bots (they import only ``engine``): ``make_bot("greedy", seed)``, or another game's
``make_bot("cautious", seed, game="einundfuenfzig")``. ``builtin:`` names resolve within the game
being played (``builtin_bots(game)``)."""

from __future__ import annotations

from . import einundfuenfzig
from .base import Bot
from .greedy import Greedy
from .mc import MonteCarlo
from .pairs import PairsBot
from .random_bot import RandomBot

BUILTIN = {"random": RandomBot, "greedy": Greedy, "pairs": PairsBot, "mc": MonteCarlo}  # Ellibir's
GAME_BOTS = {"ellibir": BUILTIN, "einundfuenfzig": einundfuenfzig.BUILTIN}
REFERENCE = {"ellibir": "greedy", "einundfuenfzig": einundfuenfzig.REFERENCE}  # plays a seat out after a fault


class UnknownBot(ValueError):
    """A bot name that names no built-in bot."""


def builtin_bots(game: str = "ellibir") -> dict:
    """The built-in bots of ``game`` by name; raises UnknownBot for a game without any."""
    if game not in GAME_BOTS:
        raise UnknownBot(f"unknown game {game!r} (known: {', '.join(sorted(GAME_BOTS))})")
    return GAME_BOTS[game]


def reference_bot(game: str = "ellibir") -> str:
    builtin_bots(game)
    return REFERENCE[game]


def make_bot(name: str, seed=0, game: str = "ellibir") -> Bot:
    bots = builtin_bots(game)
    if name not in bots:
        raise UnknownBot(f"unknown bot {name!r} for {game} (built-in: {', '.join(bots)})")
    return bots[name](seed)


__all__ = ["BUILTIN", "GAME_BOTS", "REFERENCE", "Bot", "Greedy", "MonteCarlo", "PairsBot", "RandomBot", "UnknownBot",
           "builtin_bots", "make_bot", "reference_bot"]
