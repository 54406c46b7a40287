"""The precision planner (issue 27, point 6): deal sets for a stated margin, after a run (from its own
interval) and before one (from an assumed spread), and the plan's line."""

from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from results.precision import (deal_sets_for, elo_deal_sets, plan_precision, rate_deal_sets,
                               rate_half_width)


def test_an_interval_narrows_as_one_over_the_root_of_the_deal_sets():
    assert deal_sets_for(6.0, 20, 2.0) == 180  # three times narrower: nine times the deal sets
    assert deal_sets_for(1.0, 50, 2.0) == 13
    assert deal_sets_for(0.0, 20, 2.0) is None and deal_sets_for(math.nan, 20, 2.0) is None


@settings(max_examples=200, deadline=None)
@given(st.floats(0.02, 0.98), st.floats(1, 200), st.floats(0.002, 0.2), st.floats(0.2, 5))
def test_the_planned_deal_sets_reach_the_margin_and_one_fewer_does_not(rate, trials, margin, deff):
    n = rate_deal_sets(margin, rate, trials, deff)
    assert rate_half_width(rate, trials, n, deff) <= margin * (1 + 1e-9)
    if n > 2:
        assert rate_half_width(rate, trials, n - 1, deff) > margin


def test_elo_planning_is_the_bradley_terry_variance_of_even_bots():
    # ±10 Elo on two even bots at 2 matches a deal set: (1.96 * 2 * 173.7 / 10)^2 / 2 matches
    assert elo_deal_sets(10, 2) == math.ceil((1.959963984540054 * 2 * 400 / math.log(10) / 10) ** 2 / 2)


def test_the_plan_line_states_the_precision_and_the_deal_sets_a_margin_takes():
    sweep = {"players": 4, "deal_sets": 30, "variants": [{"rules": {"rounds": 3}}, {"rules": {"rounds": 3}}],
             "matches": [{}] * 60}
    line = plan_precision(sweep)
    # a difference of two shares near 1/4 over 90 rounds a variant: 1.96 * sqrt(2 * 3/16 / 90) = 12.7 points;
    # ±2 points: 1.96^2 * 2 * 3/16 / (3 rounds * 0.02^2) = 1,200.5 deal sets
    assert line.startswith("precision: ±12.7 points on the first player's share of rounds, variant against "
                           "variant with 30 deal sets; ±2 points takes about 1,201 deal sets")
    single = plan_precision({**sweep, "variants": sweep["variants"][:1], "matches": [{}] * 120})
    assert "±4.5 points on the first player's share of rounds with 30 deal sets" in single


def test_one_deal_set_promises_no_interval():
    """Every interval is over deal sets, so one deal set gives none: the plan line said "±69.3 points
    with 1 deal sets" and the skill line "about ±39.2 points a round"."""
    from results.precision import skill_precision

    plan = {"players": 4, "deal_sets": 1, "variants": [{"rules": {"rounds": 1}}], "matches": [{}] * 4}
    line = plan_precision(plan)
    assert line.startswith("precision: none on the first player's share of rounds with 1 deal set (an interval "
                           "needs 2 or more); ±2 points takes about ") and "deal sets;" not in line.split("takes")[0]
    assert skill_precision(plan).startswith("skill: no interval on each skill gap with 1 deal set; ±2 takes about ")
    assert "±" in plan_precision({**plan, "deal_sets": 2}).split(" on ")[0]
