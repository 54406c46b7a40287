"""The cgroup v1 groups a sandboxed bot runs in (memory, pids, CPU, freezer), where the machine offers them
writable: finding this process's own group of a controller, and taking a bot's group away."""

from __future__ import annotations

import errno
import functools
import os
import signal
import time
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
CPU_PERIOD_US = 100_000


@functools.cache
def cgroup_parent(controller: str) -> Path | None:
    """This process's own cgroup of ``controller``, if it is v1 and we may make children in it."""
    base = CGROUP_ROOT / controller
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            parent = base / path.lstrip("/")
            probe = parent / f"ellibir-probe-{os.getpid()}"
            try:
                probe.mkdir()
                probe.rmdir()
            except OSError:
                return None
            return parent
    return None


CGROUP_CONTROLLERS = ("freezer", "memory", "pids", "cpu", "cpuacct")  # freezer first: it thaws


def remove_cgroup(group: Path, wait: float = 2.0) -> None:
    deadline = time.monotonic() + wait
    state = group / "freezer.state"
    if state.exists():
        try:
            state.write_text("THAWED")  # frozen processes die only once thawed
        except OSError:
            pass
    while group.exists():
        try:
            for pid in (group / "cgroup.procs").read_text().split():
                kill(int(pid))
            group.rmdir()
        except FileNotFoundError:
            return
        except OSError as e:
            if e.errno != errno.EBUSY or time.monotonic() > deadline:
                return
            time.sleep(0.01)


def kill(pid: int) -> None:
    send_signal(pid, signal.SIGKILL)


def send_signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
