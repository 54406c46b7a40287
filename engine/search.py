"""Search for both games through one small interface: worlds sampled from a seat's view, cloned and
played on fast.

A world is a full state of the round (or game) in progress: Ellibir's ``Round``, Einundfünfzig's
``Game``. Every world has ``clone(log=False)``, ``to_move()`` (None when it is over),
``apply(seat, decision)`` (a trusted decision value; returns the refusal, or None when applied),
and, once over, ``utility(seat)`` (higher is better: minus the round score in Ellibir, -1 for the
loser in Einundfünfzig). Worlds made here write no event log: they are for simulation only.

- ``determinise(view, rng, weight=None)``: a world consistent with everything the view's seat knows.
- ``simple_decisions(view, legal)``: a short list of plain legal decisions (draws without melds and
  single discards in Ellibir; every card and value in Einundfünfzig), the candidates of a flat search.
- ``playout(world, rng)``: plays the world to its end with random plain decisions (``random_decision``).
"""

from __future__ import annotations

from . import determinise as _ellibir
from . import einundfuenfzig as _e51
from .decisions import STOCK, Draw, Turn

MAX_STEPS = 10_000  # a playout longer than this is a bug, not a long game


def game_of(view) -> str:
    return getattr(view.rules, "game", "ellibir")


def determinise(view, rng, weight=None, tries: int = 20):
    """A world consistent with what ``view``'s seat knows (see engine/determinise.py), drawn with ``rng``."""
    if game_of(view) == _e51.GAME:
        return _e51.determinise(view, rng, weight, tries)
    return _ellibir.determinise(view, rng, weight, tries)


def simple_decisions(view, legal: dict) -> list:
    """Plain legal decisions for the seat to move: the candidates of a flat search."""
    if game_of(view) == _e51.GAME:
        starts = _e51.SEVEN_VALUES if legal.get("start_choice") else (None,)
        return [_e51.Play(c, v if _e51.is_seven(c) else None, s)
                for c in legal["cards"] for v in _e51.values_of(c) for s in starts]
    if legal["phase"] == "draw":
        return [STOCK] + ([Draw("cut")] if legal["draw"].get("cut") else [])
    marked = list(view.marked)
    taken = list(legal.get("must_keep", ()))
    for c in marked:
        taken.remove(c)
    hand = view.hand
    return [Turn((), c) for c in range(len(hand)) if hand[c] > marked.count(c) and c not in taken]


def playout(world, rng, steps: int = MAX_STEPS):
    """Play ``world`` to its end with random plain decisions; returns it."""
    for _ in range(steps):
        seat = world.to_move()
        if seat is None:
            return world
        world.apply(seat, random_decision(world, seat, rng))
    raise RuntimeError(f"a playout did not end within {steps} decisions")


def random_decision(world, seat: int, rng):
    """A random plain decision for ``seat`` in ``world`` (the playout policy)."""
    if isinstance(world, _e51.Game):
        return _random_e51(world, seat, rng)
    return _random_ellibir(world, seat, rng)


def _random_ellibir(rnd, seat: int, rng):
    if rnd.phase == "draw":
        return STOCK
    hand = rnd.hands[seat]
    marked = rnd.marked[seat]
    for _ in range(64):
        c = rng.randrange(53)
        if hand[c] and c != rnd.taken and (not marked or hand[c] > marked.count(c)):
            return Turn((), c)
    cards = [c for c in range(53) if hand[c] and c != rnd.taken and hand[c] > marked.count(c)]
    return Turn((), rng.choice(cards or [c for c in range(53) if hand[c]]))


def _random_e51(g, seat: int, rng):
    c = rng.choice(g.hands[seat])
    value = rng.choice(_e51.SEVEN_VALUES) if _e51.is_seven(c) else None
    start = rng.choice(_e51.SEVEN_VALUES) if g.start_pending else None
    return _e51.Play(c, value, start)


__all__ = ["MAX_STEPS", "determinise", "game_of", "playout", "random_decision", "simple_decisions"]
