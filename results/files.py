"""Opening a file that must be a regular file: a run's own files, a bot's manifest, a config file.

A FIFO where a file is expected would make a reader wait for ever (holding the run lock), a device
could be read without end, and a symbolic link would send the read, or a write, somewhere else. So
the name is checked with ``lstat`` first (nothing but a regular file is opened), then opened with
``O_NOFOLLOW`` (a link put there in between is not followed) and ``O_NONBLOCK`` (a FIFO put there in
between does not block the open), and the open file is checked again with ``fstat``.
"""

from __future__ import annotations

import errno
import os
import stat

NOT_REGULAR = "not a regular file (a link, a FIFO, a device or a folder)"


class NotRegularFile(OSError):
    """A path that names something else than a regular file; ``strerror`` says so in words."""

    def __init__(self, path, what: str = NOT_REGULAR):
        super().__init__(errno.EINVAL, what, str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def check_regular(path) -> os.stat_result:
    """The ``lstat`` of ``path``; NotRegularFile when it is not a regular file (FileNotFoundError when absent)."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFile(path)
    return st


def open_fd(path, flags: int = os.O_RDONLY, mode: int = 0o644, follow: bool = False) -> int:
    """A file descriptor of the regular file ``path`` (made when ``flags`` has O_CREAT); never through a
    link (``follow``: a link to a regular file is followed, for files a user names), never blocking on a FIFO."""
    if not follow and (not flags & os.O_CREAT or os.path.lexists(path)):
        check_regular(path)
    fd = os.open(path, flags | (0 if follow else os.O_NOFOLLOW) | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(path, NOT_REGULAR if not follow else "not a regular file (a FIFO, a device or a folder)")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular(path, mode: str = "rb", follow: bool = False):
    """The regular file ``path`` opened for reading (``"rb"`` or ``"r"``, UTF-8)."""
    fd = open_fd(path, follow=follow)
    try:
        return os.fdopen(fd, mode, **({"encoding": "utf-8"} if "b" not in mode else {}))
    except BaseException:
        os.close(fd)
        raise


def read_regular(path, max_bytes: int | None = None, follow: bool = False) -> bytes:
    """The bytes of the regular file ``path``; ValueError when it is longer than ``max_bytes``."""
    with open_regular(path, follow=follow) as f:
        data = f.read() if max_bytes is None else f.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:
        raise ValueError(f"{path}: larger than {max_bytes} bytes")
    return data


def read_regular_text(path, max_bytes: int | None = None, follow: bool = False) -> str:
    """The UTF-8 text of the regular file ``path`` (UnicodeDecodeError when it is not UTF-8)."""
    return read_regular(path, max_bytes, follow).decode("utf-8")


def is_real_folder(path) -> bool:
    """A folder, not a link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


__all__ = ["NOT_REGULAR", "NotRegularFile", "check_regular", "is_real_folder", "open_fd", "open_regular",
           "read_regular", "read_regular_text"]

