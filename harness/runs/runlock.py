"""One process at a time in a run folder: ``tournament run``, ``sweep`` and ``--resume`` hold an
exclusive ``flock`` on ``RUN/.lock`` while they play. The kernel releases it when the holder exits or
is killed, so a lock is never left behind. The file itself stays, empty and unchanged (removing
it would let two processes lock two different files)."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

LOCK_FILE = ".lock"


class RunLocked(ValueError):
    """The run folder is in use by another process; the message is one line."""


@contextlib.contextmanager
def run_lock(run_dir):
    """Hold the run folder's lock for the block; RunLocked at once when another process holds it."""
    path = Path(run_dir) / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)  # not inherited by Ray's processes
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunLocked(f"{run_dir} is in use by another ellibir process (a run or a --resume): wait for it "
                            f"to end, or stop it, then try again") from None
        yield path
    finally:
        os.close(fd)
