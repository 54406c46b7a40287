"""Timing of the meld search: ``best_opening`` on random 15-card hands from the 106-card deck."""

from __future__ import annotations

import random
import time

from engine.cards import counts_of, full_deck
from engine import solver
from engine.solver import best_opening


def solver_times(n: int = 2000, seed: int = 1) -> dict:
    """Time ``best_opening`` on ``n`` random 15-card hands; returns median and p99 in ms."""
    rng = random.Random(seed)
    deck = full_deck()
    hands = [counts_of(rng.sample(deck, 15)) for _ in range(n)]
    times = []
    clock = time.perf_counter
    for counts in hands:
        solver.clear_caches()  # time the search itself, never a remembered answer
        t0 = clock()
        best_opening(counts)
        times.append(clock() - t0)
    times.sort()
    median = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
    p99 = times[min(n - 1, int(0.99 * n))]
    return {"median_ms": median * 1000, "p99_ms": p99 * 1000, "hands": n}


if __name__ == "__main__":
    print(solver_times())
