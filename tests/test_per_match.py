"""Matches as a whole (results/per_match.py): running totals after each round, and per match the
deals, turns, the winner's margin, lead changes and comebacks, on matches written out by hand."""

from __future__ import annotations

import polars as pl

from results.per_match import low_wins, per_match, round_totals


def tables():
    """Two 2-seat matches of 3 rounds. m1: seat 0 leads after rounds 1 and 2, seat 1 wins (a comeback,
    one lead change; the tie after round 3 is broken by the ranks). m2: a void round first, seat 0
    leads throughout and wins by 30. Lower totals are better, as in Ellibir."""
    scores = {"m1": [(10, 40), (0, 20), (50, 0)], "m2": [(0, 0), (-100, 30), (5, -5)]}
    turns = {"m1": [20, 30, 10], "m2": [50, 12, 8]}
    rounds, matches = [], []
    for m, per_round in scores.items():
        for i, pair in enumerate(per_round):
            for seat, score in enumerate(pair):
                rounds.append({"run": "r", "match_id": m, "variant": "v", "deal_set": 0, "round_index": i,
                               "seat": seat, "score": score, "turns": turns[m][i], "void": m == "m2" and i == 0})
        totals = [sum(p[s] for p in per_round) for s in (0, 1)]
        ranks = [1, 2] if m == "m2" else [2, 1]
        matches += [{"run": "r", "match_id": m, "seat": s, "total": totals[s], "rank": ranks[s]} for s in (0, 1)]
    return pl.DataFrame(rounds).lazy(), pl.DataFrame(matches).lazy()


def test_running_totals_and_one_row_per_match():
    rounds, matches = tables()
    assert low_wins(matches)
    totals = round_totals(rounds).filter(pl.col("match_id") == "m1").collect()
    assert totals.filter(pl.col("seat") == 0)["total"].to_list() == [10, 10, 60]
    assert totals.filter(pl.col("seat") == 1)["total"].to_list() == [40, 60, 60]
    rows = {r["match_id"]: r for r in per_match(rounds, matches).collect().to_dicts()}
    assert (rows["m1"]["deals"], rows["m1"]["turns"], rows["m1"]["margin"]) == (3, 60, 0.0)
    assert rows["m1"]["lead_changes"] == 1 and rows["m1"]["comeback"] is True  # led by seat 0 after round 2 of 3
    assert (rows["m2"]["deals"], rows["m2"]["turns"], rows["m2"]["margin"]) == (3, 70, 120.0)
    assert rows["m2"]["lead_changes"] == 1 and rows["m2"]["comeback"] is False  # tied, then seat 0 alone
    assert rows["m2"]["spread"] == 60.0


def test_higher_totals_can_be_the_better_ones():
    rounds, matches = tables()
    flipped = matches.with_columns((3 - pl.col("rank")).alias("rank"))
    assert not low_wins(flipped)
    rows = {r["match_id"]: r for r in per_match(rounds, flipped).collect().to_dicts()}
    assert rows["m1"]["comeback"] is True  # seat 0 now wins m1; seat 1 (40, 60 against 10, 10) led at half time
    assert rows["m2"]["comeback"] is False  # seat 1 now wins m2, and led from round 2 (30 against -100)
