"""The vbot bot: vgreedy's candidate turns, the best few searched by short rollouts that end in V.

For a play decision it lists vgreedy's candidates (greedy's plays with several discards, and waiting
to open), keeps the ``top`` that V scores best (vgreedy's pick first), samples worlds from its view
(``engine.determinise``, weighted as mc weights them) and plays each kept candidate in every world:
the others by greedy, its own later turns by a lighter vgreedy (``FUTURE_DISCARDS``, ``FUTURE_DRAWS``),
each seat from its own view of the world, until the bot has come to play ``depth`` more times; there
V scores the position it holds, and a round that ends sooner scores its margin. All candidates share the worlds (common random numbers);
the bot leaves vgreedy's pick only for the candidate whose mean paired gain over it clears ``gate``
standard errors. Draws are vgreedy's. Its candidates include vgreedy's plans that lay down less than
greedy (``hold``, on by default since issue 28's sixth stage; ``least`` and ``joker`` off). Its own
later turns in the rollouts play without them and without waiting, unless ``fhold=1`` (the held-back
plans) or ``fwait=1`` (waiting to go out all at once); ``fdisc`` (3) is how many discards they weigh.

The budget is counted in worlds, so decisions do not depend on the machine; ``cap`` (seconds, None
for none) is a wall-clock safety net, counted in ``capped`` when it fires.
"""

from __future__ import annotations

import random
import time

from engine.decisions import STOCK
from engine.determinise import determinise, read_view
from engine.observe import legal as legal_of
from engine.observe import view_of

from .base import Bot
from .greedy import Greedy
from .infer import EPS, Inference
from .mc import MAX_WORLDS, best, plain_discard, plausible
from .params import Param
from .value.features import features
from .vgreedy import DISCARDS, VGreedy

WORLDS = 16
DEPTH = 2
TOP = 3
GATE = 1.5
CAP = 10.0
# its own later turns in rollouts: vgreedy over greedy's first three discards, each scored over twelve
# card kinds drawn at random in proportion to their unseen copies
FUTURE_DISCARDS = 3
FUTURE_DRAWS = 12


class VBot(Bot):
    name = "vbot"
    PARAMS = {  # builtin:vbot:worlds=32
        "worlds": Param(int, 1, MAX_WORLDS), "depth": Param(int, 1, 8), "top": Param(int, 1, 30),
        "gate": Param(float, 0, 10), "cap": Param(float, 0.01, 60, off=True), "discards": Param(int, 1, 16),
        "gen": Param(int, 0, 99), "least": Param(int, 0, 1), "joker": Param(int, 0, 1), "hold": Param(int, 0, 1),
        "fhold": Param(int, 0, 1), "fwait": Param(int, 0, 1), "fdisc": Param(int, 1, 16),
        "room": Param(float, 0, 100), "feed": Param(float, 0, 500), "rank": Param(int, 0, 1),
        "infer": Param(int, 0, 2), "eps": Param(float, 0, 1),
    }

    def __init__(self, seed=0, worlds: int = WORLDS, depth: int = DEPTH, top: int = TOP, gate: float = GATE,
                 cap: float | None = CAP, discards: int = DISCARDS, gen: int = 0, value=None,
                 least: int = 0, joker: int = 0, hold: int = 1, fhold: int = 0, fwait: int = 0,
                 fdisc: int = FUTURE_DISCARDS, room: float = 0, feed: float = 0, infer: int = 0, eps: float = EPS,
                 rank: int = 0, equity=None):
        super().__init__(seed)
        self.worlds, self.depth, self.top, self.gate, self.cap = worlds, max(1, depth), max(1, top), gate, cap
        self.own = VGreedy(seed, discards=discards, gen=gen, value=value, least=least, joker=joker, hold=hold,
                           room=room, feed=feed, rank=rank, equity=equity)  # its own pick, and its own later turns
        self.value = self.own.value
        self.future = {"hold": fhold, "wait": fwait, "discards": fdisc}
        self.infer, self.eps = infer, eps  # infer=1: worlds agree with each greedy opponent's last discard; 2: and its draw then
        self.capped = 0
        self.limit = None
        self.policies: list = []

    def start(self, seat: int, rules) -> None:
        super().start(seat, rules)
        self.own.start(seat, rules)
        self.value = self.own.value  # the model for these rules (vgreedy's choice)
        self.policies = [Greedy(f"{self.seed}:rollout:{s}") for s in range(rules.players)]
        for s, bot in enumerate(self.policies):
            bot.start(s, rules)
        future = VGreedy(f"{self.seed}:self", draws=FUTURE_DRAWS, value=self.value, **self.future)
        future.start(seat, rules)
        self.policies[seat] = future

    def clock(self, limit: float, bank: float) -> None:
        self.limit = max(0.05, 0.7 * limit + 0.05 * bank)

    def draw(self, view, legal: dict):
        return self.own.draw(view, legal)

    def play(self, view, legal: dict):
        options = self.own.options(view, legal)  # vgreedy's candidates, its plans included when switched on
        if len(options) == 1:
            return options[0].turn()
        scores = self.own.scores(view, options)  # V, less what room and feed charge when switched on
        ranked = sorted(range(len(options)), key=lambda i: -scores[i])[:self.top]
        if len(ranked) < 2 or self.worlds < 1:
            return options[ranked[0]].turn()
        turns = [options[i].turn() for i in ranked]
        return turns[self.search(view, turns)]

    def search(self, view, turns: list) -> int:
        """The index of the turn to play: 0 (V's pick) unless another clears the gate in the rollouts."""
        rng = random.Random(f"vbot:{self.seed}:{view.round_index}:{view.turn}")
        knowledge = read_view(view)
        weight = plausible(view)
        inference = Inference(view, knowledge, self.eps, takes=self.infer >= 2) if self.infer else None
        values = [[] for _ in turns]
        deadline = None if self.cap is None else time.monotonic() + min(self.cap, self.limit or self.cap)
        for _ in range(self.worlds):
            world = self.sample(view, rng, weight, knowledge)
            if inference is not None:
                world = inference.refine(world, rng)
            seed = rng.random()
            for i, turn in enumerate(turns):
                values[i].append(self.rollout(world, turn, view.totals, random.Random(seed)))
            if deadline is not None and time.monotonic() > deadline:
                self.capped += 1
                break
        return best(values, self.gate)

    def sample(self, view, rng, weight, knowledge):
        """One world consistent with the view (a hook for benchmarks/bound.py's cheating bound)."""
        return determinise(view, rng, weight, knowledge=knowledge)

    def rollout(self, world, turn, totals: list, rng) -> float:
        """V (round margin in hundreds) after ``turn`` and play until the bot's ``depth``-th next play."""
        w = world.clone()
        seat = self.seat
        if w.apply(seat, turn) is not None:
            return -float("inf")
        plays = 0
        for _ in range(400):
            mover = w.to_move()
            if mover is None:
                return margin(w.scores or [0] * w.n, seat)
            view = view_of(w, mover, 1, totals, ())
            if mover == seat and w.phase == "play":
                plays += 1
                if plays >= self.depth:
                    return self.value([features(view)])[0]
            legal = legal_of(w, mover)
            bot = self.policies[mover]
            decision = bot.draw(view, legal) if w.phase == "draw" else bot.play(view, legal)
            if w.apply(mover, decision) is not None:
                w.apply(mover, STOCK if w.phase == "draw" else plain_discard(view, legal, rng))
        return self.value([features(view_of(w, seat, 1, totals, ()))])[0]


def margin(scores: list, seat: int) -> float:
    """The round margin of ``seat`` in hundreds of points: the others' mean score minus its own."""
    others = [v for s, v in enumerate(scores) if s != seat]
    return (sum(others) / len(others) - scores[seat]) / 100


__all__ = ["VBot", "margin"]
