"""The random bot: uniformly random among the simplest legal decisions."""

from __future__ import annotations

from engine.cards import JOKER
from engine.decisions import Draw, Play, Turn

from .base import Bot, discardable


class RandomBot(Bot):
    name = "random"

    def draw(self, view, legal: dict) -> Draw:
        sources = ["stock"] + (["cut"] if legal["draw"].get("cut") else [])
        return Draw(self.rng.choice(sources))

    def play(self, view, legal: dict) -> Turn:
        hand = view.hand[:]
        plays = ()
        layoff = self._layoff(view, legal, hand)
        if layoff is not None:
            hand[layoff.cards[0]] -= 1
            plays = (layoff,)
        return Turn(plays, self.rng.choice(discardable(view, legal, hand)))

    def _layoff(self, view, legal: dict, hand):
        """Half the time, when opened, one random lay-off of a natural card (A2) that leaves two cards."""
        if not legal.get("opened") or sum(hand) < 3 or self.rng.random() < 0.5:
            return None
        options = [(x["meld"], c) for x in legal.get("layoffs", []) for c in x["cards"] if c != JOKER]
        options = [(i, c) for i, c in options if len(discardable(view, legal, _without(hand, c))) > 0]
        if not options:
            return None
        meld, c = self.rng.choice(options)
        return Play("layoff", (), meld, (c,))


def _without(hand, c: int) -> list:
    out = hand[:]
    out[c] -= 1
    return out
