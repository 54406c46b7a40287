"""The SPRT (results/sprt.py): the statistics on synthetic deal-set scores with a known Elo difference,
the deal-set scores of real match rows, the test as a run goes, and ``ellibir sprt`` on a real run."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import polars as pl
import pytest
from scipy import optimize
from typer.testing import CliRunner

from cli_runs import in_process
from simulated import decided

from harness.cli.main import app
from results.runs import open_runs
from results.sprt import (
    MIN_DEAL_SETS, SequentialTest, SprtError, bounds, deal_set_scores, elo_of, expected_score, first_decision,
    first_decisions, llr, llr_path, sprt, sprt_from_scores,
)

runner = CliRunner()


# Pure statistics ----------------------------------------------------------------------------------

def test_expected_score_and_elo_are_inverse():
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-200) == pytest.approx(1 - expected_score(200))
    for elo in (-350.0, -5.0, 0.0, 5.0, 120.0):
        assert elo_of(expected_score(elo)) == pytest.approx(elo, abs=1e-9)
    assert elo_of(1.0) == math.inf and elo_of(0.0) == -math.inf


def test_bounds_are_walds():
    lower, upper = bounds(0.05, 0.1)
    assert lower == pytest.approx(math.log(0.1 / 0.95)) and upper == pytest.approx(math.log(0.9 / 0.05))


def pentanomial(counts) -> np.ndarray:
    """Deal-set scores with ``counts`` of 0, 1/4, 1/2, 3/4 and 1 (fishtest's game-pair counts)."""
    return np.repeat([0.0, 0.25, 0.5, 0.75, 1.0], counts)


# fishtest's LLR_logistic(elo0, elo1, pentanomial counts), computed with fishtest's own code
# (server/fishtest/stats/LLRcalc.py), as facts to agree with.
FISHTEST = [
    ((0, 5), [0, 0, 10, 0, 0], -0.139427638815399),
    ((0, 50), [0, 0, 10, 0, 0], -1.5349158985894165),
    ((0, 50), [0, 0, 0, 0, 10], 1.3361648623504312),
    ((-3, 1), [10789, 19328, 33806, 19402, 10543], 2.1310678117940807),
    ((0, 5), [1187, 7410, 13475, 7378, 1164], -18.877471085770768),
    ((0, 5), [3, 5, 40, 7, 2], -0.0422239052182491),
    ((-10, 30), [30, 5, 40, 7, 20], -2.638761058303349),
]


@pytest.mark.parametrize("elos, counts, theirs", FISHTEST)
def test_llr_is_fishtests_on_game_pair_counts(elos, counts, theirs):
    """The same counts in any order give fishtest's LLR, regularised unseen values included."""
    x = np.random.default_rng(5).permutation(pentanomial(counts))
    assert llr(x, *elos) == pytest.approx(theirs, rel=1e-9, abs=1e-11)


def glr_by_optimiser(x, elo0, elo1) -> float:
    """The multinomial GLR found by a general constrained optimiser (no regularisation needed when
    the sample spans 0 and 1): max log-likelihood with mean s1 minus that with mean s0."""
    values, counts = np.unique(x, return_counts=True)

    def best(s):
        start = np.full(values.size, 1 / values.size)
        cons = [{"type": "eq", "fun": lambda p: p.sum() - 1}, {"type": "eq", "fun": lambda p: p @ values - s}]
        fit = optimize.minimize(lambda p: -counts @ np.log(p), start, constraints=cons, method="SLSQP",
                                bounds=[(1e-12, 1)] * values.size, options={"ftol": 1e-14, "maxiter": 500})
        return -fit.fun

    return best(expected_score(elo1)) - best(expected_score(elo0))


def test_llr_is_the_multinomial_generalised_likelihood_ratio():
    rng = np.random.default_rng(3)
    x = rng.choice([0.0, 0.125, 0.25, 0.5, 0.625, 0.75, 1.0], size=57)
    assert set(x) >= {0.0, 1.0}  # spans 0 and 1: the regularisation adds nothing
    assert llr(x, -10, 30) == pytest.approx(glr_by_optimiser(x, -10, 30), rel=1e-5)
    path = llr_path(x, -10, 30)
    assert path == pytest.approx([llr(x[:n], -10, 30) for n in range(1, len(x) + 1)], rel=1e-9, abs=1e-12)
    assert llr_path(x, -10, 30, 20, 30) == pytest.approx(path[20:30], rel=1e-12)
    assert llr([], 0, 5) == 0.0


def test_llr_is_near_the_normal_approximation_near_the_bounds():
    """Where the test decides with many deal sets, the GLR is close to fishtest's normal approximation
    N (s1-s0)(2ŝ-s0-s1) / (2σ̂²)."""
    rng = np.random.default_rng(8)
    s0, s1 = expected_score(0), expected_score(5)
    for probs in ([0.05, 0.2, 0.5, 0.2, 0.05], [0.045, 0.2, 0.5, 0.205, 0.05], [0.04, 0.2, 0.5, 0.2, 0.06]):
        x = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=3000, p=probs)
        normal = x.size * (s1 - s0) * (2 * x.mean() - s0 - s1) / (2 * x.var())
        assert abs(llr(x, 0, 5) - normal) <= 0.03 * max(1.0, abs(normal))


def test_verdicts_and_report():
    lower, upper = bounds(0.05, 0.05)
    rng = np.random.default_rng(4)
    strong = rng.uniform(0.6, 1.0, size=40)  # far above s1 = expected_score(100) = 0.64
    weak = rng.uniform(0.0, 0.5, size=40)
    up, down = sprt_from_scores(strong, 0, 100), sprt_from_scores(weak, 0, 100)
    assert up["verdict"] == "H1" and up["llr"] >= upper
    assert down["verdict"] == "H0" and down["llr"] <= lower
    assert up["deal_sets"] == 40 and up["score"] == pytest.approx(strong.mean())
    assert up["elo"] == pytest.approx(elo_of(strong.mean()))
    half = 2.022690920036761 * strong.std(ddof=1) / math.sqrt(40)  # Student's t, 39 df
    assert up["elo_lo"] == pytest.approx(elo_of(strong.mean() - half))
    assert up["elo_hi"] == pytest.approx(elo_of(strong.mean() + half))
    middle = sprt_from_scores(np.full(40, expected_score(2.5)) + rng.normal(0, 0.2, 40).clip(-0.4, 0.4), 0, 5)
    assert lower < middle["llr"] < upper and middle["verdict"] == "continue"
    json.dumps(up, allow_nan=False)


def test_no_verdict_from_no_evidence():
    """Ten deal sets that all score exactly 1/2 (two deterministic bots mirroring each other over
    duplicate deals) say nothing about how scores spread: the test continues, with fishtest's LLR
    for those counts, and no interval is drawn around the mean."""
    mirrored = sprt_from_scores(np.full(10, 0.5), 0, 5)
    assert mirrored["verdict"] == "continue" and mirrored["llr"] == pytest.approx(-0.139427638815399, rel=1e-9)
    assert mirrored["elo"] == 0.0 and mirrored["elo_lo"] is None and mirrored["elo_hi"] is None
    assert first_decision(np.full(150, 0.5), 0, 5, 0.05, 0.05) is None
    assert first_decision(np.full(1000, 0.5), 0, 5, 0.05, 0.05) == 204  # a long run of ½ is evidence
    assert first_decision(np.full(100, 0.5), 0, 50, 0.05, 0.05) == 20


def test_the_tests_taken_together_stop_where_each_alone_first_crosses_a_bound():
    """first_decisions (many simulated tests at once) gives, row by row, the first deal set at which the
    LLR of that row alone (``llr``, the definition) crosses a bound; rows with values the others
    never have (off the pentanomial grid) included."""
    rng = np.random.default_rng(3)
    runs = np.round(rng.beta(6, 5, size=(12, 600)) * 8) / 8  # eighths: some off the grid of quarters
    runs[3] = 0.5  # never decides in 600
    runs[4, :40] = 1.0  # decides at once
    elo0, elo1, alpha, beta = 0.0, 40.0, 0.05, 0.05
    lower, upper = bounds(alpha, beta)
    for row, n in zip(runs, first_decisions(runs, elo0, elo1, alpha, beta)):
        crossed = [k for k in range(MIN_DEAL_SETS, row.size + 1)
                   if not lower < llr(row[:k], elo0, elo1) < upper]
        assert n == (crossed[0] if crossed else None)
        assert first_decision(row, elo0, elo1, alpha, beta) == n


def test_no_verdict_before_the_minimum_number_of_deal_sets():
    ones = np.ones(MIN_DEAL_SETS - 1)
    early = sprt_from_scores(ones, 0, 200)
    assert early["verdict"] == "continue" and early["llr"] > early["upper"] and math.isfinite(early["llr"])
    assert early["elo"] is None and early["elo_hi"] is None  # an infinite Elo is reported as None
    json.dumps(early, allow_nan=False)
    assert sprt_from_scores(np.ones(MIN_DEAL_SETS), 0, 200)["verdict"] == "H1"
    assert first_decision(np.ones(30), 0, 200, 0.05, 0.05) == MIN_DEAL_SETS
    assert first_decision(np.ones(30), 0, 50, 0.05, 0.05) == 23  # 10 wins of 10 against 50 Elo: not yet
    empty = sprt_from_scores([], 0, 5)
    assert empty["deal_sets"] == 0 and empty["score"] is None and empty["verdict"] == "continue"


@pytest.mark.parametrize("elo0, elo1, alpha, beta, why", [
    (0, 5, 0.0, 0.05, "alpha"), (0, 5, 0.5, 0.05, "alpha"), (0, 5, 0.05, 0.7, "beta"), (5, 5, 0.05, 0.05, "elo1"),
    (10, 5, 0.05, 0.05, "elo1"), (float("nan"), 5, 0.05, 0.05, "elo0"), (0, float("inf"), 0.05, 0.05, "elo1"),
])
def test_bad_parameters_are_one_line_errors(elo0, elo1, alpha, beta, why):
    with pytest.raises(SprtError, match=why) as e:
        sprt_from_scores([0.5, 0.6], elo0, elo1, alpha, beta)
    assert "\n" not in str(e.value)


# Error rates on synthetic deal sets with a known Elo difference --------------------------------------

def deal_sets(rng, elo: float, count: int, matches: int = 4, tie: float = 0.1, spread: float = 20.0) -> np.ndarray:
    """Scores of ``count`` deal sets of a bot ``elo`` stronger: each deal set has its own win chance
    (Beta, so that its matches are correlated as duplicate deals are), and ``matches`` outcomes of
    1, 1/2 (probability ``tie``) or 0. The expected score is exactly ``expected_score(elo)``."""
    s = expected_score(elo)
    win = (s - tie / 2) / (1 - tie)  # mean win chance among decisive matches
    p = rng.beta(win * spread, (1 - win) * spread, size=(count, 1))
    u, v = rng.random((count, matches)), rng.random((count, matches))
    outcome = np.where(u < tie, 0.5, (v < p).astype(float))
    return outcome.mean(axis=1)


SIMULATIONS = 2000



@pytest.mark.parametrize("truth", ["H0", "H1"])
def test_sprt_reaches_the_right_verdict_at_the_nominal_error_rates(truth):
    """Bots truly elo0 apart are declared elo1 apart (H1) at rate alpha; truly elo1 apart, H0 at rate
    beta. Tolerance: 3 binomial standard errors of the nominal rate. (The normal approximation needs
    enough units: with elo1 = 20 here, about 350 deal sets a test, beta came out at 0.12.)"""
    elo0, elo1, alpha, beta = 0.0, 10.0, 0.05, 0.10
    rng = np.random.default_rng(20240517 if truth == "H0" else 7)
    wrong, undecided, lengths = 0, 0, []
    for scores, n in decided(rng, deal_sets, elo0 if truth == "H0" else elo1, SIMULATIONS, 15000, elo0, elo1, alpha, beta):
        if n is None:
            undecided += 1
            continue
        verdict = sprt_from_scores(scores[:n], elo0, elo1, alpha, beta)["verdict"]
        assert verdict in ("H0", "H1")
        wrong += verdict != truth
        lengths.append(n)
    nominal = alpha if truth == "H0" else beta
    rate = wrong / SIMULATIONS
    se = math.sqrt(nominal * (1 - nominal) / SIMULATIONS)
    assert undecided <= SIMULATIONS // 200
    assert abs(rate - nominal) <= 3 * se, (rate, nominal, se)
    assert 500 < np.mean(lengths) < 3000  # the test is sequential: it stops long before 15000


def mirrored_deal_sets(rng, elo: float, count: int, mirror: float = 0.8, draw: float = 0.1) -> np.ndarray:
    """Scores of ``count`` two-player deal sets of two seat rotations, of a bot ``elo`` stronger, where
    the two bots mirror each other on a share ``mirror`` of the deals (that deal set scores exactly
    1/2, each bot winning its seat) and play two independent games otherwise (a draw with chance
    ``draw``). The expected score is exactly ``expected_score(elo)``."""
    win = (expected_score(elo) - mirror / 2) / (1 - mirror) - draw / 2
    games = rng.random((count, 2))
    played = np.where(games < win, 1.0, np.where(games < win + draw, 0.5, 0.0)).mean(axis=1)
    return np.where(rng.random(count) < mirror, 0.5, played)


MIRRORED_SIMULATIONS = 1000


@pytest.mark.parametrize("truth, elo, seed", [("H0", 0.0, 11), ("H1", 5.0, 12), ("H1", 10.0, 13)])
def test_mirrored_deals_give_no_early_false_verdict(truth, elo, seed):
    """Bots that mirror each other on 80% of the deals (many deal sets of exactly 1/2), H0 elo 0, H1
    elo 5, alpha = beta = 0.05. A true +10 Elo (inside H1) or +5 is declared H0 at most at rate beta;
    a true 0 is declared H1 at most at rate alpha (bounds: 3 standard errors of the simulation). The
    normal approximation with a floored variance declared H0 in about 28% of the +10 tests, most
    after 10 to 20 deal sets."""
    elo0, elo1, alpha, beta = 0.0, 5.0, 0.05, 0.05
    rng = np.random.default_rng(seed)
    wrong, undecided = 0, 0
    for scores, n in decided(rng, mirrored_deal_sets, elo, MIRRORED_SIMULATIONS, 20000, elo0, elo1, alpha, beta):
        if n is None:
            undecided += 1
            continue
        wrong += sprt_from_scores(scores[:n], elo0, elo1, alpha, beta)["verdict"] != truth
    nominal = alpha if truth == "H0" else beta
    se = math.sqrt(nominal * (1 - nominal) / MIRRORED_SIMULATIONS)
    assert undecided <= MIRRORED_SIMULATIONS // 100
    assert wrong / MIRRORED_SIMULATIONS <= nominal + 3 * se, (wrong, nominal, se)


# Deal-set scores from match rows --------------------------------------------------------------------

def rows_of(run, variant, deal_set, match_id, seats, termination="complete"):
    """Match rows: ``seats`` a list of (bot, rank) in seat order."""
    return [{"run": run, "variant": variant, "deal_set": deal_set, "match_id": match_id, "seat": i, "bot": bot,
             "rank": rank, "termination": termination} for i, (bot, rank) in enumerate(seats)]


def test_deal_set_score_is_the_mean_over_its_matches_of_the_pairwise_outcome():
    rows = (rows_of("r", "v", 0, "m1", [("A", 1), ("B", 2), ("C", 3)])  # A beats B: 1
            + rows_of("r", "v", 0, "m2", [("B", 1), ("A", 1), ("C", 3)])  # tie: 1/2
            + rows_of("r", "v", 0, "m3", [("A", 2), ("C", 1), ("C", 3)])  # no B: not counted for B
            + rows_of("r", "v", 1, "m4", [("A", 2), ("B", 1), ("B", 3), ("C", 4)], "stalled")  # copies: (0 + 1) / 2
            + rows_of("r", "v", 1, "m5", [("A", 4), ("B", 1), ("B", 2), ("C", 3)]))  # 0
    frame = pl.DataFrame(rows).lazy()
    one = deal_set_scores(frame, "A", ["B"]).collect()
    assert one["deal_set"].to_list() == [0, 1]
    assert one["score"].to_list() == [0.75, 0.25]
    assert one["matches"].to_list() == [2, 2] and one["incomplete"].to_list() == [0, 1]
    field = deal_set_scores(frame, "A", None).collect()  # B and C pooled: the field
    # m1: (1 + 1) / 2; m2: (1/2 + 1) / 2; m3: (0 + 1) / 2; m4: (0 + 1 + 1) / 3; m5: 0
    assert field["score"].to_list() == pytest.approx([(1 + 0.75 + 0.5) / 3, (2 / 3 + 0) / 2])
    assert deal_set_scores(frame, "A", ["B", "C"]).collect().equals(field)


def test_sequential_test_scores_only_whole_deal_sets_and_stops_at_the_first_decision():
    planned = [{"id": f"d{d}-r{r}", "variant": "v", "deal_set": d} for d in range(30) for r in range(2)]
    test = SequentialTest(planned, "A", ["B"], 0, 200)
    rows = [rows_of("r", "v", d, f"d{d}-r{r}", [("A", 1), ("B", 2)] if r == 0 else [("B", 2), ("A", 1)])
            for d in range(30) for r in range(2)]
    state = test.add(row for d in range(12) for row in rows[2 * d])  # first matches only: no deal set whole
    assert state["deal_sets"] == 0 and not test.decided
    state = test.add(row for d in range(12) for row in rows[2 * d + 1])
    assert state["verdict"] == "H1" and state["deal_sets"] == MIN_DEAL_SETS and state["matches"] == 2 * MIN_DEAL_SETS
    assert state == {**sprt_from_scores(np.ones(MIN_DEAL_SETS), 0, 200), "bot": "A", "vs": "B",
                     "matches": 2 * MIN_DEAL_SETS, "incomplete": 0}
    assert test.add(row for r in rows[24:] for row in r) == state  # decided: nothing changes


# On a real run ------------------------------------------------------------------------------------

def by_hand(run_dir, bot, vs) -> list[float]:
    """Deal-set scores computed row by row in plain Python, as a check on the polars query."""
    table = pl.read_parquet(str(run_dir / "matches" / "*.parquet")).to_dicts()
    by_match: dict = {}
    for r in table:
        by_match.setdefault((r["deal_set"], r["match_id"]), []).append(r)
    per_set: dict = {}
    for (d, _), seats in sorted(by_match.items()):
        pairs = [(1.0 if a["rank"] < b["rank"] else 0.5 if a["rank"] == b["rank"] else 0.0)
                 for a in seats if a["bot"] == bot for b in seats if b["bot"] in vs]
        if pairs:
            per_set.setdefault(d, []).append(sum(pairs) / len(pairs))
    return [sum(v) / len(v) for _, v in sorted(per_set.items())]


def test_sprt_on_a_real_run_equals_a_computation_by_hand(tournament_run):
    runs = open_runs([tournament_run])
    result = sprt(runs, "builtin:pairs", "builtin:greedy", -50, 50)
    scores = by_hand(tournament_run, "builtin:pairs", {"builtin:greedy"})
    assert result["deal_sets"] == len(scores) == 6
    assert result["llr"] == pytest.approx(llr(scores, -50, 50), rel=1e-9)
    assert result["score"] == pytest.approx(np.mean(scores))
    plan = json.loads((tournament_run / "run.json").read_text())
    assert result["matches"] == len(plan["matches"])  # round robin of 3 at 4 seats: every table holds both
    assert result["incomplete"] == 0 and result["partial_deal_sets"] == 0
    field = sprt(runs, "builtin:greedy", None, 0, 50)
    assert field["vs"] == ["builtin:pairs", "builtin:random"]
    assert field["llr"] == pytest.approx(llr(by_hand(tournament_run, "builtin:greedy", set(field["vs"])), 0, 50))
    with pytest.raises(SprtError, match="builtin:nobody"):
        sprt(runs, "builtin:greedy", "builtin:nobody")
    with pytest.raises(SprtError, match="other than"):
        sprt(runs, "builtin:greedy", ["builtin:greedy"])


def test_deal_sets_missing_planned_matches_are_left_out(tournament_run, parts_run, tmp_path):
    run = tmp_path / "rr"
    shutil.copytree(parts_run, run)  # the same run, one part per task
    first = sorted((run / "matches").glob("*.parquet"))[0]
    lost = set(pl.read_parquet(first)["deal_set"])
    first.unlink()  # as if its task never finished
    result = sprt(open_runs([run]), "builtin:pairs", "builtin:greedy", -50, 50)
    assert result["deal_sets"] == 6 - len(lost) and result["partial_deal_sets"] >= 1
    kept = [s for d, s in enumerate(by_hand(tournament_run, "builtin:pairs", {"builtin:greedy"})) if d not in lost]
    assert result["llr"] == pytest.approx(llr(kept, -50, 50), rel=1e-9)


def test_cli_table_and_json(tournament_run):
    shown = runner.invoke(app, ["sprt", str(tournament_run), "--bot", "builtin:pairs", "--vs", "builtin:greedy",
                                "--elo0", "-50", "--elo1", "50"])
    assert shown.exit_code == 0, shown.output
    for word in ("SPRT: pairs vs greedy", "LLR", "bounds", "verdict", "continue", "deal sets", "Elo (95%)"):
        assert word in shown.stdout
    assert "6 complete deal sets (72 matches), the test needs at least 10" in shown.stdout
    out = runner.invoke(app, ["sprt", str(tournament_run), "--bot", "builtin:pairs", "--vs", "builtin:greedy",
                              "--elo0", "-50", "--elo1", "50", "--alpha", "0.1", "--beta", "0.2", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    expected = sprt(open_runs([tournament_run]), "builtin:pairs", "builtin:greedy", -50, 50, 0.1, 0.2)
    assert doc == expected and doc["lower"] == pytest.approx(math.log(0.2 / 0.9))
    pooled = runner.invoke(app, ["sprt", str(tournament_run), str(tournament_run), "--bot", "builtin:greedy",
                                 "--vs", "builtin:random", "--vs", "builtin:pairs", "--json"])
    assert json.loads(pooled.stdout)["vs"] == ["builtin:random", "builtin:pairs"]


def test_a_built_in_bot_may_be_named_by_its_short_name(tournament_run):
    """Tables print built-in bots without ``builtin:``; --bot and --vs take that name when no bot of the
    runs is labelled so, and give the same test as the full labels."""
    runs = open_runs([tournament_run])
    full = sprt(runs, "builtin:greedy", "builtin:random", -50, 50)
    assert sprt(runs, "greedy", "random", -50, 50) == full and full["bot"] == "builtin:greedy"
    assert sprt(runs, "greedy", ["builtin:random"], -50, 50) == full
    field = sprt(runs, "pairs", ["greedy", "random"])
    assert field["bot"] == "builtin:pairs" and field["vs"] == ["builtin:greedy", "builtin:random"]
    with pytest.raises(SprtError, match="other than"):
        sprt(runs, "greedy", "builtin:greedy")
    shown = runner.invoke(app, ["sprt", str(tournament_run), "--bot", "greedy", "--vs", "random", "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout) == json.loads(json.dumps(sprt(runs, "builtin:greedy", "builtin:random")))


def test_a_short_name_is_not_resolved_when_a_bot_bears_it():
    from results.sprt import resolve_label

    bots = ["builtin:greedy", "builtin:random", "greedy"]
    assert resolve_label("greedy", bots) == "greedy" and resolve_label("random", bots) == "builtin:random"
    assert resolve_label("builtin:greedy", bots) == "builtin:greedy"
    said = r"^bot pairs is not in the runs \(bots: builtin:greedy, builtin:random, greedy\)$"
    with pytest.raises(SprtError, match=said):
        resolve_label("pairs", bots)
    with pytest.raises(SprtError, match="not in the runs"):
        resolve_label("builtin:builtin:greedy", bots)


@pytest.mark.parametrize("args, says", [
    (["--bot", "builtin:nobody"], "not in the runs"),
    (["--bot", "nobody"], "bot nobody is not in the runs"),
    (["--bot", "greedy", "--vs", "nobody"], "bot nobody is not in the runs"),
    (["--bot", "builtin:greedy", "--vs", "builtin:greedy"], "other than"),
    (["--bot", "builtin:greedy", "--alpha", "0.5"], "--alpha"),
    (["--bot", "builtin:greedy", "--elo0", "5", "--elo1", "0"], "--elo1"),
    (["--bot", "builtin:greedy", "--game", "chess"], "no run of game"),
    (["--bot", "builtin:greedy", "--elo1", "abc"], "'--elo1'"),
])
def test_cli_bad_input_is_one_line_exit_2(tournament_run, args, says):
    """Through the real entry point (python -m harness), where usage errors are one line too."""
    out = in_process("sprt", tournament_run, *args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], out.stderr
    assert out.stdout == ""


def test_cli_missing_run_folder(tmp_path):
    out = runner.invoke(app, ["sprt", str(tmp_path / "none"), "--bot", "builtin:greedy"])
    assert out.exit_code == 2 and out.stderr.startswith("error: ") and out.stderr.count("\n") == 1


def test_the_elo_interval_tells_an_infinite_side_from_no_interval():
    """Both read "—": a side past every possible score (a bot that won nearly every deal set) and no
    interval at all (one deal set, or deal sets that all scored the same)."""
    from harness.cli.sprt import sprt_table
    from results.sprt import elo_words, paired_result

    def shown(r):
        return elo_words(r, lambda v: "—" if v is None else f"{v:+.1f}")

    near = sprt_from_scores([1.0] * 7 + [0.75], 0, 20)
    assert near["score_hi"] > 1 and near["elo_hi"] is None and near["elo_lo"] is not None
    assert shown(near) == f"{near['elo']:+.1f} [{near['elo_lo']:+.1f}, +∞]"
    assert "[−∞, " in shown(sprt_from_scores([0.0] * 7 + [0.25], 0, 20))
    assert shown(sprt_from_scores([1.0] * 8, 0, 20)) == "+∞, no interval (every deal set scored the same)"
    assert shown(sprt_from_scores([0.5] * 8, 0, 20)) == "+0.0, no interval (every deal set scored the same)"
    assert shown(sprt_from_scores([0.75], 0, 20)) == "+190.8, no interval (one deal set)"
    assert shown(sprt_from_scores([], 0, 20)) == "—"
    plain = sprt_from_scores([0.5, 0.75, 0.25, 0.5, 0.625], 0, 20)
    assert shown(plain) == f"{plain['elo']:+.1f} [{plain['elo_lo']:+.1f}, {plain['elo_hi']:+.1f}]"
    paired = paired_result([1.0] * 7 + [0.875], 0, 20)  # paired scores map back to the bots' scale
    assert paired["elo_hi"] is None and shown(paired).endswith(", +∞]")
    json.dumps(near, allow_nan=False)
    old = {k: v for k, v in near.items() if k not in ("score_lo", "score_hi")}  # a result recorded before
    assert shown(old) == f"{near['elo']:+.1f} [{near['elo_lo']:+.1f}, —]"
    row = {**near, "bot": "a", "vs": ["b"], "matches": 16}
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(sprt_table(row))
    assert "+∞]" in console.export_text()
