"""Simulated sequential tests, shared by the SPRT's error-rate checks (tests/test_sprt.py, test_fair_design.py)."""

from __future__ import annotations

import numpy as np

from results.sprt import first_decision


def decided_at(rng, make, elo: float, most: int, elo0: float, elo1: float, alpha: float, beta: float,
               first: int = 4096):
    """(scores, n): the first deal sets of one simulated test, drawn by ``make(rng, elo, count)``, and
    how many the test needs (None: undecided after ``most``). The first ``first`` are drawn; the rest,
    up to ``most``, only for a test still undecided there (few are)."""
    scores = make(rng, elo, min(first, most))
    n = first_decision(scores, elo0, elo1, alpha, beta)
    if n is None and most > first:
        scores = np.concatenate([scores, make(rng, elo, most - first)])
        n = first_decision(scores, elo0, elo1, alpha, beta)
    return scores, n
