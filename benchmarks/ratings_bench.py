"""Timing of the rating fit: 1,000,000 synthetic 4-player matches (results/plackett_luce.py).

The matches are drawn beforehand (untimed) from the exact tie model with 8 bots seated at random
(1,680 seatings) and seat effects: a full Plackett–Luce order, then each pair of neighbouring
places shares a rank with probability ``TIED`` (about 39% of matches hold a tie, as in real
4-player Ellibir runs). ``fit_s`` times what ``ellibir ratings`` does with the arrays: merging
identical (seating, ranks) rows, the Newton fit and the covariance from the Hessian. ``solve_s``
times the fit from the merged rows only. ``fit_cluster_s`` times the fit and the default intervals
of ``ellibir ratings``: the covariance clustered by deal set (``cluster_cov``), with the matches in
deal sets of 4. Each figure is the best of ``repeat`` runs; the default model is the exact one
(``ties="exact"``), ``"davidson"`` gives the Davidson–Luce figures.
"""

from __future__ import annotations

import time

import numpy as np

from results.plackett_luce import aggregate, fit, synthetic_exact
from results.sandwich import cluster_cov

STRENGTHS = np.array([0.6, 0.35, 0.2, 0.0, -0.1, -0.25, -0.35, -0.45])
SEATS = np.array([0.0, 0.05, 0.1, 0.2])
TIED = 0.15


def rating_fit_seconds(n: int = 1_000_000, repeat: int = 3, seed: int = 1, ties: str = "exact") -> dict:
    rng = np.random.default_rng(seed)
    bots, ranks = synthetic_exact(STRENGTHS, SEATS, n, 4, rng, tied=TIED)
    fit(bots[:1000], ranks[:1000], len(STRENGTHS), ties=ties)  # warm up (imports, caches)
    best_fit = best_solve = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fit(bots, ranks, len(STRENGTHS), ties=ties)
        best_fit = min(best_fit, time.perf_counter() - t0)
    clusters = np.arange(n) // 4
    best_cluster = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        cluster_cov(fit(bots, ranks, len(STRENGTHS), ties=ties), clusters)
        best_cluster = min(best_cluster, time.perf_counter() - t0)
    merged = aggregate(bots, ranks)
    for _ in range(repeat):
        t0 = time.perf_counter()
        fit(merged[0], merged[1], len(STRENGTHS), weights=merged[2], merge=False, ties=ties)
        best_solve = min(best_solve, time.perf_counter() - t0)
    error = float(np.abs(result.theta - (STRENGTHS - STRENGTHS.mean())).max())
    return {"fit_s": best_fit, "fit_cluster_s": best_cluster, "solve_s": best_solve, "matches": n, "rows": int(result.rows),
            "iterations": result.iterations, "max_abs_error": error, "ties": ties,
            "tied_matches": float(np.mean((np.sort(ranks, axis=1)[:, 1:] == np.sort(ranks, axis=1)[:, :-1]).any(1)))}


if __name__ == "__main__":
    print(rating_fit_seconds())
    print(rating_fit_seconds(ties="davidson"))
