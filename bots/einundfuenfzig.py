"""Reference bots for Einundfünfzig (E1-E4): ``random`` and ``cautious``.

``cautious`` never brings the total to 51 when some (card, value) keeps it below. Among the safe
plays it picks the one that leaves the next player the fewest safe cards, judged only from what
it knows: the cards it has not seen (not in its hand, not on the pile) stand for the next player's
possible cards, and an unseen card is safe for them when its lowest value (a 7 counts 1) keeps the
new total below 51. Ties go to the highest value played, which keeps the low cards (10, 9, A, 7)
in hand as later escapes; then to the lowest card id. With no safe play it plays its lowest value.
As the first player facing a face-up 7, it counts that 7 as 1 (the lower total).
"""

from __future__ import annotations

import random

from engine.einundfuenfzig import (
    LIMIT, N_CARDS, SEVEN_VALUES, Play, View, is_seven, legal_of, low_value, parse_card, values_of,
    view_of,
)

from .params import Param

GAME = "einundfuenfzig"


class Bot:
    name = "base"

    def __init__(self, seed=0):
        self.seed = seed
        self.rng = random.Random(seed)
        self.seat = -1
        self.rules = None
        self.refusals = 0

    def start(self, seat: int, rules) -> None:
        self.seat, self.rules = seat, rules

    def decide(self, view: View, legal: dict) -> Play:
        if self.refusals:  # never repeat a refused decision forever: any legal play will do
            self.refusals = 0
            return random_play(self.rng, legal)
        return self.play(view, legal)

    def play(self, view: View, legal: dict) -> Play:
        raise NotImplementedError

    def refused(self, outcome) -> None:
        self.refusals += 1

    def clock(self, limit: float, bank: float) -> None:
        """The time this decision has and the bank left (the protocol loop tells; unused here)."""


def random_play(rng, legal: dict) -> Play:
    card = rng.choice(legal["cards"])
    value = rng.choice(SEVEN_VALUES) if is_seven(card) else None
    start = rng.choice(SEVEN_VALUES) if legal.get("start_choice") else None
    return Play(card, value, start)


class RandomBot(Bot):
    """Any card of the hand; a 7's value (and the face-up 7's) drawn at random."""

    name = "random"

    def play(self, view, legal):
        return random_play(self.rng, legal)


def unseen(view: View) -> list[int]:
    """The cards this seat has not seen: not in its hand, not on the pile."""
    known = set(view.hand) | set(view.pile)
    return [c for c in range(N_CARDS) if c not in known]


class Cautious(Bot):
    """Never crosses 51 when it can avoid it; then squeezes the next player (see the module's text)."""

    name = "cautious"

    def play(self, view, legal):
        start = 1 if legal.get("start_choice") else None
        total = legal["total"] + (start or 0)
        options = [(c, v) for c in legal["cards"] for v in values_of(c)]
        safe = [(c, v) for c, v in options if total + v < LIMIT]
        if not safe:
            c, v = min(options, key=lambda o: (o[1], o[0]))
            return Play(c, v if is_seven(c) else None, start)
        lows = [low_value(c) for c in unseen(view)]

        def squeeze(option):
            after = total + option[1]
            return sum(1 for low in lows if after + low < LIMIT), -option[1], option[0]

        c, v = min(safe, key=squeeze)
        return Play(c, v if is_seven(c) else None, start)


class MonteCarlo(Bot):
    """Flat determinised Monte Carlo (as Ellibir's ``mc``): cautious's pick first, then every other
    card and value; each played out in ``worlds`` sampled games by cautious players; the pick moves
    away from cautious's only when the paired gain clears ``gate`` standard errors."""

    name = "mc"
    PARAMS = {"worlds": Param(int, 0, 1024), "gate": Param(float, 0, 10)}

    def __init__(self, seed=0, worlds: int = 32, gate: float = 1.0):
        super().__init__(seed)
        self.worlds, self.gate = worlds, gate
        self.heuristic = Cautious(seed)
        self.policies: list = []

    def start(self, seat: int, rules) -> None:
        super().start(seat, rules)
        self.heuristic.start(seat, rules)
        self.policies = [Cautious(f"{self.seed}:rollout:{s}") for s in range(rules.players)]
        for s, bot in enumerate(self.policies):
            bot.start(s, rules)

    def play(self, view, legal):
        from engine.search import determinise, simple_decisions

        from .mc import best

        first = self.heuristic.play(view, legal)
        candidates = [first] + [d for d in simple_decisions(view, legal) if d != first]
        if len(candidates) < 2 or self.worlds < 1:
            return first
        rng = random.Random(f"mc:{self.seed}:{view.round_index}:{view.turn}")
        values = [[] for _ in candidates]
        for _ in range(self.worlds):
            world = determinise(view, rng)
            for i, c in enumerate(candidates):
                values[i].append(self.rollout(world, c))
        return candidates[best(values, self.gate)]

    def rollout(self, world, decision) -> float:
        w = world.clone()
        if w.apply(self.seat, decision) is not None:
            return float("-inf")
        while (seat := w.to_move()) is not None:
            view = view_of(w, seat, self.rules, [0] * w.n, ())
            w.apply(seat, self.policies[seat].play(view, legal_of(w, seat)))
        return w.utility(self.seat)




__all__ = ["Bot", "Cautious", "MonteCarlo", "RandomBot", "random_play", "unseen"]
