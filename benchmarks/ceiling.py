"""How much a search over greedy's candidates could gain: mc with worlds that cheat, paired against
greedy on the same deals as ``benchmarks.paired`` (a development tool; docs/bots.md has the figures).

    nice -n 10 .venv/bin/python -m benchmarks.ceiling hands 100     # every hand known, the stock reshuffled
    nice -n 10 .venv/bin/python -m benchmarks.ceiling all 200       # every hand and the stock order known

``hands`` shows what perfect inference of the others' hands would be worth; ``all`` plays one exact
world per candidate (the true state), an upper bound no fair bot can reach.
"""

from __future__ import annotations

import sys

from bots import make_bot
from bots.mc import MonteCarlo

from .paired import paired


class Cheat(MonteCarlo):
    """mc whose worlds are the true state of the round: with the stock reshuffled (``stock_known``
    False) or as it lies."""

    def __init__(self, seed=0, stock_known: bool = False, **params):
        super().__init__(seed, cap=None, **params)
        self.stock_known = stock_known
        self.match = None

    def watch(self, match) -> None:
        self.match = match

    def sample(self, view, rng, weight, knowledge):
        return true_world(self.match, rng, self.stock_known)


def true_world(match, rng, stock_known: bool = False):
    """The round ``match`` is in, cloned; unless ``stock_known``, its stock order reshuffled (the
    face-up cut card stays at the bottom)."""
    world = match.round.clone()
    if not stock_known:
        stock = list(world.stock)
        head = stock[:1] if world.cut_lies else []
        rest = stock[len(head):]
        rng.shuffle(rest)
        world.stock = head + rest
    return world


def make(name: str, seed):
    if name == "hands":
        return Cheat(seed)
    if name == "all":
        return Cheat(seed, stock_known=True, worlds=1, batch=1)
    return make_bot(name, seed)


if __name__ == "__main__":
    args = sys.argv[1:]
    print(paired(args[0], int(args[1]), 4, int(args[2]) if len(args) > 2 else 0, make=make))
