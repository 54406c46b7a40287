"""The runtime every bot reads, copied once per node onto a tmpfs (``/dev/shm``), where its pages are
always resident.

A file two sandboxes can read is a channel when one can change how fast the other reads it: a bot
reads (or drops, ``POSIX_FADV_DONTNEED``) chosen pages of a big file of the host's ``/usr``, another
times its reads of them (a cached page about 1 µs, one read from disk 40 µs or more). The pages of a
tmpfs file are never dropped nor read from disk, and a name looked up there that does not exist is
not remembered, so reads from the copy take the same time whatever any other process did.

The copy holds what the runtimes offered to bots (docs/protocol.md, "Languages") need: the Debian
packages that own the commands of ``COMMANDS``, those of ``EXTRA_PACKAGES``, those owning the shared
libraries of the bots' Python, and every package they depend on; the links in ``/usr/bin`` and
``/usr/sbin`` that lead into them; the few ``/etc`` files a sandbox shows; and the bots' Python
(``runtime.bot_interpreter``) with its standard library when it lives outside ``/usr``. Documentation
and the Python test suite are left out. The copy is named by a stamp of what it is made from (the dpkg
database, ``/etc/alternatives``, those ``/etc`` files, the Python), so a node reuses it across runs and
makes it again after a package changes."""

from __future__ import annotations

import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

from . import staging, warm
from .runtime import SandboxError, bot_interpreter


RESIDENT = True  # False binds the host's own /usr (the page-cache channel open): benchmarks compare both
HOST_RUNTIME = "ELLIBIR_HOST_RUNTIME"  # "1" on a node that cannot have the copy: bind the host's /usr, warned
FORMAT = "runtime-1"  # part of a copy's name: a copy made by other code is not reused
LOCK = Path("/var/lock/ellibir-runtime.lock")  # one process of a node makes the copy; the others wait
DPKG_STATUS = Path("/var/lib/dpkg/status")
DPKG_QUERY = "/usr/bin/dpkg-query"  # by its path: the harness's PATH must not decide what bots read
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64")  # links into /usr on a merged-/usr system
COMMANDS = ("sh", "bash", "env", "cat", "setpriv", "prlimit", "node", "perl", "java", "javac", "gcc", "cc")
# The headers and start files gcc compiles and links against; Perl's standard modules (JSON::PP); the
# C.UTF-8 locale every bot runs in (libc-bin).
EXTRA_PACKAGES = ("libc6-dev", "perl", "libc-bin")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/ssl/openssl.cnf")
LEFT_OUT = ("/usr/share/doc/", "/usr/share/man/", "/usr/share/info/", "/usr/share/locale/", "/usr/share/lintian/",
            "/usr/share/bug/", "/usr/share/doc-base/")
PYTHON_LEFT_OUT = ("site-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip")
NO_DISPLAY = "_tkinter"  # the extension module of tkinter (left out above), which alone needs X11 and Tk
STALE_AFTER = 3600  # seconds unused after which another version of the copy goes once a new one is made
IN_MEMORY = ("tmpfs",)  # file systems whose pages are never dropped nor read from a disk (no swap)


def etc_files() -> list[str]:
    """The host's /etc entries a sandbox shows (the JDK's configuration included, for javac)."""
    return [p for p in (*ETC_FILES, *sorted(glob.glob("/etc/java-*"))) if os.path.exists(p)]


def python_prefix() -> Path | None:
    """The bots' Python installation when it is not part of /usr (then it is copied whole, less its
    packages and tests)."""
    prefix = bot_interpreter().parent
    return None if str(prefix).startswith("/usr/") else prefix


def _stamp(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}\0absent"
    return f"{path}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}"


def stamp() -> str:
    """What the copy is made from, cheaply: what this module chooses, the dpkg database, the
    alternatives, the /etc files, the Python. A change to any of them names another copy."""
    sources = [str(DPKG_STATUS), "/etc/alternatives", *etc_files()]
    prefix = python_prefix()
    if prefix is not None:
        sources += [str(bot_interpreter() / "python3"), *_stdlib_dirs(prefix)]
    chosen = repr((COMMANDS, EXTRA_PACKAGES, ETC_FILES, LEFT_OUT, PYTHON_LEFT_OUT, NO_DISPLAY))
    return hashlib.sha256("\n".join([FORMAT, chosen, *map(_stamp, sources)]).encode()).hexdigest()[:32]


def no_copy_reason() -> str | None:
    """Why this node cannot have the copy (not Debian, or /usr not merged); None when it can."""
    if not os.access(DPKG_QUERY, os.X_OK):
        return f"there is no {DPKG_QUERY} (not a Debian system)"
    if not DPKG_STATUS.is_file():
        return f"there is no dpkg database ({DPKG_STATUS})"
    if not merged_usr():
        return "/bin and /lib are not links into /usr"
    return None


def runtime_root() -> Path | None:
    """Where sandboxes take /usr, the /etc files and the bots' Python from: the node's copy in memory.
    None (the host's own files) only where asked for: a benchmark's ``RESIDENT = False``, or
    ``ELLIBIR_HOST_RUNTIME=1`` on a node that cannot have the copy, which is then warned on. Raises
    SandboxError rather than fall back by itself."""
    if not RESIDENT:
        return None
    reason = no_copy_reason()
    if reason is None:
        return resident_root()
    if os.environ.get(HOST_RUNTIME) == "1":
        _warn_host_runtime(reason)
        return None
    raise SandboxError(f"no copy of the bots' runtime can be made on this node: {reason}; {HOST_RUNTIME}=1 "
                       f"binds the host's /usr instead, whose page cache is then a channel between bots")


def host_runtime_note() -> str | None:
    """A line for a run's output when this node's sandboxes bind the host's /usr; None when they do not."""
    if not RESIDENT:
        return "the host's /usr (a benchmark's choice): its page cache is a channel between bots"
    reason = no_copy_reason()
    if reason is None or os.environ.get(HOST_RUNTIME) != "1":
        return None
    return f"the host's /usr ({HOST_RUNTIME}=1; {reason}): its page cache is a channel between bots"


_WARNED: set = set()


def _warn_host_runtime(reason: str) -> None:
    if reason not in _WARNED:
        _WARNED.add(reason)
        print(f"warning: sandboxes bind {host_runtime_note()}", file=sys.stderr, flush=True)


def resident_root() -> Path:
    """The copy for this node, made now if there is none, held by this process (a shared lock, so that
    no other process removes it while a sandbox of this one may use it) and checked to lie in memory.
    Raises SandboxError when it cannot be made or used."""
    target = staging.STAGE_DIR / f"runtime-{stamp()}"
    for _ in range(5):  # a copy removed by another process between two steps is made again
        if not target.is_dir():
            _make_once(target)
        if staging.hold(target):
            break
    else:
        raise SandboxError(f"cannot keep the bots' runtime copy {target}: it keeps being removed")
    staging.touch(target)  # in use: not stale
    kind = file_system(target / "usr")
    if kind not in IN_MEMORY:
        raise SandboxError(f"the bots' runtime copy {target} lies on {kind or 'an unknown file system'}, not in "
                           f"memory: {staging.STAGE_DIR.parent} must be a tmpfs")
    warm.keep_warm(staging.STAGE_DIR)  # a page left unread may read slower: a channel too
    return target


def file_system(path: Path) -> str:
    """The type of the file system ``path`` lies on, from this process's mount table ("" if unknown)."""
    path = os.path.realpath(path)
    best, kind = "", ""
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields, _, rest = line.partition(" - ")
                where = fields.split()[4].replace("\\040", " ")
                inside = path == where or path.startswith(where.rstrip("/") + "/")
                if inside and len(where) >= len(best):
                    best, kind = where, rest.split()[0]
    except (OSError, IndexError):
        return ""
    return kind


def merged_usr() -> bool:
    """/bin, /lib and the others are links into /usr (Debian 12): then /usr holds every runtime file."""
    return all(os.path.islink(top) or not os.path.exists(top) for top in TOP_LINKS)


def _make_once(target: Path) -> None:
    staging.STAGE_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
    if staging.STAGE_DIR.lstat().st_uid != os.geteuid() or staging.STAGE_DIR.is_symlink():
        raise SandboxError(f"{staging.STAGE_DIR} is not the harness's own folder: remove it")
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_dir():  # made by another process while this one waited
            return
        temp = staging.STAGE_DIR / f".{target.name}.{os.getpid()}.{threading.get_ident()}"
        try:
            build(temp)
            os.rename(temp, target)
        except (OSError, subprocess.SubprocessError) as e:
            shutil.rmtree(temp, ignore_errors=True)
            raise SandboxError(f"cannot copy the bots' runtime into {staging.STAGE_DIR}: {e}") from e
        except BaseException:
            shutil.rmtree(temp, ignore_errors=True)
            raise
        _remove_stale(target)


def _remove_stale(keep: Path, now: float | None = None) -> list[Path]:
    """Remove the other versions of the copy unused for ``STALE_AFTER`` that no process holds."""
    now = time.time() if now is None else now
    removed = []
    for other in staging.STAGE_DIR.glob("runtime-*"):
        try:
            stale = other != keep and now - other.lstat().st_mtime > STALE_AFTER
        except OSError:
            continue
        if stale and staging.remove_if_unused(other):
            removed.append(other)
    return removed


# ---------------------------------------------------------------- what goes in


def build(top: Path) -> None:
    """Copy the runtime into ``top``: ``usr/``, ``etc/`` (the files of ``etc_files``), and ``python/``
    (the bots' Python, when outside /usr)."""
    packages = installed_packages()
    roots = set(EXTRA_PACKAGES) | owners([_command_path(c) for c in COMMANDS] + python_libraries())
    names = closure(roots, packages)
    copier = _Copier(top)
    for path in package_files(names):
        if path.startswith("/usr/") and not path.startswith(LEFT_OUT):
            copier.copy(path)
    for folder in ("/usr/bin", "/usr/sbin"):
        for entry in os.scandir(folder):
            if entry.is_symlink() and copier.holds(os.path.realpath(entry.path)):
                copier.copy(entry.path)  # links made by maintainer scripts and update-alternatives
    _copy_etc(top / "etc", copier)
    prefix = python_prefix()
    if prefix is not None:
        _copy_python(prefix, top / "python")


def _command_path(name: str) -> str:
    found = shutil.which(name, path="/usr/bin:/usr/sbin:/bin:/sbin")
    return os.path.realpath(found) if found else ""


def installed_packages() -> dict[str, list[list[str]]]:
    """Installed packages by name, each with its dependencies (a list of alternatives per dependency);
    a virtual package maps to its installed providers as alternatives."""
    fields = "${Package}\t${db:Status-Status}\t${Pre-Depends}\t${Depends}\t${Provides}\n"
    out = subprocess.run([DPKG_QUERY, "-W", f"-f={fields}"], capture_output=True, text=True, check=True).stdout
    packages, provided = {}, {}
    for line in out.splitlines():
        name, status, pre, depends, provides = (line.split("\t") + [""] * 5)[:5]
        if status != "installed":
            continue
        packages[name] = [[_name(a) for a in group.split("|")] for group in f"{pre},{depends}".split(",")
                          if group.strip()]
        for virtual in provides.split(","):
            if virtual.strip():
                provided.setdefault(_name(virtual), []).append(name)
    for virtual, providers in provided.items():
        packages.setdefault(virtual, [providers])
    return packages


def _name(text: str) -> str:
    return re.split(r"[\s(:]", text.strip(), maxsplit=1)[0]


def closure(roots, packages: dict) -> list[str]:
    """The installed roots and every package they depend on (the first installed alternative of each
    dependency)."""
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in packages:
            continue
        seen.add(name)
        for alternatives in packages.get(name, []):
            todo += [a for a in alternatives if a in packages][:1]
    return sorted(seen)


def package_files(names: list[str]) -> list[str]:
    """The files of these packages, each named by where it is found under /usr (``/bin/dash`` is
    ``/usr/bin/dash`` where /bin is a link to usr/bin)."""
    if not names:
        return []
    out = subprocess.run([DPKG_QUERY, "-L", *names], capture_output=True, text=True).stdout
    paths = set()
    for line in out.splitlines():
        if line.startswith("/") and line != "/.":
            parent, base = os.path.split(line)
            paths.add(os.path.join(os.path.realpath(parent), base))
    return sorted(paths)


def owners(paths: list[str]) -> set[str]:
    """The packages that own these files (looked up under /usr and under the old top folders)."""
    asked = set()
    for path in filter(None, paths):
        asked.add(path)
        match = re.match(r"/usr(/(?:bin|sbin|lib\w*)/.*)", path)
        if match:
            asked.add(match.group(1))
    if not asked:
        return set()
    out = subprocess.run([DPKG_QUERY, "-S", *sorted(asked)], capture_output=True, text=True).stdout
    found = set()
    for line in out.splitlines():
        if ": /" in line and not line.startswith("diversion by"):
            found.update(_name(n) for n in line.split(": /", 1)[0].split(","))
    return found


def python_libraries() -> list[str]:
    """The system libraries the bots' Python and its extension modules load (when it lives outside
    /usr; Debian's own Python is found through its package)."""
    prefix = python_prefix()
    if prefix is None:
        return [os.path.realpath(bot_interpreter() / "python3")]
    objects = [str(bot_interpreter() / "python3"), *glob.glob(f"{prefix}/lib/libpython*.so*")]
    for folder in _stdlib_dirs(prefix):
        objects += [p for p in glob.glob(f"{folder}/lib-dynload/*.so") if not os.path.basename(p).startswith(NO_DISPLAY)]
    out = subprocess.run(["ldd", *objects], capture_output=True, text=True).stdout
    libraries = re.findall(r"=> (/\S+) \(", out)
    return sorted({os.path.realpath(p) for p in libraries if not p.startswith(str(prefix))})


def _stdlib_dirs(prefix: Path) -> list[str]:
    names = {"base": str(prefix), "installed_base": str(prefix), "platbase": str(prefix), "installed_platbase": str(prefix)}
    return sorted({p for p in (sysconfig.get_path(k, vars=names) for k in ("stdlib", "platstdlib")) if os.path.isdir(p)})


def _copy_etc(etc: Path, copier: _Copier) -> None:
    etc.mkdir(mode=0o755)
    for path in etc_files():
        dest = etc / path.lstrip("/").removeprefix("etc/")
        dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        if os.path.isdir(path):
            shutil.copytree(path, dest, symlinks=True)
        else:
            shutil.copyfile(path, dest)  # /etc/localtime is a link into tzdata: its content, not the link
            os.chmod(dest, 0o644)
    alternatives = etc / "alternatives"
    alternatives.mkdir(mode=0o755)
    for entry in os.scandir("/etc/alternatives"):
        if entry.is_symlink() and copier.holds(os.path.realpath(entry.path)):
            os.symlink(os.readlink(entry.path), alternatives / entry.name)


def _copy_python(prefix: Path, dest: Path) -> None:
    stdlib = set(_stdlib_dirs(prefix))

    def ignore(folder, names):
        left = [n for n in names if n.endswith(".a") or n.startswith(NO_DISPLAY)]
        if folder in stdlib:
            left += [n for n in names if n in PYTHON_LEFT_OUT]
        return left

    shutil.copytree(prefix, dest, symlinks=True, ignore=ignore)
    for folder in stdlib:  # where the sandbox mounts an empty folder over the host's packages
        (dest / os.path.relpath(folder, prefix) / "site-packages").mkdir(mode=0o755, exist_ok=True)


class _Copier:
    """Copies host paths under /usr into TOP/usr, keeping links as links, hard links as hard links and
    the modes of files and folders, less set-id bits and write bits for others."""

    def __init__(self, top: Path):
        self.top = top
        self.inodes: dict[tuple[int, int], Path] = {}
        (top / "usr").mkdir(mode=0o755, parents=True)

    def dest(self, path: str) -> Path:
        return self.top / path.lstrip("/")

    def holds(self, path: str) -> bool:
        return path.startswith("/usr/") and os.path.lexists(self.dest(path))

    def copy(self, path: str) -> None:
        try:
            st = os.lstat(path)
        except OSError:
            return
        dest = self.dest(path)
        self._folder(dest.parent)
        if os.path.lexists(dest):
            return
        mode = st.st_mode & 0o755
        if os.path.islink(path):
            os.symlink(os.readlink(path), dest)
        elif os.path.isdir(path):
            dest.mkdir(mode=mode)
            os.chmod(dest, mode)
        elif os.path.isfile(path):
            known = self.inodes.get((st.st_dev, st.st_ino))
            if known is not None:
                os.link(known, dest)
                return
            shutil.copyfile(path, dest)
            os.chmod(dest, mode)
            self.inodes[(st.st_dev, st.st_ino)] = dest

    def _folder(self, dest: Path) -> None:
        if dest.is_dir():
            return
        self._folder(dest.parent)
        host = "/" + str(dest.relative_to(self.top))
        mode = os.stat(host).st_mode & 0o755 if os.path.isdir(host) else 0o755
        dest.mkdir(mode=mode)
        os.chmod(dest, mode)
