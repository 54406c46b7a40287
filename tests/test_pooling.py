"""Pooling runs (issue 27, point 5): matches counted by (run, match id) when runs share match ids,
and warnings for runs played by different bots, runs that share deal seeds, and rules a sweep
varied that never came into play."""

from __future__ import annotations

import shutil

import polars as pl

from results.balance import balance
from results.pooling import mixed_bots, pooling_warnings, shared_seeds, unexercised
from results.ratings import ratings
from results.report import facts
from results.runs import open_runs


def test_runs_that_share_match_ids_are_counted_whole_and_their_shared_seeds_said(tournament_run, tmp_path):
    again = tmp_path / "rr-again"
    shutil.copytree(tournament_run, again)  # the same plan: the same match ids and deal seeds
    one, both = open_runs([tournament_run]), open_runs([tournament_run, again])
    single = one.matches.select(pl.col("match_id").n_unique()).collect().item()
    assert ratings(both)["matches"]["total"] == 2 * single
    assert [v["matches"] for v in balance(both)["variants"]] == [2 * single]  # was `single`: ids counted once
    assert {b["bot"]: b["matches"] for b in facts(both)["bots"]} == \
        {b["bot"]: 2 * b["matches"] for b in facts(one)["bots"]}
    said = shared_seeds(both)
    assert len(said) == 1 and "share 6 deal seeds" in said[0] and "counted twice" in said[0]
    assert pooling_warnings(one) == []


def test_runs_played_by_different_bots_are_said_to_be(tournament_run, sweep_run):
    said = mixed_bots(open_runs([tournament_run, sweep_run]))
    assert len(said) == 1 and said[0].startswith("the runs pooled were played by different bots")
    assert "builtin:random" in said[0]


def test_a_varied_rule_that_never_came_into_play_is_said():
    variants = [{"label": "preset=standard", "rules": {"pairs_openings": [[4, 1], [5, 0]], "threshold": 51},
                 "openings": {"by_method": {"melds": {"rate": 0.4}}}},
                {"label": "preset=tr-wiki", "rules": {"pairs_openings": [[5, 0]], "threshold": 51},
                 "openings": {"by_method": {"melds": {"rate": 0.35}, "pairs": {"rate": 0.0}}}}]
    said = unexercised({"variants": variants})
    assert said == ["pairs_openings varies, but no seat opened by pairs in any variant: that rule never came into "
                    "play, so the comparison says nothing about it (the bots may never use it)"]
    variants[1]["openings"]["by_method"]["pairs"]["rate"] = 0.02
    assert unexercised({"variants": variants}) == []
    variants[0]["rules"]["pairs_openings"] = variants[1]["rules"]["pairs_openings"]  # not varied: nothing to say
    variants[1]["openings"]["by_method"]["pairs"]["rate"] = 0.0
    assert unexercised({"variants": variants}) == []
