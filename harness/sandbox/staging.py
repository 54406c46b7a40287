"""Read-only copies of bot folders (and of the engine a bot may import) on a tmpfs, one per version of
a folder's content. A sandbox binds the copy instead of the folder itself, so that nothing a bot can
read (``/proc/self/mountinfo``, bwrap's ``/proc/1/cmdline``) names a folder of the host.

A copy of a bot folder lives while a process uses it: each process that asks for a copy holds a
shared ``flock`` on it until it exits, and ``remove_unused`` (run as that process exits, and by a run's
driver at its end) removes the copies no process holds. The copies of the harness's own packages (the
engine a bot may import) are kept for the next run; any copy unused for ``UNUSED_FOR`` is removed by
the next staging (``prune_unused``).

The ``.py`` files of a copy are compiled once, when it is staged, by the interpreter that runs Python
bots, into the copy's ``__pycache__``: a Python bot then starts without compiling the engine or its
own modules (it could not keep the bytecode, the copy being read-only)."""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

from .runtime import SandboxError, bot_interpreter

STAGE_DIR = Path("/dev/shm/ellibir-stage")
UNUSED_FOR = 2 * 86400  # seconds a staged copy may go unused before the next staging removes it
BOT, SHARED, DEAD = "bot-", "lib-", ".dead-"  # the names of a bot folder's copy, of a shared one, of one being removed
WARM_STAMP, WARM_LOCK = ".warm", ".warm.lock"  # the node's sweeps of its copies (harness/sandbox/warm.py)
STAGE_FORMAT = "pyc-1"  # part of a copy's name: copies made before bytecode was compiled are not reused
COMPILE_BYTECODE = True  # False stages copies without bytecode (under other names): benchmarks compare both
COMPILE_SECONDS = 120  # the most a copy's compilation may take; past it the copy is used without bytecode
# What compiling a bot's files may cost the harness (it runs as root, outside any sandbox): CPython's
# compiler takes about 430 MB and 2.6 s per MiB of short statements (a 16 MiB file of "a=1": 6.9 GB,
# 42 s), and a bot folder may hold 64 MiB. Larger files, and files past the total, are left to the bot
# (it compiles them itself when it imports them, on its own clock and memory).
COMPILE_FILE_MOST = 1 << 20  # bytes of one .py file compiled at most
COMPILE_TOTAL_MOST = 8 << 20  # bytes of .py files compiled at most in one copy
COMPILE_MEMORY = 1 << 30  # address space of the compiling process (RLIMIT_AS)

# Run by the bots' interpreter in a copy not yet read-only: compiles every regular .py file reached
# without following a symbolic link (a link may point anywhere on the host, and its bytecode would be
# readable by the bot; a linked __pycache__ would be written through), naming each file by its path
# inside the copy (no host path in the bytecode).
COMPILE = """import importlib.util, os, py_compile, resource, sys
top, file_most, left = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
memory = int(sys.argv[4])
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
for root, dirs, files in os.walk(top):
    dirs[:] = [d for d in dirs if d != "__pycache__" and not os.path.islink(os.path.join(root, d))]
    cache = os.path.join(root, "__pycache__")
    if os.path.lexists(cache) and (os.path.islink(cache) or not os.path.isdir(cache)):
        continue  # a bot's own __pycache__ that is a link or a file: writing through it could reach the host
    for name in files:
        path = os.path.join(root, name)
        if name.endswith(".py") and not os.path.islink(path) and os.path.isfile(path):
            size = os.path.getsize(path)
            if size > file_most or size > left:
                continue  # too costly to compile here: the bot compiles it when it imports it
            left -= size
            try:
                py_compile.compile(path, cfile=importlib.util.cache_from_source(path),
                                   dfile=os.path.relpath(path, top), doraise=True)
            except (py_compile.PyCompileError, OSError, ValueError, RecursionError, MemoryError):
                pass  # not Python that compiles: the bot meets the error itself when importing it
"""


_STAMPS: dict = {}  # (folder, hash of its names/sizes/times) -> content digest: files are read once per version
STAMPS_KEPT = 1024  # versions remembered at most: a worker stages every version it plays, for days


def _stamp(folder: Path) -> str:
    """The folder's names, modes, sizes and modification times: cheap, and it moves when a file changes."""
    parts = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files) + dirs:
            st = os.lstat(os.path.join(root, name))
            parts.append(f"{os.path.relpath(os.path.join(root, name), folder)}\0{st.st_mode}\0{st.st_size}\0"
                         f"{st.st_mtime_ns}")
    return "\n".join(parts)


def _digest(folder: Path) -> str:
    """A digest of the folder's content (names, executable bits, bytes, link targets)."""
    # the stamp of a folder of 10,000 files is about a megabyte: only its hash is kept
    key = (str(folder), hashlib.sha256(_stamp(folder).encode("utf-8", "surrogateescape")).digest())
    if key in _STAMPS:
        return _STAMPS[key]
    if len(_STAMPS) >= STAMPS_KEPT:
        _STAMPS.clear()
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                digest.update(f"L{rel}\0{os.readlink(path)}\n".encode())
                continue
            digest.update(f"F{rel}\0{os.stat(path).st_mode & 0o111}\0".encode())
            with open(path, "rb") as f:
                digest.update(hashlib.sha256(f.read()).digest())
        for name in dirs:
            digest.update(f"D{os.path.relpath(os.path.join(root, name), folder)}\n".encode())
    _STAMPS[key] = digest.hexdigest()[:32]
    return _STAMPS[key]


def staged(folder: Path, shared: bool = False) -> Path:
    """A read-only copy of ``folder`` on a tmpfs, made once per version of the folder. A sandbox binds the
    copy, so that the bot's ``/proc/self/mountinfo`` names no host path. ``shared``: the harness's own
    packages (the engine a bot may import), kept between runs; a bot folder's copy is removed once no
    process uses it (``remove_unused``)."""
    folder = Path(folder).resolve()
    bytecode = COMPILE_BYTECODE
    form = STAGE_FORMAT if bytecode else "source-only"
    kind = SHARED if shared else BOT
    target = STAGE_DIR / (kind + hashlib.sha256(f"{_digest(folder)}\0{form}".encode()).hexdigest()[:32])
    for _ in range(5):  # a copy removed by another process between two steps is made again
        if target.is_dir() and hold(target):
            touch(target)  # in use: kept by prune_unused
            return target
        if _make(folder, target, bytecode):
            prune_unused()
            return target
    raise SandboxError(f"cannot stage a copy of {folder} in {STAGE_DIR}: it keeps being removed")


def _make(folder: Path, target: Path, bytecode: bool) -> bool:
    """Make ``target``, held by this process; False when another process made it first."""
    if not STAGE_DIR.is_dir():
        STAGE_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
    if STAGE_DIR.lstat().st_uid != os.geteuid() or STAGE_DIR.is_symlink():
        raise SandboxError(f"{STAGE_DIR} is not the harness's own folder: remove it")
    temp = STAGE_DIR / f".{target.name}.{os.getpid()}.{threading.get_ident()}"
    try:  # a copy that fails midway (a folder nested too deep for copytree's recursion, say) is not left
        shutil.copytree(folder, temp, symlinks=True)  # behind: it would hold its memory for UNUSED_FOR
        if bytecode:
            compile_python(temp)
        for root, dirs, files in os.walk(temp):
            for name in files:
                path = os.path.join(root, name)
                if not os.path.islink(path):
                    os.chmod(path, 0o555 if os.stat(path).st_mode & 0o111 else 0o444)
            os.chmod(root, 0o555)
    except BaseException:
        _remove_tree(temp)
        raise
    fd = os.open(temp, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    fcntl.flock(fd, fcntl.LOCK_SH)  # held before the copy has its name: no one removes it in between
    try:
        os.rename(temp, target)
    except OSError:  # another process staged the same folder first
        os.close(fd)
        _remove_tree(temp)
        return False
    _keep(target.name, fd)
    return True


# In use: every process holds a shared flock on each copy it has asked for (the runtime's copy too,
# harness/sandbox/resident.py), until it exits (the kernel drops the lock then, even after SIGKILL). A copy
# is removed only under an exclusive lock (``remove_if_unused``), which no one gets while any process uses it.

_HELD: dict = {}  # copy name -> the fd of this process's shared lock on it


def _keep(name: str, fd: int) -> None:
    if not _HELD:
        atexit.register(remove_unused)
    _HELD[name] = fd


def hold(path: Path) -> bool:
    """This process holds ``path``; False when it was removed meanwhile (or held for a copy since removed)."""
    fd = _HELD.get(path.name)
    if fd is not None:
        if _same(path, fd):
            return True
        os.close(_HELD.pop(path.name))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    fcntl.flock(fd, fcntl.LOCK_SH)  # waits while a remover holds it, which renames it before it lets go
    if not _same(path, fd):
        os.close(fd)
        return False
    _keep(path.name, fd)
    return True


def _same(path: Path, fd: int) -> bool:
    try:
        st, held = os.lstat(path), os.fstat(fd)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino)


def remove_unused() -> list[Path]:
    """Let go of this process's copies, then remove every copy of a bot folder that no process uses
    (the harness's shared copies stay, until ``prune_unused``); returns what was removed. Run when a
    process that staged copies exits, and by a run's driver at its end."""
    for fd in _HELD.values():
        os.close(fd)
    _HELD.clear()
    removed = []
    try:
        entries = list(STAGE_DIR.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if entry.name.startswith(DEAD) and not _remover_alive(entry.name):  # a remover that died midway
            _remove_tree(entry)
        elif entry.name.startswith(BOT) and remove_if_unused(entry):
            removed.append(entry)
    return removed


def remove_if_unused(entry: Path) -> bool:
    """Remove the copy ``entry`` unless a process holds it (this one included); True once removed."""
    try:
        fd = os.open(entry, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # in use
        dead = STAGE_DIR / f"{DEAD}{entry.name}.{os.getpid()}.{threading.get_ident()}"
        try:
            os.rename(entry, dead)  # under the lock: one who opened it before finds its name gone
        except OSError:
            return False
        _remove_tree(dead)
        return True
    finally:
        os.close(fd)


def _remover_alive(name: str) -> bool:
    """The process that named ``.dead-NAME.PID.TID`` is alive (and still removing it)."""
    pid = name.rsplit(".", 2)[-2] if name.count(".") >= 3 else ""
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return int(pid) != os.getpid()


def touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def prune_unused(unused_for: float = UNUSED_FOR, now: float | None = None) -> list[Path]:
    """Remove the staged copies no sandbox has asked for in ``unused_for`` seconds and no process holds
    (the tmpfs holds them in memory), and temporary copies left by a process that died; returns what
    was removed."""
    now = time.time() if now is None else now
    removed = []
    for entry in STAGE_DIR.iterdir():
        if entry.name in ("proc", WARM_STAMP, WARM_LOCK):  # the fixed /proc files every sandbox binds; the sweeps'
            continue
        try:
            stale = now - entry.lstat().st_mtime > unused_for
        except OSError:
            continue
        if not stale:
            continue
        if entry.name.startswith("."):  # a copy half made or half removed: no one holds it
            if not _remover_alive(entry.name):
                _remove_tree(entry)
                removed.append(entry)
            continue
        if entry.name in _HELD:  # this process's own hold on a copy it has not asked for since
            os.close(_HELD.pop(entry.name))
        if remove_if_unused(entry):
            removed.append(entry)
    return removed


def _remove_tree(path: Path) -> None:
    """Remove a copy (its folders are read-only), whatever another remover has removed already."""
    for root, dirs, _ in os.walk(path):
        for name in dirs:
            try:
                os.chmod(os.path.join(root, name), 0o755)
            except FileNotFoundError:
                pass
    try:
        os.chmod(path, 0o755)
    except FileNotFoundError:
        return
    shutil.rmtree(path, ignore_errors=True)


def compile_python(folder: Path) -> bool:
    """Compiles the ``.py`` files of ``folder`` (a copy being staged) with the bots' interpreter, into its
    ``__pycache__`` folders. False when that could not run; a file that does not compile is left alone."""
    argv = [str(bot_interpreter() / "python3"), "-I", "-S", "-c", COMPILE, str(folder), str(COMPILE_FILE_MOST),
            str(COMPILE_TOTAL_MOST), str(COMPILE_MEMORY)]
    try:
        return subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=COMPILE_SECONDS).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
