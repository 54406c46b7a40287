"""A two-node Ray cluster on this machine, started by the test: a tournament joins it with --address,
a worker process is killed (SIGKILL) while it runs a task, and the run still ends with exactly the
planned matches, each once. The test stops only the processes it started (found by a mark in their
environment), never ``ray stop``."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import polars as pl
import pytest

from cli_runs import descendants, marked  # marked: processes whose environment carries a test's mark

ROOT = Path(__file__).resolve().parent.parent
RAY = Path(sys.executable).parent / "ray"
MARK_VAR = "ELLIBIR_TEST_MARK"


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def stop_cluster(mark: str, temp: str) -> None:
    """SIGKILL the marked processes, everything below them, and whatever still has a file open in the
    cluster's temp folder, until nothing is left (bounded)."""
    for _ in range(20):
        pids = set(marked(mark)) | using(temp)
        pids = below(pids) - {os.getpid()}
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.2)


def below(roots) -> set:
    """``roots`` and their descendants, zombies left out."""
    return {pid for pid in descendants(roots) if not _zombie(pid)}


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def using(folder: str) -> set:
    """Processes with a file open under ``folder``."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{entry}/fd"):
                if os.readlink(f"/proc/{entry}/fd/{fd}").startswith(folder + "/"):
                    found.add(int(entry))
                    break
        except OSError:
            continue
    return found


def task_workers(mark: str) -> list[int]:
    """The test cluster's worker processes running a play_batch task (Ray titles them ray::play_batch...)."""
    return [pid for pid in marked(mark) if cmdline(pid).startswith("ray::play_batch")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_cluster(nodes: int = 2, node_env: dict | None = None):
    """A context: (environment of the driver, address) of a head node and ``nodes - 1`` more, one CPU
    each, on loopback; the nodes' processes get ``node_env`` on top of the driver's environment."""
    import contextlib

    @contextlib.contextmanager
    def running():
        if not RAY.exists():
            pytest.skip("the ray command is not installed")
        mark = f"ellibir-cluster-{uuid.uuid4().hex[:12]}"
        env = {**os.environ, MARK_VAR: mark, "RAY_USAGE_STATS_ENABLED": "0",
               # Ray 2.60 token authentication, with a token of this test only (nothing under ~/.ray)
               "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16)}
        env.pop("RAY_ADDRESS", None)
        port = free_port()
        temp = tempfile.mkdtemp(prefix="er-", dir="/tmp")  # short: Ray's socket paths live under it
        address = f"127.0.0.1:{port}"
        try:
            heads = [["--head", "--port", port, "--include-dashboard=false", "--temp-dir", temp]]
            for args in heads + [["--address", address]] * (nodes - 1):
                command = [RAY, "start", *map(str, args), "--node-ip-address", "127.0.0.1", "--num-cpus", "1",
                           "--disable-usage-stats"]
                started = subprocess.run(command, env={**env, **(node_env or {})}, capture_output=True, text=True,
                                         timeout=120)
                assert started.returncode == 0, started.stderr[-2000:]
            yield env, address
        finally:
            stop_cluster(mark, temp)
            shutil.rmtree(temp, ignore_errors=True)

    return running()


@pytest.fixture
def cluster():
    """(environment, address) of a head node and a second node, one CPU each, on loopback."""
    with start_cluster(2) as found:
        yield found


def test_a_worker_killed_mid_run_loses_and_repeats_nothing(tmp_path, cluster):
    env, address = cluster
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "tournament", "run", "--bot", "builtin:greedy", "--bot", "builtin:pairs",
         "--bot", "builtin:random", "--deal-sets", "6", "--rounds", "3", "--seed", "11", "--duplicate", "--address", address,
         "--quiet", "--out", str(run_dir)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed, raylets = None, set()
    deadline = time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            busy = task_workers(env[MARK_VAR])
            raylets |= {parent(pid) for pid in busy}
            if busy and killed is None and (run_dir / "matches").is_dir():  # some work done, more running
                victim = busy[0]
                if cmdline(victim).startswith("ray::play_batch"):
                    os.kill(victim, signal.SIGKILL)
                    killed = victim
            time.sleep(0.05)
        out, err = proc.communicate(timeout=max(1, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
    assert killed is not None, "no task was running to kill"
    assert proc.returncode == 0, err[-3000:]
    assert len(raylets) == 2, f"tasks ran under {len(raylets)} node(s)"

    plan = json.loads((run_dir / "run.json").read_text())
    table = pl.read_parquet(str(run_dir / "matches" / "*.parquet"))
    planned = sorted(m["id"] for m in plan["matches"])
    assert table.height == len(planned) * 4
    assert table.select("match_id", "seat").n_unique() == table.height
    assert sorted(set(table["match_id"])) == planned
    assert f"{len(planned)} of {len(planned)} planned matches" in out


# The workers' checks (harness/runs/nodecheck.py) on real nodes ---------------------------------------------

KIT = ROOT / "bots" / "kits" / "python"


def refused_run(env, address, run_dir, *bots):
    bots = bots or ("builtin:greedy", "builtin:random")
    args = [a for bot in bots for a in ("--bot", str(bot))]
    return subprocess.run([sys.executable, "-m", "harness", "tournament", "run", *args, "--players", "2",
                           "--deal-sets", "2", "--rounds", "1", "--seed", "5", "--address", address, "--quiet",
                           "--out", str(run_dir)], cwd=run_dir.parent, env=env, capture_output=True, text=True,
                          timeout=180)  # not from the checkout: its ellibir.egg-info would be the workers' version


def test_a_worker_on_other_code_refuses_the_run(tmp_path):
    """The node's workers find another ellibir installed (a distribution of version 9.9.9-other
    earlier on their path): the run stops before any match with the version each side runs."""
    other = tmp_path / "other"
    info = other / "ellibir-9.9.9.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ellibir\nVersion: 9.9.9-other\n")
    path = os.pathsep.join(filter(None, [str(other), os.environ.get("PYTHONPATH", "")]))
    with start_cluster(1, {"PYTHONPATH": path}) as (env, address):
        done = refused_run(env, address, tmp_path / "run")
    assert done.returncode == 2, done.stderr[-2000:]
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("error: node ") and "runs ellibir 9.9.9-other" in line, done.stderr[-2000:]
    from harness.runs.plan import project_version

    assert f"planned with ellibir {project_version()}" in line
    assert not (tmp_path / "run" / "run.json").exists()  # refused before the plan is written


@pytest.fixture(scope="module")
def sandboxless_node(tmp_path_factory):
    """(environment, address) of a one-node cluster where bwrap cannot make its namespaces (a bwrap
    first on its path that fails as a kernel without user namespaces makes it fail); shared by the
    tests that need any cluster with a token, one node start fewer."""
    broken = tmp_path_factory.mktemp("broken-bin")
    (broken / "bwrap").write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    (broken / "bwrap").chmod(0o755)
    with start_cluster(1, {"PATH": f"{broken}{os.pathsep}{os.environ['PATH']}"}) as found:
        yield found


def test_a_node_whose_sandbox_fails_refuses_bot_folders_but_not_built_in_bots(tmp_path, sandboxless_node):
    """On a node whose bwrap fails (``sandboxless_node``), a run with a bot folder is refused with
    bwrap's own words; a run of built-in bots needs no sandbox and plays."""
    env, address = sandboxless_node
    done = refused_run(env, address, tmp_path / "run", KIT, "builtin:greedy")
    plain = refused_run(env, address, tmp_path / "plain")
    assert done.returncode == 2, done.stderr[-2000:]
    line = done.stderr.strip().splitlines()[-1]
    assert "cannot sandbox bot programs" in line and "No permissions to creating new namespace" in line, line
    assert not (tmp_path / "run" / "run.json").exists()
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert "4 of 4 planned matches" in plain.stdout


def test_a_driver_without_the_cluster_s_token_is_refused_in_one_line(tmp_path, sandboxless_node):
    """Ray 2.60's token authentication (docs/cluster.md): a driver without the cluster's token (none
    in its environment; whatever ~/.ray holds is not this cluster's) cannot join; the join is refused
    before any node is asked to play, so the node's broken sandbox plays no part."""
    env, address = sandboxless_node
    tokenless = {k: v for k, v in env.items() if not k.startswith("RAY_AUTH_")}
    tokenless["ELLIBIR_CONNECT_TIMEOUT"] = "4"  # the bound, shorter: a tokenless join never ends by itself
    done = refused_run(tokenless, address, tmp_path / "run")
    assert done.returncode == 2, done.stderr[-2000:]
    line = done.stderr.strip().splitlines()[-1]
    # Ray waits for ever for a driver without the token: the join's time bound ends it, with the hint
    assert line.startswith(f"error: the Ray cluster at {address} does not answer"), done.stderr[-2000:]
    assert "RAY_AUTH_MODE=token and RAY_AUTH_TOKEN" in line and "(waited 4 s)" in line
    assert not (tmp_path / "run" / "run.json").exists()
