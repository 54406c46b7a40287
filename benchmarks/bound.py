"""How much perfect inference of the others' hands would give vbot (issue 28): vbot whose worlds are
the true state of the round with the stock reshuffled (the face-up cut card stays at the bottom),
everything else vbot's, paired with other bots on the same deals as ``benchmarks.paired_many``.
A development tool, reachable from no bot name a user can give.

    nice -n 19 .venv/bin/python -m benchmarks.bound OUT.jsonl 300 4 60000 vbot cheat greedy
    .venv/bin/python -m benchmarks.paired_many --summary OUT.jsonl

``cheat`` is the cheating vbot with vbot's defaults, ``cheat:PARAMS`` with vbot's parameters; any
other name is what ``benchmarks.paired_many`` makes of it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bots import parse_builtin
from bots.vbot import VBot

from . import paired_many
from .ceiling import true_world


class CheatVBot(VBot):
    """vbot whose every world is the true round, cloned, with the stock order reshuffled."""

    def __init__(self, seed=0, **params):
        super().__init__(seed, **params)
        self.match = None

    def watch(self, match) -> None:
        self.match = match

    def sample(self, view, rng, weight, knowledge):
        return true_world(self.match, rng)


def make(name: str, seed):
    base, _, spec = name.partition(":")
    if base == "cheat":
        return CheatVBot(seed, **parse_builtin(":".join(["vbot", spec]) if spec else "vbot")[1])
    return paired_many.make(name, seed)


if __name__ == "__main__":
    args = sys.argv[1:]
    paired_many.run(Path(args[0]), int(args[1]), int(args[2]), int(args[3]), args[4:], make=make)
