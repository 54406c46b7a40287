"""Ratings (results/plackett_luce.py, results/ratings.py): the exact tie model (a tie is an unknown
order) and Davidson-Luce, each written out by hand; both recover planted strengths and seat effects
(per table size); the Hessian intervals cover at the nominal rate; the clustered bootstrap agrees;
two players is Bradley-Terry; on Einundfünfzig-like ties the exact model stays on the pairwise
logistic scale; the report on real runs (anchor, exclusions)."""

from __future__ import annotations

import itertools
import math
import shutil

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from scipy.optimize import minimize

from results.plackett_luce import ELO, aggregate, fit, hide_orders, log_likelihood, synthetic_exact, synthetic_matches
from results.ratings import BASE, RatingsError, bootstrap_ratings, expected_score, fit_ratings, ratings
from results.runs import open_runs

Z95 = 1.959963984540054


def centred(theta):
    theta = np.asarray(theta, dtype=float)
    return theta - theta.mean()


# The model ---------------------------------------------------------------------------------------


def test_the_likelihood_is_davidson_luce_written_out_by_hand():
    theta, seat = np.array([0.3, -0.1, 0.2, -0.5]), np.array([0.0, 0.1, -0.2, 0.15])
    delta = {2: 0.5, 3: 0.2, 4: 0.1}
    u = theta + seat  # bots 0..3 at seats 0..3

    def weight(group):
        return (delta[len(group)] if len(group) > 1 else 1.0) * math.exp(np.mean(u[list(group)]))

    def prob(order):  # order: groups from the top
        left, p = [0, 1, 2, 3], 1.0
        for group in order:
            z = sum(weight(g) for k in range(1, len(left) + 1) for g in itertools.combinations(left, k))
            p *= weight(group) / z
            left = [s for s in left if s not in group]
        return p

    cases = {(1, 1, 3, 4): [(0, 1), (2,), (3,)], (2, 1, 3, 3): [(1,), (0,), (2, 3)],
             (1, 1, 1, 1): [(0, 1, 2, 3)], (4, 3, 2, 1): [(3,), (2,), (1,), (0,)]}
    log_delta = {k: math.log(v) for k, v in delta.items()}
    for ranks, order in cases.items():
        got = log_likelihood(np.array([[0, 1, 2, 3]]), np.array([ranks]), theta, seat, log_delta, ties="davidson")
        assert got == pytest.approx(math.log(prob(order)), abs=1e-12), ranks
    # every weak order of 4 seats: the probabilities sum to 1
    total = 0.0
    for ranks in itertools.product(range(1, 5), repeat=4):
        if sorted(ranks) == [1 + sum(r < x for r in ranks) for x in sorted(ranks)]:  # competition ranks
            total += math.exp(log_likelihood(np.array([[0, 1, 2, 3]]), np.array([ranks]), theta, seat, log_delta,
                                             ties="davidson"))
    assert total == pytest.approx(1.0, abs=1e-12)


def test_the_exact_likelihood_is_the_sum_over_the_orders_the_ranks_allow():
    theta, seat = np.array([0.3, -0.1, 0.2, -0.5]), np.array([0.0, 0.1, -0.2, 0.15])
    u = theta + seat  # bots 0..3 at seats 0..3

    def plackett_luce(order):  # seats from first to last
        p, left = 1.0, list(order)
        for s in order:
            p *= math.exp(u[s]) / sum(math.exp(u[t]) for t in left)
            left.remove(s)
        return p

    def brute(ranks):
        return sum(plackett_luce(order) for order in itertools.permutations(range(4))
                   if all(ranks[order[k]] <= ranks[order[k + 1]] for k in range(3)))

    weak = [r for r in itertools.product(range(1, 5), repeat=4)
            if list(r) == [1 + sum(x < y for x in r) for y in r]]  # every competition ranking of 4 seats
    assert len(weak) == 75
    for ranks in weak:
        got = log_likelihood(np.array([[0, 1, 2, 3]]), np.array([ranks]), theta, seat)
        assert got == pytest.approx(math.log(brute(ranks)), abs=1e-12), ranks
    assert log_likelihood(np.array([[0, 1, 2, 3]]), np.array([[1, 1, 1, 1]]), theta, seat) == pytest.approx(0, abs=1e-12)
    # several rows and two table sizes: the sum of the rows' log-likelihoods
    rows = np.array([[0, 1, 2, 3], [0, 1, 2, 3]]), np.array([[1, 1, 1, 4], [2, 1, 3, 3]])
    pair = np.array([[2, 0]]), np.array([[1, 2]])
    both = log_likelihood([rows[0], pair[0]], [rows[1], pair[1]], theta, {4: seat, 2: np.array([0.0, 0.4])})
    p_pair = math.exp(theta[2]) / (math.exp(theta[2]) + math.exp(theta[0] + 0.4))
    assert both == pytest.approx(math.log(brute((1, 1, 1, 4)) * brute((2, 1, 3, 3)) * p_pair), abs=1e-12)


def test_hidden_orders_keep_the_places_that_are_known():
    full = np.array([[3, 1, 4, 2], [1, 2, 3, 4]])
    assert hide_orders(full, [True, True, False]).tolist() == [[1, 1, 4, 1], [1, 1, 1, 4]]
    assert hide_orders(full, [[False, True, False], [True, False, True]]).tolist() == [[2, 1, 4, 2], [1, 1, 3, 3]]


def test_aggregation_merges_identical_rows_and_keeps_the_fit():
    rng = np.random.default_rng(3)
    bots, ranks = synthetic_matches([0.4, 0.0, -0.4], [0, 0.1, 0.2], 3000, 3, rng, ties=0.3)
    ub, ur, counts = aggregate(bots, ranks)
    assert counts.sum() == 3000 and len(ub) < 3000 / 10
    assert len({tuple(b) + tuple(r) for b, r in zip(ub.tolist(), ur.tolist())}) == len(ub)
    a, b = fit(bots, ranks, 3, merge=False), fit(ub, ur, 3, weights=counts, merge=False)
    assert np.allclose(a.theta, b.theta, atol=1e-9) and np.allclose(a.cov, b.cov, atol=1e-9)


def test_synthetic_matches_draw_from_the_model():
    """Two equal bots, no seat effect, delta 0.5: a tie has probability delta / (2 + delta)."""
    rng = np.random.default_rng(4)
    n = 40_000
    bots, ranks = synthetic_matches([0.0, 0.0], [0.0, 0.0], n, 2, rng, ties=0.5)
    tied = np.mean(ranks[:, 0] == ranks[:, 1])
    p = 0.5 / 2.5
    assert abs(tied - p) < 3 * math.sqrt(p * (1 - p) / n)
    # seat 1 stronger by log 3: it finishes first with probability 3/4 (no ties)
    bots, ranks = synthetic_matches([0.0, 0.0], [0.0, math.log(3)], n, 2, rng)
    first = np.mean(ranks[:, 1] == 1)
    assert abs(first - 0.75) < 3 * math.sqrt(0.75 * 0.25 / n)
    assert set(np.unique(ranks)) == {1, 2}


def test_recovers_planted_strengths_seat_effects_and_ties():
    rng = np.random.default_rng(11)
    theta = centred([0.8, 0.4, 0.1, 0.0, -0.3, -1.0])
    seats = np.array([0.0, -0.1, 0.15, 0.3])
    deltas = [0.4, 0.2, 0.1]
    bots, ranks = synthetic_matches(theta, seats, 20_000, 4, rng, ties=deltas)
    f = fit(bots, ranks, 6, ties="davidson")
    se = np.sqrt(np.diag(f.cov))
    assert se[:6].max() < 0.03  # the test can tell a wrong answer from a right one
    assert np.all(np.abs(f.theta - theta) < 4 * se[:6])
    assert np.all(np.abs(f.seat[1:] - seats[1:]) < 4 * se[6:9])
    for size, d in zip((2, 3, 4), deltas):
        i = f.tie_index[size]
        assert abs(f.log_delta[size] - math.log(d)) < 4 * se[i], size
    # and without ties in the data, plain Plackett-Luce: no tie parameter at all
    bots, ranks = synthetic_matches(theta, seats, 5_000, 4, rng)
    plain = fit(bots, ranks, 6, ties="davidson")
    assert plain.log_delta == {} and np.all(np.abs(plain.theta - theta) < 4 * np.sqrt(np.diag(plain.cov))[:6])
    exact = fit(bots, ranks, 6)
    assert np.allclose(exact.theta, plain.theta, atol=1e-8) and np.allclose(exact.seat, plain.seat, atol=1e-8)


@pytest.mark.parametrize("tied", ["random", "loser"])
def test_the_exact_model_recovers_planted_strengths_and_seats_from_hidden_orders(tied):
    """Full Plackett-Luce orders with the order hidden inside tie groups: each neighbouring pair of
    places tied with probability 0.3, or Einundfünfzig-like (only the last place known)."""
    rng = np.random.default_rng(31)
    theta = centred([0.8, 0.4, 0.1, 0.0, -0.3, -1.0])
    seats = np.array([0.0, -0.1, 0.15, 0.3])
    pattern = 0.3 if tied == "random" else [True, True, False]
    bots, ranks = synthetic_exact(theta, seats, 20_000, 4, rng, tied=pattern)
    if tied == "loser":
        assert np.all(np.sort(ranks, axis=1) == [1, 1, 1, 4])
    else:
        assert 0.6 < np.mean([len(set(r)) < 4 for r in ranks.tolist()]) < 0.7
    f = fit(bots, ranks, 6)
    se = np.sqrt(np.diag(f.cov))
    assert se[:6].max() < 0.06 and f.log_delta == {}
    assert np.all(np.abs(f.theta - theta) < 4 * se[:6]), (f.theta - theta) / se[:6]
    assert np.all(np.abs(f.seat[1:] - seats[1:]) < 4 * se[6:9]), (f.seat[1:] - seats[1:]) / se[6:9]


@pytest.mark.parametrize("ties", ["exact", "davidson"])
def test_mixed_table_sizes_are_fitted_together_with_seat_effects_per_size(ties):
    """Two-player tables favour seat 1, four-player tables disfavour it: each size has its own."""
    rng = np.random.default_rng(12)
    theta = centred([0.5, 0.0, -0.5, 0.2])
    two, four = np.array([0.0, 0.4]), np.array([0.0, -0.3, 0.1, 0.2])
    if ties == "exact":
        b2, r2 = synthetic_exact(theta, two, 6000, 2, rng, tied=0.1)
        b4, r4 = synthetic_exact(theta, four, 6000, 4, rng, tied=0.2)
    else:
        b2, r2 = synthetic_matches(theta, two, 6000, 2, rng, ties=0.3)
        b4, r4 = synthetic_matches(theta, four, 6000, 4, rng, ties=0.3)
    f = fit([b2, b4], [r2, r4], 4, ties=ties)
    se = np.sqrt(np.diag(f.cov))
    assert sorted(f.seats) == [2, 4] and f.seat_index == {(2, 1): 4, (4, 1): 5, (4, 2): 6, (4, 3): 7}
    assert np.all(np.abs(f.theta - theta) < 4 * se[:4])
    assert abs(f.seats[2][1] - 0.4) < 4 * se[4] and np.all(np.abs(f.seats[4][1:] - four[1:]) < 4 * se[5:8])
    assert f.seats[2][1] - f.seats[4][1] > 10 * math.hypot(se[4], se[5])  # one shared seat 1 could not fit both
    with pytest.raises(ValueError, match="several table sizes"):
        f.seat


def test_hessian_intervals_cover_the_truth_at_the_nominal_rate():
    """400 simulations of 150 four-player matches (5 bots, seat effects, hidden orders: the exact
    model, the default). Three quantities,
    each counted once per simulation: a bot's rating (mean = 1500), a difference of two bots, and
    a seat effect. Each coverage is within 3 binomial SE of 0.95 (SE = 0.0109)."""
    rng = np.random.default_rng(2024)
    theta = centred([0.6, 0.2, 0.0, -0.3, -0.5])
    seats = np.array([0.0, 0.1, 0.2, 0.35])
    sims, hits = 400, np.zeros(3)
    truth = [BASE + ELO * theta[0], ELO * (theta[1] - theta[3]), ELO * seats[3]]
    for _ in range(sims):
        bots, ranks = synthetic_exact(theta, seats, 150, 4, rng, tied=0.2)
        r = fit_ratings(bots, ranks, 5)
        d = r["rating"][1] - r["rating"][3]
        se_d = math.sqrt(r["cov"][1, 1] + r["cov"][3, 3] - 2 * r["cov"][1, 3])
        estimates = [(r["rating"][0], r["se"][0]), (d, se_d), (r["seat"][3], r["seat_se"][3])]
        for k, ((value, se), true) in enumerate(zip(estimates, truth)):
            hits[k] += abs(value - true) <= Z95 * se
    coverage = hits / sims
    tolerance = 3 * math.sqrt(0.95 * 0.05 / sims)
    assert np.all(np.abs(coverage - 0.95) <= tolerance), coverage


def test_the_clustered_bootstrap_agrees_with_the_hessian():
    """4,000 matches in 1,000 deal sets of 4: 200 bootstrap refits over deal sets. The bootstrap's
    standard deviation of each rating matches the Hessian's SE within 15% (3 SE of an SD estimate
    from 200 draws is about 15%), and its percentile interval matches rating +- 1.96 SE."""
    rng = np.random.default_rng(7)
    theta = centred([0.5, 0.2, 0.0, -0.2, -0.5])
    bots, ranks = synthetic_exact(theta, [0.0, 0.1, 0.2, 0.3], 4000, 4, rng, tied=0.2)
    clusters = np.repeat(np.arange(1000), 4)
    r = fit_ratings(bots, ranks, 5)
    boot = bootstrap_ratings(bots, ranks, clusters, 5, 200, seed=1)
    assert boot.shape == (200, 5)
    ratio = boot.std(axis=0, ddof=1) / r["se"]
    assert np.all(np.abs(ratio - 1) < 0.15), ratio
    lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    assert np.all(np.abs(lo - (r["rating"] - Z95 * r["se"])) < 0.3 * Z95 * r["se"])
    assert np.all(np.abs(hi - (r["rating"] + Z95 * r["se"])) < 0.3 * Z95 * r["se"])
    # the same seed, the same replicates; the clusters are what is resampled
    assert np.array_equal(boot, bootstrap_ratings(bots, ranks, clusters, 5, 200, seed=1))


def test_resampling_single_matches_of_correlated_deal_sets_would_be_too_narrow():
    """Four copies of each match (as if duplicate deals replayed it exactly): resampling the deal
    set gives the honest spread of 1,000 independent matches; the Hessian, which sees 4,000
    matches, is half as wide (sqrt 4), so the bootstrap is the check on it."""
    rng = np.random.default_rng(8)
    theta = centred([0.4, 0.0, -0.4])
    bots, ranks = synthetic_matches(theta, [0.0, 0.1, 0.2], 1000, 3, rng)
    copies = (np.repeat(bots, 4, axis=0), np.repeat(ranks, 4, axis=0))
    clusters = np.repeat(np.arange(1000), 4)
    se = fit_ratings(*copies, 3)["se"]
    boot = bootstrap_ratings(*copies, clusters, 3, 150, seed=2).std(axis=0, ddof=1)
    assert np.all(np.abs(boot / se - 2) < 0.35), boot / se


def bradley_terry(wins_first, ties, pairs, n_bots):
    """A plain Bradley-Terry(-Davidson) fit with a first-seat term, by a general optimiser:
    pairs[k] = (bot at seat 0, bot at seat 1); wins_first[k], ties[k]: 1 when seat 0 won, tied."""
    a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])

    def nll(x):
        theta = np.concatenate([[0.0], x[:n_bots - 1]])
        home = x[n_bots - 1]
        delta = math.exp(x[n_bots]) if ties.any() else 0.0
        total = 0.0
        for i, j, w, t in zip(a, b, wins_first, ties):
            first, second = math.exp(theta[i]), math.exp(theta[j] + home)
            tie = delta * math.sqrt(first * second)
            z = first + second + tie
            total -= math.log(tie / z) if t else math.log((first if w else second) / z)
        return total

    x = minimize(nll, np.zeros(n_bots + 1), method="BFGS", options={"gtol": 1e-9}).x
    theta = np.concatenate([[0.0], x[:n_bots - 1]])
    return centred(theta), x[n_bots - 1], math.exp(x[n_bots])


@pytest.mark.parametrize("ties,model", [(0.0, "exact"), (0.0, "davidson"), (0.6, "davidson")])
def test_plackett_luce_on_two_players_is_bradley_terry(ties, model):
    rng = np.random.default_rng(21)
    bots, ranks = synthetic_matches(centred([0.5, 0.0, -0.3]), [0.0, 0.2], 600, 2, rng, ties=ties)
    wins_first = ranks[:, 0] < ranks[:, 1]
    tied = ranks[:, 0] == ranks[:, 1]
    assert tied.any() == (ties > 0)
    theta, home, delta = bradley_terry(wins_first, tied, [tuple(p) for p in bots], 3)
    f = fit(bots, ranks, 3, prior=0.0, ties=model)
    assert np.allclose(f.theta, theta, atol=2e-4)
    assert f.seat[1] == pytest.approx(home, abs=2e-4)
    if ties:
        assert math.exp(f.log_delta[2]) == pytest.approx(delta, rel=1e-3)


def pairwise_score(bots, ranks, a: int, b: int) -> np.ndarray:
    """Per match where both sit, a's score against b as ``ellibir sprt`` counts it (1, 1/2 for a
    shared rank, 0), the mean over every (a seat, b seat) pair."""
    out = []
    for row, rank in zip(bots.tolist(), ranks.tolist()):
        pairs = [(rank[i], rank[j]) for i in range(len(row)) for j in range(len(row)) if row[i] == a and row[j] == b]
        if pairs:
            out.append(np.mean([1.0 if x < y else 0.5 if x == y else 0.0 for x, y in pairs]))
    return np.array(out)


def implied_score(bots, theta, seat, a: int, b: int) -> float:
    """The mean over the matches of a's pairwise score against b (ties half) that the exact model
    predicts when only the loser is known: a brute-force sum over each seating's 6 orders."""
    total, count = 0.0, 0
    for row in bots.tolist():
        u = theta[row] + seat
        expected, pairs = 0.0, 0
        for order in itertools.permutations(range(3)):
            p, left = 1.0, list(order)
            for s in order:
                p *= math.exp(u[s]) / sum(math.exp(u[t]) for t in left)
                left.remove(s)
            rank = {order[0]: 1, order[1]: 1, order[2]: 3}
            got = [1.0 if rank[i] < rank[j] else 0.5 if rank[i] == rank[j] else 0.0
                   for i in range(3) for j in range(3) if row[i] == a and row[j] == b]
            if got:
                expected += p * np.mean(got)
                pairs = 1
        if pairs:
            total, count = total + expected, count + 1
    return total / count


def test_on_einundfuenfzig_like_ties_the_exact_model_stays_on_the_pairwise_scale():
    """Two bots 60 Elo apart in 3-player tables where only the loser is known (E4). The exact model
    finds the planted difference, and predicts the observed pairwise score (ties half, as ``sprt``
    counts it) within 3 SE. That score is shrunk towards 1/2 by the hidden orders (1 strong and 2
    weak: slope 0.208 per unit near equality instead of the logistic 0.25), so its logistic Elo is
    about 0.85 of the model's difference: close, not equal. Davidson-Luce, which divides the
    strength differences by the tied group's size, is stretched far beyond both."""
    rng = np.random.default_rng(41)
    d = 60.0
    theta = np.array([d / 2, -d / 2]) / ELO
    bots, ranks = synthetic_exact(theta, [0.0, 0.0, 0.0], 20_000, 3, rng, tied=[True, False])
    score = pairwise_score(bots, ranks, 0, 1)
    s, s_se = score.mean(), score.std() / math.sqrt(len(score))
    pairwise_elo = -400 * math.log10(1 / s - 1)
    exact = fit_ratings(bots, ranks, 2)
    diff = exact["rating"][0] - exact["rating"][1]
    diff_se = math.sqrt(exact["cov"][0, 0] + exact["cov"][1, 1] - 2 * exact["cov"][0, 1])
    assert diff_se < 3
    assert abs(diff - d) < 3 * diff_se  # the planted difference, on the Bradley-Terry scale
    predicted = implied_score(bots[:3000], exact["fit"].theta, exact["fit"].seat, 0, 1)
    assert abs(predicted - s) < 3 * math.hypot(s_se, s_se * math.sqrt(len(score) / 3000)), (predicted, s)
    assert 0.75 < pairwise_elo / diff < 0.95, (pairwise_elo, diff)
    assert expected_score(diff) == pytest.approx(1 / (1 + 10 ** (-diff / 400)))
    davidson = fit_ratings(bots, ranks, 2, ties="davidson")
    stretched = davidson["rating"][0] - davidson["rating"][1]
    assert stretched > 2 * pairwise_elo and stretched - d > 10 * diff_se, (stretched, pairwise_elo)


def test_ratings_are_anchored_on_a_bot_or_on_the_mean():
    rng = np.random.default_rng(5)
    bots, ranks = synthetic_matches(centred([0.3, 0.0, -0.3]), [0, 0, 0, 0], 800, 3, rng)
    mean = fit_ratings(bots, ranks, 3)
    anchored = fit_ratings(bots, ranks, 3, anchor=1)
    assert mean["rating"].mean() == pytest.approx(BASE)
    assert anchored["rating"][1] == BASE and anchored["se"][1] == 0
    assert np.allclose(anchored["rating"] - anchored["rating"][1], mean["rating"] - mean["rating"][1])
    # a difference has the same SE whatever the anchor
    for r in (mean, anchored):
        r["d_se"] = math.sqrt(r["cov"][0, 0] + r["cov"][2, 2] - 2 * r["cov"][0, 2])
    assert mean["d_se"] == pytest.approx(anchored["d_se"])
    assert anchored["se"][0] > mean["se"][0]  # measured against one bot, not the mean of three


def test_a_bot_that_lost_every_game_gets_a_finite_rating():
    """Bot 3 finishes last in every match, at every seat: its likelihood alone would push it to
    minus infinity; the one virtual drawn game keeps it finite, far below the others."""
    rng = np.random.default_rng(6)
    bots, ranks = synthetic_matches([0.0, 0.0, 0.0], [0, 0, 0], 400, 3, rng)
    seat = rng.integers(4, size=400)  # where the loser sits
    full_bots, full_ranks = np.zeros((400, 4), dtype=int), np.zeros((400, 4), dtype=int)
    for m in range(400):
        others = [s for s in range(4) if s != seat[m]]
        full_bots[m, others], full_ranks[m, others] = bots[m], ranks[m]
        full_bots[m, seat[m]], full_ranks[m, seat[m]] = 3, 4
    r = fit_ratings(full_bots, full_ranks, 4)
    assert np.all(np.isfinite(r["rating"])) and np.all(np.isfinite(r["se"]))
    assert 700 < r["rating"][:3].min() - r["rating"][3] < 3000
    assert np.all(np.abs(r["seat"]) < 100)  # the seats are not blamed


# On real runs ------------------------------------------------------------------------------------


def test_ratings_of_a_real_run(tournament_run):
    report = ratings(open_runs([tournament_run]))
    rows = pl.read_parquet(list((tournament_run / "matches").glob("*.parquet")))
    labels = sorted(rows["bot"].unique().to_list())
    assert sorted(b["bot"] for b in report["bots"]) == labels
    assert report["game"] == "ellibir" and report["runs"] == [tournament_run.name] and report["anchor"] is None
    assert report["matches"] == {"total": rows["match_id"].n_unique(), "rated": rows["match_id"].n_unique(),
                                 "incomplete": 0, "faulted": 0}
    values = [b["rating"] for b in report["bots"]]
    assert values == sorted(values, reverse=True)
    assert sum(values) / len(values) == pytest.approx(BASE)
    for b in report["bots"]:
        mine = rows.filter(pl.col("bot") == b["bot"])
        assert b["games"] == mine.height and b["avg_rank"] == pytest.approx(mine["rank"].mean())
        assert b["lo"] < b["rating"] < b["hi"] and b["boot_lo"] is None and b["faults"] == 0
    assert [s["seat"] for s in report["seats"]] == [0, 1, 2, 3] and report["seats"][0]["effect"] == 0
    assert {s["players"] for s in report["seats"]} == {4} and report["tie_model"] == "exact" and report["ties"] == []
    assert report["clusters"] == 6
    davidson = ratings(open_runs([tournament_run]), ties="davidson")
    assert davidson["tie_model"] == "davidson" and davidson["model"] != report["model"]
    assert [t["size"] for t in davidson["ties"]] and all(t["lo"] <= t["delta"] <= t["hi"] for t in davidson["ties"])
    assert len(report["pairwise"]) == len(labels) * (len(labels) - 1)
    for p in report["pairwise"]:
        back = next(q for q in report["pairwise"] if (q["a"], q["b"]) == (p["b"], p["a"]))
        assert p["expected"] + back["expected"] == pytest.approx(1) and p["los"] + back["los"] == pytest.approx(1)


def test_score_share_counts_opponents_beaten_with_ties_half(tournament_run):
    report = ratings(open_runs([tournament_run]))
    rows = pl.read_parquet(list((tournament_run / "matches").glob("*.parquet"))).to_dicts()
    by_match: dict = {}
    for r in rows:
        by_match.setdefault(r["match_id"], []).append(r)
    shares: dict = {}
    for seats in by_match.values():
        for me in seats:
            others = [o for o in seats if o is not me]
            won = sum(1.0 if me["rank"] < o["rank"] else 0.5 if me["rank"] == o["rank"] else 0.0 for o in others)
            shares.setdefault(me["bot"], []).append(won / len(others))
    for b in report["bots"]:
        assert b["score_share"] == pytest.approx(sum(shares[b["bot"]]) / len(shares[b["bot"]]))


def test_the_anchor_and_an_unknown_anchor(tournament_run):
    runs = open_runs([tournament_run])
    free = ratings(runs)
    anchored = ratings(runs, anchor="builtin:pairs")
    by = {b["bot"]: b for b in anchored["bots"]}
    assert by["builtin:pairs"]["rating"] == BASE and by["builtin:pairs"]["se"] == 0
    base = {b["bot"]: b["rating"] for b in free["bots"]}
    for name, b in by.items():
        assert b["rating"] - BASE == pytest.approx(base[name] - base["builtin:pairs"])
    assert [(p["a"], p["b"], round(p["los"], 9)) for p in anchored["pairwise"]] == \
        [(p["a"], p["b"], round(p["los"], 9)) for p in free["pairwise"]]
    with pytest.raises(RatingsError, match="unknown anchor 'nobody'") as e:
        ratings(runs, anchor="nobody")
    assert "\n" not in str(e.value) and isinstance(e.value, ValueError)


def mark(run, match_ids: dict) -> None:
    """Rewrite the matches parts of ``run`` (a copy): match id -> {seat: {column: value}}."""
    for part in (run / "matches").glob("*.parquet"):
        table = pq.read_table(part)
        frame = pl.from_arrow(table)
        for match_id, seats in match_ids.items():
            for seat, values in seats.items():
                here = (pl.col("match_id") == match_id) & (pl.col("seat") == seat)
                frame = frame.with_columns(
                    [pl.when(here).then(pl.lit(v)).otherwise(pl.col(k)).alias(k) for k, v in values.items()])
        pq.write_table(frame.to_arrow().cast(table.schema), part)


def test_faulted_matches_are_rated_with_the_faulty_bot_last_and_early_ones_only_when_asked(tournament_run, tmp_path):
    """Issue 15: a forfeit is a result, rated by default, the faulty seat last whatever the fault policy
    (here its stored rank is kept as the totals gave it, as under fallback); only a match that ended
    early for reasons outside the bots is left out unless asked for."""
    from results.ratings import seat_rows

    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    rows = pl.read_parquet(list((run / "matches").glob("*.parquet")))
    ids = sorted(rows["match_id"].unique().to_list())
    early, faulty, both = ids[0], ids[1], ids[2]
    winner = rows.filter((pl.col("match_id") == faulty) & (pl.col("rank") == 1))["seat"][0]
    mark(run, {early: {s: {"termination": "void_rounds"} for s in range(4)},
               faulty: {winner: {"faults": 1, "termination": "timeout", "fault_reason": "too slow"}},
               both: {1: {"faults": 2, "termination": "crash"}}})
    total = len(ids)
    report = ratings(open_runs([run]))
    assert report["matches"] == {"total": total, "rated": total - 1, "incomplete": 1, "faulted": 2}
    for b in report["bots"]:
        kept = rows.filter((pl.col("bot") == b["bot"]) & (pl.col("match_id") != early))
        assert b["games"] == kept.height
    assert sum(b["faults"] for b in report["bots"]) == 3
    assert sum(b["excluded_games"] for b in report["bots"]) == 4
    rated = seat_rows(open_runs([run])).filter(pl.col("match_id") == faulty).sort("seat")
    stored = rows.filter(pl.col("match_id") == faulty).sort("seat")["rank"].to_list()
    assert rated["rank"][winner] == 4  # the winner on totals had the fault: last in the ratings
    others = [s for s in range(4) if s != winner]
    assert [rated["rank"][s] for s in others] == [r - (r > 1) for r in (stored[s] for s in others)]
    every = ratings(open_runs([run]), include_incomplete=True)
    assert every["matches"]["rated"] == total
    assert sum(b["games"] for b in every["bots"]) == 4 * total
    original = ratings(open_runs([tournament_run]))
    assert [b["rating"] for b in report["bots"]] != [b["rating"] for b in original["bots"]]


def test_no_match_to_rate_is_one_line(tournament_run, tmp_path):
    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    ids = pl.read_parquet(list((run / "matches").glob("*.parquet")))["match_id"].unique().to_list()
    mark(run, {m: {0: {"termination": "void_rounds"}} for m in ids})
    with pytest.raises(RatingsError, match="no match to rate") as e:
        ratings(open_runs([run]))
    assert "\n" not in str(e.value)
    assert ratings(open_runs([run]), include_incomplete=True)["matches"]["rated"] == len(ids)


def test_the_bootstrap_needs_ten_deal_sets(tournament_run):
    """The fixture has 6 deal sets: too few clusters for a bootstrap (see test_ratings_cli for one
    on a run with enough)."""
    with pytest.raises(RatingsError, match="^--bootstrap needs at least 10 deal sets; these runs have 6$"):
        ratings(open_runs([tournament_run]), bootstrap=40, seed=3)
    with pytest.raises(RatingsError, match="--bootstrap"):
        ratings(open_runs([tournament_run]), bootstrap=-1)
    with pytest.raises(RatingsError, match="unknown tie model"):
        ratings(open_runs([tournament_run]), ties="maybe")
