"""``tournament run --format gauntlet --sprt``: real gauntlets (through the command line, in this process)
that stop as soon as the sequential test decides, leave a consistent run folder, and play nothing
more on --resume."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import polars as pl
import pytest

from harness.arena.registry import Arena, remove_tree
from harness.sandbox.bubblewrap import sandbox_available
from results.sprt import MIN_DEAL_SETS
from cli_runs import ROOT, in_process, matches_table

GAUNTLET = ["tournament", "run", "--executor", "local", "--format", "gauntlet", "--challenger", "builtin:greedy", "--bot", "builtin:random",
            "--rounds", 1, "--seed", 11, "--workers", 2, "--quiet"]


def files(run_dir: Path) -> dict:
    return {str(p.relative_to(run_dir)): p.stat().st_mtime_ns for p in run_dir.rglob("*") if p.is_file()}


def assert_consistent(run_dir: Path) -> pl.DataFrame:
    """Every stored match is planned, whole (one row per seat), complete and stored once; every part
    has its three files; no temporary file is left."""
    plan = json.loads((run_dir / "run.json").read_text())
    table = matches_table(run_dir)
    planned = {m["id"] for m in plan["matches"]}
    assert set(table["match_id"]) <= planned
    assert table.select("match_id", "seat").n_unique() == table.height
    seats = table.group_by("match_id").len()
    assert set(seats["len"]) == {plan["players"]}
    assert set(table["termination"]) == {"complete"}
    parts = {p.name.removesuffix(".parquet") for p in (run_dir / "matches").glob("*.parquet")}
    assert parts == {p.name.removesuffix(".parquet") for p in (run_dir / "rounds").glob("*.parquet")}
    assert parts == {p.name.removesuffix(".jsonl.gz") for p in (run_dir / "logs").glob("*.jsonl.gz")}
    assert not [p for p in run_dir.rglob(".*") if p.name != ".lock"]  # no temporary file left (.lock: the run lock)
    return table


def test_gauntlet_stops_once_the_sprt_decides_and_resume_plays_nothing(tmp_path):
    run_dir = tmp_path / "g"
    run = in_process(*GAUNTLET, "--players", 2, "--deal-sets", 60, "--sprt", "--elo0", 0, "--elo1", 50,
                     "--out", run_dir)
    assert run.returncode == 0, run.stderr
    assert "H1 accepted: greedy is stronger than random" in run.stdout
    assert "the SPRT has decided" in run.stdout and "--resume" not in run.stderr
    plan = json.loads((run_dir / "run.json").read_text())
    assert len(plan["matches"]) == 60 * 2  # run.json stays the whole plan
    assert plan["sprt"] == {"bot": "builtin:greedy", "vs": ["builtin:random"], "elo0": 0.0, "elo1": 50.0,
                            "alpha": 0.05, "beta": 0.05}
    record = json.loads((run_dir / "sprt.json").read_text())
    assert record["verdict"] == "H1" and record["llr"] >= record["upper"]
    assert MIN_DEAL_SETS <= record["deal_sets"] <= 40 and record["matches"] == 2 * record["deal_sets"]
    table = assert_consistent(run_dir)
    stored = table["match_id"].n_unique()
    assert record["stored_matches"] == stored and record["planned_matches"] == 120
    assert 2 * record["deal_sets"] <= stored < 120  # stopped early: fewer matches than planned
    assert f"{stored} of 120 planned matches" in run.stdout

    analysed = in_process("sprt", run_dir, "--bot", "builtin:greedy", "--vs", "builtin:random", "--elo1", 50, "--json")
    assert analysed.returncode == 0, analysed.stderr
    assert json.loads(analysed.stdout)["verdict"] == "H1"

    before = files(run_dir)
    again = in_process("tournament", "run", "--executor", "local", "--resume", run_dir, "--workers", 2, "--quiet")
    assert again.returncode == 0, again.stderr
    assert "nothing to play" in again.stdout and "H1 accepted" in again.stdout and "(0 played now)" in again.stdout
    assert files(run_dir) == before

    (run_dir / "sprt.json").unlink()  # lost (a hard kill right after the decision): the stored deal sets decide again
    again = in_process("tournament", "run", "--executor", "local", "--resume", run_dir, "--workers", 2, "--quiet")
    assert again.returncode == 0, again.stderr
    assert "nothing to play" in again.stdout and "(0 played now)" in again.stdout
    assert json.loads((run_dir / "sprt.json").read_text())["verdict"] == "H1"
    assert {k: v for k, v in files(run_dir).items() if k != "sprt.json"} == \
        {k: v for k, v in before.items() if k != "sprt.json"}


def test_four_player_gauntlet_against_one_bot_of_the_field_from_a_config_file(tmp_path):
    config = tmp_path / "g.toml"
    config.write_text('format = "gauntlet"\nchallenger = "builtin:greedy"\nbots = ["builtin:random", "builtin:pairs"]\n'
                      'players = 4\nrounds = 1\ndeal_sets = 30\nseed = 2\nworkers = 2\nquiet = true\n'
                      'sprt = true\nvs = "builtin:random"\nelo0 = 0\nelo1 = 50\nalpha = 0.05\nbeta = 0.1\n')
    run_dir = tmp_path / "g"
    run = in_process("tournament", "run", "--executor", "local", "--config", config, "--out", run_dir)
    assert run.returncode == 0, run.stderr
    plan = json.loads((run_dir / "run.json").read_text())
    assert plan["sprt"]["vs"] == ["builtin:random"] and plan["sprt"]["beta"] == 0.1
    record = json.loads((run_dir / "sprt.json").read_text())
    assert record["verdict"] == "H1" and record["vs"] == "builtin:random"
    # copies of a field bot at a 4-seat table: independent deals by default, 2 tables once per deal set
    per_deal_set = len(plan["matches"]) // 30
    assert plan["design"] == "independent" and "copies of a bot" in plan["design_reason"]
    assert per_deal_set == 2 and record["matches"] == per_deal_set * record["deal_sets"]
    table = assert_consistent(run_dir)
    assert table["match_id"].n_unique() < len(plan["matches"])


BAD = {
    "round robin": (["--bot", "builtin:greedy", "--bot", "builtin:random", "--sprt"], "--format gauntlet"),
    "elo without sprt": (["--format", "gauntlet", "--challenger", "builtin:greedy", "--bot", "builtin:random",
                          "--elo1", "20"], "--elo1 is for --sprt"),
    "bad alpha": (["--format", "gauntlet", "--challenger", "builtin:greedy", "--bot", "builtin:random", "--sprt",
                   "--alpha", "0.7"], "--alpha"),
    "elo1 below elo0": (["--format", "gauntlet", "--challenger", "builtin:greedy", "--bot", "builtin:random", "--sprt",
                         "--elo0", "10", "--elo1", "5"], "--elo1"),
    "vs outside the field": (["--format", "gauntlet", "--challenger", "builtin:greedy", "--bot", "builtin:random",
                              "--sprt", "--vs", "builtin:pairs"], "not in the gauntlet's field"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_sprt_options_are_one_line_exit_2_and_write_nothing(tmp_path, case):
    args, says = BAD[case]
    result = in_process("tournament", "run", "--executor", "local", *args, "--out", tmp_path / "run", "--quiet")
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("error:") and says in result.stderr and result.stderr.count("\n") == 1
    assert not (tmp_path / "run").exists()


def test_a_sweep_refuses_the_sprt(tmp_path):
    config = tmp_path / "s.toml"
    config.write_text("sprt = true\n")
    result = in_process("sweep", "--executor", "local", "--config", config, "--format", "gauntlet", "--challenger", "builtin:greedy", "--bot",
                        "builtin:random", "--vary", "threshold=51,71", "--out", tmp_path / "run")
    assert result.returncode == 2 and "not a sweep" in result.stderr and result.stderr.count("\n") == 1
    assert not (tmp_path / "run").exists()


def test_with_the_sprt_each_task_is_one_deal_set_in_plan_order():
    from harness.runs.tournament import MAX_BATCH, batches

    matches = [{"id": f"d{d}-t{t}", "variant": "v", "deal_set": d} for d in range(5) for t in range(3)]
    tasks = batches(matches, slots=2, by_deal_set=True)
    assert [[m["id"] for m in task] for task in tasks] == [[f"d{d}-t{t}" for t in range(3)] for d in range(5)]
    big = [{"id": f"m{i}", "variant": "v", "deal_set": 0} for i in range(MAX_BATCH + 3)]
    assert [len(task) for task in batches(big, slots=2, by_deal_set=True)] == [MAX_BATCH, 3]


@pytest.mark.skipif(not sandbox_available(), reason="the sandbox (bubblewrap, root) is not available")
def test_a_decided_gauntlet_records_the_ratings_of_its_submitted_bots():
    """Stopped by its SPRT, a gauntlet is finished: `bot list` shows the submitted bot's rating from it."""
    top = Path(tempfile.mkdtemp(prefix="ellibir-sprt-test-"))
    top.chmod(0o755)  # the sandbox runs the bot as another uid
    try:
        source = top / "src"
        shutil.copytree(ROOT / "bots" / "kits" / "python", source)
        (source / "bot.toml").write_text('name = "kitbot"\nversion = "1.0"\ncommand = ["python3", "main.py"]\n')
        arena = Arena(top / "arena")
        arena.submit(source)
        run = in_process("tournament", "run", "--executor", "local", "--format", "gauntlet", "--challenger", "builtin:greedy", "--bot", "kitbot",
                         "--players", 2, "--rounds", 1, "--deal-sets", 40, "--seed", 3, "--workers", 2, "--quiet",
                         "--duplicate",  # a submitted bot would play the fair design, slower to decide so lopsided a pair
                         "--sprt", "--elo1", 50, "--arena", arena.root, "--out", top / "g")
        assert run.returncode == 0, run.stderr
        record = json.loads((top / "g" / "sprt.json").read_text())
        assert record["verdict"] in ("H0", "H1") and record["stored_matches"] < 80  # decided early
        listed = json.loads(in_process("bot", "list", "--arena", arena.root, "--json").stdout)
        assert listed[0]["name"] == "kitbot" and listed[0]["rating"]["games"] > 0  # on the ladder of the arena's runs
        assert listed[0]["rating"]["anchor"] == "builtin:greedy = 1500"
        name = json.loads((top / "g" / "run.json").read_text())["name"]
        record = json.loads((arena.root / "ratings.jsonl").read_text().splitlines()[-1])
        assert record["run"] == name and name.startswith("gauntlet-")  # the run's name
    finally:
        remove_tree(top)
