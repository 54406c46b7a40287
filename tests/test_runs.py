"""Opening run folders for analysis (results/runs.py): pooling, names, damaged files, bad folders."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from results.runs import RunError, open_runs
from results.sprt import sprt

runner = CliRunner()


def test_a_folder_given_twice_counts_once(tournament_run):
    once = open_runs([tournament_run]).matches.collect()
    twice = open_runs([tournament_run, tournament_run / ".." / tournament_run.name])
    assert twice.names == [tournament_run.name]
    assert twice.matches.collect().height == once.height


def test_two_runs_of_the_same_name_never_mix(tmp_path, tournament_run):
    a, b = tmp_path / "a" / "rr", tmp_path / "b" / "rr"
    shutil.copytree(tournament_run, a)
    shutil.copytree(tournament_run, b)
    runs = open_runs([a, b])
    assert runs.names == [str(a), str(b)]
    rows = runs.matches.collect()
    assert sorted(set(rows["run"])) == [str(a), str(b)]
    assert rows.group_by("run", "match_id").len()["len"].max() == 4  # still four seats a match
    one = sprt(open_runs([a]), "builtin:greedy", "builtin:random")
    both = sprt(runs, "builtin:greedy", "builtin:random")
    assert both["deal_sets"] == 2 * one["deal_sets"] and both["partial_deal_sets"] == 0


def test_a_sweep_s_variants_share_their_deal_sets_in_the_sprt(sweep_run):
    """Both variants of the sweep play the same 6 deal seeds: 6 units, not 12."""
    result = sprt(open_runs([sweep_run]), "builtin:greedy", "builtin:pairs")
    assert result["deal_sets"] == 6 and result["partial_deal_sets"] == 0


@pytest.mark.parametrize("command", [["ratings"], ["balance"], ["sprt", "--bot", "builtin:greedy"],
                                     ["report", "--html", "REPORT"]])
def test_a_damaged_part_is_one_line_naming_the_file(tmp_path, tournament_run, command):
    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    part = sorted((run / "rounds").glob("*.parquet"))[0]
    part.write_bytes(b"not parquet at all")
    args = [str(tmp_path / "report.html") if a == "REPORT" else a for a in command]
    done = runner.invoke(app, [args[0], str(run), *args[1:]])
    assert done.exit_code == 2, done.output
    assert done.stderr.count("\n") == 1 and part.name in done.stderr and "not a readable Parquet file" in done.stderr
    assert not (tmp_path / "report.html").exists()


def test_folders_that_are_not_runs(tmp_path):
    with pytest.raises(RunError, match="not a run folder"):
        open_runs([tmp_path])
    with pytest.raises(RunError, match="no such run folder"):
        open_runs([tmp_path / "nowhere"])
    with pytest.raises(RunError, match="at least one"):
        open_runs([])
