"""In-process bots (they import only ``engine``): ``make_bot("greedy", seed)``."""

from __future__ import annotations

from .base import Bot
from .greedy import Greedy
from .pairs import PairsBot
from .random_bot import RandomBot

BUILTIN = {"random": RandomBot, "greedy": Greedy, "pairs": PairsBot}


class UnknownBot(ValueError):
    """A bot name that names no built-in bot."""


def make_bot(name: str, seed=0) -> Bot:
    if name not in BUILTIN:
        raise UnknownBot(f"unknown bot {name!r} (built-in: {', '.join(BUILTIN)})")
    return BUILTIN[name](seed)


__all__ = ["BUILTIN", "Bot", "Greedy", "PairsBot", "RandomBot", "UnknownBot", "make_bot"]
