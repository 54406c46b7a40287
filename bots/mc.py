"""The mc bot: flat determinised Monte Carlo over a few candidate decisions (../shared/STRONG_BOT.md).

For each decision it lists candidates from a heuristic, ``outs`` by default and greedy with
``outs=0`` (its own pick first, then greedy's next discards after the same plays, waiting instead
of opening, other draws), samples full states consistent with its view
(``engine.search.determinise``), and plays each candidate out to the round's end in every world,
every seat played by greedy from its own view of that world. All candidates share the worlds and
the random generator of each world (common random numbers). The value of a playout is minus the
seat's round score against the others' mean. It leaves the heuristic's pick only when a
candidate's mean paired gain over it clears ``gate`` standard errors.

Worlds come in doubling batches (``batch``, then as many again, up to ``worlds``): after each batch
a challenger whose paired gain is below minus one standard error is dropped, and the search stops
when no challenger is left, or when one clears the gate after two batches or more. Most decisions
stop after the first batch; the budget goes to the few where a challenger looks better.

The budget is counted in worlds, so a decision does not depend on the machine; ``cap`` (seconds,
None for no cap) is a wall-clock safety net: when it fires the bot decides with the worlds played
so far and counts it in ``capped``. Decisions are deterministic for a given seed (and cap None).
"""

from __future__ import annotations

import math
import random
import time

from engine.decisions import STOCK, Draw, Turn
from engine.determinise import determinise, read_view
from engine.observe import legal as legal_of
from engine.observe import view_of
from engine.solver import best_opening

from .base import Bot, discardable, safe_discard
from .greedy import Greedy
from .outs import Outs, cheap_order
from .params import Param
from .plan import Plan

WORLDS = 16  # the most worlds one decision may use (one batch; worlds=128 is the strong budget)
BATCH = 16  # the first batch of worlds
MAX_WORLDS = 1024  # the most a name may ask for (at 128 a decision takes 0.1 s on average, its tail 2 s)
CAP = 10.0
GATE = 2.0
OPENED_MELD = 0.3  # world weights (``plausible``)
COULD_OPEN = 0.1
DISCARDS = 3  # candidate discards after the heuristic's plays


class MonteCarlo(Bot):
    name = "mc"
    PARAMS = {  # builtin:mc:worlds=64
        "worlds": Param(int, 0, MAX_WORLDS), "batch": Param(int, 1, MAX_WORLDS), "cap": Param(float, 0.01, 60, off=True),
        "gate": Param(float, 0, 10), "infer": Param(int, 0, 1), "outs": Param(int, 0, 1),
    }

    def __init__(self, seed=0, worlds: int = WORLDS, cap: float | None = CAP, gate: float = GATE, infer: int = 1,
                 batch: int = BATCH, outs: int = 1):
        super().__init__(seed)
        self.infer = infer  # 1: weight worlds by what the others' play says of their hands (``plausible``)
        self.worlds = worlds
        self.batch = max(1, batch)
        self.cap = cap
        self.gate = gate
        self.capped = 0  # decisions cut short by the wall-clock cap
        self.limit = None  # the clock's time for this decision (``clock``), when known
        self.heuristic = Outs(seed) if outs else Greedy(seed)  # the candidates' source; outs=0: greedy
        self.policies: list = []

    def start(self, seat: int, rules) -> None:
        super().start(seat, rules)
        self.heuristic.start(seat, rules)
        self.policies = [Greedy(f"{self.seed}:rollout:{s}") for s in range(rules.players)]
        for s, bot in enumerate(self.policies):
            bot.start(s, rules)

    def clock(self, limit: float, bank: float) -> None:
        """Behind the protocol the cap also keeps to the clock: most of the decision's time, a little bank."""
        self.limit = max(0.05, 0.7 * limit + 0.05 * bank)

    def draw(self, view, legal: dict):
        return self.search(view, legal, draw_candidates(self.heuristic, view, legal))

    def play(self, view, legal: dict):
        return self.search(view, legal, play_candidates(self.heuristic, view, legal))

    # The search ---------------------------------------------------------------------------------

    def search(self, view, legal: dict, candidates: list):
        if len(candidates) < 2 or self.worlds < 1:
            return candidates[0]
        rng = random.Random(f"mc:{self.seed}:{view.round_index}:{view.turn}:{view.phase}")
        knowledge = read_view(view)
        weight = plausible(view) if self.infer else None
        values = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        deadline = None if self.cap is None else time.monotonic() + min(self.cap, self.limit or self.cap)
        played, step = 0, min(self.batch, self.worlds)
        while True:
            for _ in range(step):
                world = self.sample(view, rng, weight, knowledge)
                seed = rng.random()
                for i in alive:
                    values[i].append(self.rollout(world, candidates[i], random.Random(seed)))
                played += 1
                if deadline is not None and time.monotonic() > deadline:
                    self.capped += 1
                    return candidates[best(values, self.gate)]
            if played >= self.worlds or any(math.isinf(v) for v in values[0]):
                break
            alive = [0] + [i for i in alive[1:] if promising(values[i], values[0])]
            if len(alive) == 1 or (played >= 2 * self.batch and best(values, self.gate) != 0):
                break
            step = min(played, self.worlds - played)
        return candidates[best(values, self.gate)]

    def sample(self, view, rng, weight, knowledge):
        """One world consistent with the view (a hook for benchmarks/ceiling.py's cheating bounds)."""
        return determinise(view, rng, weight, knowledge=knowledge)

    def rollout(self, world, decision, rng) -> float:
        """Minus the seat's round score against the others' mean, after ``decision`` and greedy play."""
        w = world.clone()
        seat = self.seat
        if w.apply(seat, decision) is not None:
            return -math.inf
        playout_greedy(w, self.policies, rng)
        scores = w.scores or [0] * w.n
        others = [scores[s] for s in range(w.n) if s != seat]
        return -(scores[seat] - sum(others) / len(others))


def plausible(view):
    """A weight for worlds: a player who has had a turn and not opened is unlikely to hold an opening
    (a greedy-like player opens when it can), and one who has opened is unlikely to hold a run or a
    set still (it lays down what it can)."""
    n, seat = view.players, view.seat
    need = view.threshold
    played = [s for s in range(n) if s != seat and view.turn > 1 + (s - view.first) % n and not view.declared[s]]
    if not played:
        return None

    def weight(world) -> float:
        w = 1.0
        for s in played:
            value = best_opening(world.hands[s], keep=1)[0]
            if view.opened[s]:
                if value > 0:
                    w *= OPENED_MELD
            elif value >= need:
                w *= COULD_OPEN
        return w

    return weight


def gain(challenger: list, base: list) -> tuple:
    """The mean paired gain of ``challenger`` over ``base`` on the worlds both played, and its standard
    error (-inf when the challenger was refused in one of them)."""
    diffs = [a - b for a, b in zip(challenger, base)]
    n = len(diffs)
    if n == 0 or any(math.isinf(d) for d in diffs):
        return -math.inf, 0.0
    mean = sum(diffs) / n
    if n == 1:
        return mean, math.inf
    return mean, math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)


def promising(challenger: list, base: list) -> bool:
    """Not yet shown worse: the paired gain is above minus one standard error."""
    mean, se = gain(challenger, base)
    return mean > -se


def best(values: list, gate: float) -> int:
    """The candidate with the best mean paired gain over candidate 0 that clears ``gate`` standard
    errors (a challenger dropped early is judged on the worlds it played); when candidate 0 was
    refused in some world, the best valid mean."""
    base = values[0]
    if any(math.isinf(v) for v in base):
        valid = [i for i, vs in enumerate(values) if vs and not any(math.isinf(v) for v in vs)]
        return max(valid, key=lambda i: sum(values[i]) / len(values[i]), default=0)
    pick, pick_mean = 0, 0.0
    for i in range(1, len(values)):
        mean, se = gain(values[i], base)
        if mean <= 0 or (not math.isinf(se) and not mean > gate * se):  # one world (se inf): its sign alone
            continue
        if mean > pick_mean:
            pick, pick_mean = i, mean
    return pick


def playout_greedy(world, policies: list, rng, steps: int = 5000) -> None:
    """Play ``world`` to the round's end, every seat by greedy from its own view of the world."""
    totals = [0] * world.n
    for _ in range(steps):
        seat = world.to_move()
        if seat is None:
            return
        view = view_of(world, seat, 1, totals, ())
        legal = legal_of(world, seat)
        bot = policies[seat]
        decision = bot.draw(view, legal) if world.phase == "draw" else bot.play(view, legal)
        if world.apply(seat, decision) is not None:
            world.apply(seat, STOCK if world.phase == "draw" else plain_discard(view, legal, rng))
    raise RuntimeError("a greedy playout did not end")


def plain_discard(view, legal: dict, rng) -> Turn:
    cards = discardable(view, legal, view.hand)
    return Turn((), rng.choice(cards) if cards else safe_discard(view, legal, view.hand, view.table))


# The heuristic layer: candidates ---------------------------------------------------------------


def draw_candidates(greedy: Greedy, view, legal: dict) -> list:
    """Greedy's draw first, then the stock, the cut card and a pair take where the rules allow them."""
    first = greedy.draw(view, legal)
    out = [first]
    options = legal["draw"]
    for other in (STOCK, Draw("cut") if options.get("cut") else None, Draw("pair") if options.get("pair") else None):
        if other is not None and other not in out:
            out.append(other)
    return out


def play_candidates(heuristic: Greedy, view, legal: dict) -> list:
    """The heuristic's turn first, then its plays with greedy's next best discards, then waiting (no opening)."""
    plan = Plan(view, legal)
    opened_before = plan.opened
    if plan.opened or heuristic.open(plan):
        heuristic.after_open(plan)
    cards = discardable(view, legal, plan.hand)
    if not cards:
        return [heuristic.play(view, legal)]
    first = heuristic.choose_discard(plan, cards)
    others = [c for c in cheap_order(heuristic, plan, cards)[:DISCARDS] if c != first]
    out = [plan.turn(c) for c in [first] + others[:DISCARDS - 1]]
    if plan.opened and not opened_before and plan.size > 1:
        waiting = Plan(view, legal)
        rest = cheap_order(heuristic, waiting, discardable(view, legal, waiting.hand))
        if rest:
            out.append(waiting.turn(rest[0]))
    return out


__all__ = ["MonteCarlo", "best", "draw_candidates", "play_candidates", "playout_greedy"]
