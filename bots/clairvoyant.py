"""The clairvoyant bot, for analysis only: Monte Carlo over greedy's candidates whose one world is
the true state of the round (every hand and the stock in its order). It is the fictive player of
the skill level (results/skill.py: the player who knows the luck), not a bot anyone can meet.

It needs the match itself (``watch``), which only a skill study's own tables hand it, and its name is
refused everywhere else (``bots.parse_builtin``: ``ANALYSIS_ONLY``)."""

from __future__ import annotations

from .mc import MonteCarlo


class Clairvoyant(MonteCarlo):
    name = "clairvoyant"
    ANALYSIS_ONLY = True
    PARAMS = {}

    def __init__(self, seed=0):
        super().__init__(seed, worlds=1, batch=1, cap=None)
        self.match = None

    def watch(self, match) -> None:
        """Shown the match being played: its rounds' true states are the worlds."""
        self.match = match

    def sample(self, view, rng, weight, knowledge):
        if self.match is None:
            raise RuntimeError("the clairvoyant bot plays only where it is shown the match (a skill study)")
        return self.match.round.clone()
