"""One process at a time in a run folder: ``tournament run``, ``sweep`` and ``--resume`` hold an
exclusive ``flock`` on ``RUN/.lock`` while they play. The kernel releases it when the holder exits or
is killed, so a lock is never left behind. The file itself stays, empty and unchanged (removing
it would let two processes lock two different files). The lock file is opened only as a regular file of
the run folder: a link there (which would make the lock create a file elsewhere) or a FIFO is refused."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from results.files import NotRegularFile, open_fd

LOCK_FILE = ".lock"


class RunLocked(ValueError):
    """The run folder is in use by another process; the message is one line."""


@contextlib.contextmanager
def run_lock(run_dir):
    """Hold the run folder's lock for the block; RunLocked at once when another process holds it."""
    path = Path(run_dir) / LOCK_FILE
    try:  # a regular file in the run folder, never through a link; not inherited by Ray's processes
        fd = open_fd(path, os.O_RDWR | os.O_CREAT)
    except OSError as e:
        raise RunLocked(f"cannot lock the run folder {run_dir}: {path}: {e.strerror or e}"
                        + (": remove it" if isinstance(e, NotRegularFile) else "")) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunLocked(f"{run_dir} is in use by another ellibir process (a run or a --resume): wait for it "
                            f"to end, or stop it, then try again") from None
        yield path
    finally:
        os.close(fd)
