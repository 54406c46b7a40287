"""The fair design (issue 25): no bot meets a deal twice, and results are paired with a control table.

A bot that meets a deal twice can carry it from one match to the other by any channel not yet found
(tests/test_page_cache.py closed one that did). Under the fair design (harness/runs/plan.py
``fair_plan``) a deal set's deal is played once by every bot that plays it, at tables that share no
bot, and once by a control table where the built-in reference bot holds every seat; a result is
scored against the control's in its seat (results/fair.py), and the SPRT tests the paired scores
(results/sprt.py ``paired_result``).
"""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from harness.runs.design import choose
from harness.runs.plan import PlanError, disjoint_rounds, make_plan, variant_grid
from simulated import decided
from results.fair import paired_deal_set_scores
from results.sprt import expected_score, paired_elo, paired_result, sprt_from_scores

REFERENCE = {"kind": "builtin", "label": "builtin:greedy", "name": "greedy", "version": "1", "hash": ""}


def folder_bot(name: str) -> dict:
    return {"kind": "folder", "label": f"{name}@1", "folder": f"/bots/{name}", "name": name, "version": "1",
            "hash": name * 8}


def plan_of(form: str, bots: list[dict], players: int, deal_sets: int, design: str = "fair") -> dict:
    variants = variant_grid("standard", {"rounds": 1}, [], players)
    return make_plan(name="t", seed=99, form=form, bots=bots, players=players, deal_sets=deal_sets,
                     variants=variants, design=design, control=REFERENCE)


def deals_met(plan: dict) -> Counter:
    """(bot, deal seed) -> the number of matches in which the bot met that deal (its copies at one
    table meet it in one match)."""
    return Counter((label, m["deal_seed"]) for m in plan["matches"] for label in set(m["seating"]))


SHAPES = [  # (format, bots, players)
    ("gauntlet", [folder_bot("mybot"), REFERENCE], 2),  # an uploaded bot against the reference
    ("gauntlet", [folder_bot("mybot"), REFERENCE], 4),  # against three copies of it
    ("gauntlet", [folder_bot("new"), folder_bot("old")], 2),  # mybot@2 against mybot@1: two folder bots
    ("round-robin", [folder_bot(n) for n in "abcd"], 2),  # a field: two tables a deal, as in duplicate bridge
    ("round-robin", [folder_bot(n) for n in "abcdefgh"], 4),
    ("round-robin", [folder_bot(n) for n in "abcde"], 4),
    ("round-robin", [folder_bot("a"), folder_bot("b")], 4),  # copies at every table
]


@pytest.mark.parametrize("form, bots, players", SHAPES)
def test_no_bot_meets_a_deal_twice_and_every_deal_set_has_its_control(form, bots, players):
    plan = plan_of(form, bots, players, deal_sets=12)
    met = deals_met(plan)
    programs = {b["label"] for b in bots if b["kind"] != "builtin"}
    assert max(n for (label, _), n in met.items() if label in programs) == 1
    for d, seed in enumerate(plan["deal_seeds"]):
        here = [m for m in plan["matches"] if m["deal_set"] == d]
        assert {m["deal_seed"] for m in here} == {seed}
        controls = [m for m in here if m.get("control")]
        assert len(controls) == 1 and controls[0]["seating"] == [REFERENCE["label"]] * players
        assert controls[0]["id"].endswith("-c") and len(here) >= 2
    assert plan["design"] == "fair" and plan["control"] == REFERENCE["label"]
    assert REFERENCE["label"] in {b["label"] for b in plan["bots"]}
    rotation = plan_of(form, bots, players, deal_sets=12, design="duplicate")  # the control of this test
    assert max(n for (label, _), n in deals_met(rotation).items() if label in programs) > 1


def test_a_bots_seat_cycles_and_a_field_plays_disjoint_tables_on_one_deal():
    plan = plan_of("gauntlet", [folder_bot("mybot"), REFERENCE], 4, deal_sets=8)
    seats = [m["seating"].index("mybot@1") for m in plan["matches"] if not m.get("control")]
    assert seats == [0, 1, 2, 3, 0, 1, 2, 3]
    assert disjoint_rounds([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]) == [[0, 5], [1, 4], [2, 3]]
    field = plan_of("round-robin", [folder_bot(n) for n in "abcd"], 2, deal_sets=3)
    assert [len([m for m in field["matches"] if m["deal_set"] == d]) for d in range(3)] == [3, 3, 3]


def test_the_fair_design_takes_one_variant_and_a_built_in_control():
    variants = variant_grid("standard", {}, [("threshold", ["51", "71"])], 2)
    with pytest.raises(PlanError, match="one variant"):
        make_plan(name="t", seed=1, form="gauntlet", bots=[folder_bot("a"), REFERENCE], players=2, deal_sets=2,
                  variants=variants, design="fair", control=REFERENCE)
    with pytest.raises(PlanError, match="built-in reference"):
        make_plan(name="t", seed=1, form="gauntlet", bots=[folder_bot("a"), REFERENCE], players=2, deal_sets=2,
                  variants=variants[:1], design="fair", control=folder_bot("b"))


def test_a_submitted_bot_plays_the_fair_design_and_local_studies_keep_rotation():
    assert choose("tournament", "gauntlet", 2, 2, None, submitted=True)[0] == "fair"
    assert choose("tournament", "gauntlet", 2, 2, None)[0] == "duplicate"
    assert choose("tournament", "gauntlet", 2, 2, True, submitted=True)[0] == "duplicate"  # --duplicate wins
    assert choose("tournament", "round-robin", 4, 3, None, design="fair")[0] == "fair"
    assert choose("sweep", "round-robin", 2, 2, None, submitted=True)[0] == "common"


# The estimator -------------------------------------------------------------------------------------

def rows(deal_set: int, match_id: str, seats: list[tuple[str, int]]) -> list[dict]:
    return [{"run": "r", "variant": "v", "deal_set": deal_set, "match_id": match_id, "seat": i, "bot": bot,
             "rank": rank, "termination": "complete"} for i, (bot, rank) in enumerate(seats)]


def test_a_result_is_paired_with_the_controls_result_in_the_same_seats():
    frame = pl.DataFrame(
        rows(0, "v0-d0-t0-r0", [("A", 1), ("B", 2)]) + rows(0, "v0-d0-c", [("R", 1), ("R", 2)])  # (1 - 1 + 1) / 2
        + rows(1, "v0-d1-t0-r1", [("B", 1), ("A", 2)]) + rows(1, "v0-d1-c", [("R", 2), ("R", 1)])  # (0 - 1 + 1) / 2
        + rows(2, "v0-d2-t0-r0", [("A", 1), ("B", 2)]) + rows(2, "v0-d2-c", [("R", 2), ("R", 1)])  # (1 - 0 + 1) / 2
        + rows(3, "v0-d3-t0-r0", [("A", 2), ("B", 1), ("B", 3), ("C", 4)])  # pairs with B seats 1 and 2
        + rows(3, "v0-d3-c", [("R", 3), ("R", 1), ("R", 2), ("R", 4)])  # x: 0, 1; c: 0, 0
        + rows(4, "v0-d4-t0-r0", [("A", 1), ("B", 2)])  # no control stored: not scored
    ).lazy()
    scored = paired_deal_set_scores(frame, "A", ["B"]).collect()
    assert scored["deal_set"].to_list() == [0, 1, 2, 3]
    assert scored["score"].to_list() == [0.5, 0.0, 1.0, (0.5 + 1.0) / 2]
    assert scored["matches"].to_list() == [1, 1, 1, 1]
    field = paired_deal_set_scores(frame, "A", None).collect()  # B and C: C's seat 3 adds x 1, c 1
    assert field["score"].to_list()[3] == pytest.approx((0.5 + 1.0 + 0.5) / 3)


def test_paired_hypotheses_and_estimate_map_back_to_the_bots_scale():
    assert expected_score(paired_elo(0.0)) == pytest.approx(0.5)
    assert expected_score(paired_elo(50.0)) == pytest.approx(expected_score(50.0) / 2 + 0.25)
    scores = np.full(40, expected_score(30.0) / 2 + 0.25)
    scores[::2] += 0.05
    scores[1::2] -= 0.05
    result = paired_result(scores, 0.0, 20.0)
    assert result["elo0"] == 0.0 and result["elo1"] == 20.0 and result["paired"]
    assert result["score"] == pytest.approx(expected_score(30.0)) and result["elo"] == pytest.approx(30.0)
    assert result["elo_lo"] < 30.0 < result["elo_hi"]
    assert result["llr"] == sprt_from_scores(scores, paired_elo(0.0), paired_elo(20.0))["llr"]


def fair_deal_sets(rng, elo: float, count: int, same: float = 0.75, draw: float = 0.1) -> np.ndarray:
    """Paired scores of ``count`` two-player deal sets of a bot ``elo`` stronger than its opponent: the
    control's seat wins (1) or loses (0) with chance 1/2; on a share ``same`` of the deals the deal
    decides and the match ends as the control did (correlation about 0.75, as measured on real
    bots: 0.72-0.84), otherwise the match is a game of its own (a draw with chance ``draw``). The
    bot's expected score is exactly ``expected_score(elo)``."""
    win = (expected_score(elo) - same / 2) / (1 - same) - draw / 2
    control = (rng.random(count) < 0.5).astype(float)
    u = rng.random(count)
    own = np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0))
    match = np.where(rng.random(count) < same, control, own)
    return (match - control + 1) / 2


SIMULATIONS = 1000


@pytest.mark.parametrize("truth, seed", [("H0", 251), ("H1", 252)])
def test_the_paired_sprt_reaches_the_right_verdict_at_the_nominal_error_rates(truth, seed):
    """As the SPRT's own check (tests/test_sprt.py): bots truly elo0 apart are declared elo1 apart at
    rate alpha at most, truly elo1 apart declared elo0 apart at rate beta at most (3 standard errors
    of the simulation)."""
    elo0, elo1, alpha, beta = 0.0, 20.0, 0.05, 0.05
    rng = np.random.default_rng(seed)
    wrong, undecided, lengths = 0, 0, []
    for scores, n in decided(rng, fair_deal_sets, elo0 if truth == "H0" else elo1, SIMULATIONS, 6000, paired_elo(elo0),
                             paired_elo(elo1), alpha, beta):
        if n is None:
            undecided += 1
            continue
        wrong += paired_result(scores[:n], elo0, elo1, alpha, beta)["verdict"] != truth
        lengths.append(n)
    nominal = alpha if truth == "H0" else beta
    se = math.sqrt(nominal * (1 - nominal) / SIMULATIONS)
    assert undecided <= SIMULATIONS // 100
    assert wrong / SIMULATIONS <= nominal + 3 * se, (wrong, nominal, se)
    assert 100 < np.mean(lengths) < 3000


# A whole run ----------------------------------------------------------------------------------------

def test_a_fair_gauntlet_runs_stops_by_its_paired_sprt_and_leaves_the_control_out_of_the_standings(tmp_path):
    from results.runs import open_runs
    from results.sprt import sprt

    run = tmp_path / "fair"
    shown = CliRunner().invoke(app, [
        "tournament", "run", "--executor", "local", "--format", "gauntlet", "--challenger", "builtin:pairs",
        "--bot", "builtin:random", "--players", "2", "--rounds", "1", "--deal-sets", "60", "--design", "fair",
        "--sprt", "--elo1", "100", "--seed", "5", "--quiet", "--out", str(run)])
    assert shown.exit_code == 0, shown.output
    plan = json.loads((run / "run.json").read_text())
    assert plan["design"] == "fair" and "builtin:greedy" in [b["label"] for b in plan["bots"]]
    recorded = json.loads((run / "sprt.json").read_text())
    assert recorded["verdict"] == "H1" and recorded["paired"] and recorded["deal_sets"] < 60
    again = sprt(open_runs([run]), "builtin:pairs", "builtin:random", 0, 100)
    assert again["paired"] and again["llr"] >= recorded["llr"] and again["score"] > 0.5
    standings = shown.output.split("Standings", 1)[1]
    assert "greedy" not in standings  # it played only the control tables
    mixed = CliRunner().invoke(app, ["tournament", "run", "--bot", "builtin:greedy", "--bot", "builtin:random",
                                     "--design", "fair", "--duplicate", "--out", str(tmp_path / "x")])
    assert mixed.exit_code == 2 and "--design or --duplicate" in mixed.output
