"""Every page of the staged copies read again and again, so that no page a bot can read is slower than another.

The runtime copy and the staged folders (harness/sandbox/resident.py, staging.py) lie on a tmpfs, whose
pages are never dropped nor read from a disk. But a virtual machine's host may take back memory its
guest has not touched for some minutes: on the machines this project is built on, a page of the
runtime copy left unread for ten minutes or more took 11-60 µs to read once, against about 1.5 µs
for one read lately. That is a channel like the page cache's: one bot reads one page of each chosen
pair of a big shared file, another times its reads of both (tests/fairplay/cache_mailbox carried all
90 bits of a hand across a deal's two seat rotations through a runtime copy made seven hours before).

So a node keeps every byte of ``STAGE_DIR`` recently read: one process of the node at a time (the one
holding ``LOCK``) reads it all every ``PERIOD`` seconds, and a process about to start a sandbox reads
it all first when nobody has for ``2 * PERIOD``. A page read that recently is not one a host takes
back, and a bot's own reads can then make no page faster than it already is. A sweep reads the
copies' bytes (about 0.4 s of CPU for 880 MB); it opens no FIFO and follows no link."""

from __future__ import annotations

import fcntl
import os
import stat
import threading
import time
from pathlib import Path

from . import staging

PERIOD = 30.0  # seconds between sweeps; the host here took back pages idle for minutes, never for 90 s
STAMP = staging.WARM_STAMP  # in STAGE_DIR: its modification time is the end of the last sweep
LOCK = staging.WARM_LOCK  # in STAGE_DIR: held (a POSIX lock: not inherited by a fork) by the node's keeper
KEEPER = "ellibir-warm"  # the keeper thread's name
_BUFFER = 1 << 20

_started = threading.Lock()
_keeper: threading.Thread | None = None


def sweep(top: Path) -> int:
    """Read every byte of every regular file under ``top`` but the keeper's lock (links not followed,
    nothing else opened for reading); the number of bytes read. Files that vanish meanwhile are skipped."""
    buffer = bytearray(_BUFFER)
    total = 0
    for root, dirs, files in os.walk(top):
        for name in files:
            if name == LOCK and root == str(top):  # closing a file of one's own POSIX lock drops the lock
                continue
            try:
                fd = os.open(os.path.join(root, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if stat.S_ISREG(os.fstat(fd).st_mode):
                    while (count := os.readv(fd, [buffer])) > 0:
                        total += count
            except OSError:
                pass
            finally:
                os.close(fd)
    return total


def last_sweep(top: Path = staging.STAGE_DIR) -> float | None:
    """When the last sweep of ``top`` ended (seconds since the epoch), or None."""
    try:
        return (top / STAMP).stat().st_mtime
    except OSError:
        return None


def _sweep_and_stamp(top: Path) -> None:
    sweep(top)
    stamp = top / STAMP
    try:
        stamp.touch()
    except OSError:
        pass


def keep_warm(top: Path = staging.STAGE_DIR, period: float = PERIOD) -> None:
    """Before this process starts a sandbox: read ``top`` now if no sweep ended in the last
    ``2 * period`` seconds, and start this process's keeper (once), which sweeps every ``period``
    seconds while it holds the node's lock (another process's keeper takes the lock over, within a
    period, once its holder has exited)."""
    global _keeper
    last = last_sweep(top)
    if last is None or time.time() - last > 2 * period:
        _sweep_and_stamp(top)
    with _started:
        if _keeper is None or not _keeper.is_alive():  # a forked child has no keeper of its own yet
            _keeper = threading.Thread(target=_keep, args=(top, period), name=KEEPER, daemon=True)
            _keeper.start()


def _keep(top: Path, period: float) -> None:
    lock = None
    while True:
        if lock is None:
            lock = _take(top / LOCK)
        last = last_sweep(top)
        if lock is not None and (last is None or time.time() - last >= period):  # not again at once
            _sweep_and_stamp(top)
        time.sleep(period)


def _take(path: Path):
    """The node's keeper lock, taken without waiting (an open file holding it), or None."""
    try:
        f = open(path, "a")
    except OSError:
        return None
    try:
        fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        return None
    return f
