"""Tournaments and sweeps: the plan (pure), then real runs through the command line (``python -m
harness`` in a subprocess), most in the driver's process (``--executor local``), some on a local
Ray: the local and Ray executors give identical results, Ctrl-C and SIGKILL then --resume (on both),
sweeps, bot folders, and bad input (one line, exit code 2, nothing written)."""

from __future__ import annotations

import json
import re
import signal
import stat
from pathlib import Path

import polars as pl
import pytest

from harness.runs import plan as planning
from harness.arena.registry import content_hash
from harness.players.botfiles import pack_folder, unpack_folder
from harness.runs.tournament import TournamentError, make_config, prepare
from results.schema import TIMING_COLUMNS

from cli_runs import assert_complete, cli, descendants, in_process, kill, matches_table, start_cli, wait_for_parts

ROOT = Path(__file__).resolve().parent.parent
BOTS3 = ["--bot", "builtin:greedy", "--bot", "builtin:pairs", "--bot", "builtin:random"]


# The plan (pure) ----------------------------------------------------------------------------------

def test_round_robin_tables_fill_missing_seats_with_copies():
    assert planning.tables("round-robin", 3, 4) == [(0, 0, 1, 2), (0, 1, 1, 2), (0, 1, 2, 2)]
    assert planning.tables("round-robin", 2, 4) == [(0, 0, 0, 1), (0, 0, 1, 1), (0, 1, 1, 1)]
    assert planning.tables("round-robin", 5, 4) == [(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 3, 4), (0, 2, 3, 4),
                                                    (1, 2, 3, 4)]
    assert planning.tables("round-robin", 3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert planning.tables("round-robin", 1, 4) == [(0, 0, 0, 0)]


def test_gauntlet_puts_one_challenger_at_every_table():
    assert planning.tables("gauntlet", 2, 4) == [(0, 1, 1, 1)]
    assert planning.tables("gauntlet", 3, 4) == [(0, 1, 1, 2), (0, 1, 2, 2)]
    tables = planning.tables("gauntlet", 5, 3)
    assert len(tables) == 6 and all(t[0] == 0 and 0 not in t[1:] for t in tables)
    with pytest.raises(planning.PlanError):
        planning.tables("gauntlet", 1, 4)


def test_rotations_give_every_bot_every_seat():
    rots = planning.rotations((0, 0, 1, 2))
    assert len(rots) == 4 and len(set(rots)) == 4
    for seat in range(4):
        assert sorted(r[seat] for r in rots) == [0, 0, 1, 2]
    assert planning.rotations((3, 3, 3)) == [(3, 3, 3)]  # identical seatings are played once


def _bots(*names):
    return [{"kind": "builtin", "label": f"builtin:{n}", "name": n, "version": "1", "hash": ""} for n in names]


def _plan(seed=1, deal_sets=3, vary=(), players=4, form="round-robin", bots=("greedy", "pairs", "random")):
    variants = planning.variant_grid("standard", {"rounds": 2}, list(vary), players)
    return planning.make_plan(name="t", seed=seed, form=form, bots=_bots(*bots), players=players,
                              deal_sets=deal_sets, variants=variants)


def test_plan_is_deterministic_and_duplicate_deals_share_the_deal_seed():
    plan = _plan()
    assert plan == _plan()
    assert plan["deal_seeds"] != _plan(seed=2)["deal_seeds"]
    ids = [m["id"] for m in plan["matches"]]
    assert len(ids) == len(set(ids)) == 3 * 3 * 4  # deal sets x tables x rotations
    for d, seed in enumerate(plan["deal_seeds"]):
        in_set = [m for m in plan["matches"] if m["deal_set"] == d]
        assert {m["deal_seed"] for m in in_set} == {seed}
        for label in ("builtin:greedy", "builtin:pairs", "builtin:random"):  # every bot in every seat
            assert {s for m in in_set for s, b in enumerate(m["seating"]) if b == label} == {0, 1, 2, 3}
    text = planning.plan_text(plan)
    assert json.loads(text) == plan and text.count("\n  {\"id\"") == len(ids)


def test_without_duplicate_deals_each_table_plays_once_per_deal_set_on_its_own_deal():
    plan = planning.make_plan(name="t", seed=1, form="round-robin", bots=_bots("greedy", "pairs", "random"),
                              players=4, deal_sets=8, duplicate=False,
                              variants=planning.variant_grid("standard", {}, [], 4))
    assert plan["duplicate"] is False and len(plan["matches"]) == 8 * 3
    assert len({m["deal_seed"] for m in plan["matches"]}) == 8 * 3
    for t in range(3):  # the seating still turns, deal set by deal set
        assert [m["rotation"] for m in plan["matches"] if m["table"] == t] == [0, 1, 2, 3, 0, 1, 2, 3]


def test_sweep_plays_every_variant_on_the_same_deal_seeds():
    vary = planning.parse_vary(["threshold=51,71,101", "rising_threshold=false,true"])
    plan = _plan(vary=vary, players=2, bots=("greedy", "pairs"))
    assert len(plan["variants"]) == 6 and len({v["id"] for v in plan["variants"]}) == 6
    by_variant = {}
    for m in plan["matches"]:
        by_variant.setdefault(m["variant"], set()).add((m["deal_set"], m["deal_seed"], tuple(m["seating"])))
    assert len(set(map(frozenset, by_variant.values()))) == 1  # same deals and seatings under every variant


@pytest.mark.parametrize("design", ["duplicate", "fair"])
@pytest.mark.parametrize("players, deal_sets, bots, says", [
    (5, 3, ("greedy", "pairs"), "--players must be 2 to 4, got 5"),
    (1, 3, ("greedy", "pairs"), "--players must be 2 to 4, got 1"),
    (4, 0, ("greedy", "pairs"), "--deal-sets must be 1 or more, got 0"),
    (4, 3, (), "give at least one bot (--bot)")])
def test_a_plan_of_no_size_is_refused_in_one_line_by_either_design(design, players, deal_sets, bots, says):
    control = _bots("greedy")[0] if design == "fair" else None
    with pytest.raises(planning.PlanError, match=r"^" + re.escape(says) + r"$"):
        planning.make_plan(name="t", seed=1, form="gauntlet" if design == "fair" else "round-robin",
                           bots=_bots(*bots), players=players, deal_sets=deal_sets, design=design, control=control,
                           variants=planning.variant_grid("standard", {"rounds": 1}, [], 4))


def test_vary_syntax():
    assert planning.parse_vary(["threshold=51, 71"]) == [("threshold", ["51", "71"])]
    assert planning.parse_vary(["pairs_openings=[[5,0]],[[4,1],[5,0]]"]) == [
        ("pairs_openings", ["[[5,0]]", "[[4,1],[5,0]]"])]
    for bad in (["threshold"], ["=51"], ["threshold=51,,71"], ["threshold=[51"], ["threshold=1", "threshold=2"]):
        with pytest.raises(planning.PlanError):
            planning.parse_vary(bad)
    with pytest.raises(planning.PlanError):
        planning.variant_grid("standard", {}, [("players", ["2", "3"])], 4)
    with pytest.raises(planning.PlanError):
        planning.variant_grid("standard", {}, [("threshold", ["51", "abc"])], 4)


def test_write_plan_is_atomic_and_never_overwrites(tmp_path):
    plan = _plan()
    planning.write_plan(tmp_path, plan)
    assert planning.read_plan(tmp_path) == plan
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]
    with pytest.raises(planning.PlanError):
        planning.write_plan(tmp_path, _plan(seed=9))
    assert planning.read_plan(tmp_path) == plan


def test_config_file_and_flags(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text('bots = ["builtin:greedy", "builtin:pairs"]\nplayers = 2\ndeal-sets = 5\nseed = 7\n'
                      'out = "%s"\n[set]\nthreshold = 71\nrounds = 2\n[vary]\nrising_threshold = [false, true]\n'
                      % (tmp_path / "run"))
    c = make_config("sweep", {"set": ["threshold=101"], "deal_sets": 2}, config)
    assert c.sets == {"threshold": "101", "rounds": 2, "players": 2} and c.deal_sets == 2 and c.seed == 7
    plan, run_dir = prepare(c)
    assert run_dir == tmp_path / "run" and not run_dir.exists()
    assert [v["fields"] for v in plan["variants"]] == [{"rising_threshold": False}, {"rising_threshold": True}]
    assert {v["rules"]["threshold"] for v in plan["variants"]} == {101}
    assert plan["design"] == "common" and len(plan["matches"]) == 2 * 2 * 1  # a sweep: one rotation per deal set
    with pytest.raises(TournamentError):
        make_config("tournament", {"rounds": 2, "set": ["rounds=3"]})
    config.write_text("bots = [")
    with pytest.raises(TournamentError):
        make_config("tournament", {}, config)


def test_bot_folders_travel_packed_with_modes_others_can_read(tmp_path):
    src = ROOT / "bots" / "kits" / "python"
    (tmp_path / "bot").mkdir()
    dest = unpack_folder(pack_folder(src), tmp_path / "bot" / "x")
    assert content_hash(dest) == content_hash(src)
    for path in [dest, *dest.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        need = 0o005 if path.is_dir() else 0o004
        assert mode & need == need and mode & 0o022 == 0, (path, oct(mode))
        assert "__pycache__" not in path.parts


# Runs through the CLI (subprocesses): in the driver's process, and on a local Ray --------------------

def stored_logs(run_dir) -> dict:
    from results.store import RunStore

    store = RunStore(run_dir)
    return {m: store.read_log(m) for m in sorted(store.done_match_ids())}


def test_local_and_ray_executors_give_identical_results_and_replay(tmp_path, env):
    args = ["tournament", "run", *BOTS3, "--deal-sets", 2, "--rounds", 2, "--seed", 4, "--name", "same", "--quiet",
            "--duplicate"]
    ray = cli(*args, "--workers", 2, "--out", tmp_path / "ray", env=env)
    assert ray.returncode == 0, ray.stderr
    assert "Standings" in ray.stdout and "24 of 24 planned matches" in ray.stdout
    plan = json.loads((tmp_path / "ray" / "run.json").read_text())
    assert plan["format"] == "round-robin" and plan["seed"] == 4 and plan["project_version"]
    assert [b["label"] for b in plan["bots"]] == ["builtin:greedy", "builtin:pairs", "builtin:random"]
    assert all(b["version"] for b in plan["bots"])
    table = assert_complete(tmp_path / "ray")
    assert set(table["termination"]) == {"complete"}

    local = cli(*args, "--executor", "local", "--out", tmp_path / "local", env=env)
    assert local.returncode == 0, local.stderr
    assert local.stdout == ray.stdout.replace(str(tmp_path / "ray"), str(tmp_path / "local"))
    assert (tmp_path / "local" / "run.json").read_text() == (tmp_path / "ray" / "run.json").read_text()
    timing = list(TIMING_COLUMNS)  # decision times differ from run to run; every other column agrees
    assert matches_table(tmp_path / "local").drop(timing).equals(table.drop(timing))
    rounds = [pl.read_parquet(str(tmp_path / d / "rounds" / "*.parquet")).sort("match_id", "round_index", "seat")
              for d in ("local", "ray")]
    assert rounds[0].equals(rounds[1])
    logs = stored_logs(tmp_path / "ray")
    assert len(logs) == 24 and stored_logs(tmp_path / "local") == logs

    match = plan["matches"][5]
    shown = cli("replay", tmp_path / "ray", match["id"], env=env)
    assert shown.returncode == 0, shown.stderr
    assert "Final ranking" in shown.stdout and f"seed {match['deal_seed']}" in shown.stdout
    assert f"seat 0 {match['seating'][0]}" in shown.stdout
    for args in ([tmp_path / "ray", "v9-d9-t9-r9"], [tmp_path / "ray"]):  # no such match; no match id
        wrong = cli("replay", *args, env=env)
        assert wrong.returncode == 2 and wrong.stderr.startswith("error:") and wrong.stderr.count("\n") == 1


@pytest.mark.parametrize("how,executor", [(signal.SIGINT, "ray"), (signal.SIGINT, "local"), (signal.SIGKILL, "local")],
                         ids=["SIGINT-ray", "SIGINT-local", "SIGKILL-local"])
def test_interrupted_run_resumes_without_losing_or_repeating_a_match(tmp_path, env, how, executor):
    run_dir = tmp_path / "run"
    size = ["--deal-sets", 16, "--rounds", 1] if executor == "ray" else ["--deal-sets", 6, "--rounds", 2]  # 5 tasks here
    proc = start_cli("tournament", "run", "--executor", executor, *BOTS3, *size, "--seed", 2, "--workers", 2,
                     "--duplicate", "--quiet", "--out", run_dir, env=env)
    wait_for_parts(run_dir, proc)
    ray_processes = descendants({proc.pid}) - {proc.pid}
    proc.send_signal(how)
    out, err = proc.communicate(timeout=60)
    if how == signal.SIGINT:
        assert proc.returncode == 130, err
        assert f"--resume {run_dir}" in err
    else:
        assert proc.returncode == -signal.SIGKILL
        kill(ray_processes)  # Ray's agents outlive a killed driver
    plan = json.loads((run_dir / "run.json").read_text())
    before = {p.name for p in (run_dir / "matches").glob("*.parquet")}
    done = set(matches_table(run_dir)["match_id"])
    assert 0 < len(done) < len(plan["matches"])

    # the rest played locally (the executors give identical rows), the parts as the resume writes them
    again = cli("tournament", "run", "--executor", "local", "--resume", run_dir, "--workers", 2, "--quiet",
                "--no-compact", env=env)
    assert again.returncode == 0, again.stderr
    assert f"{len(plan['matches'])} of {len(plan['matches'])} planned matches" in again.stdout
    assert_complete(run_dir)
    after = {p.name for p in (run_dir / "matches").glob("*.parquet")}
    assert before < after and all(name.startswith("a2-") for name in after - before)
    finished = cli("tournament", "run", "--executor", "local", "--resume", run_dir, "--quiet", env=env)  # nothing left: no Ray, no part
    assert finished.returncode == 0 and {p.name for p in (run_dir / "matches").glob("*.parquet")} == after
    assert cli("compact", run_dir, env=env).returncode == 0
    assert len(list((run_dir / "matches").glob("*.parquet"))) == 1
    assert_complete(run_dir)


def test_sweep_and_gauntlet_with_a_bot_folder_from_a_config_file(tmp_path, env):
    sweep = cli("sweep", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--players", 2, "--rounds", 1,
                "--deal-sets", 2, "--vary", "threshold=51,101", "--vary", "rising_threshold=false,true",
                "--workers", 2, "--quiet", "--out", tmp_path / "sweep", env=env)
    assert sweep.returncode == 0, sweep.stderr
    table = assert_complete(tmp_path / "sweep")
    plan = json.loads((tmp_path / "sweep" / "run.json").read_text())
    assert plan["kind"] == "sweep" and len(plan["variants"]) == 4
    assert set(table["variant"]) == {v["id"] for v in plan["variants"]}
    per_variant = table.group_by("variant").agg(pl.col("deal_set").n_unique(), pl.len()).sort("variant")
    # a sweep's default design: every variant on the same deals, one seat rotation per deal set (2 seats each)
    assert per_variant["deal_set"].to_list() == [2] * 4 and per_variant["len"].to_list() == [4] * 4
    assert "threshold=101, rising_threshold=true" in sweep.stdout

    from harness.sandbox.bubblewrap import sandbox_available

    if not sandbox_available():
        pytest.skip("bot folders need the sandbox")
    folder = ROOT / "bots" / "protocol" / "greedy"
    config = tmp_path / "g.toml"
    config.write_text(f'format = "gauntlet"\nchallenger = "{folder}"\nbots = ["builtin:random"]\nplayers = 3\n'
                      f'deal_sets = 1\nrounds = 1\nworkers = 2\nduplicate = true\nout = "{tmp_path / "never"}"\n')
    run = cli("tournament", "run", "--executor", "local", "--config", config, "--bot", "builtin:pairs", "--out", tmp_path / "g", "--quiet",
              env=env)
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "never").exists()
    plan = json.loads((tmp_path / "g" / "run.json").read_text())
    challenger = plan["bots"][0]
    assert plan["challenger"] == "greedy-protocol@1.0" and challenger["kind"] == "folder"  # name@version, no path
    assert challenger["folder"] == str(folder)
    assert challenger["hash"] == content_hash(folder) and challenger["version"] == "1.0"
    assert [b["label"] for b in plan["bots"][1:]] == ["builtin:pairs"]  # the flag replaced the file's field
    table = assert_complete(tmp_path / "g")
    mine = table.filter(pl.col("bot") == "greedy-protocol@1.0")
    assert mine.height == 3 and set(mine["seat"]) == {0, 1, 2}
    assert mine["faults"].sum() == 0 and mine["bot_hash"].to_list() == [challenger["hash"]] * 3


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


BAD = {
    "unknown bot": (["--bot", "builtin:nobody", "--bot", "builtin:greedy"], "unknown bot"),
    "bad vary": (["--bot", "builtin:greedy", "--vary", "threshold"], "--vary"),
    "vary value": (["--bot", "builtin:greedy", "--vary", "threshold=51,abc"], "threshold"),
    "bad players": (["--bot", "builtin:greedy", "--players", "5"], "players"),
    "bad format": (["--bot", "builtin:greedy", "--format", "swiss"], "format"),
    "refused address": (["--bot", "builtin:greedy", "--bot", "builtin:pairs", "--address", "127.0.0.1:{port}"],
                        "no Ray cluster answers"),
    "bad address": (["--bot", "builtin:greedy", "--address", "nowhere:port"], "bad Ray address"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, env, case):
    args, says = BAD[case]
    args = [a.replace("{port}", str(_free_port())) for a in args]
    head = ["sweep"] if "--vary" in args else ["tournament", "run"]
    if "--address" in args:  # a Ray driver of its own
        result = cli(*head, *args, "--out", tmp_path / "run", "--quiet", env=env, timeout=60)
    else:
        result = in_process(*head, *args, "--out", tmp_path / "run", "--quiet")
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("error:") and says in result.stderr and result.stderr.count("\n") == 1
    assert not (tmp_path / "run").exists()


def test_bad_toml_unwritable_out_and_taken_out_are_refused(tmp_path):
    config = tmp_path / "bad.toml"
    config.write_text("bots = [\n")
    result = in_process("tournament", "run", "--executor", "local", "--config", config, "--out", tmp_path / "run")
    assert result.returncode == 2 and "bad TOML" in result.stderr and result.stderr.count("\n") == 1
    (tmp_path / "file").write_text("x")
    result = in_process("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--out", tmp_path / "file" / "run")
    assert result.returncode == 2 and "cannot write the run" in result.stderr
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "run.json").write_text("{}")
    result = in_process("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--out", tmp_path / "taken")
    assert result.returncode == 2 and "--resume" in result.stderr
    result = in_process("tournament", "run", "--executor", "local", "--resume", tmp_path / "taken", "--seed", 3)
    assert result.returncode == 2 and "--resume takes the plan" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml", "file", "taken"]
