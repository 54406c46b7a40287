"""The bot author's loop in a tournament (issue 15), with real bot programs in the sandbox on a local
Ray: faults kept with the bots' stderr, listed by ``ellibir faults``, marked in the standings and the
replay; ``ellibir rerun`` plays a faulted match again exactly, and with the fixed bot; bots labelled
``name@version`` (a content hash added when two folders share one)."""

from __future__ import annotations

import gzip
import json
import re
import tempfile
from pathlib import Path

import polars as pl
import pytest

from harness.sandbox.bubblewrap import sandbox_available

from author_bots import make_bot
from cli_runs import in_process, matches_table

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="the sandbox (bubblewrap, root) is not available")


@pytest.fixture(scope="module")
def faulted_run(tmp_path_factory):
    """mybot 1 (crashes at its third request) and another mybot 1 (plays on) against greedy: 2 players,
    2 deal sets, 1 round."""
    import os
    import uuid

    bots = Path(tempfile.mkdtemp(prefix="ellibir-author-run-"))
    bots.chmod(0o755)
    crashing = make_bot(bots, "crash", name="mybot")
    fixed = make_bot(bots / "fixed", "polite", name="mybot")
    (bots / "fixed").chmod(0o755)
    out = tmp_path_factory.mktemp("runs") / "faulted"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "ELLIBIR_TEST_MARK": f"author-{uuid.uuid4().hex[:8]}"}
    done = in_process("tournament", "run", "--executor", "local", "--bot", crashing, "--bot", fixed, "--bot", "builtin:greedy", "--players", 2,
                      "--deal-sets", 2, "--rounds", 1, "--seed", 1, "--workers", 1, "--out", out, "--quiet")  # a fixed seed: with fresh deals a match could end before the bot crashes
    assert done.returncode == 0, done.stderr[-3000:]
    return {"run": out, "crashing": crashing, "fixed": fixed, "stdout": done.stdout}


def labels(run) -> dict:
    plan = json.loads((run / "run.json").read_text())
    return {b["folder"]: b["label"] for b in plan["bots"] if b["kind"] == "folder"}


def test_two_folders_with_one_name_and_version_get_a_content_hash_and_no_path_is_a_label(faulted_run):
    run = faulted_run["run"]
    named = labels(run)
    crash, fixed = named[str(faulted_run["crashing"])], named[str(faulted_run["fixed"])]
    assert re.fullmatch(r"author-mybot@1\+[0-9a-f]{8}", crash) and re.fullmatch(r"author-mybot@1\+[0-9a-f]{8}", fixed)
    assert crash != fixed
    table = matches_table(run)
    assert set(table["bot"]) == {crash, fixed, "builtin:greedy"}
    assert "/" not in faulted_run["stdout"].split("Standings")[1].split("planned matches")[0].replace("┃", "")


def test_standings_count_faults_and_stderr_is_kept_per_match(faulted_run):
    run = faulted_run["run"]
    crash = labels(run)[str(faulted_run["crashing"])]
    row = next(line for line in faulted_run["stdout"].splitlines() if crash in line)
    assert "faults" in faulted_run["stdout"] and row.split("│")[-2].strip() == "8"  # every match it played
    kept = {}
    for path in (run / "stderr").glob("*.jsonl.gz"):
        for line in gzip.open(path, "rt"):
            item = json.loads(line)
            kept[(item["match_id"], item["seat"])] = item
    table = matches_table(run)
    for r in table.filter(pl.col("bot") == crash).to_dicts():
        item = kept[(r["match_id"], r["seat"])]
        assert item["bot"] == crash and "KeyError: 'melds' -- giving up" in item["stderr"]
        assert len(item["stderr"].encode()) <= 64_000
    polite = labels(run)[str(faulted_run["fixed"])]
    assert any(item["bot"] == polite for item in kept.values())  # stderr is kept with or without a fault


def test_faults_lists_every_fault_with_its_stderr_and_the_rerun_command(faulted_run):
    run = faulted_run["run"]
    crash = labels(run)[str(faulted_run["crashing"])]
    done = in_process("faults", run, "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    table = matches_table(run)
    assert {(f["match_id"], f["seat"]) for f in found} == {
        (r["match_id"], r["seat"]) for r in table.filter(pl.col("faults") > 0).to_dicts()}
    assert len(found) == 8
    for f in found:
        assert f["bot"] == crash and f["kind"] == "crash" and "exited with code 3" in f["reason"]
        assert f["taken_over_by"] == "builtin:greedy" and f["decision"] >= 2
        assert "KeyError: 'melds'" in f["stderr_tail"]
        assert f["rerun"] == f"ellibir rerun {run} {f['match_id']} --trace -"
    text = in_process("faults", run).stdout
    assert f"{found[0]['match_id']}  seat {found[0]['seat']}  {crash}  crash:" in text and "8 faults" in text


def test_rerun_plays_the_faulted_match_again_exactly_and_with_the_fixed_bot(faulted_run, tmp_path):
    run = faulted_run["run"]
    fault = json.loads(in_process("faults", run, "--json").stdout)[0]
    same = in_process("rerun", run, fault["match_id"], "--quiet", "--trace", tmp_path / "t.txt")
    assert same.returncode == 0, same.stderr
    assert f"the same decisions as the stored match {fault['match_id']}" in same.stdout
    trace = (tmp_path / "t.txt").read_text()
    assert "! author bot crash: KeyError: 'melds' -- giving up" in trace and "# fault crash" in trace
    seat = fault["seat"]
    fixed = in_process("rerun", run, fault["match_id"], "--bot", f"{seat}={faulted_run['fixed']}", "--quiet",
                       "--log", tmp_path / "fixed.jsonl")
    assert fixed.returncode == 0, fixed.stderr
    m = re.search(r"the same as the stored match \S+ up to decision (\d+): seat (\d)", fixed.stdout)
    assert m and int(m[1]) >= fault["decision"], fixed.stdout
    notes = [json.loads(line) for line in (tmp_path / "fixed.jsonl").read_text().splitlines() if "harness_" in line]
    assert [n["e"] for n in notes] == ["harness_bots", "harness_result"]  # the fixed bot plays to the end
    assert notes[0]["bots"][seat] == "author-mybot@1"


def test_replay_of_a_run_match_shows_the_fault_and_the_takeover(faulted_run):
    run = faulted_run["run"]
    fault = json.loads(in_process("faults", run, "--json").stdout)[0]
    done = in_process("replay", run, fault["match_id"])
    assert done.returncode == 0, done.stderr
    assert f"fault: seat {fault['seat']} {fault['bot']}: crash" in done.stdout
    assert f"{fault['bot']} [greedy plays]" in done.stdout


def test_rerun_bad_input_is_one_line(faulted_run):
    run = faulted_run["run"]
    for args, words in ((["nope"], "no match"), (["v0-d0-t0-r0", "--bot", "7=/tmp"], "seats 0 to 1"),
                        (["v0-d0-t0-r0", "--bot", "x"], "SEAT=FOLDER")):
        done = in_process("rerun", run, *args)
        assert done.returncode == 2 and done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1, \
            done.stderr
        assert words in done.stderr
    nothing = in_process("faults", run / "matches")
    assert nothing.returncode == 2 and nothing.stderr.startswith("error: ") and len(nothing.stderr.splitlines()) == 1


def test_live_standings_count_the_faults_of_each_bot():
    from harness.runs.tournament import Standings

    standings = Standings()
    standings.add([{"variant": "v", "bot": "mybot@1", "rank": 2, "faults": 1},
                   {"variant": "v", "bot": "builtin:greedy", "rank": 1, "faults": 0},
                   {"variant": "v", "bot": "mybot@1", "rank": 2, "faults": 2},
                   {"variant": "v", "bot": "builtin:greedy", "rank": 1, "faults": 0}])
    assert standings.text({}) == "greedy 1.00  mybot@1 2.00 (2 faults)"
