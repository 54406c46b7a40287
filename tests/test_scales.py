"""One rating convention (issue 27, point 4): one scale per table size and rules, the reference bot
at 1500 where it played, else the mean, said in the header; a pooled leaderboard says that it pools."""

from __future__ import annotations

import pytest

from results.ratings import ratings, ratings_by_rules
from results.runs import open_runs
from results.scales import anchor_of, label, scale_note


def test_each_table_size_and_rules_is_its_own_scale_with_the_reference_bot_at_1500(sweep_run):
    runs = open_runs([sweep_run])
    docs = ratings_by_rules(runs, reference="builtin:greedy")
    assert sorted(d["label"] for d in docs) == ["4 players, standard rules", "4 players, threshold=71"]
    for doc in docs:
        greedy = next(b for b in doc["bots"] if b["bot"] == "builtin:greedy")
        assert greedy["rating"] == pytest.approx(1500) and doc["anchor"] == "builtin:greedy"
        assert doc["scale"] == "Elo scale (theta*400/ln 10): builtin:greedy is 1500 (the reference bot)"
        assert len(doc["scales"]) == 1 and not any("pool" in w for w in doc["warnings"])
    assert sum(d["matches"]["total"] for d in docs) == ratings(runs)["matches"]["total"]


def test_a_pooled_leaderboard_says_that_it_pools_rule_variants(sweep_run, tournament_run):
    pooled = ratings(open_runs([sweep_run]))
    assert len(pooled["scales"]) == 2
    assert any(w.startswith("these ratings pool 2 table sizes or rules on one scale") for w in pooled["warnings"])
    single = ratings(open_runs([tournament_run]))
    assert len(single["scales"]) == 1 and not any("pool" in w for w in single["warnings"])


def test_without_the_reference_bot_the_mean_is_1500_and_the_header_says_why(tournament_run):
    runs = open_runs([tournament_run])
    doc = ratings(runs, reference="builtin:mc")
    assert doc["anchor"] is None
    assert doc["scale"] == ("Elo scale (theta*400/ln 10): the mean of the rated bots is 1500 "
                            "(builtin:mc did not play here)")
    rated = [b["rating"] for b in doc["bots"] if b["rating"] is not None]
    assert sum(rated) / len(rated) == pytest.approx(1500)
    asked = ratings(runs, anchor="builtin:pairs", reference="builtin:greedy")
    assert asked["anchor"] == "builtin:pairs" and asked["scale"].endswith("builtin:pairs is 1500")


def test_the_convention_in_pieces():
    assert anchor_of(["a", "b"], None, "b") == "b" and anchor_of(["a", "b"], "a", "b") == "a"
    assert anchor_of(["a"], "x", "y") is None
    assert scale_note(None) == "Elo scale (theta*400/ln 10): the mean of the rated bots is 1500"
    assert label("ellibir", "2|players=2|threshold=101|exhausted=score") == \
        "2 players, threshold=101, exhausted=score"
