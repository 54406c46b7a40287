"""The SPRT's answer to "how far from a verdict?" and its one order of deal sets (issue 27, points 2
and 6): the deal sets left if the rest score like those seen, twins under symmetric hypotheses, and
the live test taking deal sets in plan order as ``sprt`` and ``--resume`` do."""

from __future__ import annotations

import numpy as np
import pytest

from results.sprt import MIN_DEAL_SETS, SequentialTest, first_decision, remaining, sprt_from_scores


def test_twins_reach_h0_after_the_deal_sets_fishtest_needs_and_the_projection_says_so():
    """Deal sets that all score 1/2 decide H0 (elo0 0, elo1 5) at deal set 204, as in fishtest; after
    any number of them the projection names that same deal set."""
    when = first_decision(np.full(1000, 0.5), 0, 5, 0.05, 0.05)
    assert when == 204
    for seen in (10, 50, 203):
        assert remaining(np.full(seen, 0.5), 0, 5, 0.05, 0.05) == when - seen
    assert sprt_from_scores(np.full(204, 0.5), 0, 5)["remaining"] == 0


def test_twins_under_symmetric_hypotheses_never_decide_and_the_result_says_so():
    scores = np.full(500, 0.5)
    result = sprt_from_scores(scores, -5, 5)
    assert result["llr"] == pytest.approx(0.0, abs=1e-12) and result["verdict"] == "continue"
    assert result["remaining"] is None and result["symmetric"]
    assert first_decision(np.full(20_000, 0.5), -5, 5, 0.05, 0.05) is None
    assert not sprt_from_scores(scores, 0, 5)["symmetric"]


def test_the_projection_agrees_with_the_path_of_a_steady_sample():
    """Scores drawn again and again from one distribution: the projection after 40 deal sets is within
    a few percent of where the exact LLR of those counts, repeated, first crosses a bound."""
    base = np.array([0.0, 0.25, 0.5, 0.5, 0.5, 0.75, 0.75, 1.0])  # mean 0.53: about +21 Elo
    seen = np.tile(base, 5)
    left = remaining(seen, 0, 10, 0.05, 0.05)
    when = first_decision(np.tile(base, 10_000), 0, 10, 0.05, 0.05)
    assert left is not None and abs((seen.size + left) - when) <= 0.05 * when + len(base), (left, when)


def rows_of(deal_set: int, match: int, a_first: bool) -> list[dict]:
    ranks = ((1, 2) if a_first else (2, 1))
    return [{"run": "r", "variant": "v", "deal_set": deal_set, "match_id": f"d{deal_set}-m{match}", "seat": seat,
             "bot": bot, "rank": rank, "termination": "complete"} for seat, (bot, rank) in enumerate(zip("AB", ranks))]


def test_the_live_test_takes_deal_sets_in_plan_order_whatever_order_they_finish_in():
    """A deal set that finishes before those planned ahead of it waits for them, so the live test sees
    the scores in the order ``sprt`` (and ``--resume``) sees them, and decides at the same deal set."""
    scores = [1.0] * 11 + [0.0] * 20
    planned = [{"id": f"d{d}-m{m}", "variant": "v", "deal_set": d} for d in range(len(scores)) for m in range(2)]
    rows = {d: rows_of(d, 0, s == 1.0) + rows_of(d, 1, s == 1.0) for d, s in enumerate(scores)}
    in_plan = SequentialTest(planned, "A", ["B"], 0, 200)
    for d in range(len(scores)):
        in_plan.add(rows[d])
    shuffled = SequentialTest(planned, "A", ["B"], 0, 200)
    for d in range(len(scores) - 1, 0, -1):  # the last planned finishes first, deal set 0 last of all
        state = shuffled.add(rows[d])
        assert state["deal_sets"] == 0  # deal set 0 is not in yet: nothing after it is scored
    state = shuffled.add(rows[0])
    assert state == in_plan.state
    assert state["verdict"] == "H1" and state["deal_sets"] == first_decision(scores, 0, 200, 0.05, 0.05)
    assert state["deal_sets"] >= MIN_DEAL_SETS


def test_the_report_says_how_far_the_test_is_from_a_verdict():
    from results.report_parts import remaining_text

    assert remaining_text(sprt_from_scores(np.full(50, 0.5), 0, 5)) == \
        "about 154 more, if the deal sets to come score like those so far"
    assert remaining_text(sprt_from_scores(np.full(50, 0.5), -5, 5)).startswith("none in sight: the hypotheses are "
                                                                                 "symmetric about 0")
    assert remaining_text(sprt_from_scores(np.full(204, 0.5), 0, 5)) == "none: decided"
