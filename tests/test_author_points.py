"""The bot author's second round (issue 30): where a bot's points went (the rounds' bot, the per-bot
breakdown, ``ellibir bots``, the standings, the report's penalty points), a ``bot check`` that plays
like a tournament (penalties and their points in the verdict, a bot slow late in a round caught), the
sandbox's limits in the docs from its constants, the JVM told its limits, the Java kit, a first line
that is not JSON, a folder bot named like a submitted one, and version-1 runs read and resumed.

Real bot programs in the sandbox (tests/author_bots/author.py); no test waits on the clock: a slow bot
sleeps an hour, far past a clock of a few seconds.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from hypothesis import given, strategies as st
from typer.testing import CliRunner

from author_bots import make_bot
from cli_runs import UNHURRIED
from harness.arena.check import check_bot
from harness.cli.main import app
from harness.players.botproc import BotFault, BotProcess
from harness.players.limits import limit_rows, limits_table
from harness.protocol.messages import TimeControl
from harness.sandbox.bubblewrap import Limits, rlimit_args, sandbox_available
from protocol_schemas import schema_errors
from results.breakdown import bin_quantile, bin_range, breakdown
from results.rows import play_values
from results.runs import open_runs
from results.schema import TIME_BIN_COLUMNS, TIME_BINS
from results.store import RunStore

ROOT = Path(__file__).resolve().parent.parent
SANDBOX = sandbox_available()
needs_sandbox = pytest.mark.skipif(not SANDBOX, reason="the sandbox (bubblewrap, root) is not available")
needs_java = pytest.mark.skipif(shutil.which("java") is None, reason="Java is not installed")
runner = CliRunner()


@pytest.fixture(scope="module")
def bots(tmp_path_factory) -> dict:
    parent = tmp_path_factory.mktemp("author-bots")
    parent.chmod(0o755)
    return {"bad_open": make_bot(parent, "bad_open", ["2"]),  # a refused opening in each of its first 2 rounds
            "bad_open_once": make_bot(parent, "bad_open", ["1"], name="bad_open_once"),
            "slow_late": make_bot(parent, "slow_late", ["3600", "20"]),  # an hour once the stock is under 20
            "crash_seat1": make_bot(parent, "crash_seat1")}


# bot check ------------------------------------------------------------------------------------------

@needs_sandbox
def test_bot_check_names_penalties_with_their_points_and_fails_past_the_limit(bots):
    warned = check_bot(bots["bad_open"], players=2, rounds=1, matches=1, seed=3)
    assert warned.passed and warned.verdict == "PASS with 1 warning", warned.text
    assert warned.warnings[0].startswith("penalties cost 50 points: O4 ×1 = 50 points")
    assert re.search(r"^match 1 \(2 players, seat 0, 1 round, seed 3\): ok, .*penalties 50 points", warned.text, re.M)
    assert "  penalty (O4, 50 points unless the round ends void): a refused opening (M1)" in warned.lines
    assert "  memory, resident, all its processes (cgroup): 512 MB" in warned.lines  # the limits, as documented
    failed = check_bot(bots["bad_open"], players=2, rounds=2, matches=1, seed=3, penalty_limit=50)
    assert not failed.passed and failed.text.endswith("FAIL")
    assert "penalties cost 100 points (O4 ×2 = 100 points), more than the 50 the check allows" in failed.failures[0]


@needs_sandbox
def test_a_bot_slow_late_in_a_round_passes_the_short_check_and_fails_one_that_plays_like_a_tournament(bots):
    clock = TimeControl(move=1.0, bank=2.0, first=10.0)
    short = check_bot(bots["slow_late"], players=2, rounds=1, matches=3, seed=1, time_control=clock)
    assert short.passed, short.text  # one round at two players: the stock never gets under 20 cards
    full = check_bot(bots["slow_late"], matches=1, seed=1, time_control=clock)  # full rounds
    assert not full.passed
    assert re.match(r"match 1 \(2 players, seat 0, 11 rounds, seed 1\): timeout: no reply to request \d+", full.failures[0])


@needs_sandbox
@needs_java
def test_the_java_kit_passes_bot_check_and_speaks_the_schemas(tmp_path):
    trace = tmp_path / "java.trace"
    result = runner.invoke(app, ["bot", "check", str(ROOT / "bots" / "kits" / "java"), "--players", "2", "--rounds", "1",
                                 "--matches", "2", "--trace", str(trace), *UNHURRIED])
    assert result.exit_code == 0, result.output
    assert "handshake: ok" in result.stdout and result.stdout.count(": ok,") == 2
    assert result.stdout.rstrip().endswith("PASS")
    lines = trace.read_text().splitlines()
    replies = [json.loads(line.split(" < ", 1)[1]) for line in lines if " starter-java@1.0 < " in line]
    assert len(replies) > 10 and not [e for m in replies for e in schema_errors("from_bot", m)]
    assert any("! Picked up JAVA_TOOL_OPTIONS: -XX:MaxRAM=512m" in line for line in lines)  # the sandbox told it


# The limits --------------------------------------------------------------------------------------------

def test_the_documented_limits_are_the_sandbox_s_constants():
    doc = (ROOT / "docs" / "protocol.md").read_text()
    assert limits_table() in doc
    limits = Limits()
    rows = {what.split(",")[0].split(" (")[0]: value for what, value, _ in limit_rows()}
    assert rows["memory"] == f"{limits.memory_mb:,} MB" and rows["address space"] == f"{limits.address_space_mb:,} MB"
    assert rows["cores"] == str(limits.cores) and rows["tasks of its uid"] == str(limits.processes)
    assert rows["open files"] == str(limits.open_files) and rows["its private `/tmp`"] == f"{limits.tmp_mb} MB"
    assert rows["size of a file it writes"] == f"{limits.file_size_mb} MB"
    applied = rlimit_args(limits)  # what the sandbox starts a bot with
    assert f"--as={limits.address_space_mb << 20}" in applied and f"--nofile={limits.open_files}" in applied
    assert f"--fsize={limits.file_size_mb << 20}" in applied and f"--nproc={limits.processes}" in applied


@needs_sandbox
@needs_java
def test_a_jvm_in_the_sandbox_sizes_its_heap_for_the_sandbox_and_writes_its_own_errors_to_stderr(tmp_path):
    folder = tmp_path / "jvm"
    folder.mkdir()
    for p in (tmp_path, folder):
        p.chmod(0o755)
    command = ["sh", "-c", "java -XshowSettings:vm -version; java -Xmx3g -version; echo '{}'"]
    with BotProcess(folder, command) as bot:
        assert bot.receive(60.0) == {}  # nothing of either JVM's reached stdout
        bot.close()
        bot._err_thread.join(30.0)  # stderr read to its end
        err = bot.stderr_tail(10_000)
    heap = re.search(r"Max\. Heap Size \(Estimated\): ([\d.]+)([MG])", err)
    assert heap, err
    assert float(heap[1]) * (1024 if heap[2] == "G" else 1) <= Limits().memory_mb / 2  # room for the rest
    assert "Could not allocate compressed class space" in err or "Could not reserve" in err


@needs_sandbox
def test_a_first_line_that_is_not_json_is_shown_with_the_lines_after_it(tmp_path):
    folder = tmp_path / "vm"
    folder.mkdir()
    for p in (tmp_path, folder):
        p.chmod(0o755)
    printf = "printf 'Error occurred during initialization of VM\\nCould not reserve enough space\\n'"
    with BotProcess(folder, ["sh", "-c", printf]) as bot:
        with pytest.raises(BotFault) as fault:
            bot.receive(30.0)
    assert fault.value.kind == "malformed"
    assert "Error occurred during initialization of VM" in fault.value.reason
    assert "then: b'Could not reserve enough space'" in fault.value.reason


# Where the points went ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def run_with_penalties(bots, tmp_path_factory) -> Path:
    """A round robin at 2 players: a bot that pays a refused opening's penalty in its first round, a bot
    that crashes whenever it sits in seat 1, and greedy; one deal set under both seatings, 2 rounds."""
    if not SANDBOX:
        pytest.skip("the sandbox (bubblewrap, root) is not available")
    run = tmp_path_factory.mktemp("runs") / "points"
    result = runner.invoke(app, ["tournament", "run", "--executor", "local", "--bot", str(bots["bad_open_once"]),
                                 "--bot", str(bots["crash_seat1"]), "--bot", "builtin:greedy", "--players", "2",
                                 "--deal-sets", "1", "--rounds", "2", "--seed", "5", "--duplicate", "--out", str(run),
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    assert "Where the points went" in result.stdout
    return run


def test_rounds_know_their_bot_and_the_rounds_a_stand_in_played(run_with_penalties):
    store = RunStore(run_with_penalties)
    rounds = store.scan("rounds").collect()
    seats = store.scan("matches").select("match_id", "seat", pl.col("bot").alias("seat_bot"), "faults").collect()
    joined = rounds.join(seats, on=["match_id", "seat"])
    assert joined.height == rounds.height and (joined["bot"] == joined["seat_bot"]).all()
    assert not joined.filter(pl.col("faults") == 0)["stand_in"].any()
    faulted = joined.filter(pl.col("faults") > 0)
    assert faulted.height and faulted["bot"].str.starts_with("author-crash_seat1").all()
    assert faulted.filter(pl.col("round_index") == 0)["stand_in"].all()  # it crashed at its third request


def test_a_bot_that_pays_penalties_shows_their_points_in_the_breakdown_bots_and_the_report(run_with_penalties, tmp_path):
    runs = open_runs([run_with_penalties])
    doc = breakdown(runs)
    by = {b["bot"]: b for b in doc["bots"]}
    mine = by["author-bad_open_once@1"]
    rounds = runs.rounds.filter(pl.col("bot") == "author-bad_open_once@1").collect()
    paid = rounds.filter(~pl.col("void"))["pen_O4"].sum()
    assert rounds["pen_O4"].sum() == 4 and paid >= 1  # once in each of its 4 matches, 50 points unless void
    assert mine["penalties"]["O4"] == {"count": paid, "rounds": paid, "points": 50 * paid}  # its scored rounds
    assert mine["points"]["penalties"] == 50 * paid
    assert mine["refusals"]["k"] >= 4 and mine["refusals"]["n"] > mine["refusals"]["k"]
    crash = by["author-crash_seat1@1"]
    assert crash["faults"]["k"] == 2 and crash["faults"]["kinds"] == {"crash": 2} and crash["stand_in_rounds"] >= 2
    clean = runs.matches.filter((pl.col("bot") == "author-crash_seat1@1") & (pl.col("faults") == 0)).collect()
    assert crash["mean_total"] == pytest.approx(clean["total"].mean())  # not mixed with the stand-in's play
    assert mine["time"]["decisions"] == mine["refusals"]["n"] and mine["time"]["bank_left_min"] <= 10
    assert by["builtin:greedy"]["time"]["bank_left_min"] is None  # no clock

    shown = runner.invoke(app, ["bots", str(run_with_penalties)], env={"COLUMNS": "250"})
    assert shown.exit_code == 0, shown.output
    assert f"O4 {paid}× = {50 * paid:,} pts" in shown.stdout and "crash 2" in shown.stdout
    as_json = json.loads(runner.invoke(app, ["bots", str(run_with_penalties), "--json"]).stdout)
    assert as_json["bots"][0]["bot"] == "author-bad_open_once@1"

    from results.report import write_report

    page = write_report([run_with_penalties], tmp_path / "r.html").read_text()
    assert f"<td>author-bad_open_once@1</td><td>O4</td><td class=n>4</td><td class=n>4</td><td class=n>{50 * paid}</td>" in page
    assert '<section id="bots">' in page and "Where the points went" in page


def test_the_standings_mean_total_leaves_out_matches_with_a_fault(run_with_penalties):
    from harness.runs.tournament import load_run, standings_tables
    from rich.console import Console

    console = Console(width=200, record=True)
    for table in standings_tables(load_run(run_with_penalties), run_with_penalties):
        console.print(table)
    text = console.export_text()
    clean = (pl.read_parquet(str(run_with_penalties / "matches" / "*.parquet"))
             .filter((pl.col("bot") == "author-crash_seat1@1") & (pl.col("faults") == 0))["total"].mean())
    row = next(line for line in text.splitlines() if "author-crash_seat1@1" in line)
    assert f"{clean:.1f}" in row and "mean total: over matches without a fault" in text


# Decision times pooled in fixed bins -------------------------------------------------------------------

@given(st.lists(st.floats(min_value=0, max_value=100, allow_nan=False), max_size=60))
def test_each_time_is_counted_once_in_the_bin_that_holds_it(times):
    values = play_values(times, 0, None)
    bins = [values[c] for c in TIME_BIN_COLUMNS]
    assert sum(bins) == len(times) == values["decisions"]
    for t in times:
        k = next(i for i in range(len(bins)) if bin_range(i)[0] <= t < bin_range(i)[1])
        assert bins[k] >= 1
    if times:
        assert values["time_max"] == max(times) and values["time_sum"] == pytest.approx(math.fsum(times))
        lo, hi = bin_quantile(bins, 0.5)
        below = sum(1 for t in times if t < hi)
        assert below >= len(times) / 2 and sum(1 for t in times if t < lo) < len(times) / 2 + 1e-9
    assert len(TIME_BIN_COLUMNS) == len(TIME_BINS) + 1


def test_stand_in_rounds_begin_where_the_fault_came():
    from harness.match.seatplay import own_refusals, stand_in_rounds

    events = [{"e": "round_start", "index": 0}, {"e": "refused", "seat": 1}, {"e": "round_end"},
              {"e": "round_start", "index": 1}, {"e": "harness_fault", "seat": 1},
              {"e": "harness_takeover", "seat": 1}, {"e": "refused", "seat": 1}, {"e": "round_end"},
              {"e": "harness_takeover", "seat": 0}]
    assert stand_in_rounds(events) == {1: 1, 0: 2}  # seat 0's fault came between rounds: from the next one
    assert own_refusals(events, 2) == [0, 1]  # the stand-in's refusal is not the bot's


# A folder bot named like a submitted one --------------------------------------------------------------

@needs_sandbox
def test_a_folder_bot_named_like_a_submitted_bot_of_other_content_is_warned_and_labelled_apart(tmp_path):
    from harness.arena.registry import Arena
    from harness.runs.tournament import make_config, namesake_warnings, prepare

    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "bots" / "kits" / "python", kit)
    for p in [tmp_path, kit, *kit.iterdir()]:
        p.chmod(0o755)
    Arena(tmp_path / "arena").submit(kit)
    (kit / "main.py").write_text((kit / "main.py").read_text() + "# changed, same version\n")
    settings = make_config("tournament", {"bots": [str(kit), "builtin:greedy"], "players": 2, "deal_sets": 1,
                                          "arena": tmp_path / "arena", "out": tmp_path / "run"})
    plan, _run_dir = prepare(settings)
    label = plan["bots"][0]["label"]
    assert label.startswith("starter-python@1.0+") and len(label) == len("starter-python@1.0+") + 8
    warned = namesake_warnings(plan, tmp_path / "arena")
    assert len(warned) == 1 and "like the bot submitted to the arena" in warned[0] and label in warned[0]


# Runs of schema version 1 -----------------------------------------------------------------------------

def test_a_version_1_run_is_read_with_its_bots_and_resumed_in_version_1(tmp_path):
    run = tmp_path / "v1run"
    shutil.copytree(ROOT / "tests" / "runs_v1" / "interrupted", run)
    runs = open_runs([run])
    rounds = runs.rounds.collect()
    seats = runs.matches.select("match_id", "seat", pl.col("bot").alias("seat_bot")).collect()
    assert (rounds.join(seats, on=["match_id", "seat"]).select((pl.col("bot") == pl.col("seat_bot")).all()).item())
    assert runs.matches.collect()["decisions"].null_count() == 12  # version 1 recorded none: unknown, not 0
    doc = breakdown(runs)
    assert doc["bots"] == [] and "2 deal sets not played whole" in doc["notes"][0]  # interrupted: none is whole

    done = runner.invoke(app, ["tournament", "run", "--resume", str(run), "--executor", "local", "--quiet"])
    assert done.exit_code == 0, done.output
    assert f"6 of 6 planned matches are in {run} (2 played now)" in done.stdout
    assert json.loads((run / "schema.json").read_text())["schema_version"] == 1  # the run keeps its version
    for part in [*(run / "matches").glob("*.parquet"), *(run / "rounds").glob("*.parquet")]:
        assert pq.read_schema(part).metadata[b"results.schema_version"] == b"1"
    after = open_runs([run])
    assert after.matches.collect().height == 18 and after.rounds.collect()["bot"].null_count() == 0
    doc = breakdown(after)
    assert {b["bot"] for b in doc["bots"]} == {"builtin:greedy", "builtin:pairs", "builtin:random"}
    assert all(b["rounds"] == 12 and b["time"] is None and b["refusals"] is None for b in doc["bots"])
    shown = runner.invoke(app, ["bots", str(run)])
    assert shown.exit_code == 0 and "schema version 2" in shown.stdout
