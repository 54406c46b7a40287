"""Variant balance (results/balance.py, ``ellibir balance``): known answers on synthetic runs, the A/A
test of the paired comparisons, and the command on real runs made by the tournament code."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from typer.testing import CliRunner

from engine.rules import make_rules
from harness.cli.main import app
from results.balance import balance as balance_of
from results.balance import labels
from results.comparisons import CompareError, choose_pairs, compare, resolve
from results.runs import open_runs
from results.schema import rule_value
from results.rows import play_values
from results.store import RunStore

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

# The synthetic run: variants A (threshold 51) and B (threshold 71), 4 players, 4 deal sets, one
# match per variant and deal set, 10 rounds per match. Every comparison metric but one varies from
# deal set to deal set, so each paired difference has a spread to test (the expected figures are
# worked out below from these tables, independently of results/). The position that wins each
# round (None: a void round), per variant and deal set:
WINNERS = {
    "A": [[1, 1, 1, 1, 2, 2, 3, 3, 4, None], [1, 1, 1, 2, 2, 3, 3, 4, None, None],
          [1, 1, 1, 1, 1, 2, 3, 4, 4, None], [1, 1, 2, 2, 3, 4, 4, 4, 4, None]],
    "B": [[1, 2, 3, 4, 1, 2, 3, 4, None, None]] * 4,  # the same in every deal set: no spread in B's win rates
}
DEALS = 4
FINISHES = {"A": [(1, 1), (2, 0), (1, 2), (0, 1)], "B": [(0, 0)] * 4}  # (G2, G4) rounds won, per deal set
PEN_O4 = {"A": [1, 2, 3, 1], "B": [0] * 4}  # position 4 pays 50 in the first rounds of the deal set
PEN_A5 = {"A": [0] * 4, "B": [0, 1, 2, 3]}  # position 2 pays 10 × this in the first round
MELDS_AT_4 = {"A": [0, 1, 2, 3], "B": [0] * 4}  # position 4 opens by melds in the first rounds


def _turns(v: str, d: int, i: int, void: bool) -> int:
    if v == "A":
        return 50 if void else 20 + i
    return (55 if void else 25 + i) + d


def _opening(v: str, d: int, i: int, position: int):
    if position == 4:
        return ("melds", 5) if i < MELDS_AT_4[v][d] else (None, None)
    if v == "A":
        return ("pairs", 2) if position == 1 else ("melds", 5)
    return "melds", 4


def _finish(v: str, d: int, i: int) -> tuple[bool, bool]:
    """(G2, G4): the first G2 rounds of the deal set were won by G2, the next G4 by G4."""
    g2, g4 = FINISHES[v][d]
    return i < g2, g2 <= i < g2 + g4


def _round_rows(v: str, d: int, match_id: str) -> list[dict]:
    rows = []
    for i, winner in enumerate(WINNERS[v][d]):
        dealer, void = i % 4, winner is None
        first = (dealer + 1) % 4
        g2, g4 = _finish(v, d, i)
        for seat in range(4):
            position = (seat - first) % 4 + 1
            won = position == winner
            method, turn = _opening(v, d, i, position)
            rows.append({
                "game": "ellibir", "run": "synthetic", "match_id": match_id, "deal_set": d, "variant": VARIANT[v],
                "round_index": i, "round_number": 0 if void else i + 1, "seat": seat, "bot": "builtin:greedy",
                "stand_in": False, "dealer": dealer,
                "position": position, "score": 0 if won else 10, "won": won, "turns": _turns(v, d, i, void),
                "void": void, "opened": method is not None, "open_method": method,
                "open_value": None if method is None else 60, "open_turn": turn, "declared": False, "star": False,
                "finish_G2": won and g2, "finish_G3": False, "finish_G4": won and g4, "multiplier": 1,
                "pen_O4": 50 if (position == 4 and i < PEN_O4[v][d]) else 0,
                "pen_A5": 10 * PEN_A5[v][d] if (position == 2 and i == 0) else 0,
                "cards_left": 0 if won else 5, "left_value": 0 if won else 20, "end": "exhausted" if void else "out",
            })
    return rows


def expected_counts(v: str, d: int) -> dict:
    """Each comparison metric of one variant and deal set as (numerator, denominator), from the tables above."""
    winners = WINNERS[v][d]
    played = [w for w in winners if w is not None]
    g2, g4 = FINISHES[v][d]
    pairs = 10 if v == "A" else 0
    melds = (20 if v == "A" else 30) + MELDS_AT_4[v][d]
    void = 10 - len(played)
    return {**{f"win_p{p}": (played.count(p), len(played)) for p in (1, 2, 3, 4)},
            "void": (void, 10), "turns": (sum(_turns(v, d, i, w is None) for i, w in enumerate(winners)), 10),
            "exhausted": (void, 10), "finish_G2": (g2, len(played)), "finish_G3": (0, len(played)),
            "finish_G4": (g4, len(played)), "open_melds": (melds, 40), "open_pairs": (pairs, 40),
            "pen_O4": (50 * PEN_O4[v][d], 40), "pen_A5": (10 * PEN_A5[v][d], 40)}


def _match_rows(v: str, d: int, match_id: str, rules) -> list[dict]:
    rules_cols = {f"rule_{k}": rule_value(x) for k, x in rules.normalised().items()}
    ranks = {"A": [4, 3, 2, 1], "B": [1, 1, 3, 4]}[v]
    return [{"game": "ellibir", "run": "synthetic", "match_id": match_id, "deal_set": d, "seat": s,
             "bot": "builtin:greedy", "bot_version": "0.1.0", "bot_hash": "", "total": 10 * s + d if v == "A" else -s,
             "rank": ranks[s], "termination": "complete", "faults": 0, "fault_reason": None,
             "variant": VARIANT[v], **play_values([], 0, None), **rules_cols} for s in range(4)]


RULES = {"A": make_rules("standard", {"players": 4, "threshold": 51}),
         "B": make_rules("standard", {"players": 4, "threshold": 71})}
VARIANT = {v: r.variant_id for v, r in RULES.items()}


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("balance") / "synthetic"
    store = RunStore(run)
    for v in ("A", "B"):
        matches, rounds = [], []
        for d in range(DEALS):
            mid = f"{v}-d{d}"
            matches += _match_rows(v, d, mid, RULES[v])
            rounds += _round_rows(v, d, mid)
        store.write_part(f"part-{v}", RULES[v], matches, rounds, {})
    (run / "run.json").write_text(json.dumps({"game": "ellibir", "variants": [{"id": VARIANT["A"]}, {"id": VARIANT["B"]}]}))
    return run


@pytest.fixture(scope="module")
def report(synthetic) -> dict:
    return balance_of(open_runs([synthetic]), margin={"rates": 0.5, "turns": 0.5, "pen_O4": 0.5})


def test_variants_in_plan_order_with_labels_rules_and_counts(report):
    a, b = report["variants"]
    assert (a["variant"], b["variant"]) == (VARIANT["A"], VARIANT["B"])
    assert (a["label"], b["label"]) == ("threshold=51", "threshold=71")
    assert a["rules"]["threshold"] == 51 and a["rules"]["pairs_openings"] == "[[4,1],[5,0]]"
    assert (a["matches"], a["rounds"], a["deal_sets"]) == (4, 40, 4)
    assert report["game"] == "ellibir" and report["runs"] == ["synthetic"] and report["correction"] == "holm"
    json.dumps(report)  # JSON-able


def _wilson(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def _per_deal_wins(v: str) -> tuple[np.ndarray, np.ndarray]:
    """Wins and non-void rounds by position (columns) in each deal set (rows), from WINNERS."""
    wins = np.array([[w.count(p) for p in (1, 2, 3, 4)] for w in WINNERS[v]], dtype=float)
    played = np.array([[sum(x is not None for x in w)] * 4 for w in WINNERS[v]], dtype=float)
    return wins, played


def imbalance_by_hand(wins, played) -> dict:
    """The seat imbalance written out: RMS distance of the position rates from their mean, minus the
    mean sampling variance of those distances (linearised over deal sets, G/(G-1)), floored at 0."""
    g, k = wins.shape
    rate = wins.sum(axis=0) / played.sum(axis=0)
    raw = np.mean((rate - rate.mean()) ** 2)
    z = (wins - rate * played) / (played.sum(axis=0) / g)
    dev = z - z.mean(axis=1, keepdims=True)
    cov = g / (g - 1) * dev.T @ dev / g ** 2
    return {"value": math.sqrt(max(raw - np.trace(cov) / k, 0)), "raw": math.sqrt(raw), "replicates": 1000}


def test_wins_by_position_chi_square_and_balance(report):
    """A's wins by position vary between deal sets: the intervals and the uniformity test are those of
    the per-deal-set counts. B's are the same in every deal set: no spread to measure, so they count
    every round (design effect 0, Wilson on all rounds, Pearson's test) rather than claiming certainty."""
    from results.stats import cluster_rate, rao_scott

    a, b = report["variants"]
    assert [(p["position"], p["rounds"], p["wins"]) for p in a["positions"]] == [
        (1, 35, 14), (2, 35, 7), (3, 35, 6), (4, 35, 8)]
    wins, played = _per_deal_wins("A")
    for j, p in enumerate(a["positions"]):
        r = cluster_rate(wins[:, j], played[:, j])
        assert (p["rate"], p["lo"], p["hi"], p["deff"]) == pytest.approx((r.rate, r.lo, r.hi, r.deff)) and r.deff > 0
    c = a["chi2"]
    assert c["pearson"] == pytest.approx(31 / 7) and c["method"] == "rao-scott" and c["clusters"] == DEALS
    assert {k: c[k] for k in ("stat", "df", "p", "deff")} == pytest.approx(
        {k: getattr(rao_scott(wins, played.sum(axis=0)), k) for k in ("stat", "df", "p", "deff")})
    by_hand = imbalance_by_hand(wins, played)
    assert {k: a["imbalance"][k] for k in by_hand} == pytest.approx(by_hand, abs=1e-12)
    assert 0 < a["imbalance"]["value"] < a["imbalance"]["raw"]
    assert a["imbalance"]["lo"] <= a["imbalance"]["value"] <= a["imbalance"]["hi"]
    assert a["dealer"] == {"position": 4, **{k: a["positions"][3][k] for k in ("rate", "lo", "hi", "deff")}}
    t3 = sps.t.ppf(0.975, DEALS - 1)
    for p in b["positions"]:
        assert (p["rounds"], p["wins"], p["rate"], p["deff"]) == (32, 8, 0.25, 0)
        assert (p["lo"], p["hi"]) == pytest.approx(_wilson(8, 32, z=t3)) and p["hi"] - p["lo"] > 0.3
    assert b["chi2"]["method"] == "pearson: no spread between clusters" and b["chi2"]["pearson"] == 0
    assert b["chi2"]["p"] == 1 and b["chi2"]["deff"] == 0
    assert (b["imbalance"]["value"], b["imbalance"]["raw"], b["imbalance"]["hi"]) == (0, 0, 0)
    assert a["chi2"]["p_adj"] == pytest.approx(min(1, 2 * min(a["chi2"]["p"], 1)))  # Holm over the two variants
    assert b["chi2"]["p_adj"] == 1


def test_seat_statistics_from_the_matches_table(report):
    a, b = report["variants"]
    totals = np.arange(DEALS)  # seat s scored 10 s + d in deal set d
    half = sps.t.ppf(0.975, DEALS - 1) * totals.std(ddof=1) / math.sqrt(DEALS)
    for s, row in enumerate(a["seat_scores"]):  # one match per deal set: the t interval over deal sets
        assert row["seat"] == s and row["mean"] == pytest.approx(10 * s + 1.5)
        assert (row["lo"], row["hi"]) == pytest.approx((10 * s + 1.5 - half, 10 * s + 1.5 + half))
        assert row["se"] == pytest.approx(totals.std(ddof=1) / 2) and row["deff"] == pytest.approx(1)
    assert [(w["seat"], w["matches"], w["wins"]) for w in a["seat_wins"]] == [(0, 4, 0), (1, 4, 0), (2, 4, 0), (3, 4, 4)]
    assert a["seat_wins"][3]["deff"] is None  # a rate of 1 has no spread to measure
    assert a["seat_wins"][3]["lo"] == pytest.approx(_wilson(4, 4, z=sps.t.ppf(0.975, DEALS - 1))[0])
    assert [w["rate"] for w in b["seat_wins"]] == [1, 1, 0, 0]  # a tie for first counts for both
    # every total the same: no interval (one of no width read as certainty: "0.0 – 0.0" in an all-void run)
    assert [b["seat_scores"][1][k] for k in ("mean", "lo", "hi")] == [-1, None, None]


def test_round_length_void_and_ends(report):
    a, b = report["variants"]
    t = a["turns"]
    flat = [50 if w is None else 20 + i for winners in WINNERS["A"] for i, w in enumerate(winners)]
    assert t["mean"] == pytest.approx(np.mean(flat)) and t["sd"] == pytest.approx(np.std(flat, ddof=1))
    assert [t["p10"], t["median"], t["p90"]] == pytest.approx(list(np.percentile(flat, [10, 50, 90])))
    assert t["hist"] == [[20 + i, 4] for i in range(8)] + [[28, 3], [50, 5]]
    assert a["void_rate"]["rate"] == pytest.approx(5 / 40) and b["void_rate"]["rate"] == pytest.approx(0.2)
    assert {e: r["rate"] for e, r in a["ends"].items()} == pytest.approx({"exhausted": 5 / 40, "out": 35 / 40})


def test_game_sections_from_the_column_conventions(report):
    a, b = report["variants"]
    assert {x: r["rate"] for x, r in a["finish"].items()} == pytest.approx(
        {"G2": 4 / 35, "G3": 0, "G4": 4 / 35, "none": 27 / 35})  # none: won without G2, G3 or G4
    assert {x: r["rate"] for x, r in b["finish"].items()} == {"G2": 0, "G3": 0, "G4": 0, "none": 1}
    assert {m: r["rate"] for m, r in a["openings"]["by_method"].items()} == pytest.approx(
        {"pairs": 40 / 160, "melds": 86 / 160})
    assert a["openings"]["by_turn"] == [[2, 40], [5, 86]] and b["openings"]["by_turn"] == [[4, 120]]
    assert a["penalties"] == pytest.approx({"O4": 350 / 160, "A5": 0.0})
    assert b["penalties"] == pytest.approx({"O4": 0.0, "A5": 60 / 160})


PRIMARY = ["win_p1", "win_p2", "win_p3", "win_p4", "void", "turns"]
EXPLORATORY = ["exhausted", "finish_G2", "finish_G3", "finish_G4", "open_melds", "open_pairs", "pen_O4", "pen_A5"]
METRICS = PRIMARY + EXPLORATORY


def ratio_by_hand(metric: str) -> dict:
    """The pooled rates of A and B, b - a, its linearised standard error over the 4 deal sets and the t test."""
    (ka, na), (kb, nb) = (np.array([expected_counts(v, d)[metric] for d in range(DEALS)], dtype=float).T
                          for v in ("A", "B"))
    ra, rb = ka.sum() / na.sum(), kb.sum() / nb.sum()
    z = (kb - rb * nb) / nb.mean() - (ka - ra * na) / na.mean()
    se = math.sqrt(DEALS / (DEALS - 1) * (z ** 2).sum()) / DEALS
    half = sps.t.ppf(0.975, DEALS - 1) * se
    p = 2 * sps.t.sf(abs(rb - ra) / se, DEALS - 1) if se > 1e-12 else None
    return {"mean_a": ra, "mean_b": rb, "diff": rb - ra, "lo": rb - ra - half, "hi": rb - ra + half, "p": p, "se": se}


def holm_by_definition(p: dict) -> dict:
    """Holm's adjusted p-values: the i-th smallest of m gets max over j <= i of min(1, (m - j + 1) p_(j))."""
    ranked = sorted(p, key=p.get)
    m, out, running = len(ranked), {}, 0.0
    for j, name in enumerate(ranked):
        running = max(running, min(1.0, (m - j) * p[name]))
        out[name] = running
    return out


def test_paired_comparisons_with_known_differences(report):
    """Each metric's a and b are the pooled rates of the variant tables (one estimate per quantity); b - a
    has the linearised standard error over deal sets and a t test on 3 df. The primary family (win rate
    by position, void, turns) is adjusted by Holm; the rest is exploratory, adjusted by BH among
    themselves. finish_G3 (0 under both) gets p = 1 outside the families; open_pairs (-0.25 in every
    deal set) has no spread to test: no p-value, no verdict."""
    rows = {r["metric"]: r for r in report["comparisons"] if r["family"] != "match"}
    assert list(rows) == METRICS
    assert all(r["a"] == VARIANT["A"] and r["b"] == VARIANT["B"] and r["n"] == DEALS for r in rows.values())
    assert {m: r["family"] for m, r in rows.items()} == {**{m: "primary" for m in PRIMARY},
                                                        **{m: "exploratory" for m in EXPLORATORY}}
    a, b = report["variants"]
    assert rows["void"]["mean_a"] == a["void_rate"]["rate"] and rows["void"]["mean_b"] == b["void_rate"]["rate"]
    assert rows["win_p1"]["mean_a"] == pytest.approx(a["positions"][0]["rate"])
    assert rows["turns"]["mean_a"] == pytest.approx(a["turns"]["mean"])
    tested = [m for m in METRICS if m not in ("finish_G3", "open_pairs")]
    for m in tested:
        want = ratio_by_hand(m)
        assert want["se"] > 0.001, m  # the fixture gives each one a spread
        r = rows[m]
        assert {k: r[k] for k in ("mean_a", "mean_b", "diff", "lo", "hi", "p")} == pytest.approx(
            {k: want[k] for k in ("mean_a", "mean_b", "diff", "lo", "hi", "p")}), m
    assert (rows["turns"]["diff"], rows["pen_O4"]["diff"]) == pytest.approx((8.15, -350 / 160))
    g3, pairs = rows["finish_G3"], rows["open_pairs"]
    assert (g3["diff"], g3["p"], g3["p_adj"], g3["significant"]) == (0, 1, 1, False)
    assert (pairs["diff"], pairs["lo"], pairs["hi"]) == (-0.25, -0.25, -0.25)
    assert pairs["p"] is None and pairs["p_adj"] is None and pairs["significant"] is None
    primary = {m: rows[m]["p"] for m in PRIMARY}
    assert {m: rows[m]["p_adj"] for m in PRIMARY} == pytest.approx(holm_by_definition(primary))
    explored = [m for m in EXPLORATORY if m not in ("finish_G3", "open_pairs", "exhausted")]
    assert [rows[m]["p_adj"] for m in explored] == pytest.approx(
        list(sps.false_discovery_control([rows[m]["p"] for m in explored])))
    # every exhausted round of the fixture is void: one quantity, tested once, under its first name
    assert rows["exhausted"]["same_as"] == "void" and rows["exhausted"]["p_adj"] is None
    assert rows["exhausted"]["significant"] is None and all(rows[m]["same_as"] is None for m in explored)


def test_equivalence_within_the_margin(report):
    """TOST from the same standard error (t on 3 df) on the metrics given a margin (rates, turns, pen_O4
    at 0.5), adjusted within each family; the two without spread have no equivalence test."""
    rows = {r["metric"]: r for r in report["comparisons"]}

    def tost(m):
        w = ratio_by_hand(m)
        return max(sps.t.sf((w["diff"] + 0.5) / w["se"], 3), sps.t.cdf((w["diff"] - 0.5) / w["se"], 3))

    primary = {m: tost(m) for m in PRIMARY}
    assert {m: rows[m]["p_equiv"] for m in PRIMARY} == pytest.approx(holm_by_definition(primary))
    explored = ["finish_G2", "finish_G4", "open_melds", "pen_O4"]  # exhausted: the same figure as void
    assert [rows[m]["p_equiv"] for m in explored] == pytest.approx(
        list(sps.false_discovery_control([tost(m) for m in explored])))
    assert rows["win_p1"]["equivalent"] is True and rows["turns"]["equivalent"] is False
    assert rows["pen_O4"]["equivalent"] is False
    for m in ("finish_G3", "open_pairs", "pen_A5"):  # no spread, no spread, no margin
        assert rows[m]["p_equiv"] is None and rows[m]["equivalent"] is None
    assert rows["finish_G3"]["margin"] == 0.5 and rows["pen_A5"]["margin"] is None
    assert report["margin"]["win_p1"] == report["margin"]["turns"] == 0.5 and rows["turns"]["margin"] == 0.5


def test_a_plain_margin_is_for_the_rates_only_and_metrics_are_named(synthetic):
    """Margins are in each metric's own units: a bare number never applies to turns or penalties."""
    doc = balance_of(open_runs([synthetic]), margin=0.5)
    rows = {r["metric"]: r for r in doc["comparisons"]}
    assert rows["void"]["margin"] == 0.5 and rows["win_p1"]["equivalent"] is True
    assert rows["turns"]["margin"] is None and rows["turns"]["equivalent"] is None and "turns" not in doc["margin"]
    assert rows["pen_O4"]["equivalent"] is None
    turns_only = balance_of(open_runs([synthetic]), margin={"turns": 20.0})
    assert set(turns_only["margin"]) == {"turns"}
    with pytest.raises(ValueError, match="no such metric"):
        balance_of(open_runs([synthetic]), margin={"length": 2.0})


def test_exploratory_uses_benjamini_hochberg_for_the_primary_family_too(synthetic):
    doc = balance_of(open_runs([synthetic]), exploratory=True)
    rows = {r["metric"]: r for r in doc["comparisons"]}
    assert doc["correction"] == "bh" and doc["margin"] is None
    expected = sps.false_discovery_control([rows[m]["p"] for m in PRIMARY])
    assert [rows[m]["p_adj"] for m in PRIMARY] == pytest.approx(list(expected))
    assert rows["open_pairs"]["p_adj"] is None and rows["open_pairs"]["significant"] is None
    assert all(r["equivalent"] is None for r in doc["comparisons"])


def test_cli_shows_a_dash_for_a_difference_without_spread(synthetic):
    doc = _json(synthetic, "--margin", "0.5")
    pairs = next(r for r in doc["comparisons"] if r["metric"] == "open_pairs")
    assert pairs["p"] is None and pairs["significant"] is None and pairs["equivalent"] is None
    text = runner.invoke(app, ["balance", str(synthetic), "--margin", "0.5"], env={"COLUMNS": "200"})
    assert text.exit_code == 0, text.output
    (line,) = [ln for ln in text.stdout.splitlines() if ln.strip().startswith("open_pairs")]
    cells = line.split()
    assert cells[1] == "exploratory"
    assert cells[-7:] == ["-0.250,", "-0.250", "—", "—", "—", "—", "(±0.5)"]  # CI, p, adjusted, differ, within ±M
    (line,) = [ln for ln in text.stdout.splitlines() if ln.strip().startswith("win_p1")]
    assert "—" not in line and line.split()[1] == "primary" and line.split()[-2:] == ["yes", "(±0.5)"]
    assert "seat imbalance" in text.stdout and "the dealer (position 4) wins" in text.stdout


def test_bad_options_raise_value_errors(synthetic):
    runs = open_runs([synthetic])
    for margin in (0, -0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="margin"):
            balance_of(runs, margin=margin)


# A game with only the common columns, where several seats may win a round -------------------------


@pytest.fixture(scope="module")
def plain_game(tmp_path_factory) -> Path:
    """Game 'toy', 3 players, one variant: positions 1 and 2 both win every round, no game columns."""
    run = tmp_path_factory.mktemp("balance") / "toy"
    (run / "matches").mkdir(parents=True)
    (run / "rounds").mkdir()
    rounds, matches = [], []
    for d in range(5):
        mid = f"m{d}"
        for i in range(6):
            dealer = i % 3
            for seat in range(3):
                position = (seat - (dealer + 1)) % 3 + 1
                rounds.append({"game": "toy", "run": "toy", "match_id": mid, "deal_set": d, "variant": "v1",
                               "round_index": i, "round_number": i + 1, "seat": seat, "dealer": dealer,
                               "position": position, "score": 1, "won": position <= 2, "turns": 7 + d,
                               "void": False, "tricks": 3})
        matches += [{"game": "toy", "run": "toy", "match_id": mid, "deal_set": d, "seat": s, "total": s, "rank": 3 - s,
                     "variant": "v1", "rule_players": 3} for s in range(3)]
    pl.DataFrame(rounds).write_parquet(run / "rounds" / "t.parquet")
    pl.DataFrame(matches).write_parquet(run / "matches" / "t.parquet")
    (run / "run.json").write_text(json.dumps({"game": "toy"}))
    return run


def test_a_game_without_the_conventional_columns_gets_the_common_sections(plain_game):
    doc = balance_of(open_runs([plain_game]))
    (v,) = doc["variants"]
    assert v["label"] == "all" and v["rules"] == {"players": 3}
    assert [(p["position"], p["rounds"], p["wins"]) for p in v["positions"]] == [(1, 30, 30), (2, 30, 30), (3, 30, 0)]
    assert v["imbalance"]["value"] == pytest.approx(math.sqrt(2 / 9)) == pytest.approx(v["imbalance"]["raw"])
    assert v["chi2"]["pearson"] == pytest.approx(sps.chisquare([30, 30, 0]).statistic)
    # The same in every deal set: no spread to correct by, so Pearson's test over all rounds.
    assert v["chi2"]["deff"] == 0 and v["chi2"]["method"] == "pearson: no spread between clusters"
    assert v["chi2"]["p"] == pytest.approx(sps.chisquare([30, 30, 0]).pvalue)
    assert v["turns"]["mean"] == pytest.approx(9) and v["void_rate"]["rate"] == 0
    assert not {"ends", "finish", "openings", "penalties"} & set(v)
    assert doc["comparisons"] == []


# Duplicate deals: the deal set, not the round, is the unit ------------------------------------------

# Game 'toy', 4 players, one variant, 8 deal sets of 4 rounds; the position that wins each round of
# each deal set (the deal decides it, whoever sits where):
DEAL_WINNERS = [[1, 1, 2, 4], [2, 3, 1, 1], [2, 1, 1, 3], [4, 4, 1, 2], [3, 2, 3, 1], [3, 1, 1, 4], [4, 1, 4, 2],
                [2, 3, 1, 1]]


def _replayed_run(folder: Path, replays: int, deals=DEAL_WINNERS) -> Path:
    """Each deal set played ``replays`` times (as under seat rotations) with the same outcome each time."""
    run = folder / f"replayed{replays}-{len(deals)}"
    (run / "matches").mkdir(parents=True)
    (run / "rounds").mkdir()
    rounds, matches = [], []
    for d, winners in enumerate(deals):
        for r in range(replays):
            mid = f"d{d}-r{r}"
            for i, winner in enumerate(winners):
                for seat in range(4):
                    position = (seat - (i + 1)) % 4 + 1
                    rounds.append({"game": "toy", "run": "toy", "match_id": mid, "deal_set": d, "variant": "v1",
                                   "round_index": i, "round_number": i + 1, "seat": seat, "dealer": i % 4,
                                   "position": position, "score": 0, "won": position == winner, "turns": 9,
                                   "void": False})
            matches += [{"game": "toy", "run": "toy", "match_id": mid, "deal_set": d, "seat": s,
                         "total": 7 * s + d * d - 3 * (s == d % 4), "rank": 1 + (s + d) % 4, "variant": "v1",
                         "rule_players": 4} for s in range(4)]
    pl.DataFrame(rounds).write_parquet(run / "rounds" / "t.parquet")
    pl.DataFrame(matches).write_parquet(run / "matches" / "t.parquet")
    (run / "run.json").write_text(json.dumps({"game": "toy"}))
    return run


def test_replaying_the_same_deals_adds_no_evidence(tmp_path):
    """Playing every deal set 12 times with the same outcomes multiplies the counts by 12, and so the
    uncorrected chi-square, but leaves the intervals and the Rao–Scott test as they are (design
    effects 12 times larger): the deal set is the unit."""
    (one,) = balance_of(open_runs([_replayed_run(tmp_path, 1)]))["variants"]
    (many,) = balance_of(open_runs([_replayed_run(tmp_path, 12)]))["variants"]
    assert [p["wins"] for p in many["positions"]] == [12 * p["wins"] for p in one["positions"]] == [12 * w for w in
                                                                                                  (13, 7, 6, 6)]
    assert many["chi2"]["pearson"] == pytest.approx(12 * one["chi2"]["pearson"]) == pytest.approx(12 * 34 / 8)
    assert sps.chi2.sf(many["chi2"]["pearson"], 3) < 1e-6  # rounds taken as independent: "unfair"
    assert one["chi2"]["p"] > 0.05
    for key in ("stat", "df", "p"):
        assert many["chi2"][key] == pytest.approx(one["chi2"][key])
    assert many["chi2"]["deff"] == pytest.approx(12 * one["chi2"]["deff"])
    for a, b in zip(one["positions"], many["positions"]):
        assert (b["lo"], b["hi"]) == pytest.approx((a["lo"], a["hi"])) and b["deff"] == pytest.approx(12 * a["deff"])
    for a, b in zip(one["seat_scores"] + one["seat_wins"], many["seat_scores"] + many["seat_wins"]):
        assert (b["lo"], b["hi"]) == pytest.approx((a["lo"], a["hi"]))
    assert many["deal_sets"] == one["deal_sets"] == len(DEAL_WINNERS)


def test_one_deal_set_gives_no_intervals_and_no_test(tmp_path):
    run = _replayed_run(tmp_path, 4, DEAL_WINNERS[:1])
    (v,) = _json(run)["variants"]
    assert v["deal_sets"] == 1 and v["chi2"]["p"] is None and v["chi2"]["method"] == "none: fewer than 2 clusters"
    assert v["chi2"]["pearson"] == pytest.approx(8.0)
    assert all(p["lo"] is None and p["deff"] is None for p in v["positions"])
    assert all(s["lo"] is None for s in v["seat_scores"] + v["seat_wins"])
    text = runner.invoke(app, ["balance", str(run)])
    assert text.exit_code == 0 and "no test (fewer than 2 deal sets)" in text.stdout


def test_clustered_figures_on_a_real_sweep_agree_with_the_counts_per_deal_set(sweep_run):
    """The report's position intervals, uniformity test and seat figures are those of results.stats on
    the counts per deal set, read here straight from the run's Parquet files."""
    from results.stats import cluster_mean, cluster_rate, rao_scott

    doc = balance_of(open_runs([sweep_run]))
    v = doc["variants"][0]
    rounds = RunStore(sweep_run).scan("rounds").filter(pl.col("variant") == v["variant"], ~pl.col("void")).collect()
    table = (rounds.group_by("deal_set", "position").agg(pl.col("won").sum().alias("wins"), pl.len().alias("n"))
             .sort("deal_set", "position"))
    wins = table.pivot("position", index="deal_set", values="wins").sort("deal_set").drop("deal_set").to_numpy()
    played = table.pivot("position", index="deal_set", values="n").sort("deal_set").drop("deal_set").to_numpy()
    assert wins.shape == (6, 4)
    for j, p in enumerate(v["positions"]):
        r = cluster_rate(wins[:, j], played[:, j])
        assert (p["rate"], p["lo"], p["hi"], p["deff"]) == pytest.approx((r.rate, r.lo, r.hi, r.deff))
    test = rao_scott(wins, played.sum(axis=0))
    assert {k: v["chi2"][k] for k in ("stat", "df", "p", "deff", "pearson", "clusters", "method")} == pytest.approx(
        test.to_dict())
    matches = RunStore(sweep_run).scan("matches").filter(pl.col("variant") == v["variant"]).collect()
    for seat, row in enumerate(v["seat_scores"]):
        per = (matches.filter(pl.col("seat") == seat).group_by("deal_set")
               .agg(pl.col("total").sum(), pl.len(), (pl.col("total") ** 2).sum().alias("sq")).sort("deal_set"))
        m = cluster_mean(per["total"].to_numpy(), per["len"].to_numpy(), per["sq"].to_numpy())
        assert (row["mean"], row["lo"], row["hi"], row["deff"]) == pytest.approx((m.mean, m.lo, m.hi, m.deff))
    assert v["chi2"]["p"] > 1e-4  # 6 deal sets can't show what the 144 rounds seemed to (Pearson p about 2e-7)


# The paired comparison: A/A and a planted difference -------------------------------------------------


def _deal_frame(rng, n_deals: int, shift: float = 0.0) -> pl.DataFrame:
    """Per deal set, two variants' counts from one deal-level distribution (plus ``shift`` for B): a
    rate (wins of 48 rounds) and turns (over 12 rounds)."""
    p = rng.beta(6, 18, n_deals)  # the deal's own difficulty
    mean_turns = rng.uniform(20, 40, n_deals)
    rows = []
    for v, extra in (("A", 0.0), ("B", shift)):
        wins = rng.binomial(48, np.clip(p + extra, 0, 1))
        turns = rng.poisson(12 * mean_turns)
        rows += [{"variant": v, "run": "r", "deal_set": d, "first__k": float(wins[d]), "first__n": 48.0,
                  "turns__k": float(turns[d]), "turns__n": 12.0} for d in range(n_deals)]
    return pl.DataFrame(rows)


PAIR = [("A", "B")]


def test_a_a_identical_variants_are_declared_different_at_the_nominal_rate():
    """1000 simulated sweeps of two identical variants on 30 shared deals: the share declared different
    (one metric, so Holm leaves p as it is) lies within 3 binomial SE of α = 0.05; with two metrics
    Holm keeps the family-wise rate at or below α."""
    rng = np.random.default_rng(1234)
    sims, alpha = 1000, 0.05
    one, family = [], []
    for _ in range(sims):
        frame = _deal_frame(rng, 30)
        one.append(compare(frame, PAIR, [("first", "primary")])[0]["significant"])
        family.append(any(r["significant"] for r in compare(frame, PAIR, [("first", "primary"), ("turns", "primary")])))
    se = math.sqrt(alpha * (1 - alpha) / sims)
    assert abs(np.mean(one) - alpha) <= 3 * se, np.mean(one)
    assert np.mean(family) <= alpha + 3 * se, np.mean(family)


def test_a_planted_difference_is_found_and_covered():
    rng = np.random.default_rng(99)
    found, covered = [], []
    for _ in range(200):
        row = compare(_deal_frame(rng, 60, shift=0.05), PAIR, [("first", "primary")])[0]
        found.append(row["significant"])
        covered.append(row["lo"] <= 0.05 <= row["hi"])
    assert np.mean(found) >= 0.9
    se = math.sqrt(0.05 * 0.95 / 200)
    assert abs(np.mean(covered) - 0.95) <= 3 * se + 0.02  # the clip at 0 and 1 bends the shift a little


def test_compare_pairs_only_shared_deal_sets():
    frame = pl.DataFrame({"variant": ["A", "A", "A", "B", "B", "B"], "run": ["r"] * 6, "deal_set": [0, 1, 2, 1, 2, 3],
                          "x__k": [1.0, 2.0, 0.0, 3.0, 5.0, 9.0], "x__n": [4.0] * 6})
    (row,) = compare(frame, PAIR, [("x", "primary")])
    assert row["n"] == 2 and row["mean_a"] == pytest.approx(2 / 8) and row["mean_b"] == pytest.approx(8 / 8)
    assert row["family"] == "primary" and row["p"] is not None


VARIANTS = ["v51", "v71", "v101", "v151", "v201"]
RULES_OF = {v: {"threshold": int(v[1:]), "star_bonus": v == "v201"} for v in VARIANTS}
LABELS = {v: f"threshold={v[1:]}" for v in VARIANTS}


def test_which_pairs_are_compared_and_labels():
    """Up to four variants: every pair; more: each against the first, with a note; asked pairs or a
    baseline, named by their fields, take over."""
    four = VARIANTS[:4]
    pairs, note = choose_pairs(four, RULES_OF, LABELS)
    assert len(pairs) == 6 and pairs[0] == ("v51", "v71") and note == "every pair of variants"
    pairs, note = choose_pairs(VARIANTS, RULES_OF, LABELS)
    assert pairs == [("v51", v) for v in VARIANTS[1:]] and "each against the first (threshold=51)" in note
    assert "--baseline" in note and "--compare" in note
    pairs, note = choose_pairs(VARIANTS, RULES_OF, LABELS, asked=["threshold=71:threshold=101", "v51:v201"])
    assert pairs == [("v71", "v101"), ("v51", "v201")] and note == "the 2 comparison(s) asked for"
    pairs, note = choose_pairs(VARIANTS, RULES_OF, LABELS, baseline="threshold=101")
    assert pairs == [("v101", v) for v in VARIANTS if v != "v101"] and "baseline threshold=101" in note
    assert resolve("threshold=201,star_bonus=true", VARIANTS, RULES_OF, LABELS) == "v201"
    with pytest.raises(CompareError, match="names 2 variants"):
        resolve("star_bonus=false", ["v51", "v71"], RULES_OF, LABELS)
    with pytest.raises(CompareError, match="'threshold=5' names no variant; variants: threshold=51"):
        resolve("threshold=5", VARIANTS, RULES_OF, LABELS)
    for bad in ("threshold=51", "threshold=51:threshold=51", ":threshold=51"):
        with pytest.raises(CompareError, match="--compare"):
            choose_pairs(VARIANTS, RULES_OF, LABELS, asked=[bad])
    got = labels({"x": {"threshold": 51, "star_bonus": False, "rounds": 2},
                  "y": {"threshold": 71, "star_bonus": True, "rounds": 2}})
    assert got == {"x": "star_bonus=false, threshold=51", "y": "star_bonus=true, threshold=71"}
    assert labels({"x": {"threshold": 51}}) == {"x": "all"}


# The command on real runs ----------------------------------------------------------------------------


def _json(*args) -> dict:
    result = runner.invoke(app, ["balance", *map(str, args), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cli_on_a_real_sweep(sweep_run):
    doc = _json(sweep_run)
    assert [v["label"] for v in doc["variants"]] == ["threshold=51", "threshold=71"]
    for v in doc["variants"]:
        assert len(v["positions"]) == 4 and sum(p["rounds"] for p in v["positions"]) == 4 * (v["rounds"] - round(
            v["void_rate"]["rate"] * v["rounds"]))
        assert v["matches"] > 0 and v["deal_sets"] == 6 and set(v["finish"]) == {"G2", "G3", "G4", "none"}
        assert set(v["penalties"]) == {"O4", "A5"} and set(v["ends"]) <= {"out", "exhausted", "max_turns"}
    assert doc["comparisons"] and all(r["n"] == 6 for r in doc["comparisons"])
    assert doc["correction"] == "holm" and all(r["equivalent"] is None for r in doc["comparisons"])
    assert doc["pairs_note"] == "every pair of variants"
    for v in doc["variants"]:  # one estimate per quantity: the comparison's a and b are the tables' figures
        for r in doc["comparisons"]:
            if r["metric"] == "void":
                mine = r["mean_a"] if r["a"] == v["variant"] else r["mean_b"]
                assert mine == pytest.approx(v["void_rate"]["rate"])
        why = v.get("void_why", {})
        assert sum(x["rate"] for x in why.values()) == pytest.approx(v["void_rate"]["rate"])
        assert set(why) <= {"nobody opened", "stock ran out after an opening", "turn limit", "other"}
        assert set(v["openings"]["win_share"]) <= {"melds", "pairs"} and v["imbalance"]["replicates"] == 1000
    text = runner.invoke(app, ["balance", str(sweep_run)])
    assert text.exit_code == 0 and "round wins by position" in text.stdout and "paired comparison" in text.stdout


def test_cli_margin_and_exploratory_on_a_real_sweep(sweep_run):
    doc = _json(sweep_run, "--margin", "0.05", "--margin", "turns=2", "--exploratory")
    assert doc["correction"] == "bh" and doc["margin"]["turns"] == 2 and doc["margin"]["void"] == 0.05
    assert all(isinstance(r["equivalent"], bool) for r in doc["comparisons"] if r["p_equiv"] is not None)
    assert {r["metric"]: r["margin"] for r in doc["comparisons"]}["turns"] == 2
    text = runner.invoke(app, ["balance", str(sweep_run), "--margin", "0.05"])
    assert text.exit_code == 0 and "±0.05" in text.stdout


def test_cli_compare_and_baseline_on_a_real_sweep(sweep_run):
    asked = _json(sweep_run, "--compare", "threshold=71:threshold=51")
    assert {(r["a"], r["b"]) for r in asked["comparisons"]} == {(asked["variants"][1]["variant"],
                                                                 asked["variants"][0]["variant"])}
    assert asked["pairs_note"] == "the 1 comparison(s) asked for"
    base = _json(sweep_run, "--baseline", "threshold=71")
    assert base["pairs_note"] == "each variant against the baseline threshold=71"
    for args, says in ((["--compare", "threshold=5:threshold=51"], "'threshold=5' names no variant"),
                       (["--compare", "threshold=51"], "expected A:B"),
                       (["--compare", "threshold=51:threshold=71", "--baseline", "threshold=51"], "not both")):
        out = runner.invoke(app, ["balance", str(sweep_run), *args])
        assert out.exit_code == 2 and out.stderr.startswith("error: ") and says in out.stderr, out.output


def test_cli_on_a_real_tournament(tournament_run):
    doc = _json(tournament_run)
    (v,) = doc["variants"]
    assert v["label"] == "all" and doc["comparisons"] == [] and v["matches"] == 72
    assert sum(w["matches"] for w in v["seat_wins"]) == 4 * 72
    text = runner.invoke(app, ["balance", str(tournament_run), "--game", "ellibir"])
    assert text.exit_code == 0 and "matches by seat" in text.stdout


@pytest.mark.parametrize("args", [
    ["/no/such/run"],
    ["{run}", "--margin", "0"],
    ["{run}", "--margin", "-1"],
    ["{run}", "--margin", "nan"],
    ["{run}", "--margin", "length=2"],
    ["{run}", "--game", "chess"],
    ["{empty}"],
])
def test_cli_bad_input_is_one_line_and_exit_2(args, tournament_run, tmp_path):
    result = runner.invoke(app, ["balance", *[a.format(run=tournament_run, empty=tmp_path) for a in args]])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert result.stdout == ""


@pytest.mark.parametrize("args", [[], ["{run}", "--margin", "wide"]])
def test_cli_usage_errors_through_the_console_entry_point(args, tournament_run):
    args = [a.format(run=tournament_run) for a in args]
    done = subprocess.run([sys.executable, "-m", "harness", "balance", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert done.stdout == ""
