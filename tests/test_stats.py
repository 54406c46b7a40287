"""results/stats.py against known values, scipy, and formulas written out another way."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from results.stats import (adjust, bh, chi2_uniform, cluster_mean, cluster_rate, holm, mean_ci, paired, paired_ratio,
                           rao_scott, seat_imbalance, summary, t_interval, tost, tost_t, wilson)

Z95 = 1.959963984540054


def wilson_by_quadratic(k, n, z=Z95):
    """The Wilson bounds as the roots of (p̂ - p)² = z² p (1 - p) / n."""
    ph = k / n
    a = 1 + z * z / n
    b = -(2 * ph + z * z / n)
    c = ph * ph
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (5, 10), (10, 10), (81, 263), (3, 1000), (500, 1000)])
def test_wilson_bounds_are_the_roots_of_the_score_equation(k, n):
    rate, lo, hi = wilson(k, n)
    qlo, qhi = wilson_by_quadratic(k, n)
    assert rate == k / n
    assert lo == pytest.approx(max(qlo, 0), abs=1e-12) and hi == pytest.approx(min(qhi, 1), abs=1e-12)


def test_wilson_known_values():
    # 0 of 10: the upper bound is z²/(n + z²).
    assert wilson(0, 10)[2] == pytest.approx(Z95**2 / (10 + Z95**2), rel=1e-12)
    # 81 of 263 (a textbook case): 0.2553 to 0.3662.
    _, lo, hi = wilson(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    # A wider confidence gives a wider interval.
    assert wilson(30, 100, 0.99)[1] < wilson(30, 100, 0.95)[1]


def test_wilson_edges():
    assert all(math.isnan(x) for x in wilson(0, 0))
    with pytest.raises(ValueError):
        wilson(3, 2)
    with pytest.raises(ValueError):
        wilson(1, 2, confidence=1.5)


def test_chi2_equal_expected_matches_scipy():
    counts = [30, 22, 25, 41]
    got = chi2_uniform(counts)
    ref = sps.chisquare(counts)
    assert got.stat == pytest.approx(ref.statistic) and got.p == pytest.approx(ref.pvalue) and got.df == 3


def test_chi2_weighted_matches_scipy_and_drops_empty_cells():
    counts, weights = [10, 20, 30, 0], [1, 2, 4, 0]
    got = chi2_uniform(counts, weights)
    expected = np.array([1, 2, 4]) / 7 * 60
    ref = sps.chisquare([10, 20, 30], expected)
    assert got.df == 2 and got.stat == pytest.approx(ref.statistic) and got.p == pytest.approx(ref.pvalue)


def test_chi2_by_hand():
    # 16, 8, 8, 4 against 9 each: (49 + 1 + 1 + 25) / 9.
    got = chi2_uniform([16, 8, 8, 4])
    assert got.stat == pytest.approx(76 / 9) and got.p == pytest.approx(sps.chi2.sf(76 / 9, 3))
    assert math.isnan(chi2_uniform([0, 0, 0]).p)


def test_chi2_rejects_a_planted_position_advantage_and_holds_its_level_under_the_null():
    """1000 simulated tables of 4 positions: rejection rate at α = 0.05 within 3 binomial SE under
    uniform wins; a first-position rate of 31% against 23% each is found almost always."""
    rng = np.random.default_rng(20240601)
    sims, rounds, alpha = 1000, 4000, 0.05
    null = [chi2_uniform(rng.multinomial(rounds, [0.25] * 4)).p < alpha for _ in range(sims)]
    se = math.sqrt(alpha * (1 - alpha) / sims)
    assert abs(np.mean(null) - alpha) <= 3 * se
    planted = [chi2_uniform(rng.multinomial(rounds, [0.31, 0.23, 0.23, 0.23])).p < alpha for _ in range(200)]
    assert np.mean(planted) >= 0.95


def test_t_interval_matches_scipy():
    x = np.array([3.1, 4.5, 2.2, 5.0, 4.4, 3.9])
    m, lo, hi = mean_ci(x, 0.9)
    ref = sps.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
    assert m == pytest.approx(x.mean()) and (lo, hi) == pytest.approx(ref)
    assert t_interval(2.0, 1.0, 4) == pytest.approx((2.0, 2 - 3.182446305 / 2, 2 + 3.182446305 / 2))
    assert math.isnan(mean_ci([1.0])[1]) and math.isnan(mean_ci([])[0])


def test_paired_matches_scipy_ttest_rel():
    rng = np.random.default_rng(7)
    a = rng.normal(10, 2, 25)
    b = a + rng.normal(0.8, 1, 25)
    got = paired(a, b)
    ref = sps.ttest_rel(b, a)
    ci = ref.confidence_interval(0.95)
    assert got.n == 25 and got.diff == pytest.approx((b - a).mean())
    assert got.p == pytest.approx(ref.pvalue) and (got.lo, got.hi) == pytest.approx((ci.low, ci.high))
    assert got.mean_a == pytest.approx(a.mean()) and got.mean_b == pytest.approx(b.mean())


def test_paired_without_spread_claims_nothing():
    """The same difference in every pair is no evidence of a difference: no p-value, however many pairs."""
    same = paired([1, 2, 3], [1, 2, 3])
    assert (same.diff, same.lo, same.hi, same.p) == (0, 0, 0, 1.0)
    shifted = paired([1, 2, 3], [6, 7, 8])
    assert (shifted.diff, shifted.lo, shifted.hi, shifted.se) == (5, 5, 5, 0) and math.isnan(shifted.p)
    rates = paired([0.5, 0.25, 0.75] * 10, [0.6, 0.35, 0.85] * 10)  # rounding leaves a tiny spread
    assert rates.diff == pytest.approx(0.1) and math.isnan(rates.p)
    nudged = paired([1, 2, 3], [6, 7, 8.5])  # any real spread is tested
    assert nudged.p == pytest.approx(sps.ttest_rel([6, 7, 8.5], [1, 2, 3]).pvalue)
    one = paired([1], [2])
    assert one.diff == 1 and math.isnan(one.p)
    with pytest.raises(ValueError):
        paired([1, 2], [1])


def test_tost_is_the_larger_of_two_one_sided_t_tests():
    rng = np.random.default_rng(11)
    d = rng.normal(0.01, 0.05, 40)
    margin = 0.03
    lower = sps.ttest_1samp(d, -margin, alternative="greater").pvalue
    upper = sps.ttest_1samp(d, margin, alternative="less").pvalue
    assert tost(d, margin) == pytest.approx(max(lower, upper))


def test_tost_agrees_with_the_90_percent_interval():
    rng = np.random.default_rng(12)
    for _ in range(50):
        d = rng.normal(rng.uniform(-0.05, 0.05), 0.05, 30)
        _, lo, hi = mean_ci(d, 0.90)
        for margin in (0.02, 0.04, 0.08):
            assert (tost(d, margin) < 0.05) == (-margin < lo and hi < margin)


def test_tost_edges():
    for no_spread in ([0.0, 0.0, 0.0], [0.05] * 8, [0.2, 0.2]):  # no spread: no test, inside the margin or not
        assert math.isnan(tost(no_spread, 0.1))
    assert math.isnan(tost([0.0], 0.1))
    assert tost([0.04, 0.06], 0.1) == pytest.approx(sps.ttest_1samp([0.04, 0.06], 0.1, alternative="less").pvalue)
    with pytest.raises(ValueError):
        tost([0.1, 0.2], 0)


def test_holm_known_values():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 -> running max 0.06
    assert holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_holm_keeps_the_family_wise_error():
    rng = np.random.default_rng(3)
    sims, alpha = 2000, 0.05
    any_rejected = [np.any(holm(rng.uniform(size=10)) < alpha) for _ in range(sims)]
    assert np.mean(any_rejected) <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / sims)


def test_bh_matches_scipy_and_known_values():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted: 0.005·4/1 = 0.02, 0.01·4/2 = 0.02, 0.03·4/3 = 0.04, 0.04·4/4 = 0.04
    assert bh(p) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    rng = np.random.default_rng(5)
    q = rng.uniform(size=50) ** 3
    assert bh(q) == pytest.approx(sps.false_discovery_control(q, method="bh"))


def test_adjust_leaves_missing_values_out_of_the_family():
    got = adjust([0.01, float("nan"), 0.02], "holm")
    assert got[0] == pytest.approx(0.02) and math.isnan(got[1]) and got[2] == pytest.approx(0.02)
    assert np.all(np.isnan(adjust([float("nan")], "bh")))
    with pytest.raises(ValueError):
        adjust([0.1], "bonferroni")
    with pytest.raises(ValueError):
        holm([1.5])


def test_summary_of_a_histogram_is_that_of_the_values():
    values, counts = [11, 16, 20, 31], [3, 1, 5, 2]
    flat = np.repeat(values, counts)
    s = summary(values, counts)
    assert s["n"] == 11 and s["mean"] == pytest.approx(flat.mean()) and s["sd"] == pytest.approx(flat.std(ddof=1))
    assert [s["p10"], s["p50"], s["p90"]] == pytest.approx(list(np.percentile(flat, [10, 50, 90])))
    assert math.isnan(summary([], [])["mean"])


# Clustered data: known answers -------------------------------------------------------------------


def test_cluster_rate_by_hand():
    # p = 9/30; residuals k - p n = 0, 2, -2; variance 3/2 · 8/30² = 0.01333; binomial 0.21/30.
    r = cluster_rate([3, 5, 1], [10, 10, 10])
    assert (r.rate, r.k, r.n, r.clusters) == (0.3, 9, 30, 3)
    assert r.deff == pytest.approx((1.5 * 8 / 900) / (0.21 / 30))
    assert r.n_eff == pytest.approx(30 / r.deff)
    t = sps.t.ppf(0.975, 2)
    lo, hi = wilson_by_quadratic(0.3 * r.n_eff, r.n_eff, z=t)  # Wilson on n / deff with t on G - 1 df
    assert (r.lo, r.hi) == pytest.approx((lo, hi), abs=1e-12)


def test_cluster_rate_of_single_trials_is_binomial_up_to_the_small_sample_factor():
    """One trial per cluster: independent trials, so the design effect is G / (G - 1) exactly."""
    k = np.array([1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0])
    r = cluster_rate(k, np.ones_like(k))
    assert r.deff == pytest.approx(12 / 11) and r.rate == pytest.approx(5 / 12)


def test_cluster_rate_is_unchanged_by_copying_every_trial_in_its_cluster():
    """Replaying each cluster's trials m times (a deal that decides the outcome) adds no evidence:
    the design effect grows m-fold and the interval stays the same."""
    k, n = np.array([3, 0, 2, 4, 1]), np.array([5, 4, 5, 6, 5])
    one, many = cluster_rate(k, n), cluster_rate(8 * k, 8 * n)
    assert many.deff == pytest.approx(8 * one.deff) and (many.lo, many.hi) == pytest.approx((one.lo, one.hi))


def test_cluster_rate_edges():
    zero = cluster_rate([0, 0, 0], [4, 5, 6])  # no spread to measure: the interval is taken on n
    assert zero.rate == 0 and math.isnan(zero.deff) and zero.lo == 0
    assert zero.hi == pytest.approx(wilson_by_quadratic(0, 15, z=sps.t.ppf(0.975, 2))[1])
    same = cluster_rate([2, 2, 2], [4, 4, 4])  # every cluster at the same rate: counts every row, as above
    assert same.deff == 0 and same.n_eff == 12
    assert (same.lo, same.hi) == pytest.approx(wilson_by_quadratic(6, 12, z=sps.t.ppf(0.975, 2)))
    assert same.lo < 0.3 and same.hi > 0.7  # not "50.0% – 50.0%" from 3 clusters
    thirds = cluster_rate([1, 2, 3], [3, 6, 9])  # the same rate, with rounding in the variance
    assert thirds.deff == 0
    assert (thirds.lo, thirds.hi) == pytest.approx(wilson_by_quadratic(6, 18, z=sps.t.ppf(0.975, 2)))
    one = cluster_rate([3], [10])
    assert one.rate == 0.3 and math.isnan(one.lo) and one.clusters == 1
    assert math.isnan(cluster_rate([0, 0], [0, 0]).rate) and cluster_rate([], []).clusters == 0
    with pytest.raises(ValueError):
        cluster_rate([3, 1], [2, 1])
    with pytest.raises(ValueError):
        cluster_rate([1, 1], [2])


def test_cluster_mean_with_one_value_per_cluster_is_the_t_interval():
    x = np.array([3.1, 4.5, 2.2, 5.0, 4.4, 3.9])
    m = cluster_mean(x, np.ones_like(x), x**2)
    assert (m.mean, m.lo, m.hi) == pytest.approx(mean_ci(x))
    assert m.se == pytest.approx(sps.sem(x)) and m.deff == pytest.approx(1.0)


def test_cluster_mean_design_effect_of_identical_values_in_a_cluster():
    """G clusters of m equal values: deff = (G m - 1) / (G - 1)."""
    x, m = np.array([1.0, 4.0, 2.0, 7.0]), 5
    got = cluster_mean(m * x, np.full(4, m), m * x**2)
    assert got.deff == pytest.approx((4 * m - 1) / 3)
    assert (got.lo, got.hi) == pytest.approx(mean_ci(x)[1:])
    flat = cluster_mean([10.0, 10.0], [5, 5])
    assert (flat.lo, flat.hi) == (2.0, 2.0) and math.isnan(flat.deff)
    # equal cluster means, spread inside the clusters: the values are counted as independent
    inside = np.array([[1.0, 3.0], [0.0, 4.0], [2.0, 2.0]])
    same = cluster_mean(inside.sum(axis=1), np.full(3, 2), (inside**2).sum(axis=1))
    half = sps.t.ppf(0.975, 2) * inside.std(ddof=1) / math.sqrt(6)
    assert same.deff == 0 and (same.lo, same.hi) == pytest.approx((2 - half, 2 + half))
    assert math.isnan(cluster_mean([3.0], [2]).lo) and math.isnan(cluster_mean([], []).mean)


def test_rao_scott_with_two_cells_is_the_squared_cluster_robust_z():
    x = np.array([[5, 3], [2, 6], [7, 1], [4, 4], [3, 5]], dtype=float)
    got = rao_scott(x)
    share, total = x[:, 0].sum() / x.sum(), x.sum()
    var = 5 / 4 * (((x[:, 0] - share * x.sum(axis=1)) / total) ** 2).sum()
    assert got.df == pytest.approx(1) and got.stat == pytest.approx((share - 0.5) ** 2 / var)
    assert got.pearson == pytest.approx(sps.chisquare(x.sum(axis=0)).statistic)
    assert got.deff == pytest.approx(var / (0.25 / total))
    assert got.p == pytest.approx(sps.f.sf(got.stat, 1, 4)) and got.method == "rao-scott"


def test_rao_scott_matches_the_design_effect_eigenvalues_whichever_cell_is_dropped():
    rng = np.random.default_rng(4)
    x = rng.poisson([6, 4, 5, 3], size=(9, 4)).astype(float)
    w = np.array([1.0, 1.0, 2.0, 1.0])
    got = rao_scott(x, w)
    total, p0 = x.sum(), w / w.sum()
    share = x.sum(axis=0) / total
    z = (x - np.outer(x.sum(axis=1), share)) / total
    cov = 9 / 8 * z.T @ z
    null = (np.diag(p0) - np.outer(p0, p0)) / total
    lam = np.linalg.eigvals(np.linalg.inv(null[1:, 1:]) @ cov[1:, 1:]).real  # drop the first cell this time
    assert got.deff == pytest.approx(lam.mean())
    assert got.df == pytest.approx(lam.sum() ** 2 / (lam**2).sum())
    assert got.stat == pytest.approx(got.pearson * lam.sum() / (lam**2).sum())
    assert got.pearson == pytest.approx(chi2_uniform(x.sum(axis=0), w).stat)


def test_rao_scott_is_unchanged_by_copying_every_count_in_its_cluster():
    x = np.array([[3, 1, 0, 2], [0, 2, 2, 1], [1, 1, 1, 1], [4, 0, 1, 0], [2, 2, 0, 1]], dtype=float)
    one, many = rao_scott(x), rao_scott(12 * x)
    assert many.pearson == pytest.approx(12 * one.pearson) and many.deff == pytest.approx(12 * one.deff)
    assert (many.stat, many.df, many.p) == pytest.approx((one.stat, one.df, one.p))


def test_rao_scott_degenerate_cases_say_so():
    one = rao_scott([[5, 3, 2, 6]])
    assert math.isnan(one.p) and one.method == "none: fewer than 2 clusters" and one.clusters == 1
    assert rao_scott([[0, 0], [0, 0]]).method == "none: no counts"
    assert rao_scott([[3], [4]]).method == "none: fewer than 2 cells"
    assert rao_scott([[1, 2, 3], [4, 5, 6]], [0, 0, 1]).method == "none: fewer than 2 cells"
    same = rao_scott([[4, 2, 2, 1]] * 3)  # every cluster alike: no spread to correct by, Pearson's on every count
    plain = chi2_uniform([12, 6, 6, 3])
    assert same.deff == 0 and same.method == "pearson: no spread between clusters"
    assert (same.stat, same.df, same.p) == pytest.approx((plain.stat, 3, plain.p)) and 0.05 < same.p < 1
    flat = rao_scott([[2, 2, 2, 2]] * 3)
    assert flat.p == 1 and flat.stat == 0 and flat.method.startswith("pearson")
    with pytest.raises(ValueError):
        rao_scott([1, 2, 3])
    with pytest.raises(ValueError):
        rao_scott([[1, 2]], [1, 2, 3])


# Clustered data: simulated duplicate deals --------------------------------------------------------
#
# Each deal set replays the same deals (2 rounds) at 3 tables under 4 seat rotations: 24 rounds. A
# round's deal puts the strong hand at one position, which wins it with probability 0.6 (else
# another position at random). With the cards fixed to the seats the strong hand stays at the same
# position in every replay (positive correlation: design effect about 3.4); when the rotation moves
# the hand round the positions every position holds it equally often (negative correlation: about
# 0.77). Either way every position wins 25% of rounds: the null of uniformity holds. With ``edge``
# position 1 takes the round outright that often, before the hand counts.

ROUNDS_, TABLES_, ROTATIONS_ = 2, 3, 4


def duplicate_deals(rng, deal_sets: int, rotate: bool = False, strong: float = 0.6, edge: float = 0.0):
    """(wins, played): deal sets × 4 positions (0 = position 1)."""
    shape = (deal_sets, ROUNDS_, TABLES_, ROTATIONS_)
    hand = rng.integers(4, size=shape[:2])[:, :, None, None] + (np.arange(ROTATIONS_) if rotate else 0)
    hand = np.broadcast_to(hand % 4, shape)
    other = (hand + 1 + rng.integers(3, size=shape)) % 4
    winner = np.where(rng.random(shape) < strong, hand, other)
    winner = np.where(rng.random(shape) < edge, 0, winner)
    wins = (winner.reshape(deal_sets, -1)[:, :, None] == np.arange(4)).sum(axis=1).astype(float)
    return wins, np.full((deal_sets, 4), float(ROUNDS_ * TABLES_ * ROTATIONS_))


def _covers(lo, hi, truth) -> bool:
    return lo <= truth <= hi


def _coverage(rng, sims, deal_sets, rotate):
    naive, clustered, floored, deffs = [], [], [], []
    t = sps.t.ppf(0.975, deal_sets - 1)
    for _ in range(sims):
        wins, played = duplicate_deals(rng, deal_sets, rotate)
        k, n = wins[:, 0], played[:, 0]
        naive.append(_covers(*wilson(k.sum(), n.sum())[1:], 0.25))
        r = cluster_rate(k, n)
        clustered.append(_covers(r.lo, r.hi, 0.25))
        n_floor = r.n / max(1.0, r.deff)  # the same interval with the design effect floored at 1
        floored.append(_covers(*wilson_by_quadratic(r.rate * n_floor, n_floor, z=t), 0.25))
        deffs.append(r.deff)
    return np.mean(naive), np.mean(clustered), np.mean(floored), np.nanmean(deffs)


def test_cluster_rate_covers_when_the_deal_fixes_the_winning_position_and_wilson_does_not():
    """1000 simulated sweeps of 24 deal sets with the strong hand fixed to a position: the clustered
    interval covers the true 25% within 3 binomial SE of 95%; Wilson's, treating the 576 rounds as
    independent, falls well short."""
    rng = np.random.default_rng(515)
    sims = 1000
    naive, clustered, _, deff = _coverage(rng, sims, 24, rotate=False)
    se = math.sqrt(0.95 * 0.05 / sims)
    assert abs(clustered - 0.95) <= 3 * se, clustered
    assert naive < 0.95 - 3 * se and naive < 0.8, naive
    assert deff > 2.5


def test_cluster_rate_covers_when_rotation_balances_the_positions_and_a_floor_would_not():
    """The strong hand rotating round the positions: the design effect is below 1 and the clustered
    interval (not floored) still covers within 3 SE of 95%; floored at 1 it over-covers (the rounds
    are worth more than as many independent ones), and so does Wilson's a little."""
    rng = np.random.default_rng(516)
    sims = 1000
    naive, clustered, floored, deff = _coverage(rng, sims, 24, rotate=True)
    se = math.sqrt(0.95 * 0.05 / sims)
    assert abs(clustered - 0.95) <= 3 * se, clustered
    assert floored > 0.95 + 3 * se and naive > clustered, (floored, naive)
    assert deff < 0.9


@pytest.mark.parametrize("rotate", [False, True])
def test_rao_scott_holds_its_level_on_duplicate_deals_where_pearson_does_not(rotate):
    """1000 simulated null sweeps of 30 deal sets: the Rao–Scott test rejects uniformity within 3
    binomial SE of α = 0.05. Pearson's chi-square over-rejects when the deal fixes the position
    (about half the time) and under-rejects when the rotation balances it."""
    rng = np.random.default_rng(517 + rotate)
    sims, alpha = 1000, 0.05
    pearson, corrected = [], []
    for _ in range(sims):
        wins, played = duplicate_deals(rng, 30, rotate)
        pearson.append(chi2_uniform(wins.sum(axis=0), played.sum(axis=0)).p < alpha)
        corrected.append(rao_scott(wins, played.sum(axis=0)).p < alpha)
    se = math.sqrt(alpha * (1 - alpha) / sims)
    assert abs(np.mean(corrected) - alpha) <= 3 * se, np.mean(corrected)
    if rotate:
        assert np.mean(pearson) < alpha - 3 * se, np.mean(pearson)
    else:
        assert np.mean(pearson) > 0.3, np.mean(pearson)


def test_rao_scott_on_six_deal_sets_does_not_over_reject():
    """The sample sweep's size: 6 deal sets of 24 correlated rounds. Over 1000 null sweeps Pearson's
    test rejects about half the time; Rao–Scott's F form stays at or below α (+3 SE): with so few
    deal sets it is conservative."""
    rng = np.random.default_rng(518)
    sims, alpha = 1000, 0.05
    pearson, corrected = [], []
    for _ in range(sims):
        wins, played = duplicate_deals(rng, 6)
        pearson.append(chi2_uniform(wins.sum(axis=0), played.sum(axis=0)).p < alpha)
        corrected.append(rao_scott(wins, played.sum(axis=0)).p < alpha)
    assert np.mean(corrected) <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / sims), np.mean(corrected)
    assert np.mean(pearson) > 0.3


def test_a_planted_position_advantage_is_detected_and_covered():
    """Position 1 takes 10% of rounds outright (its rate 32.5%, the others 22.5%): over 300 sweeps of
    100 deal sets the Rao–Scott test finds it at least 90% of the time, and the clustered interval of
    position 1 covers 32.5% within 3 binomial SE of 95%."""
    rng = np.random.default_rng(519)
    sims = 300
    found, covered = [], []
    for _ in range(sims):
        wins, played = duplicate_deals(rng, 100, edge=0.1)
        found.append(rao_scott(wins, played.sum(axis=0)).p < 0.05)
        r = cluster_rate(wins[:, 0], played[:, 0])
        covered.append(_covers(r.lo, r.hi, 0.1 + 0.9 * 0.25))
    assert np.mean(found) >= 0.9, np.mean(found)
    assert abs(np.mean(covered) - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / sims), np.mean(covered)


def test_cluster_mean_covers_seat_scores_shared_by_a_deal_set_where_the_t_interval_does_not():
    """Match totals of 20 deal sets × 12 matches, each deal set adding its own shift (sd 30) to
    every match (noise sd 40): over 1000 simulations the clustered t interval covers the true mean
    within 3 binomial SE of 95%; the t interval over the 240 matches falls well short."""
    rng = np.random.default_rng(520)
    sims, deal_sets, per = 1000, 20, 12
    naive, clustered = [], []
    for _ in range(sims):
        totals = 10 + rng.normal(0, 30, (deal_sets, 1)) + rng.normal(0, 40, (deal_sets, per))
        naive.append(_covers(*mean_ci(totals.ravel())[1:], 10))
        m = cluster_mean(totals.sum(axis=1), np.full(deal_sets, per), (totals**2).sum(axis=1))
        clustered.append(_covers(m.lo, m.hi, 10))
    se = math.sqrt(0.95 * 0.05 / sims)
    assert abs(np.mean(clustered) - 0.95) <= 3 * se, np.mean(clustered)
    assert np.mean(naive) < 0.8, np.mean(naive)


# The seat imbalance figure and paired ratio differences -----------------------------------------------


def _deal_sets(rng, rates, count: int, rounds: int = 12):
    """Wins by position in ``count`` deal sets: each deal set shifts every position's chance alike
    (a deal decides much), then ``rounds`` rounds per position."""
    shift = rng.normal(0, 0.05, (count, 1))
    chance = np.clip(np.asarray(rates) + shift, 0.01, 0.99)
    played = np.full((count, len(rates)), rounds)
    return rng.binomial(rounds, chance).astype(float), played.astype(float)


def test_seat_imbalance_estimates_the_game_not_the_sample():
    """With true position rates (0.3, 0.25, 0.25, 0.2) (an RMS distance of 0.0354), the uncorrected
    figure shrinks as the run grows (it counts chance as imbalance: +32% at 10 deal sets); the corrected
    one stays within 20% of the truth at every size (-14% at 10 deal sets, where the floor at 0
    bites), and a fair game's corrected figure is near 0. 100 runs of each size."""
    truth = math.sqrt(np.mean((np.array([0.3, 0.25, 0.25, 0.2]) - 0.25) ** 2))
    rng = np.random.default_rng(17)
    means = {}
    for g in (10, 640):
        got = [seat_imbalance(*_deal_sets(rng, [0.3, 0.25, 0.25, 0.2], g), replicates=0) for _ in range(100)]
        means[g] = (np.mean([r["value"] for r in got]), np.mean([r["raw"] for r in got]))
    assert means[10][1] > 1.2 * truth and abs(means[640][1] - truth) < 0.1 * truth  # raw: biased upward when small
    for g, (value, raw) in means.items():
        assert abs(value - truth) < 0.2 * truth and abs(value - truth) <= abs(raw - truth) + 0.01 * truth, (g, value)
    fair = [seat_imbalance(*_deal_sets(rng, [0.25] * 4, 640), replicates=0)["value"] for _ in range(100)]
    assert np.mean(fair) < 0.3 * truth


def test_seat_imbalance_interval_resamples_deal_sets_and_covers():
    rng = np.random.default_rng(18)
    one = seat_imbalance(*_deal_sets(rng, [0.3, 0.25, 0.25, 0.2], 200), replicates=400, seed=3)
    assert one["replicates"] == 400 and one["lo"] < one["value"] < one["hi"]
    again = seat_imbalance(*_deal_sets(np.random.default_rng(18), [0.3, 0.25, 0.25, 0.2], 200), replicates=400, seed=3)
    assert again == one  # fixed seeds, the same interval
    assert math.isnan(seat_imbalance(np.ones((1, 4)), np.ones((1, 4)))["value"])  # one deal set: no figure


def test_paired_ratio_is_the_difference_of_pooled_rates_with_a_linearised_variance():
    ka, na = np.array([3, 5, 2, 7.0]), np.array([10, 12, 8, 15.0])
    kb, nb = np.array([4, 6, 5, 6.0]), np.array([10, 11, 9, 14.0])
    r = paired_ratio(ka, na, kb, nb)
    ra, rb = ka.sum() / na.sum(), kb.sum() / nb.sum()
    # the delta method written out: d(rate) = (dk - rate dn) / N for each cluster, N = the total
    z = (kb - rb * nb) / nb.sum() - (ka - ra * na) / na.sum()
    se = math.sqrt(4 / 3 * (z ** 2).sum())
    assert (r.mean_a, r.mean_b, r.diff, r.se) == pytest.approx((ra, rb, rb - ra, se))
    assert r.p == pytest.approx(2 * sps.t.sf(abs(rb - ra) / se, 3))
    same = paired_ratio([1, 2], [4, 8], [2, 4], [4, 8])  # +0.25 in both deal sets: no spread
    assert (same.diff, same.lo, same.hi, same.se) == (0.25, 0.25, 0.25, 0.0) and math.isnan(same.p)
    assert paired_ratio([1, 2], [4, 8], [1, 2], [4, 8]).p == 1.0
    assert tost_t(0.01, 0.02, 10, 0.1) == pytest.approx(max(sps.t.sf(0.11 / 0.02, 10), sps.t.cdf(-0.09 / 0.02, 10)))
    assert math.isnan(tost_t(0.01, 0.0, 10, 0.1))


def test_the_distribution_functions_agree_with_scipy_stats():
    """results/distributions.py (scipy.special, quick to import) gives what scipy.stats gives."""
    from scipy import stats as sps

    from results import distributions as dist

    xs = np.array([-7.5, -2.0, -0.3, 0.0, 0.4, 1.96, 6.0])
    qs = np.array([1e-9, 0.025, 0.3, 0.5, 0.8, 0.975, 1 - 1e-9])
    for df in (1, 2.5, 7, 30, 1e6, float("inf")):
        assert np.allclose(dist.t_cdf(xs, df), sps.t.cdf(xs, df), rtol=1e-10, atol=1e-14)
        assert np.allclose(dist.t_sf(xs, df), sps.t.sf(xs, df), rtol=1e-10, atol=1e-14)
        assert np.allclose(dist.t_ppf(qs, df), sps.t.ppf(qs, df), rtol=1e-9)
    assert np.allclose(dist.norm_cdf(xs), sps.norm.cdf(xs), rtol=1e-12, atol=1e-15)
    assert np.allclose(dist.norm_ppf(qs), sps.norm.ppf(qs), rtol=1e-12)
    for df in (1, 3, 10.5, 200):
        assert np.allclose(dist.chi2_sf(np.abs(xs) * 3, df), sps.chi2.sf(np.abs(xs) * 3, df), rtol=1e-10, atol=1e-300)
        for dfd in (2, 9.5, 400):
            assert np.allclose(dist.f_sf(np.abs(xs), df, dfd), sps.f.sf(np.abs(xs), df, dfd), rtol=1e-9, atol=1e-300)


def test_an_analysis_imports_no_scipy_stats():
    """scipy.stats costs about a second of CPU at import: the analysis modules never load it."""
    import subprocess
    import sys

    code = ("import sys, results.ratings, results.balance, results.sprt, results.report, results.precision\n"
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_starting_the_cli_imports_no_polars_scipy_ray_matplotlib_or_server():
    """Every command starts by importing the whole CLI, and the tests start hundreds of commands:
    polars with numpy and pyarrow (half a second of CPU), scipy (a third of a second), Ray,
    matplotlib and the arena server's web and database libraries are loaded by the work that needs
    them, so that a command refused for its options, or ``--help``, ends at once."""
    import subprocess
    import sys

    heavy = {"polars", "numpy", "pyarrow", "scipy", "ray", "matplotlib", "fastapi", "starlette", "uvicorn",
             "sqlalchemy", "alembic", "argon2", "httpx", "httpx2"}
    code = ("import sys, harness.cli.main\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {heavy!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_95_percent_quantile_written_out_is_the_computed_one():
    from results.stats import Z95 as written, _z

    assert written == _z(0.95) == Z95
