"""State for search: clone against deepcopy, fast-path playouts against the public checked path,
determinisation samples/s. Each pair is measured interleaved in one run, in CPU time, from the same
mid-round state (four greedy bots, 60 decisions into a four-player round)."""

from __future__ import annotations

import copy
import random
import time

from bots import make_bot
from engine import make_rules, new_match
from engine.determinise import determinise, read_view
from engine.search import random_decision


def mid_round(decisions: int = 60, seed: int = 3):
    rules = make_rules("standard", {"players": 4})
    match = new_match("ellibir", rules, seed)
    bots = [make_bot("greedy", s) for s in range(4)]
    for s, bot in enumerate(bots):
        bot.start(s, rules)
    for _ in range(decisions):
        seat = match.to_move()
        outcome = match.apply(seat, bots[seat].decide(match.observe(seat), match.legal(seat)))
        if not outcome.accepted:
            bots[seat].refused(outcome)
    return match


def _cpu(fn, n: int) -> float:
    start = time.process_time()
    for _ in range(n):
        fn()
    return time.process_time() - start


def clone_ratio(rounds: int = 20, batch: int = 200) -> dict:
    """Seconds per clone and per deepcopy of the same round state (its log left out of both; the
    frozen rules and deal shared by deepcopy too, so that both copy the same mutable state)."""
    rnd = mid_round().round.clone()
    rnd.events = []

    def deep():
        return copy.deepcopy(rnd, {id(rnd.rules): rnd.rules, id(rnd.deal): rnd.deal})

    clone_s = deep_s = 0.0
    for _ in range(rounds):
        clone_s += _cpu(rnd.clone, batch * 10)
        deep_s += _cpu(deep, batch)
    clone = clone_s / (rounds * batch * 10)
    deep = deep_s / (rounds * batch)
    return {"clone_us": clone * 1e6, "deepcopy_us": deep * 1e6, "ratio": clone / deep}


def playout_ratio(rounds: int = 10, playouts: int = 20, seed: int = 1) -> dict:
    """Actions/s of random playouts to the round's end: the fast path (a clone, decisions applied as
    values, no log) against the public checked path (a copy of the match; each decision observed,
    its legal information built, sent as text, parsed, checked and logged), and against that path
    without observing (``apply_only``), in the same run."""
    match = mid_round()
    index = match.round.index
    fast_actions = public_actions = apply_actions = 0
    fast_s = public_s = apply_s = 0.0
    for r in range(rounds):
        rng = random.Random(seed + r)
        start = time.process_time()
        for _ in range(playouts):
            world = match.round.clone()
            apply, to_move = world.apply, world.to_move
            seat = to_move()
            while seat is not None:  # engine.search.playout, counting its decisions
                apply(seat, random_decision(world, seat, rng))
                fast_actions += 1
                seat = to_move()
        fast_s += time.process_time() - start
        for seen in (True, False):
            copies = [copy.deepcopy(match) for _ in range(playouts)]  # made outside the clock
            rng = random.Random(seed + r)
            start = time.process_time()
            n = _public(copies, index, rng, seen)
            if seen:
                public_actions, public_s = public_actions + n, public_s + time.process_time() - start
            else:
                apply_actions, apply_s = apply_actions + n, apply_s + time.process_time() - start
    fast = fast_actions / fast_s
    public = public_actions / public_s
    applied = apply_actions / apply_s
    return {"fast": fast, "public": public, "ratio": fast / public, "apply_only": applied,
            "apply_ratio": fast / applied}


def _public(matches: list, index: int, rng, seen: bool) -> int:
    """Random playouts of the round through the match: as text, parsed, checked and logged; with
    ``seen``, each decision is also observed and its legal information built, as the harness does."""
    actions = 0
    for m in matches:
        while not m.is_over and m.round.index == index:
            seat = m.to_move()
            if seen:
                m.observe(seat)
                m.legal(seat)
            m.apply_text(seat, str(random_decision(m.round, seat, rng)))
            actions += 1
    return actions


def determinise_rate(seconds: float = 1.0, seed: int = 2) -> dict:
    """Worlds/s for a mid-round view: from the view each time, and with its knowledge read once."""
    match = mid_round()
    view = match.observe(match.to_move())
    rng = random.Random(seed)
    out = {}
    for name, fn in (("view", lambda: determinise(view, rng)),
                     ("knowledge", lambda k=read_view(view): determinise(view, rng, knowledge=k))):
        n, start = 0, time.process_time()
        while time.process_time() - start < seconds:
            fn()
            n += 1
        out[name] = n / (time.process_time() - start)
    return out
