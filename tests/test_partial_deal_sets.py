"""Deal sets not played whole (issue 27, point 2): an interrupted duplicate run holds some seat
rotations of a deal set but not all; the ratings, the balance tables and the SPRT leave those deal
sets out by one rule (results/runs.py ``partial_deal_sets``) and say so."""

from __future__ import annotations

import shutil

import polars as pl

from results.balance import balance
from results.ratings import ratings
from results.runs import open_runs, partial_deal_sets
from results.sprt import sprt


def interrupted(tournament_run, tmp_path, lost=(1, 4)):
    """The round robin of ``tournament_run`` with one match of each deal set of ``lost`` never stored,
    as a run stopped while their tasks were playing: (runs, the deal sets touched)."""
    import pyarrow.parquet as pq

    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    matches = pl.read_parquet(run / "matches")
    gone = (matches.filter(pl.col("deal_set").is_in(list(lost))).group_by("deal_set")
            .agg(pl.col("match_id").min())["match_id"].to_list())
    for table in ("matches", "rounds"):
        for part in (run / table).glob("*.parquet"):
            stored = pq.read_table(part)
            kept = pl.from_arrow(stored).filter(~pl.col("match_id").is_in(gone))
            pq.write_table(kept.to_arrow().cast(stored.schema), part)
    return open_runs([run]), set(lost)


def test_every_analysis_leaves_out_the_deal_sets_not_played_whole(tournament_run, tmp_path):
    runs, lost = interrupted(tournament_run, tmp_path)
    partial = partial_deal_sets(runs)
    assert set(partial["deal_set"].to_list()) == lost and (partial["stored"] < partial["planned"]).all()
    stored = runs.matches.group_by("deal_set").agg(pl.col("match_id").n_unique()).collect()
    whole = int(stored.filter(~pl.col("deal_set").is_in(sorted(lost)))["match_id"].sum())

    rated = ratings(runs)
    assert rated["matches"]["total"] == whole and rated["partial_deal_sets"] == len(lost)
    assert rated["clusters"] == 6 - len(lost)
    assert any("not played whole" in w and "--resume" in w for w in rated["warnings"])

    tables = balance(runs)
    assert [v["deal_sets"] for v in tables["variants"]] == [6 - len(lost)]
    assert tables["variants"][0]["matches"] == whole and tables["partial_deal_sets"] == len(lost)
    assert any("not played whole" in w for w in tables["warnings"])

    test = sprt(runs, "builtin:pairs", "builtin:greedy", -50, 50)
    assert test["deal_sets"] == 6 - len(lost) and test["partial_deal_sets"] == len(lost)


def test_a_run_played_whole_has_no_partial_deal_set_and_no_warning(tournament_run):
    runs = open_runs([tournament_run])
    assert partial_deal_sets(runs).height == 0
    rated = ratings(runs)
    assert rated["partial_deal_sets"] == 0 and not any("not played whole" in w for w in rated["warnings"])
