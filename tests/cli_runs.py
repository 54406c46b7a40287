"""Running the ``ellibir`` command as a subprocess in a marked environment, cleaning up after it,
and reading the runs it makes. Shared by the tests that start tournaments on a local Ray."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from harness.runs.raywatch import descendants

ROOT = Path(__file__).resolve().parent.parent
# A clock no load on the test machine runs out. A decision over its limit is a warning of `bot check`, so the
# tests that a kit passes with no warning give it this clock: they check the kit, not how busy the machine is.
UNHURRIED = ("--move-time", "60", "--first-time", "600")


def marked(mark: str) -> set:
    needle = f"ELLIBIR_TEST_MARK={mark}".encode()
    pids = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    pids.add(int(entry))
        except OSError:
            continue
    return pids


def kill(pids) -> None:
    """SIGKILL ``pids`` and their descendants (Ray's agents clobber their environment, so a mark in it
    does not find them; their parents do)."""
    for pid in descendants(pids) - {os.getpid()}:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def in_process(*args) -> subprocess.CompletedProcess:
    """``ellibir ARGS`` through its entry point (``harness.cli.main.main``) in this process, with its
    output and exit code as a subprocess would give them, without the new interpreter's start and
    imports (about half a second of CPU, more for a command that stages bots). For every command that
    needs no process of its own: not one that is signalled, limited (memory), timed out, or that
    starts a Ray driver (which would stay in this process)."""
    import contextlib
    import io

    from harness.cli.main import main

    out, err, argv = io.StringIO(), io.StringIO(), sys.argv
    sys.argv = ["ellibir", *map(str, args)]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
                code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = argv
    return subprocess.CompletedProcess(["ellibir", *map(str, args)], code, out.getvalue(), err.getvalue())


def cli(*args, env=None, timeout=180):
    return subprocess.run([sys.executable, "-m", "harness", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def start_cli(*args, env=None):
    return subprocess.Popen([sys.executable, "-m", "harness", *map(str, args)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def matches_table(run_dir) -> pl.DataFrame:
    return pl.read_parquet(str(Path(run_dir) / "matches" / "*.parquet")).sort("match_id", "seat")


def assert_complete(run_dir) -> pl.DataFrame:
    """Exactly the planned matches, each once, every seat once."""
    plan = json.loads((Path(run_dir) / "run.json").read_text())
    table = matches_table(run_dir)
    planned = [m["id"] for m in plan["matches"]]
    assert table.height == len(planned) * plan["players"]
    assert table.select("match_id", "seat").n_unique() == table.height
    assert sorted(set(table["match_id"])) == sorted(planned)
    return table


def wait_for_parts(run_dir: Path, proc, count: int = 1, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(list((run_dir / "matches").glob("*.parquet"))) >= count:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("no part was written in time")
