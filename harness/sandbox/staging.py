"""Read-only copies of bot folders (and of the engine a bot may import) on a tmpfs, one per version of
a folder's content. A sandbox binds the copy instead of the folder itself, so that nothing a bot can
read (``/proc/self/mountinfo``, bwrap's ``/proc/1/cmdline``) names a folder of the host.

The ``.py`` files of a copy are compiled once, when it is staged, by the interpreter that runs Python
bots, into the copy's ``__pycache__``: a Python bot then starts without compiling the engine or its
own modules (it could not keep the bytecode, the copy being read-only)."""

from __future__ import annotations

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
STAGE_FORMAT = "pyc-1"  # part of a copy's name: copies made before bytecode was compiled are not reused
COMPILE_BYTECODE = True  # False stages copies without bytecode (under other names): benchmarks compare both
COMPILE_SECONDS = 120  # the most a copy's compilation may take; past it the copy is used without bytecode

# Run by the bots' interpreter in a copy not yet read-only: compiles every regular .py file reached
# without following a symbolic link (a link may point anywhere on the host, and its bytecode would be
# readable by the bot; a linked __pycache__ would be written through), naming each file by its path
# inside the copy (no host path in the bytecode).
COMPILE = """import importlib.util, os, py_compile, sys
top = sys.argv[1]
for root, dirs, files in os.walk(top):
    dirs[:] = [d for d in dirs if d != "__pycache__" and not os.path.islink(os.path.join(root, d))]
    cache = os.path.join(root, "__pycache__")
    if os.path.lexists(cache) and (os.path.islink(cache) or not os.path.isdir(cache)):
        continue  # a bot's own __pycache__ that is a link or a file: writing through it could reach the host
    for name in files:
        path = os.path.join(root, name)
        if name.endswith(".py") and not os.path.islink(path) and os.path.isfile(path):
            try:
                py_compile.compile(path, cfile=importlib.util.cache_from_source(path),
                                   dfile=os.path.relpath(path, top), doraise=True)
            except (py_compile.PyCompileError, OSError, ValueError, RecursionError, MemoryError):
                pass  # not Python that compiles: the bot meets the error itself when importing it
"""


_STAMPS: dict = {}  # (folder, names/sizes/times) -> content digest, so that files are read once per version


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
    key = (str(folder), _stamp(folder))
    if key in _STAMPS:
        return _STAMPS[key]
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


def staged(folder: Path) -> Path:
    """A read-only copy of ``folder`` on a tmpfs, made once per version of the folder. A sandbox binds the
    copy, so that the bot's ``/proc/self/mountinfo`` names no host path."""
    folder = Path(folder).resolve()
    bytecode = COMPILE_BYTECODE
    form = STAGE_FORMAT if bytecode else "source-only"
    target = STAGE_DIR / hashlib.sha256(f"{_digest(folder)}\0{form}".encode()).hexdigest()[:32]
    if target.is_dir():
        _touch(target)  # in use: kept by prune_unused
        return target
    if not STAGE_DIR.is_dir():
        STAGE_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
    if STAGE_DIR.lstat().st_uid != os.geteuid() or STAGE_DIR.is_symlink():
        raise SandboxError(f"{STAGE_DIR} is not the harness's own folder: remove it")
    temp = STAGE_DIR / f".{target.name}.{os.getpid()}.{threading.get_ident()}"
    shutil.copytree(folder, temp, symlinks=True)
    if bytecode:
        compile_python(temp)
    for root, dirs, files in os.walk(temp):
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, 0o555 if os.stat(path).st_mode & 0o111 else 0o444)
        os.chmod(root, 0o555)
    try:
        os.rename(temp, target)
    except OSError:  # another process staged the same folder first
        _remove_tree(temp)
    prune_unused()
    return target


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def prune_unused(unused_for: float = UNUSED_FOR, now: float | None = None) -> list[Path]:
    """Remove the staged copies no sandbox has asked for in ``unused_for`` seconds (the tmpfs holds them
    in memory), and temporary copies left by a process that died; returns what was removed."""
    now = time.time() if now is None else now
    removed = []
    for entry in STAGE_DIR.iterdir():
        if entry.name == "proc":  # the fixed /proc files every sandbox binds
            continue
        try:
            if now - entry.lstat().st_mtime > unused_for:
                _remove_tree(entry)
                removed.append(entry)
        except OSError:
            continue
    return removed


def _remove_tree(path: Path) -> None:
    for root, dirs, _ in os.walk(path):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
    os.chmod(path, 0o755)
    shutil.rmtree(path, ignore_errors=True)


def compile_python(folder: Path) -> bool:
    """Compiles the ``.py`` files of ``folder`` (a copy being staged) with the bots' interpreter, into its
    ``__pycache__`` folders. False when that could not run; a file that does not compile is left alone."""
    argv = [str(bot_interpreter() / "python3"), "-I", "-S", "-c", COMPILE, str(folder)]
    try:
        return subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=COMPILE_SECONDS).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
