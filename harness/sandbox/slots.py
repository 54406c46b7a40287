"""Bot uids: a machine-wide pool of unprivileged uids, one per running bot, held by file locks, and the
clearing away of what the bots of a harness that died left under them."""

from __future__ import annotations

import fcntl
import os
import pwd
import threading
import time
from pathlib import Path

from .cgroups import CGROUP_CONTROLLERS, cgroup_parent, kill, remove_cgroup
from .runtime import SandboxError

SLOT_DIR = Path("/var/lock/ellibir-slots")
FIRST_UID = 61000
SEATS_PER_CORE = 8  # a four-seat match on every core, twice over (bots that are closing hold theirs a moment)
KEPT_PER_CORE = 16  # processes a task keeps between matches (harness/players/reuse.py MAX_KEPT), one task per core


def slot_count() -> int:
    """Bot uids in the machine-wide pool: ELLIBIR_BOT_SLOTS, or enough on every core for four-seat
    matches and for the processes a task keeps for its next matches (they hold their uids meanwhile)."""
    wanted = os.environ.get("ELLIBIR_BOT_SLOTS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return min(int(wanted), 65534 - FIRST_UID)
    return max(64, (SEATS_PER_CORE + KEPT_PER_CORE) * (os.cpu_count() or 1))


SLOT_COUNT = slot_count()


def processes_of(uid: int) -> list[int]:
    """Pids of the live processes owned by ``uid`` (a /proc/PID folder belongs to its process's euid)."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    pids.append(int(name))
            except FileNotFoundError:
                pass
    return pids


class SlotPool:
    """Unprivileged uids, one per running bot, shared by every process on the machine.

    A slot is held by an exclusive ``flock`` on ``DIR/UID.lock``; the kernel frees it if the
    holder dies. A uid that a user owns or that still has processes is skipped.
    """

    def __init__(self, directory: Path = SLOT_DIR, first_uid: int = FIRST_UID, count: int = SLOT_COUNT):
        self.directory, self.first_uid, self.count = Path(directory), first_uid, count
        self._held: dict[int, int] = {}
        self._lock = threading.Lock()

    def acquire(self, timeout: float = 30.0) -> int:
        self.directory.mkdir(mode=0o755, parents=True, exist_ok=True)
        deadline = time.monotonic() + timeout
        while True:
            for uid in range(self.first_uid, self.first_uid + self.count):
                if self._try(uid):
                    return uid
            if time.monotonic() > deadline:
                raise SandboxError(
                    f"no free bot slot among the {self.count} uids {self.first_uid}..{self.first_uid + self.count - 1}"
                    f" after {timeout:g} s: every one runs a bot on this machine; run fewer tasks at once "
                    f"(--workers) or give a larger pool with ELLIBIR_BOT_SLOTS")
            time.sleep(0.05)

    def _try(self, uid: int) -> bool:
        with self._lock:
            if uid in self._held:
                return False
        fd = os.open(self.directory / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        if _uid_taken(uid):
            os.close(fd)
            return False
        with self._lock:
            self._held[uid] = fd
        return True

    def release(self, uid: int) -> None:
        with self._lock:
            fd = self._held.pop(uid, None)
        if fd is not None:
            os.close(fd)


def _uid_taken(uid: int) -> bool:
    """A user owns ``uid``, or processes of it are left that cannot be cleared away. The slot's lock is
    held here, so no live harness runs a bot under it: what is left belongs to a harness that died
    (perhaps with its bot frozen, and a frozen process cannot die of its parent's death)."""
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        pass
    if processes_of(uid):
        _clear_leftovers(uid)
    return bool(processes_of(uid))


def _clear_leftovers(uid: int, wait: float = 2.0) -> None:
    for controller in CGROUP_CONTROLLERS:
        parent = cgroup_parent(controller)
        if parent is not None:
            remove_cgroup(parent / f"ellibir-{uid}", wait)  # thawed, its processes killed, removed
    deadline = time.monotonic() + wait
    while processes_of(uid) and time.monotonic() < deadline:
        for pid in processes_of(uid):
            kill(pid)
        time.sleep(0.01)


SLOTS = SlotPool()


def clear_free_slots(pool: SlotPool = SLOTS) -> list[int]:
    """Clear what the bots of dead harnesses left under the slots no live harness holds (a bot frozen when
    its worker was killed stays frozen, and keeps its cgroups): thawed, killed, its cgroups removed.
    Returns the uids cleared."""
    leftover = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                uid = os.stat(f"/proc/{name}").st_uid
            except FileNotFoundError:
                continue
            if pool.first_uid <= uid < pool.first_uid + pool.count:
                leftover.add(uid)
    for controller in CGROUP_CONTROLLERS:
        parent = cgroup_parent(controller)
        for uid in range(pool.first_uid, pool.first_uid + pool.count) if parent is not None else ():
            if (parent / f"ellibir-{uid}").is_dir():
                leftover.add(uid)
    cleared = []
    for uid in sorted(leftover):
        if pool._try(uid):  # no live harness holds it (processes left are cleared on the way)
            _clear_leftovers(uid)
            pool.release(uid)
            cleared.append(uid)
    return cleared
