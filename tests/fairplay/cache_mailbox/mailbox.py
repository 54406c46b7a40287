"""A mailbox in the page cache of a big file of /usr that every sandbox can read.

A bit is a pair of pages: the writer drops both from the cache (``POSIX_FADV_DONTNEED``, over whole
2 MiB blocks: a page read ahead may sit in a larger folio, which only a drop of all of it removes),
then reads one byte of the first for a 1, of the second for a 0 (``POSIX_FADV_RANDOM``: no read-ahead,
one page a read). The
reader times a read of each page, at another offset than the writer's, against a control: a page it
has just read itself, so known to be cached. A page read within a few times the control's time was
cached; one far slower came from the disk. A pair with exactly one cached page gives its bit; any
other pair gives ``?``, so a mailbox whose pages are always cached yields nothing but ``?``.

``where()`` says what the bot can learn of the file it uses: the file system under it (a ``tmpfs``
keeps every page resident: no mailbox), the mount and its source, and this process's identity."""

import ctypes
import os
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
BLOCK = 2 << 20  # the largest folio of the page cache
LIBRARIES = "/usr/lib/x86_64-linux-gnu"


def shared_file() -> str:
    """The largest library: big, and rarely read by anyone."""
    sizes = []
    for entry in os.scandir(LIBRARIES):
        if entry.is_file(follow_symlinks=False):
            sizes.append((entry.stat().st_size, entry.path))
    return max(sizes)[1]


def _open(slot: int, bits: int):
    fd = os.open(shared_file(), os.O_RDONLY)
    span = 2 * bits * PAGE
    pages = max(1, (os.fstat(fd).st_size - span) // PAGE)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    return fd, (slot * 2 * bits) % pages * PAGE


def write(slot: int, bits: str) -> None:
    fd, start = _open(slot, len(bits))
    first, end = start // BLOCK * BLOCK, -(-(start + 2 * len(bits) * PAGE) // BLOCK) * BLOCK
    os.posix_fadvise(fd, first, end - first, os.POSIX_FADV_DONTNEED)
    for i, bit in enumerate(bits):
        os.pread(fd, 1, start + (2 * i + (bit == "0")) * PAGE)
    os.close(fd)


def _timed(fd: int, offset: int) -> int:
    begin = time.perf_counter_ns()
    os.pread(fd, 1, offset)
    return time.perf_counter_ns() - begin


CONTROL = [0]  # the last read's control time (ns), for where()


def read(slot: int, bits: int) -> str:
    fd, start = _open(slot, bits)
    os.pread(fd, 1, 0)
    control = sorted(_timed(fd, 0) for _ in range(63))[31]
    CONTROL[0] = control
    limit = 4 * control + 5_000
    out = []
    for i in range(bits):
        first = _timed(fd, start + 2 * i * PAGE + PAGE // 2) < limit
        second = _timed(fd, start + (2 * i + 1) * PAGE + PAGE // 2) < limit
        out.append("1" if first and not second else "0" if second and not first else "?")
    os.close(fd)
    return "".join(out)


# What the bot sees of its /usr ---------------------------------------------------------------------

TMPFS_MAGIC = 0x01021994


def fs_magic(path: str) -> str:
    """statfs's f_type of ``path`` in hex ("?" where libc cannot be called)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        buf = ctypes.create_string_buffer(256)
        if libc.statfs(path.encode(), buf) != 0:
            return "?"
        return hex(ctypes.c_long.from_buffer(buf).value)
    except (OSError, AttributeError):
        return "?"


def mount_of(path: str) -> tuple:
    """(mount point, root inside its file system, file system type, source) of the mount holding ``path``."""
    best = ("", "", "", "")
    path = os.path.realpath(path)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields, kind = line.split(" - ", 1)
            where, root = fields.split()[4], fields.split()[3]
            inside = path == where or path.startswith(where.rstrip("/") + "/")
            if inside and len(where) >= len(best[0]):
                best = (where, root, kind.split()[0], kind.split()[1])
    return best


def process_start() -> str:
    """This process's start, in clock ticks since the machine booted (/proc/self/stat, field 22)."""
    with open("/proc/self/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[19]


def where() -> str:
    """One line: the file, its file system (by statfs and by the mount table), /usr's, the control time of
    the last read, and the process (pid, start)."""
    path = shared_file()
    where_usr, root_usr, kind_usr, _ = mount_of("/usr")
    where_file, root_file, kind_file, source = mount_of(path)
    return (f"file={path} size={os.path.getsize(path)} file_fs={kind_file} file_magic={fs_magic(path)} "
            f"file_mount={where_file} file_root={root_file} source={source} usr_fs={kind_usr} "
            f"usr_magic={fs_magic('/usr')} usr_root={root_usr} control_ns={CONTROL[0]} pid={os.getpid()} "
            f"start={process_start()}")
