"""Damaged and raced runs through the real command line (issue 11): a flipped data page, a truncated
log part, a copied or missing part, a hand-edited run.json, two processes in one run folder, and a
driver killed with SIGKILL. Each damaged file is named on one line with exit code 2, nothing is
changed, and the local Ray goes when its driver goes."""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from cli_runs import descendants, in_process, start_cli, wait_for_parts

ROOT = Path(__file__).resolve().parent.parent
ANALYSES = [["ratings"], ["balance"], ["sprt", "--bot", "builtin:greedy"], ["report", "--html", "REPORT"]]


def cli(*args, env=None, timeout=180):
    env = env or {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    return subprocess.run([sys.executable, "-m", "harness", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def refused(done, *words) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr[-2000:]
    for w in words:
        assert w in done.stderr, done.stderr
    return done.stderr


def analyse(command, run: Path, tmp_path: Path, *extra):
    """An analysis command of ``run``, run in this process (it only reads; ``cli`` runs the others)."""
    args = [str(tmp_path / "report.html") if a == "REPORT" else a for a in command]
    return in_process(args[0], run, *args[1:], *extra)


@pytest.fixture
def run(tmp_path, tournament_run) -> Path:
    """A copy of the session's complete round robin (72 matches of 4 seats: 3 tables, 4 rotations, 6 deal sets)."""
    copy = tmp_path / "rr"
    shutil.copytree(tournament_run, copy)
    return copy


def flip_data_page(part: Path, column: str = "rank", width: int = 8, mask: int = 0xFF, last: bool = False) -> None:
    """XOR ``mask`` into 2 * ``width`` bytes in the middle of the data page of ``column`` (``last``: just
    before the end of the column's chunk, in the page's body, past its header and statistics); the
    footer stays intact."""
    chunk = pq.ParquetFile(part).metadata.row_group(0)
    meta = next(chunk.column(i) for i in range(chunk.num_columns) if chunk.column(i).path_in_schema == column)
    start = meta.data_page_offset
    end = (meta.dictionary_page_offset or start) + meta.total_compressed_size
    data = bytearray(part.read_bytes())
    middle = end - width - 1 if last else (start + end) // 2
    for i in range(middle - width, middle + width):
        data[i] ^= mask
    part.write_bytes(bytes(data))
    pq.read_schema(part)  # the footer still reads


# Damaged files ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ANALYSES)
def test_a_damaged_data_page_is_one_line_naming_the_part(run, tmp_path, command):
    part = sorted((run / "matches").glob("*.parquet"))[0]  # the run's one part: it was compacted at its end
    flip_data_page(part)
    refused(analyse(command, run, tmp_path), str(part), "damaged Parquet data")
    assert not (tmp_path / "report.html").exists()


@pytest.mark.parametrize("column", ["total", "match_id", "bot"])
def test_one_flipped_bit_is_found_by_the_page_checksum(parts_run, tmp_path, column):
    """Most single-bit flips in a data page decode quietly into other values; parts carry page
    checksums, so the analysis refuses the part instead of reporting figures from wrong data (here in
    a part as a task wrote it; the compacted part of ``run`` above)."""
    run = tmp_path / "rr"
    shutil.copytree(parts_run, run)
    part = sorted((run / "matches").glob("*.parquet"))[2]
    flip_data_page(part, column, width=1, mask=0x01, last=True)
    refused(in_process("ratings", run), str(part), "damaged Parquet data")


def test_a_damaged_data_page_stops_a_resume_before_ray_starts(run):
    part = sorted((run / "rounds").glob("*.parquet"))[0]
    flip_data_page(part, "seat")
    refused(in_process("tournament", "run", "--executor", "local", "--resume", run, "--quiet"), str(part))


def test_a_truncated_log_part_is_one_line_naming_it(run):
    logs = sorted((run / "logs").glob("*.jsonl.gz"))[0]  # compacted: the last match's member is cut off whole
    with gzip.open(logs, "rb") as f:
        last = [json.loads(line)["match_id"] for line in f if line.startswith(b'{"match_id"')][-1]
    logs.write_bytes(logs.read_bytes()[: logs.stat().st_size // 2])
    done = in_process("replay", run, last)
    refused(done, str(logs), "damaged event log")


def _edit_plan(run: Path, change) -> None:
    plan = json.loads((run / "run.json").read_text())
    change(plan)
    (run / "run.json").write_text(json.dumps(plan))


EDITS = {
    "no options": lambda p: p.pop("options"),
    "seating a number": lambda p: p["matches"][3].update(seating=4),
    "no deal seed": lambda p: p["matches"][0].pop("deal_seed"),
    "bots not a list": lambda p: p.update(bots={"a": 1}),
    "rules damaged": lambda p: p["variants"][0]["rules"].update(threshold="many"),
    "rules for another table size": lambda p: p["variants"][0]["rules"].update(players=2),
    "replicates not a record": lambda p: p.update(replicates=5),
    "another plan version": lambda p: p.update(plan_version=99),
    "no plan version": lambda p: p.pop("plan_version"),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_hand_edited_run_json_is_one_line_on_resume_and_in_analysis(run, tmp_path, edit):
    (sorted((run / "matches").glob("*.parquet"))[0]).unlink()  # an unfinished run: resume has work to do
    _edit_plan(run, EDITS[edit])
    refused(in_process("tournament", "run", "--executor", "local", "--resume", run, "--quiet"), str(run / "run.json"))
    refused(in_process("ratings", run), str(run / "run.json"))


# Stored ids against the plan ------------------------------------------------------------------------

@pytest.mark.parametrize("command", ANALYSES)
def test_a_copied_part_is_refused_with_counts_or_analysed_with_a_warning(run, tmp_path, command):
    part = sorted((run / "matches").glob("*.parquet"))[0]
    copies = len(pq.read_table(part, columns=["match_id"]).column(0).unique())
    for table, suffix in (("matches", ".parquet"), ("rounds", ".parquet"), ("logs", ".jsonl.gz")):
        source = run / table / (part.name.removesuffix(".parquet") + suffix)
        shutil.copy(source, run / table / ("a9-00000" + suffix))
    refused(analyse(command, run, tmp_path), f"{copies} matches are stored in more than one part",
            "--allow-inconsistent")
    done = analyse(command, run, tmp_path, "--allow-inconsistent")
    assert done.returncode == 0, done.stderr
    assert f"warning: {run}: {copies} matches are stored in more than one part" in done.stderr


def test_a_copied_part_analysed_as_stored_counts_each_match_once(run, tournament_run):
    """A match copied into a second part is one match of its seats, never one table of twice the seats."""
    part = sorted((run / "matches").glob("*.parquet"))[0]
    for table, suffix in (("matches", ".parquet"), ("rounds", ".parquet"), ("logs", ".jsonl.gz")):
        shutil.copy(run / table / (part.name.removesuffix(".parquet") + suffix), run / table / ("a9-00000" + suffix))
    done = in_process("ratings", run, "--allow-inconsistent", "--json")
    assert done.returncode == 0 and "each is read once" in done.stderr, done.stderr
    [board] = json.loads(done.stdout)["leaderboards"]
    games = {b["bot"]: b["games"] for b in board["bots"]}
    [alone] = json.loads(in_process("ratings", tournament_run, "--json").stdout)["leaderboards"]
    assert games == {b["bot"]: b["games"] for b in alone["bots"]}
    assert {s["players"] for s in board["seats"]} == {4}


def test_a_copied_part_stops_a_resume(run):
    part = sorted((run / "matches").glob("*.parquet"))[0]
    shutil.copy(part, run / "matches" / "a9-00000.parquet")
    refused(in_process("tournament", "run", "--executor", "local", "--resume", run, "--quiet"), "stored in more than one part")


@pytest.mark.parametrize("command", ANALYSES)
def test_a_missing_rounds_part_is_refused_with_counts(run, tmp_path, command):
    part = sorted((run / "rounds").glob("*.parquet"))[0]
    missing = len(pq.read_table(part, columns=["match_id"]).column(0).unique())
    part.unlink()
    refused(analyse(command, run, tmp_path), f"{missing} matches have no rounds stored")


def _files(run: Path) -> dict:
    return {p: p.read_bytes() for p in run.rglob("*") if p.is_file() and p.name != ".lock"}


def test_a_resume_refuses_matches_whose_rounds_are_gone_and_plays_them_again_once_their_part_is_removed(
        tmp_path, parts_run, run):
    """A finished run whose rounds/ was deleted resumed with exit 0, every match counted as done."""
    resume = ("tournament", "run", "--executor", "local", "--resume")
    shutil.rmtree(run / "rounds")  # a compacted run: one part
    [whole] = sorted((run / "matches").glob("*.parquet"))
    before = _files(run)
    refused(in_process(*resume, run, "--quiet"), "no rounds stored", f"{run / 'rounds' / whole.name} is missing",
            str(whole))
    assert _files(run) == before
    copy = tmp_path / "parts"
    shutil.copytree(parts_run, copy)
    rounds = sorted((copy / "rounds").glob("*.parquet"))
    rounds[0].unlink()
    matches = copy / "matches" / rounds[0].name
    lost = len(pq.read_table(matches, columns=["match_id"]).column(0).unique())
    refused(in_process(*resume, copy, "--quiet", "--no-compact"), f"{lost} matches have no rounds stored",
            str(rounds[0]), str(matches))
    shutil.rmtree(copy / "rounds")
    refused(in_process(*resume, copy, "--quiet"), f"and {len(rounds) - 1} more rounds parts are missing")
    shutil.copytree(parts_run / "rounds", copy / "rounds")
    rounds[0].unlink()
    matches.unlink()  # as the refusal says: its matches are played again
    done = in_process(*resume, copy, "--quiet", "--no-compact")
    planned = len(json.loads((copy / "run.json").read_text())["matches"])
    assert done.returncode == 0 and f"{planned} of {planned} planned matches are in {copy} ({lost} played now)" \
        in done.stdout, done.stderr[-2000:]
    assert in_process("ratings", copy).returncode == 0


def test_a_resume_refuses_stored_matches_its_plan_does_not_hold(run):
    _edit_plan(run, lambda p: p["matches"].pop(0))
    refused(in_process("tournament", "run", "--executor", "local", "--resume", run, "--quiet"),
            "1 stored matches are not in the plan")


def test_unplanned_matches_are_refused_with_counts(run, tmp_path):
    dropped = []
    _edit_plan(run, lambda p: dropped.extend(p["matches"].pop(0) for _ in range(3)))
    refused(in_process("ratings", run), "3 stored matches are not in the plan", dropped[0]["id"])


# One process in a run folder ---------------------------------------------------------------------------

HOLD = "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); " \
       "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(600)"


def test_a_resume_of_a_run_in_use_is_refused_and_the_lock_dies_with_its_holder(run):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(run / ".lock")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        refused(cli("tournament", "run", "--executor", "local", "--resume", run, "--quiet"), str(run), "in use by another ellibir process")
    finally:
        holder.kill()  # SIGKILL: the kernel releases its lock
        holder.wait()
    done = cli("tournament", "run", "--executor", "local", "--resume", run, "--quiet")
    assert done.returncode == 0, done.stderr  # a complete run: nothing to play
    assert "72 of 72 planned matches" in done.stdout


def test_two_resumes_at_once_one_plays_the_other_is_refused(tmp_path, env):
    run = tmp_path / "race"
    first = start_cli("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:random",
                      "--players", 2, "--deal-sets", 100, "--rounds", 2, "--out", run, "--quiet", env=env)
    wait_for_parts(run, first)
    second = cli("tournament", "run", "--executor", "local", "--resume", run, "--quiet", env=env)
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err[-2000:]
    refused(second, "in use by another ellibir process")
    assert "200 of 200 planned matches" in out


# The local Ray goes with its driver --------------------------------------------------------------------

def _alive(pids) -> set:
    out = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    out.add(pid)
        except OSError:
            pass
    return out


def test_ray_processes_go_when_the_driver_is_killed(tmp_path, env):
    run = tmp_path / "killed"
    driver = start_cli("tournament", "run", "--bot", "builtin:greedy", "--bot", "builtin:random", "--players", 2,
                       "--deal-sets", 200, "--rounds", 2, "--workers", 1, "--out", run, "--quiet", env=env)
    wait_for_parts(run, driver)
    ray = descendants([driver.pid]) - {driver.pid}
    assert len(ray) >= 3  # gcs_server, raylet, a worker...
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    until(lambda: not _alive(ray), "Ray's processes to go after the driver was killed")


def _watch(roots: list) -> tuple:
    """A watchdog (harness/runs/raywatch.py) over ``roots`` given as (pid, start time), and its pipe's write end."""
    read, write = os.pipe()
    child = subprocess.Popen([sys.executable, "-m", "harness.runs.raywatch", str(read), *(f"{p}:{s}" for p, s in roots)],
                             pass_fds=(read,), cwd=ROOT, start_new_session=True)
    os.close(read)
    return child, write


def until(condition, what: str, bound: float = 60.0):
    """Wait for ``condition()`` to hold (the event), polling; the bound only catches a hang."""
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.02)


def test_the_watchdog_kills_only_the_tree_it_was_given_and_leaves_on_stop():
    """The watchdog records the tree on its first look, before it ever reads its pipe: the tree is
    complete before it starts, so what it kills does not depend on when it runs."""
    from harness.runs.raywatch import start_time

    tree = subprocess.Popen(["sh", "-c", "sleep 300 & sleep 300 & wait"])
    other = subprocess.Popen(["sleep", "300"])
    stale = subprocess.Popen(["sleep", "300"])  # its pid recorded with another start time: a reused pid
    try:
        until(lambda: len(descendants([tree.pid])) == 3, "the shell's two children")
        family = descendants([tree.pid])
        child, write = _watch([(tree.pid, start_time(tree.pid)), (stale.pid, "1")])
        os.close(write)  # the driver is gone
        child.wait(timeout=60)
        until(lambda: not _alive(family), "the tree to die")
        assert _alive({other.pid, stale.pid}) == {other.pid, stale.pid}

        again = subprocess.Popen(["sh", "-c", "sleep 300 & wait"])
        until(lambda: len(descendants([again.pid])) == 2, "the shell's child")
        child, write = _watch([(again.pid, start_time(again.pid))])
        os.write(write, b"stop")  # a normal shutdown: nothing is killed
        os.close(write)
        child.wait(timeout=60)
        assert _alive(descendants([again.pid])) == descendants([again.pid])
    finally:
        for p in (tree, other, stale):
            p.kill()
        for pid in descendants([again.pid]) if "again" in locals() else ():
            os.kill(pid, signal.SIGKILL)


def test_the_checks_of_run_plans_take_the_harness_s_plan_version_and_size():
    """results/integrity.py checks run.json against what harness/runs/plan.py writes; the analyses may not
    import the harness (the layers), so each keeps the figures, and they must agree."""
    from harness.runs import plan
    from results import integrity

    assert integrity.PLAN_VERSION == plan.PLAN_VERSION
    assert integrity.MAX_PLANNED == plan.MAX_MATCHES
