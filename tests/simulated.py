"""Simulated sequential tests, shared by the SPRT's error-rate checks (tests/test_sprt.py, test_fair_design.py)."""

from __future__ import annotations

import numpy as np

from results.sprt import first_decision, first_decisions

BATCH = 100  # simulated tests drawn and tested at once: a few MB of scores

def decided(rng, make, elo: float, simulations: int, most: int, elo0: float, elo1: float, alpha: float, beta: float,
            first: int = 4096) -> list:
    """(scores, n) of each of ``simulations`` simulated tests: the deal sets drawn by ``make(rng, elo,
    count)`` (independent draws, so one call draws many) and how many the test needs (None:
    undecided after ``most``). The first ``first`` of ``BATCH`` tests are drawn and tested together;
    the rest, up to ``most``, only for a test still undecided there (few are)."""
    head = min(first, most)
    out = []
    for done in range(0, simulations, BATCH):
        count = min(BATCH, simulations - done)
        runs = make(rng, elo, count * head).reshape(count, head)
        for scores, n in zip(runs, first_decisions(runs, elo0, elo1, alpha, beta)):
            if n is None and most > head:
                scores = np.concatenate([scores, make(rng, elo, most - head)])
                n = first_decision(scores, elo0, elo1, alpha, beta)
            out.append((scores, n))
    return out
