"""Pure statistics over counts and arrays (numpy and scipy), shared by the analysis commands.

Every function takes plain numbers or arrays and returns plain floats (``nan`` where a figure is
undefined, e.g. a rate over no trials). Nothing here reads results or knows any game.

- ``wilson(k, n)``: a proportion with its Wilson score interval (independent trials).
- ``chi2_uniform(counts, weights)``: the chi-square test that counts follow the weights (equal by default).
- ``cluster_rate(k, n)``: a proportion over correlated trials grouped in independent clusters, with its
  design effect and a Wilson interval on the effective sample size.
- ``cluster_mean(sums, counts, squares)``: a mean over clustered values with its cluster-robust t interval.
- ``rao_scott(counts, weights)``: the chi-square test of ``chi2_uniform`` over clustered counts, with the
  Rao–Scott second-order correction.
- ``mean_ci(x)``, ``t_interval(mean, sd, n)``: a mean with its Student t interval.
- ``paired(a, b)``: the paired difference ``b - a`` with its t interval and two-sided p-value.
- ``tost(diffs, margin)``: the two one-sided tests of equivalence within ``±margin``.
- ``holm(p)``, ``bh(p)``, ``adjust(p, method)``: p-values adjusted for a family of tests.
- ``summary(values, counts)``: mean, sd, median and percentiles of a histogram.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from . import distributions as dist

NAN = float("nan")


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return float(dist.norm_ppf((1 + confidence) / 2))


Z95 = 1.959963984540054  # the two-sided 95% normal quantile, _z(0.95), written out so that importing costs no scipy


def _wilson_bounds(p: float, n: float, z: float) -> tuple[float, float]:
    """The Wilson score bounds of a rate ``p`` over ``n`` trials (``n`` > 0)."""
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / scale
    return max(0.0, centre - half), min(1.0, centre + half)


def wilson(k: float, n: float, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(k/n, lo, hi)``: the rate and its Wilson score interval; all ``nan`` when ``n`` is 0."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return NAN, NAN, NAN
    z = _z(confidence)
    return (k / n, *_wilson_bounds(k / n, n, z))


@dataclass
class Chi2:
    stat: float
    df: int
    p: float

    def to_dict(self) -> dict:
        return asdict(self)


def chi2_uniform(counts, weights=None) -> Chi2:
    """Pearson's chi-square test that ``counts`` are spread in proportion to ``weights``.

    With no weights the expected counts are equal. Cells of weight 0 are left out; ``df`` is the
    number of cells kept minus 1. With no counts at all (or one cell) the p-value is ``nan``.
    """
    observed = np.asarray(counts, dtype=float)
    w = np.ones_like(observed) if weights is None else np.asarray(weights, dtype=float)
    if observed.shape != w.shape:
        raise ValueError("counts and weights differ in length")
    keep = w > 0
    observed, w = observed[keep], w[keep]
    total = observed.sum()
    df = len(observed) - 1
    if total == 0 or df < 1:
        return Chi2(NAN, max(df, 0), NAN)
    expected = total * w / w.sum()
    stat = float(((observed - expected) ** 2 / expected).sum())
    return Chi2(stat, df, float(dist.chi2_sf(stat, df)))


# Clustered data ----------------------------------------------------------------------------------
#
# Rows in one cluster (a duplicate deal set: the same deals under every seat rotation and table) are
# correlated; clusters are independent. A ratio ``sum(y) / sum(n)`` over G clusters gets the
# linearised (sandwich) variance ``G / (G - 1) * sum(((y_g - r n_g) / N) ** 2)``; the design effect
# is that variance over the one the same figure would have from independent rows. It is not
# floored at 1: rotations that move a strong hand or bot round the seats make a cluster's rows
# negatively correlated, and then the figure really is more precise than independent rows
# (tests/test_stats.py checks coverage both ways). Intervals use Student's t on G - 1 degrees of
# freedom, since the variance rests on only G clusters.
#
# No spread, no test: when every cluster gives the same figure the variance over clusters is 0, yet
# with few clusters and discrete rates that is common and is no evidence of precision. Such a figure
# falls back to counting every row as independent (a rate, the uniformity test), or gets no p-value
# (a paired difference, an equivalence test).

NO_SPREAD = 1e-12  # a variance this small relative to its scale is taken as none


def _clusters(y, n, name: str) -> tuple[np.ndarray, np.ndarray]:
    y, n = np.asarray(y, dtype=float), np.asarray(n, dtype=float)
    if y.shape != n.shape or y.ndim != 1:
        raise ValueError(f"{name}: one value and one count per cluster, as two flat arrays of the same length")
    if np.any(n < 0):
        raise ValueError(f"{name}: counts must be 0 or more")
    return y, n


def _ratio_var(y: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    """``(sum(y) / sum(n), its linearised variance over the clusters)``; G >= 2 and sum(n) > 0."""
    total = n.sum()
    r = y.sum() / total
    g = len(y)
    return r, g / (g - 1) * float((((y - r * n) / total) ** 2).sum())


def _t(confidence: float, df: float) -> float:
    _z(confidence)
    return float(dist.t_ppf((1 + confidence) / 2, df))


t_quantile = _t  # the two-sided Student t quantile: t_quantile(0.95, df)


@dataclass
class ClusterRate:
    """A rate over clustered trials: ``k`` successes of ``n`` in ``clusters`` clusters.

    ``deff`` is the design effect (``nan`` when it can't be estimated: a rate of 0 or 1, or one
    cluster); ``n_eff = n / deff`` is the number of independent trials worth as much.
    """

    rate: float
    lo: float
    hi: float
    deff: float
    n_eff: float
    k: float
    n: float
    clusters: int

    def to_dict(self) -> dict:
        return asdict(self)


def cluster_rate(k, n, confidence: float = 0.95) -> ClusterRate:
    """The rate ``sum(k) / sum(n)`` of successes ``k[g]`` over trials ``n[g]`` in each cluster ``g``.

    The interval is Wilson's on the effective sample size ``n / deff``, with the normal quantile
    replaced by Student's t on G - 1 degrees of freedom (the same as Wilson's interval on
    ``n_eff * (z / t)**2`` trials). A rate of 0 or 1 has no spread to measure: ``deff`` is ``nan``
    and the interval is taken on ``n`` (with the t quantile). A design effect of 0 (every cluster
    at the same rate) measures no spread either: ``deff`` is 0 and the interval is likewise taken on
    ``n``. One cluster gives no interval.
    """
    k, n = _clusters(k, n, "cluster_rate")
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("cluster_rate: need 0 <= k <= n in every cluster")
    total, wins, g = float(n.sum()), float(k.sum()), len(k)
    if total == 0:
        return ClusterRate(NAN, NAN, NAN, NAN, NAN, wins, total, g)
    p = wins / total
    if g < 2:
        _z(confidence)
        return ClusterRate(p, NAN, NAN, NAN, NAN, wins, total, g)
    _, var = _ratio_var(k, n)
    binomial = p * (1 - p) / total
    deff = var / binomial if binomial > 0 else NAN
    if deff < NO_SPREAD:
        deff = 0.0
    n_eff = total if math.isnan(deff) or deff == 0 else total / deff
    lo, hi = _wilson_bounds(p, n_eff, _t(confidence, g - 1))
    return ClusterRate(p, lo, hi, deff, n_eff, wins, total, g)


@dataclass
class ClusterMean:
    """A mean over clustered values with its cluster-robust standard error and t interval."""

    mean: float
    lo: float
    hi: float
    se: float
    deff: float
    n: float
    clusters: int

    def to_dict(self) -> dict:
        return asdict(self)


def cluster_mean(sums, counts, squares=None, confidence: float = 0.95, floor: float | None = None) -> ClusterMean:
    """The mean ``sum(sums) / sum(counts)`` of values summed per cluster (``sums[g]`` over ``counts[g]``
    values), with the linearised standard error and Student's t interval on G - 1 degrees of freedom.

    With ``squares`` (each cluster's sum of squared values) ``deff`` compares the variance with that
    of a mean of independent values (the sample variance over all values / n); else it is ``nan``.
    No spread between clusters leaves nothing to measure there: with ``squares`` the standard error
    then counts every value as independent (``deff`` 0), as ``cluster_rate`` does; without them the
    interval has no width. Every value the same (with ``squares``) or one cluster gives no interval. ``floor``: the least value a single value
    can take (0 turns, 1 deal); the mean cannot lie below it, so neither does the interval (Student's
    t on few clusters would reach below it: "-7 turns").
    """
    y, n = _clusters(sums, counts, "cluster_mean")
    total, g = float(n.sum()), len(y)
    if total == 0:
        return ClusterMean(NAN, NAN, NAN, NAN, NAN, total, g)
    mean = float(y.sum() / total)
    if g < 2:
        _z(confidence)
        return ClusterMean(mean, NAN, NAN, NAN, NAN, total, g)
    _, var = _ratio_var(y, n)
    se = math.sqrt(var)
    deff = NAN
    if squares is not None and total > 1:
        sq = np.asarray(squares, dtype=float)
        unit_var = max(0.0, (float(sq.sum()) - total * mean * mean) / (total - 1))
        deff = var / (unit_var / total) if unit_var > 0 else NAN
        if deff < 1e-12:  # no spread between clusters: count every value
            deff, se = 0.0, math.sqrt(unit_var / total)
        if unit_var == 0 and var == 0:  # every value the same: nothing to measure a width by
            return ClusterMean(mean, NAN, NAN, 0.0, NAN, total, g)
    half = _t(confidence, g - 1) * se
    lo = mean - half if floor is None else max(mean - half, floor)
    return ClusterMean(mean, lo, mean + half, se, deff, total, g)


@dataclass
class RaoScott:
    """The chi-square test of ``rao_scott``: ``stat`` on ``df`` (both corrected), ``p``, the mean
    generalised design effect ``deff``, Pearson's uncorrected ``pearson``, and how it was made."""

    stat: float
    df: float
    p: float
    deff: float
    pearson: float
    clusters: int
    method: str

    def to_dict(self) -> dict:
        return asdict(self)


def rao_scott(counts, weights=None) -> RaoScott:
    """The test that clustered counts are spread over cells in proportion to ``weights``.

    ``counts`` is a G × k array: the count in each cell (column) of each cluster (row); the null
    is that each count lands in cell j with probability ``weights[j] / sum(weights)`` (equal by
    default; cells of weight 0 are left out), as in ``chi2_uniform`` on the column sums, whose
    statistic is ``pearson``. Counts in one cluster may be correlated, so Pearson's statistic is
    corrected by Rao and Scott's second-order method: with ``D`` the generalised design-effect
    matrix (the cluster-robust covariance of the cell shares, linearised over clusters with the
    G / (G - 1) factor, times the inverse of their multinomial covariance, k - 1 cells), the
    statistic is ``pearson / (tr D² / tr D)`` on ``df = (tr D)² / tr D²``, and ``deff = tr D / (k - 1)``.
    The p-value takes the F form (``stat / df`` against F(df, df·(G - 1))), which allows for the
    covariance resting on G clusters and tends to the chi-square one as G grows.

    Degenerate cases give a ``nan`` p-value and say why in ``method``: no counts, fewer than two
    cells or fewer than two clusters. When no cluster differs from the others (``tr D`` = 0, so
    ``deff`` = 0) there is no spread to correct by: the test falls back to Pearson's on the counts
    as if each were independent (``stat`` = ``pearson`` on k - 1 df, ``method`` "pearson: no spread
    between clusters").
    """
    x = np.asarray(counts, dtype=float)
    if x.ndim != 2:
        raise ValueError("rao_scott: counts must be a clusters × cells table")
    w = np.ones(x.shape[1]) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (x.shape[1],) or np.any(w < 0) or np.any(x < 0):
        raise ValueError("rao_scott: one weight per cell, weights and counts 0 or more")
    x = x[:, w > 0]
    w = w[w > 0]
    g, cells = x.shape
    total = x.sum()
    pearson = chi2_uniform(x.sum(axis=0), w).stat if cells else NAN

    def none(why: str) -> RaoScott:
        return RaoScott(NAN if g < 2 else pearson, NAN, NAN, NAN, pearson, g, f"none: {why}")

    if cells < 2:
        return none("fewer than 2 cells")
    if total == 0:
        return none("no counts")
    if g < 2:
        return none("fewer than 2 clusters")
    p0 = w / w.sum()
    share = x.sum(axis=0) / total
    z = (x - np.outer(x.sum(axis=1), share)) / total
    cov = g / (g - 1) * (z.T @ z)
    null = (np.diag(p0) - np.outer(p0, p0)) / total
    d = np.linalg.solve(null[:-1, :-1], cov[:-1, :-1])
    s1, s2 = float(np.trace(d)), float(np.trace(d @ d))
    if s1 <= NO_SPREAD * (cells - 1):
        plain = chi2_uniform(x.sum(axis=0), w)
        return RaoScott(plain.stat, float(plain.df), plain.p, 0.0, pearson, g, "pearson: no spread between clusters")
    stat, df = pearson * s1 / s2, s1 * s1 / s2
    p = float(dist.f_sf(stat / df, df, df * (g - 1)))
    return RaoScott(stat, df, p, s1 / (cells - 1), pearson, g, "rao-scott")


def t_interval(mean: float, sd: float, n: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(mean, lo, hi)``: Student's t interval of a mean from its sample sd and size (``nan`` for n < 2)."""
    _z(confidence)
    if n < 1:
        return NAN, NAN, NAN
    if n < 2 or sd is None or math.isnan(sd):
        return mean, NAN, NAN
    half = float(dist.t_ppf((1 + confidence) / 2, n - 1)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def mean_ci(x, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` with Student's t interval; the interval is ``nan`` for fewer than 2 values."""
    x = np.asarray(x, dtype=float)
    if len(x) == 0:
        return t_interval(NAN, NAN, 0, confidence)
    return t_interval(float(x.mean()), float(x.std(ddof=1)) if len(x) > 1 else NAN, len(x), confidence)


@dataclass
class Paired:
    """A paired comparison: ``diff = mean_b - mean_a`` over ``n`` pairs."""

    n: int
    mean_a: float
    mean_b: float
    diff: float
    lo: float
    hi: float
    p: float
    se: float

    def to_dict(self) -> dict:
        return asdict(self)


def paired(a, b, confidence: float = 0.95) -> Paired:
    """The paired t comparison of ``b`` against ``a`` (same length, pair ``i`` is ``(a[i], b[i])``).

    The interval and p-value come from Student's t with ``n - 1`` degrees of freedom on the
    differences. When every difference is the same the spread is 0 and there is nothing to test
    against: the interval is that value, the p-value 1 when it is 0 and ``nan`` otherwise (no
    evidence either way, however many pairs agree). Fewer than 2 pairs give ``nan`` interval and p-value.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("paired samples must be two 1-d arrays of the same length")
    n = len(a)
    if n == 0:
        return Paired(0, NAN, NAN, NAN, NAN, NAN, NAN, NAN)
    d = b - a
    diff = float(d.mean())
    head = (n, float(a.mean()), float(b.mean()), diff)
    if n < 2:
        return Paired(*head, NAN, NAN, NAN, NAN)
    _z(confidence)
    se = float(d.std(ddof=1)) / math.sqrt(n)
    if se == 0 or se < NO_SPREAD * max(1.0, abs(diff)):
        return Paired(*head, diff, diff, 1.0 if diff == 0 else NAN, 0.0)
    half = float(dist.t_ppf((1 + confidence) / 2, n - 1)) * se
    p = float(2 * dist.t_sf(abs(diff) / se, n - 1))
    return Paired(*head, diff - half, diff + half, p, se)


def paired_ratio(ka, na, kb, nb, confidence: float = 0.95) -> Paired:
    """The difference of two ratio estimates on the same clusters: ``rate_b - rate_a`` where
    ``rate_x = sum(kx) / sum(nx)`` (pooled over clusters, the same estimate a rate's own table shows).

    Its variance is the cluster-robust (linearised) one over the paired clusters: cluster g counts
    ``(kb_g - rate_b nb_g) / mean(nb) - (ka_g - rate_a na_g) / mean(na)``, with the G/(G−1) factor,
    and the interval and p-value use Student's t on G−1 degrees of freedom. No spread (every
    cluster's term 0) is handled as in ``paired``. ``se`` is returned for equivalence tests."""
    ka, na, kb, nb = (np.asarray(x, dtype=float) for x in (ka, na, kb, nb))
    g = len(ka)
    if g == 0 or na.sum() <= 0 or nb.sum() <= 0:
        return Paired(g, NAN, NAN, NAN, NAN, NAN, NAN, NAN)
    ra, rb = ka.sum() / na.sum(), kb.sum() / nb.sum()
    diff = float(rb - ra)
    head = (g, float(ra), float(rb), diff)
    if g < 2:
        return Paired(*head, NAN, NAN, NAN, NAN)
    _z(confidence)
    z = (kb - rb * nb) / nb.mean() - (ka - ra * na) / na.mean()
    se = math.sqrt(g / (g - 1) * float((z * z).sum())) / g
    if se == 0 or se < NO_SPREAD * max(1.0, abs(diff)):
        return Paired(*head, diff, diff, 1.0 if diff == 0 else NAN, 0.0)
    half = float(dist.t_ppf((1 + confidence) / 2, g - 1)) * se
    p = float(2 * dist.t_sf(abs(diff) / se, g - 1))
    return Paired(*head, diff - half, diff + half, p, se)


def tost_t(diff: float, se: float, df: float, margin: float) -> float:
    """TOST p-value that a difference with standard error ``se`` (t on ``df``) lies within ±margin;
    ``nan`` without spread."""
    if not margin > 0:
        raise ValueError(f"the equivalence margin must be above 0, got {margin}")
    if not (se > 0 and df >= 1) or math.isnan(diff):
        return NAN
    return max(float(dist.t_sf((diff + margin) / se, df)), float(dist.t_cdf((diff - margin) / se, df)))


def seat_imbalance(wins, played, replicates: int = 1000, seed: int = 0, confidence: float = 0.95) -> dict:
    """How far the positions' win rates lie from each other, as a property of the game.

    ``wins``, ``played``: (clusters, positions) counts. The figure is the root mean square distance of
    each position's win rate from the mean of the positions' rates (a share, 0 = every position wins
    equally often), with the part that chance alone adds taken off: the squared distance minus its
    expected value under sampling noise (from the cluster-robust covariance of the rates), floored at
    0. Without that correction the raw figure shrinks as the sample grows, so runs of different sizes
    could not be compared. ``lo``, ``hi``: a percentile interval from ``replicates`` bootstrap samples
    of whole clusters (deal sets). Returns ``{"value", "raw", "lo", "hi", "replicates"}`` (nan when
    fewer than 2 clusters)."""
    w, n = np.asarray(wins, dtype=float), np.asarray(played, dtype=float)
    if w.ndim != 2 or w.shape != n.shape or w.shape[1] < 2 or w.shape[0] < 2 or (n.sum(axis=0) <= 0).any():
        return {"value": NAN, "raw": NAN, "lo": NAN, "hi": NAN, "replicates": 0}

    def figure(w, n) -> tuple[float, float]:
        total = n.sum(axis=0)
        rate = w.sum(axis=0) / total
        raw = float(((rate - rate.mean()) ** 2).mean())
        g = len(w)
        z = (w - rate * n) / (total / g)  # linearised rates per cluster
        z = z - z.mean(axis=1, keepdims=True)  # distances from the mean position
        noise = g / (g - 1) * float((z * z).sum()) / g ** 2 / w.shape[1]
        return math.sqrt(max(raw - noise, 0.0)), math.sqrt(raw)

    value, raw = figure(w, n)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(replicates):
        pick = rng.integers(len(w), size=len(w))
        if (n[pick].sum(axis=0) > 0).all():
            draws.append(figure(w[pick], n[pick])[0])
    tail = 100 * (1 - confidence) / 2
    lo, hi = np.percentile(draws, [tail, 100 - tail]) if draws else (NAN, NAN)
    return {"value": value, "raw": raw, "lo": float(lo), "hi": float(hi), "replicates": len(draws)}


def tost(diffs, margin: float) -> float:
    """The p-value of the two one-sided tests that the mean of ``diffs`` lies within ``±margin``.

    Equivalence is shown at level α when the result is below α (the same as the ``1 - 2α`` t
    interval lying inside ``(-margin, margin)``). With no spread (every difference the same) or
    fewer than 2 differences there is no test: ``nan``.
    """
    if not margin > 0:
        raise ValueError(f"the equivalence margin must be above 0, got {margin}")
    d = np.asarray(diffs, dtype=float)
    n = len(d)
    if n < 2:
        return NAN
    mean = float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(n)
    if se == 0 or se < NO_SPREAD * max(1.0, abs(mean)):
        return NAN
    above_low = float(dist.t_sf((mean + margin) / se, n - 1))  # H0: mean <= -margin
    below_high = float(dist.t_cdf((mean - margin) / se, n - 1))  # H0: mean >= +margin
    return max(above_low, below_high)


def _check_p(p) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    if p.ndim != 1:
        raise ValueError("p-values must be a flat list")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p-values must lie between 0 and 1")
    return p


def _family(p) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted p-values of the family, their places in ``p``, an all-``nan`` result to fill)."""
    p = _check_p(p)
    idx = np.flatnonzero(~np.isnan(p))
    order = idx[np.argsort(p[idx], kind="stable")]
    return p[order], order, np.full(len(p), NAN)


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error), in the order given; ``nan`` stays out."""
    ranked, order, out = _family(p)
    m = len(ranked)
    if m:
        out[order] = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked))
    return out


def bh(p) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (false discovery rate), in the order given; ``nan`` stays out."""
    ranked, order, out = _family(p)
    m = len(ranked)
    if m:
        scaled = ranked * m / np.arange(1, m + 1)
        out[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return out


CORRECTIONS = {"holm": holm, "bh": bh}


def adjust(p, method: str = "holm") -> np.ndarray:
    """``holm(p)`` or ``bh(p)`` by name."""
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r} (known: {', '.join(CORRECTIONS)})")
    return CORRECTIONS[method](p)


def summary(values, counts, percentiles=(10, 50, 90)) -> dict:
    """Mean, sample sd and percentiles (numpy's linear definition) of the histogram ``values × counts``."""
    v = np.asarray(values, dtype=float)
    c = np.asarray(counts, dtype=np.int64)
    if v.shape != c.shape or np.any(c < 0):
        raise ValueError("values and counts must have the same length, counts 0 or more")
    n = int(c.sum())
    if n == 0:
        return {"n": 0, "mean": NAN, "sd": NAN, **{f"p{q}": NAN for q in percentiles}}
    mean = float((v * c).sum() / n)
    sd = float(math.sqrt(((v - mean) ** 2 * c).sum() / (n - 1))) if n > 1 else NAN
    expanded = np.repeat(v, c)
    return {"n": n, "mean": mean, "sd": sd,
            **{f"p{q}": float(x) for q, x in zip(percentiles, np.percentile(expanded, percentiles))}}


__all__ = ["wilson", "chi2_uniform", "Chi2", "cluster_rate", "ClusterRate", "cluster_mean", "ClusterMean",
           "rao_scott", "RaoScott", "mean_ci", "t_interval", "paired", "Paired", "paired_ratio", "seat_imbalance", "tost",
           "tost_t", "holm", "bh", "adjust",
           "CORRECTIONS", "summary"]
