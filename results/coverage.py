"""The coverage study of rating intervals: do the 95% intervals hold when bots mirror each other?

Under duplicate deals two bots of equal or nearly equal play often split a deal set evenly: the
deal decides, and each bot wins from the seat the deal favours. Such a deal set says nothing
about which bot is stronger. The study draws runs of two bots, 2 players, each deal set played
under both seat rotations, in which a share ``mirrored`` of the deal sets split evenly and the
others are played out by the rating model (bot 0 ``elo`` stronger there, the second seat
``seat_elo`` better), and counts how often the 95% interval of the rating difference holds the
value the fit aims at (``target``: the difference a fit of infinitely many such deal sets gives).

A second design has no mirroring but the opposite trouble: four players, two exchangeable bots
against two copies of a third, with deals that suit a bot in every seat (``copies_deal_sets``);
the matches of a deal set then move together.

``study`` runs every cell; tests/test_coverage.py runs a small seeded version, ``make bench`` the
full one (benchmarks/coverage_study.py), and docs/analysis.md holds its table.
"""

from __future__ import annotations

import math

import numpy as np

from .plackett_luce import ELO
from .ratings import fit_ratings
from .sandwich import PRIOR_DEAL_SETS

DEAL_SETS = (10, 20, 50)
MIRRORED = (0.0, 0.5, 0.8, 0.9, 0.95)
ELOS = (0.0, 50.0, 100.0, 200.0)  # bot 0's edge in the deal sets that do not split
SEAT_ELO = 30.0


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def mirrored_deal_sets(rng, deal_sets: int, mirrored: float, elo: float, seat_elo: float = SEAT_ELO):
    """(bots, ranks, clusters) of a 2-player run: each deal set two matches (bot 0 at seat 0, then at
    seat 1); with probability ``mirrored`` the deal favours one seat and its occupant wins both
    matches (the bots split the deal set), else each match is drawn from the model."""
    d, gamma = elo / ELO, seat_elo / ELO
    split = rng.random(deal_sets) < mirrored
    favoured = rng.integers(2, size=deal_sets)
    bots = np.tile(np.array([[0, 1], [1, 0]]), (deal_sets, 1))
    bot0_at_seat0 = np.tile([True, False], deal_sets)
    p_seat0 = _sigmoid(np.where(bot0_at_seat0, d, -d) - gamma)  # seat 1 has utility gamma
    seat0_wins = rng.random(2 * deal_sets) < p_seat0
    seat0_wins = np.where(np.repeat(split, 2), np.repeat(favoured == 0, 2), seat0_wins)
    ranks = np.where(seat0_wins[:, None], [1, 2], [2, 1])
    return bots, ranks, np.repeat(np.arange(deal_sets), 2)


def target(mirrored: float, elo: float, seat_elo: float = SEAT_ELO) -> float:
    """The rating difference (Elo) a fit of infinitely many deal sets of ``mirrored_deal_sets`` gives:
    the model with two parameters reproduces both seatings' win rates exactly."""
    d, gamma = elo / ELO, seat_elo / ELO
    first = mirrored / 2 + (1 - mirrored) * _sigmoid(d - gamma)  # bot 0 at seat 0
    second = mirrored / 2 + (1 - mirrored) * _sigmoid(d + gamma)  # bot 0 at seat 1
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    return ELO * (logit(first) + logit(second)) / 2


def copies_deal_sets(rng, deal_sets: int, luck: float = 0.5, suits: float = 0.6):
    """(bots, ranks, clusters) of a 4-player run: bots 0 and 1 (exchangeable, their difference 0)
    against two copies of bot 2, every cyclic seat rotation of one deal per deal set. A seat's
    utility: its bot's strength, the seat effect, the deal's luck for the seat (sd ``luck``), the
    deal's suit for the bot (sd ``suits``: a deal that suits a bot suits it in every seat), Gumbel
    noise; the finishing order is by utility."""
    strengths, seats, table = np.array([0.0, 0.0, 0.3]), np.array([0.0, 0.1, 0.2, 0.3]), [0, 1, 2, 2]
    bots, ranks = [], []
    for _ in range(deal_sets):
        seat_luck, suit = rng.normal(0, luck, 4), rng.normal(0, suits, 3)
        order = list(table)
        if rng.random() < 0.5:
            order[0], order[1] = order[1], order[0]
        for r in range(4):
            seated = np.array([order[(i - r) % 4] for i in range(4)])
            u = strengths[seated] + seats + seat_luck + suit[seated] + rng.gumbel(size=4)
            rank = np.empty(4, dtype=np.int64)
            rank[np.argsort(-u)] = np.arange(1, 5)
            bots.append(seated)
            ranks.append(rank)
    return np.array(bots), np.array(ranks), np.repeat(np.arange(deal_sets), 4)


def _holds(bots, ranks, clusters, n_bots: int, truth: float, prior: float) -> tuple[bool, float]:
    """(the 95% interval of bot 0 minus bot 1 holds ``truth``, its width in Elo)."""
    r = fit_ratings(bots, ranks, n_bots, clusters=clusters, prior_deal_sets=prior)
    cov = r["cov"]
    se = math.sqrt(max(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], 0.0))
    diff = r["rating"][0] - r["rating"][1]
    return abs(diff - truth) <= r["q"] * se, 2 * r["q"] * se


def cell(deal_sets: int, mirrored: float, elo: float, simulations: int, seed: int,
         prior: float = PRIOR_DEAL_SETS) -> dict:
    """One cell of the 2-player study: coverage, the share of intervals of no width, the median width."""
    rng = np.random.default_rng([seed, deal_sets, int(1000 * mirrored), int(elo)])
    truth = target(mirrored, elo)
    hits, widths = 0, []
    for _ in range(simulations):
        held, width = _holds(*mirrored_deal_sets(rng, deal_sets, mirrored, elo), 2, truth, prior)
        hits += held
        widths.append(width)
    widths = np.array(widths)
    return {"design": "2 players", "deal_sets": deal_sets, "mirrored": mirrored, "elo": elo, "target": truth,
            "simulations": simulations, "coverage": hits / simulations, "zero_width": float(np.mean(widths <= 1e-9)),
            "median_width": float(np.median(widths))}


def copies_cell(deal_sets: int, simulations: int, seed: int, prior: float = PRIOR_DEAL_SETS) -> dict:
    """One cell of the 4-player design with copies (no mirroring; deals that suit a bot)."""
    rng = np.random.default_rng([seed, deal_sets, 4])
    hits, widths = 0, []
    for _ in range(simulations):
        held, width = _holds(*copies_deal_sets(rng, deal_sets), 3, 0.0, prior)
        hits += held
        widths.append(width)
    return {"design": "4 players, copies", "deal_sets": deal_sets, "mirrored": 0.0, "elo": 0.0, "target": 0.0,
            "simulations": simulations, "coverage": hits / simulations,
            "zero_width": float(np.mean(np.array(widths) <= 1e-9)), "median_width": float(np.median(widths))}


def study(simulations: int = 1000, seed: int = 1, deal_sets=DEAL_SETS, mirrored=MIRRORED, elos=ELOS,
          prior: float = PRIOR_DEAL_SETS, copies: bool = True) -> list[dict]:
    """Every cell: the 2-player grid (deal sets × share mirrored × edge), then the 4-player design."""
    rows = [cell(g, m, e, simulations, seed, prior) for e in elos for g in deal_sets for m in mirrored]
    if copies:
        rows += [copies_cell(g, simulations, seed, prior) for g in deal_sets]
    return rows


__all__ = ["DEAL_SETS", "ELOS", "MIRRORED", "cell", "copies_cell", "copies_deal_sets", "mirrored_deal_sets", "study",
           "target"]
