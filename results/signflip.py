"""The sign-flip (randomisation) test of paired differences, and the interval that inverts it.

Pair ``i`` gives ``d[i] = b[i] - a[i]`` (one deal set played under two variants). When the two
variants are alike, each pair's two values could have come in either order, so every pattern of
signs on the differences is as likely as the one observed: the p-value is the share of sign
patterns whose statistic is at least as large as the observed one. That holds whatever the
distribution of the differences (heavy tails, skew, a few deal sets far from the rest), so the
test rejects a true "alike" in at most ``1 - confidence`` of cases, on any data. The statistic is
the paired t (``mean / (sd / sqrt(n))``), which keeps the test right for a difference of means
when the pairs are not symmetric, as Student's t is in large samples.

With ``n`` pairs there are ``2**n`` patterns: all are used when ``2**n <= EXACT`` (the exact
test), else the observed one and ``FLIPS`` drawn at random (seeded: the same data give the same
answer), which keeps the test valid (the p-value counts the observed pattern among them).

The interval holds the differences ``delta`` the test does not reject when it is run on
``d - delta``: every value it leaves out is one the data reject, so the interval and the p-value
always agree. Its bounds are found by bisection. With 5 pairs or fewer no pattern is rare enough
to reject at 95% (2 of 32 patterns give the largest statistic), so the interval is unbounded
(``nan``).
"""

from __future__ import annotations

import math

import numpy as np

EXACT = 1 << 12  # every sign pattern when there are at most this many
FLIPS = 4_999  # random patterns otherwise, besides the observed one
SEED = 0
STEPS = 14  # bisection steps for each bound: to a 4,000th of the standard error


def signs(n: int, flips: int = FLIPS, seed: int = SEED) -> np.ndarray:
    """The sign patterns, one a row, the observed (all +1) first."""
    if (1 << n) <= EXACT:
        rows = (np.arange(1 << n)[:, None] >> np.arange(n)) & 1
        return 1.0 - 2.0 * rows  # row 0 is all +1
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, 2, size=(flips, n)) * 2.0 - 1.0
    return np.vstack([np.ones((1, n)), drawn])


def _t(x: np.ndarray) -> np.ndarray:
    """The paired t of each row of ``x`` (rows of differences); 0 where a row has no spread."""
    n = x.shape[-1]
    sd = x.std(axis=-1, ddof=1)
    mean = x.mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n))
    return np.where(sd > 0, t, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))


def p_value(d: np.ndarray, patterns: np.ndarray) -> float:
    """The two-sided p-value of "the mean difference is 0" by sign flips of ``d`` (``patterns`` from ``signs``)."""
    stats = np.abs(_t(patterns * d))
    observed = stats[0]
    return float(np.mean(stats >= observed * (1 - 1e-12)))


def test(d, confidence: float = 0.95, flips: int = FLIPS, seed: int = SEED) -> tuple[float, float, float]:
    """(p, lo, hi) for the mean of the differences ``d``: the sign-flip p-value and the interval of the
    differences the test does not reject at ``1 - confidence``. ``nan`` bounds when none can be rejected."""
    d = np.asarray(d, dtype=float)
    n = len(d)
    patterns = signs(n, flips, seed)
    alpha = 1 - confidence
    p = p_value(d, patterns)
    smallest = 2 / len(patterns) if (1 << n) <= EXACT else 1 / len(patterns)  # no pattern can do better
    if smallest > alpha:
        return p, math.nan, math.nan
    mean, se = float(d.mean()), float(d.std(ddof=1)) / math.sqrt(n)
    return p, _bound(d, patterns, alpha, mean, -se), _bound(d, patterns, alpha, mean, se)


def _bound(d, patterns, alpha: float, mean: float, step: float) -> float:
    """The last ``delta`` from ``mean`` towards ``mean + k * step`` (k growing) that the test keeps."""
    inside, outside, width = mean, mean + 4 * step, 4 * step
    while p_value(d - outside, patterns) > alpha:  # far enough out to be rejected
        if abs(width) > 1e6 * abs(step):
            return math.nan
        width *= 2
        inside, outside = outside, outside + width
    for _ in range(STEPS):
        middle = (inside + outside) / 2
        if p_value(d - middle, patterns) > alpha:
            inside = middle
        else:
            outside = middle
    return (inside + outside) / 2


__all__ = ["EXACT", "FLIPS", "p_value", "signs", "test"]
