"""Careless input through the real command line (issue 11): sizes checked before anything is built,
deal files bounded, bot folders named by path checked as ``bot submit`` checks them, names the arena
keeps for itself, and output never written into a run folder's own files or a run into a bot's folder.
Each case: exit code 2, one line on standard error naming the thing, nothing written or changed."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cli_runs import in_process
from harness.arena.registry import remove_tree

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "bots" / "kits" / "python"
MEMORY = 1 << 30  # the CLI gets 1 GiB of address space: an input that allocates before checking fails


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def cli(*args, cwd=ROOT, limit=False, timeout=120, own_process=False):
    """``ellibir ARGS``: in a process of its own under a memory limit (``limit``), in another folder, or
    when asked (``own_process``); otherwise in this process (cli_runs.in_process), the same code
    without a second of interpreter start."""
    if not (limit or own_process) and Path(cwd).resolve() == Path.cwd().resolve():
        return in_process(*args)
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    return subprocess.run([sys.executable, "-m", "harness", *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=_limit_memory if limit else None)


def refused(done, *words) -> str:
    """Exit code 2 and one line on standard error holding ``words``; returns that line."""
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr[-2000:]
    for w in words:
        assert w in done.stderr, done.stderr
    return done.stderr


@pytest.fixture
def place():
    top = Path(tempfile.mkdtemp(prefix="ellibir-robust-"))
    top.chmod(0o755)
    yield top
    remove_tree(top)


def kit(where: Path, name: str = "mybot", version: str = "1.0") -> Path:
    folder = where / f"src-{name}"
    shutil.copytree(KIT, folder)
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "{version}"\ncommand = ["python3", "main.py"]\n')
    return folder


# Sizes ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("deal_sets", [2_000_000, 10**12])
def test_too_many_deal_sets_are_refused_before_any_seed_is_made(tmp_path, deal_sets):
    done = cli("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:random", "--players", 2,
               "--deal-sets", deal_sets, "--out", tmp_path / "run", limit=True)
    refused(done, "--deal-sets", "1 to 1,000,000")
    assert not (tmp_path / "run").exists()


def test_a_plan_too_large_from_many_variants_is_refused_from_the_options_alone(tmp_path):
    done = cli("sweep", "--executor", "local", "--vary", "threshold=" + ",".join(str(51 + i) for i in range(40)),
               "--vary", "rounds=" + ",".join(str(1 + i) for i in range(40)),
               "--bot", "builtin:greedy", "--bot", "builtin:random", "--deal-sets", 1000,
               "--out", tmp_path / "run", limit=True)
    refused(done, "1000 variants")
    done = cli("sweep", "--executor", "local", "--vary", "threshold=51,71", "--bot", "builtin:greedy", "--bot", "builtin:random",
               "--bot", "builtin:pairs", "--deal-sets", 900_000, "--out", tmp_path / "run", limit=True)
    refused(done, "more than 1000000")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("command, option, value", [
    (["tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:random"], "--workers", 10**9),
    (["play", "--bot", "builtin:greedy", "--bot", "builtin:random"], "--line-limit", 1 << 40),
])
def test_other_sizes_have_caps(tmp_path, command, option, value):
    done = cli(*command, option, value, "--out" if command[0] == "tournament" else "--quiet",
               *([tmp_path / "run"] if command[0] == "tournament" else []), limit=True)
    refused(done, option)


def _help(*command) -> str:
    return " ".join(cli(*command, "--help", own_process=True).stdout.replace("│", " ").split())


def test_the_caps_are_stated_in_help():
    text = _help("tournament", "run")
    assert "1 to 1,000,000" in text and "1,000,000 matches" in text and "1 to 1,024" in text
    assert "at most 100,000" in _help("ratings")
    assert "at most 1 MiB" in _help("play") and "1,024 to 67,108,864 bytes" in _help("play")


# Deal files ------------------------------------------------------------------------------------------

def test_a_deeply_nested_deal_file_is_one_line(tmp_path):
    deal = tmp_path / "deep.json"
    deal.write_text("[" * 100_000 + "]" * 100_000)
    refused(cli("play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--deal", deal, "--quiet"),
            str(deal), "nested", "32")


def test_a_huge_deal_file_is_not_read_whole(tmp_path):
    deal = tmp_path / "huge.json"
    with open(deal, "wb") as f:  # 2 GiB, sparse: reading it whole under the 1 GiB limit would fail
        f.truncate(2 << 30)
    refused(cli("play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--deal", deal, "--quiet", limit=True),
            str(deal), "larger than 1048576 bytes")


# Bot folders named by path --------------------------------------------------------------------------

@pytest.mark.parametrize("what", ["absolute symlink", "fifo"])
def test_a_path_bot_with_a_symlink_or_fifo_is_refused_before_planning(place, what):
    bot = kit(place)
    if what == "fifo":
        os.mkfifo(bot / "pipe")
        word = "not a regular file"
    else:
        (bot / "data").symlink_to("/etc/hostname")
        word = "symbolic link"
    out = place / "run"
    refused(cli("tournament", "run", "--executor", "local", "--bot", bot, "--bot", "builtin:greedy", "--players", 2, "--deal-sets", 1,
                "--rounds", 1, "--out", out, "--quiet"), word, str(bot))
    assert not out.exists()
    refused(cli("bot", "check", bot), word)
    refused(cli("play", "--bot", bot, "--bot", "builtin:greedy", "--quiet"), word)


def test_a_bot_folder_over_the_size_cap_is_refused_by_path_and_by_submit(place):
    bot = kit(place)
    with open(bot / "weights.bin", "wb") as f:
        f.truncate(65 << 20)  # sparse: 65 MiB by its size, nothing on disk
    refused(cli("tournament", "run", "--executor", "local", "--bot", bot, "--bot", "builtin:greedy", "--players", 2, "--deal-sets", 1,
                "--out", place / "run", "--quiet"), "64 MiB")
    refused(cli("bot", "submit", bot, "--arena", place / "arena"), "64 MiB")
    assert not (place / "arena" / "mybot").exists()


def test_a_run_folder_inside_a_bot_s_folder_is_refused_up_front(place):
    bot = kit(place)
    before = sorted(p.name for p in bot.iterdir())
    refused(cli("tournament", "run", "--executor", "local", "--bot", bot, "--bot", "builtin:greedy", "--players", 2, "--deal-sets", 1,
                "--out", bot / "runs" / "r1", "--quiet"), "inside the folder of bot", str(bot))
    assert sorted(p.name for p in bot.iterdir()) == before


# The arena's own names ---------------------------------------------------------------------------------

def test_a_bot_named_like_the_arena_s_ratings_file_is_refused_and_the_arena_still_lists(place):
    arena = place / "arena"
    arena.mkdir()  # an arena without bots
    bot = kit(place, name="ratings.jsonl")
    refused(cli("bot", "submit", bot, "--arena", arena), "ratings.jsonl", "reserved")
    assert not (arena / "ratings.jsonl").exists()
    listed = cli("bot", "list", "--arena", arena)
    assert listed.returncode == 0, listed.stderr


def test_a_version_with_a_slash_is_refused_at_submit(place):
    bot = kit(place, name="slashy", version="1.0/beta")
    refused(cli("bot", "submit", bot, "--arena", place / "arena"), "'/'", "1.0/beta")
    assert not (place / "arena" / "slashy").exists()


# Output never into a run's own files ------------------------------------------------------------------

def _files(run: Path) -> dict:
    return {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}


@pytest.mark.parametrize("case", ["report-part", "ratings-plan", "play-schema", "report-sprt-in-logs"])
def test_output_into_a_run_folder_s_own_files_is_refused(tmp_path, tournament_run, case):
    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    before = _files(run)
    part = sorted((run / "matches").glob("*.parquet"))[0]
    if case == "report-part":
        done = cli("report", run, "--html", part)
    elif case == "ratings-plan":
        done = cli("ratings", run, "--csv", run / "run.json")
    elif case == "play-schema":
        done = cli("play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--quiet", "--log",
                   run / "schema.json")
    else:
        done = cli("report", run, "--html", run / "logs" / "new.html")
    refused(done, "refusing to write")
    assert _files(run) == before


def test_output_next_to_a_run_is_still_allowed(tmp_path, tournament_run):
    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    done = cli("ratings", run, "--csv", run / "leaderboard.csv")
    assert done.returncode == 0, done.stderr
    assert (run / "leaderboard.csv").read_text().startswith("place,bot")
