"""Shared fixtures: small real runs made once per test session by the tournament code.

They are read-only: a test that changes a run copies it first (``shutil.copytree``). A run made by
``shared`` is made once for the whole session, by whichever pytest-xdist worker asks first; the
others wait for it and read the same files.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from cli_runs import kill, marked

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def env():
    """The environment of the CLI's subprocesses, marked: at the end, any process still carrying the
    mark, and its descendants, is killed; nothing else is touched."""
    mark = f"ellibir-test-{uuid.uuid4().hex[:12]}"
    yield {**os.environ, "ELLIBIR_TEST_MARK": mark, "RAY_USAGE_STATS_ENABLED": "0"}
    kill(marked(mark))


def run_cli(*args, timeout=300) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "ELLIBIR_TEST_MARK": f"fixture-{uuid.uuid4().hex[:8]}"}
    done = subprocess.run([sys.executable, "-m", "harness", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def session_dir(tmp_path_factory) -> Path:
    """The folder every worker of this test session shares (the session's own base folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared(tmp_path_factory, name: str, make) -> Path:
    """``SESSION/shared/NAME``, made by ``make(path)`` once for all the session's workers: the first to ask
    makes it under a lock, the others wait for the lock and find it made."""
    top = session_dir(tmp_path_factory) / "shared"
    top.mkdir(exist_ok=True)
    out, done = top / name, top / f"{name}.done"
    with open(top / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            if out.exists():  # left by a worker whose make failed
                shutil.rmtree(out)
            out.mkdir()
            make(out)
            done.touch()
    return out


@pytest.fixture(scope="session")
def tournament_run(tmp_path_factory) -> Path:
    """A round robin of the three reference bots: 4 players, 6 deal sets under every seat rotation, 2 rounds."""
    return shared(tmp_path_factory, "tournament_run", make_tournament_run) / "rr"


def make_tournament_run(top: Path) -> None:
    out = top / "rr"
    run_cli("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--bot", "builtin:random",
            "--players", 4, "--deal-sets", 6, "--rounds", 2, "--seed", 3, "--workers", 2, "--name", "rr", "--duplicate",
            "--out", out, "--quiet")


@pytest.fixture(scope="session")
def parts_run(tmp_path_factory) -> Path:
    """The round robin of ``tournament_run`` left as its tasks wrote it (``--no-compact``): one part per
    task, as an interrupted run leaves them (``tournament_run`` is compacted at its end, into one part)."""
    return shared(tmp_path_factory, "parts_run", make_parts_run) / "rr"


def make_parts_run(top: Path) -> None:
    out = top / "rr"
    run_cli("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--bot", "builtin:random",
            "--players", 4, "--deal-sets", 6, "--rounds", 2, "--seed", 3, "--workers", 2, "--name", "rr", "--duplicate",
            "--out", out, "--quiet", "--no-compact")
    assert len(list((out / "matches").glob("*.parquet"))) > 2


@pytest.fixture(scope="session")
def sweep_run(tmp_path_factory) -> Path:
    """Two variants (threshold 51 and 71) on the same deal seeds, greedy against pairs."""
    return shared(tmp_path_factory, "sweep_run", make_sweep_run) / "sweep"


def make_sweep_run(top: Path) -> None:
    out = top / "sweep"
    run_cli("sweep", "--executor", "local", "--vary", "threshold=51,71", "--bot", "builtin:greedy", "--bot", "builtin:pairs",
            "--players", 4, "--deal-sets", 6, "--rounds", 2, "--seed", 5, "--workers", 2, "--name", "sweep", "--duplicate",
            "--out", out, "--quiet")
