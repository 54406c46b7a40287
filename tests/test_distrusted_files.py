"""Run files are distrusted (issue 26): a stale or crafted compaction journal is refused, never believed;
only regular files are opened where a file is expected (a FIFO part, a linked lock, a linked bot.toml,
a linked --keep-tmp folder, the arena's files); an edited plan is checked whole before any task."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.arena.ladder import LadderError, arena_runs
from harness.arena.registry import RATINGS, Arena, ArenaError, latest_ratings
from harness.cli.main import app
from harness.players.manifest import ManifestError, load_manifest
from harness.runs.options import TournamentError
from harness.runs.runfolder import RunFolderError, check_stored, compact_run
from harness.runs.runlock import RunLocked, run_lock
from harness.runs.tournament import load_run
from harness.sandbox.bubblewrap import SandboxError, _own_folder
from results.store import JOURNAL, RunStore, SchemaError

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def one_line(text: str) -> bool:
    return text.count("\n") <= 1 and len(text) < 500


def cli(*args, timeout=120):
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    return subprocess.run([sys.executable, "-m", "harness", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def files(run: Path) -> dict:
    return {str(p.relative_to(run)): p.stat().st_size for p in run.rglob("*") if p.is_file() and p.name != ".lock"}


@pytest.fixture
def parts(tmp_path, parts_run) -> Path:
    """A copy of the session's run left as its tasks wrote it (several parts)."""
    copy = tmp_path / "rr"
    shutil.copytree(parts_run, copy)
    return copy


def _tasks(run: Path) -> list[str]:
    return sorted(p.name.removesuffix(".parquet") for p in (run / "matches").glob("*.parquet"))


# The compaction journal ---------------------------------------------------------------------------------

JOURNALS = {
    "an existing part as target": lambda t: {"target": t[0], "sources": t[1:]},
    "the target among its sources": lambda t: {"target": t[0], "sources": t[:2]},
}


@pytest.mark.parametrize("case", sorted(JOURNALS))
def test_a_crafted_journal_is_refused_by_compact_resume_and_analysis_and_nothing_is_removed(parts, case):
    tasks = _tasks(parts)
    (parts / JOURNAL).write_text(json.dumps(JOURNALS[case](tasks)))
    before = files(parts)
    with pytest.raises(RunFolderError) as e:  # compact "finished" it: 48 matches became 12
        compact_run(parts)
    assert str(parts / JOURNAL) in str(e.value) and one_line(str(e.value))
    with pytest.raises(RunFolderError):  # --resume recovers first: it deleted both parts
        check_stored(RunStore(parts))
    with pytest.raises(SchemaError):  # readers hid the sources: ratings used half the matches
        RunStore(parts).parts("matches")
    done = runner.invoke(app, ["ratings", str(parts)])
    assert done.exit_code == 2 and str(parts / JOURNAL) in done.stderr and one_line(done.stderr), done.output
    assert files(parts) == before


def test_a_journal_whose_target_holds_its_sources_is_still_finished(parts, tmp_path):
    """The check does not stop a real recovery: a compaction stopped while it removed its sources."""
    from results.compact import compact

    tasks = _tasks(parts)
    kept = tmp_path / "kept.parquet"
    shutil.copy(parts / "matches" / f"{tasks[0]}.parquet", kept)
    before = RunStore(parts).done_match_ids()
    compact(RunStore(parts), max_matches=10**6)  # one part holding every match
    (target,) = _tasks(parts)
    shutil.copy(kept, parts / "matches" / f"{tasks[0]}.parquet")  # one source not removed yet
    (parts / JOURNAL).write_text(json.dumps({"target": target, "sources": tasks}))
    assert RunStore(parts).done_match_ids() == before  # the source is hidden: its matches are in the target
    compact_run(parts)
    assert _tasks(parts) == [target] and not (parts / JOURNAL).exists()


# Files that are not files -----------------------------------------------------------------------------

@pytest.fixture
def fifo_part(parts) -> Path:
    part = parts / "matches" / f"{_tasks(parts)[0]}.parquet"
    part.unlink()
    os.mkfifo(part)
    return part


@pytest.mark.parametrize("command", [["compact", "RUN"], ["ratings", "RUN"], ["faults", "RUN"],
                                     ["tournament", "run", "--executor", "local", "--quiet", "--resume", "RUN"]])
def test_a_fifo_in_place_of_a_part_is_one_line_not_a_hang(parts, fifo_part, command):
    done = cli(*[str(parts) if a == "RUN" else a for a in command], timeout=90)  # before: waited for ever
    assert done.returncode == 2 and str(fifo_part) in done.stderr and "not a regular file" in done.stderr
    assert one_line(done.stderr), done.stderr


def test_a_linked_table_folder_or_part_is_refused(parts, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    shutil.move(parts / "logs", elsewhere)
    (parts / "logs").symlink_to(elsewhere)
    with pytest.raises(SchemaError, match="a link, not a folder"):
        RunStore(parts).parts("logs")
    part = parts / "rounds" / f"{_tasks(parts)[0]}.parquet"
    shutil.move(part, tmp_path / "part.parquet")
    part.symlink_to(tmp_path / "part.parquet")
    with pytest.raises(SchemaError, match="not a regular file"):
        RunStore(parts).parts("rounds")


def test_a_linked_lock_is_refused_and_creates_nothing_elsewhere(parts, tmp_path):
    outside = tmp_path / "outside" / "made-by-the-lock"
    outside.parent.mkdir()
    (parts / ".lock").unlink(missing_ok=True)
    (parts / ".lock").symlink_to(outside)
    with pytest.raises(RunLocked, match="not a regular file"):
        with run_lock(parts):
            pass
    assert not outside.exists()
    with pytest.raises(RunFolderError, match="not a regular file"):
        compact_run(parts)


def test_a_linked_bot_toml_is_not_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-FIRST-LINE\nname = 1\n")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").symlink_to(secret)
    with pytest.raises(ManifestError) as e:
        load_manifest(bot)
    assert "not a regular file" in str(e.value) and "SECRET" not in str(e.value)
    (bot / "bot.toml").unlink()
    os.mkfifo(bot / "bot.toml")
    with pytest.raises(ManifestError, match="not a regular file"):  # before: waited for a writer
        load_manifest(bot)


def test_keep_tmp_s_link_check_fires(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    owner = target.stat().st_uid
    link = tmp_path / "seat-0"
    link.symlink_to(target)
    with pytest.raises(SandboxError, match="not a folder"):
        _own_folder(link, 61_999)
    assert target.stat().st_uid == owner  # never handed to the bot's uid
    done = runner.invoke(app, ["play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--keep-tmp", str(link)])
    assert done.exit_code == 2 and "a link" in done.stderr


def test_the_arena_s_files_are_read_only_as_regular_files(tmp_path):
    arena = Arena(tmp_path / "arena")
    arena.root.mkdir()
    elsewhere = tmp_path / "ratings-elsewhere.jsonl"
    elsewhere.write_text(json.dumps({"run_dir": str(tmp_path)}) + "\n")
    (arena.root / RATINGS).symlink_to(elsewhere)
    with pytest.raises(ArenaError, match="not a regular file"):
        latest_ratings(arena)
    with pytest.raises(LadderError, match="not a regular file"):
        arena_runs(arena)


def test_a_submission_linked_elsewhere_is_not_a_bot_of_the_arena(tmp_path):
    arena = Arena(tmp_path / "arena")
    version = arena.root / "mybot" / "1.0"
    version.mkdir(parents=True)
    (version / "submission.json").write_text(json.dumps({"name": "mybot", "version": "1.0", "hash": "0" * 64,
                                                         "date": "2025-01-01T00:00:00"}))
    (version / "bot").mkdir()
    assert arena.find("mybot").version == "1.0"
    elsewhere = tmp_path / "secrets"
    elsewhere.mkdir()
    (version / "bot").rmdir()
    (version / "bot").symlink_to(elsewhere)  # staged and bound into a sandbox, it would show a bot these files
    with pytest.raises(ArenaError, match="no bot 'mybot'"):
        arena.find("mybot")


# An edited plan ------------------------------------------------------------------------------------------

EDITS = {
    "move_time -1": lambda p: p["options"].update(move_time=-1),
    "move_time 1e9": lambda p: p["options"].update(move_time=1e9),
    "cpu_limit 0": lambda p: p["options"].update(cpu_limit=0),
    "max_refusals huge": lambda p: p["options"].update(max_refusals=10**12),
    "seed negative": lambda p: p.update(seed=-1),
    "mc worlds 10**20": lambda p: p["bots"][0].update(label="builtin:mc:worlds=100000000000000000000"),
    "threshold past 64 bits": lambda p: p["variants"][0]["rules"].update(threshold=2**63),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_plan_is_refused_whole_before_any_task(tmp_path, tournament_run, edit):
    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    plan = json.loads((run / "run.json").read_text())
    old_label = plan["bots"][0]["label"]
    EDITS[edit](plan)
    if plan["bots"][0]["label"] != old_label:
        for m in plan["matches"]:
            m["seating"] = [plan["bots"][0]["label"] if s == old_label else s for s in m["seating"]]
    (run / "run.json").write_text(json.dumps(plan))
    for part in (run / "matches").glob("*.parquet"):
        part.unlink()  # an unfinished run: a resume has every match to play
    with pytest.raises(TournamentError) as e:
        load_run(run)
    assert str(run / "run.json") in str(e.value) and one_line(str(e.value))
    done = runner.invoke(app, ["tournament", "run", "--executor", "local", "--quiet", "--resume", str(run)])
    assert done.exit_code == 2 and one_line(done.stderr) and "run.json" in done.stderr, done.output
    assert not list((run / "matches").glob("*.parquet"))  # no task started
    again = runner.invoke(app, ["rerun", str(run), plan["matches"][0]["id"]])
    assert again.exit_code == 2 and "run.json" in again.stderr
