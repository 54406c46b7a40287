"""The bubblewrap sandbox a subprocess bot runs in.

A sandboxed bot runs as::

    sh -c 'echo $$ > <cgroup>/cgroup.procs ...; exec "$@"'        (when cgroup v1 is writable)
      bwrap --unshare-pid/net/ipc/uts --die-with-parent --new-session --clearenv
            --ro-bind /usr ... --ro-bind FOLDER /bot --tmpfs /tmp --seccomp FD
        setpriv --reuid=UID --regid=UID --clear-groups --inh-caps=-all --bounding-set=-all
          prlimit --cpu --as --nproc --fsize --nofile --core=0
            COMMAND                                          (working directory /bot)

Each concurrent bot gets its own uid from a machine-wide pool (RLIMIT_NPROC counts per uid), and,
where the machine offers cgroup v1, its own memory and pids cgroup. Seccomp refuses network sockets
when pyseccomp and libseccomp are present. ``capabilities()`` says what is enforced here.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sysconfig
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import freezer_anchor
from .resident import TOP_LINKS, etc_files, host_runtime_note, runtime_root
from .cgroups import CPU_PERIOD_US, cgroup_parent, kill, remove_cgroup, send_signal
from .runtime import SandboxError, bot_interpreter, bot_path, uses_python
from .slots import SLOTS, processes_of
from .staging import STAGE_DIR, staged

SETPRIV = "/usr/bin/setpriv"
PRLIMIT = "/usr/bin/prlimit"
RESERVED = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "etc", "root", "bot", "proc", "dev", "tmp"}
PROC_FILES_DIR = STAGE_DIR / "proc"
# Host-wide counters and host details in /proc: a bot reading them could hear another bot change them.
PROC_HIDDEN_DIRS = ("sys", "pressure", "fs", "driver", "tty", "acpi", "scsi")
PROC_HIDDEN_FILES = ("buddyinfo", "cgroups", "cmdline", "config.gz", "consoles", "devices", "diskstats", "dma",
                     "interrupts", "iomem", "ioports", "kallsyms", "key-users", "keys", "kmsg", "kpagecgroup",
                     "kpagecount", "kpageflags", "locks", "mdstat", "misc", "modules", "mtrr", "pagetypeinfo",
                     "partitions", "program_cpu", "sched_debug", "schedstat", "slabinfo", "softirqs", "swaps",
                     "sysrq-trigger", "timer_list", "vmallocinfo", "vmstat", "zoneinfo")
DEVICES = ("null", "zero", "full", "random", "urandom")  # no tty, no ptmx, no pts: no pseudo-terminals


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 60  # CPU time over the bot's whole life (RLIMIT_CPU)
    memory_mb: int = 512  # resident memory of the whole sandbox (cgroup)
    processes: int = 32  # tasks of the bot's uid, threads included (RLIMIT_NPROC, pids cgroup)
    file_size_mb: int = 16  # largest file it may write (RLIMIT_FSIZE)
    open_files: int = 64  # RLIMIT_NOFILE
    tmp_mb: int = 64  # size of its private /tmp
    address_space_mb: int = 4096  # RLIMIT_AS: Node.js reserves ~1 GB of address space at start
    cores: int = 1  # CPU time per wall-clock second, all its processes together (cgroup cpu quota)


def java_options(limits: Limits) -> str:
    """What every JVM in the sandbox is told (``JAVA_TOOL_OPTIONS``): the memory and cores it has, so that
    its default heap fits (left alone it sizes itself from the host: 0.4 to 1.8 GB measured, killed at
    512 MB), and that its own messages go to stderr (HotSpot writes a start-up error such as "Could not
    reserve enough space" on stdout, where it breaks the handshake and hides the reason)."""
    return (f"-XX:MaxRAM={limits.memory_mb}m -XX:ActiveProcessorCount={limits.cores} "
            "-XX:+DisplayVMOutputToStderr")


def bot_environment(limits: Limits) -> dict:
    """The whole environment of a bot program (bwrap clears the rest)."""
    return {"PATH": bot_path(), "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
            "JAVA_TOOL_OPTIONS": java_options(limits)}


# ---------------------------------------------------------------- what this machine offers


@functools.cache
def sandbox_available() -> bool:
    """bwrap, setpriv and prlimit are here, we are root, and a trial sandbox runs."""
    return sandbox_problem() is None


@functools.cache
def sandbox_problem() -> str | None:
    if os.geteuid() != 0:
        return "the harness is not root (setpriv needs it to switch to a bot uid)"
    for tool in (shutil.which("bwrap"), SETPRIV, PRLIMIT):
        if not tool or not os.access(tool, os.X_OK):
            return f"{tool or 'bwrap'} is missing"
    try:
        binds = _runtime_binds(python=False)
    except SandboxError as e:
        return str(e)
    argv = [shutil.which("bwrap"), *_ISOLATION, *binds]
    argv += ["--", SETPRIV, "--reuid=65534", "--", "/bin/true"]
    try:
        run = subprocess.run(argv, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap failed to run: {e}"
    if run.returncode != 0:
        return f"bwrap failed: {run.stderr.decode(errors='replace').strip()}"
    return None


@functools.cache
def capabilities() -> dict:
    """What the sandbox enforces on this machine."""
    problem = sandbox_problem()
    bwrap = shutil.which("bwrap")
    version = ""
    if bwrap:
        version = subprocess.run([bwrap, "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "sandbox": problem is None,
        "problem": problem,
        "bwrap": version,
        "namespaces": ["pid", "net", "ipc", "uts", "mount"] if problem is None else [],
        "uid_slots": f"{SLOTS.first_uid}..{SLOTS.first_uid + SLOTS.count - 1} locked in {SLOTS.directory}",
        "capabilities_dropped": problem is None,
        "rlimits": ["cpu", "as", "nproc", "fsize", "nofile", "core=0"],
        "seccomp": _seccomp_program() is not None,
        "seccomp_refuses": list(REFUSED) if _seccomp_program() else [],
        "cgroup_memory": cgroup_parent("memory") is not None,
        "cgroup_pids": cgroup_parent("pids") is not None,
        "freezer": "cgroup" if cgroup_parent("freezer") is not None else "SIGSTOP",
        "cpu_quota": cgroup_parent("cpu") is not None,
        "python": str(bot_interpreter() / "python3"),
        "runtime": _runtime_said(),
        "node": shutil.which("node"),
    }


# ---------------------------------------------------------------- seccomp

# Refused with EPERM, except socket() (EACCES) and clone3 (ENOSYS, so that libc falls back to clone,
# whose flags the filter can see).
REFUSED_OUTRIGHT = ("unshare", "setns", "io_uring_setup", "bpf", "perf_event_open", "userfaultfd", "keyctl",
                    "add_key", "request_key")
# Channels between bots through what they share (the read-only files of /usr, the page cache, the
# machine's counters, the kernel's log, which names processes another bot drove out of memory), and
# sync, which would flush every disk of the machine: absent (ENOSYS), so that libraries fall back to
# what they do without them.
ABSENT = ("inotify_init", "inotify_init1", "fanotify_init", "cachestat", "preadv2", "pwritev2", "sysinfo", "syslog",
          "sync", "syncfs")
# File locks on shared files would let one bot signal another: they succeed and do nothing.
LOCK_COMMANDS = {"F_SETLK": 6, "F_SETLKW": 7, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38}
LOCK_QUERIES = {"F_GETLK": 5, "F_OFD_GETLK": 36}
REFUSED = ("socket (all but AF_UNIX)", "clone3", "clone with CLONE_NEWUSER", *REFUSED_OUTRIGHT, *ABSENT,
           "flock and fcntl locks (no-ops)", "fcntl lock queries")


@functools.cache
def _seccomp_program() -> bytes | None:
    try:
        import socket

        import pyseccomp as sc
    except (ImportError, OSError, RuntimeError):
        return None
    try:
        f = sc.SyscallFilter(sc.ALLOW)
        f.add_rule(sc.ERRNO(errno.EACCES), "socket", sc.Arg(0, sc.NE, socket.AF_UNIX))
        f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        newuser = 0x10000000  # CLONE_NEWUSER
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, newuser, newuser))
        for name in REFUSED_OUTRIGHT:
            f.add_rule(sc.ERRNO(errno.EPERM), name)
        for name in ABSENT:
            f.add_rule(sc.ERRNO(errno.ENOSYS), name)
        f.add_rule(sc.ERRNO(0), "flock")
        for command in LOCK_COMMANDS.values():
            f.add_rule(sc.ERRNO(0), "fcntl", sc.Arg(1, sc.EQ, command))
        for command in LOCK_QUERIES.values():
            f.add_rule(sc.ERRNO(errno.EPERM), "fcntl", sc.Arg(1, sc.EQ, command))
        fd = os.memfd_create("seccomp", os.MFD_CLOEXEC)
        with open(fd, "w+b") as out:
            f.export_bpf(out)
            out.flush()
            out.seek(0)
            return out.read()
    except Exception:  # a libseccomp that refuses any of it: run without the filter
        return None


def _seccomp_fd(program: bytes) -> int:
    fd = os.memfd_create("seccomp", 0)  # no CLOEXEC: bwrap inherits it through pass_fds
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# ---------------------------------------------------------------- cgroups (v1)


def _make_cgroups(uid: int, limits: Limits) -> list[Path]:
    made = []
    settings = {
        "memory": [
            ("memory.limit_in_bytes", limits.memory_mb << 20),
            ("memory.memsw.limit_in_bytes", limits.memory_mb << 20),  # no swapping around the limit
        ],
        "pids": [("pids.max", limits.processes + 2)],  # + bwrap and its pid-1 reaper
        "freezer": [],  # off-turn bots are frozen (Sandbox.freeze)
        "cpuacct": [],  # CPU time of all its processes (Sandbox.cpu_time)
        "cpu": [("cpu.cfs_period_us", CPU_PERIOD_US), ("cpu.cfs_quota_us", CPU_PERIOD_US * limits.cores)],
    }
    for controller, values in settings.items():
        parent = cgroup_parent(controller)
        if parent is None:
            continue
        group = parent / f"ellibir-{uid}"
        remove_cgroup(group)  # a stale one from a harness that died
        try:
            group.mkdir(exist_ok=True)
            for name, value in values:
                if (group / name).exists():
                    (group / name).write_text(str(value))
        except OSError:
            remove_cgroup(group)
            continue
        made.append(group)
    return made


def stat_is_dir(name: str, dir_fd: int) -> bool:
    import stat

    return stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)


# ---------------------------------------------------------------- the command line

# bwrap's own pid-1 reaper stays (a bot as pid 1 would ignore SIGXCPU): its /proc/1/cmdline shows bwrap's
# arguments, which name only staged copies (``staged``), never the host's folders.
_ISOLATION = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session"]


def _static_proc(limits: Limits) -> dict[str, Path]:
    """Fixed stand-ins for the /proc files programs read at start (memory, CPUs, load, uptime): the
    same every time, so they carry nothing from the rest of the machine."""
    memory = limits.memory_mb << 10
    texts = {
        "meminfo": f"MemTotal: {memory} kB\nMemFree: {memory} kB\nMemAvailable: {memory} kB\n"
                   "Buffers: 0 kB\nCached: 0 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n",
        "stat": "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\nintr 0\nctxt 0\nbtime 0\nprocesses 1\n"
                "procs_running 1\nprocs_blocked 0\n",
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "uptime": "0.00 0.00\n",
    }
    out = {}
    for name, text in texts.items():
        path = PROC_FILES_DIR / f"{name}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"
        if not path.exists():
            PROC_FILES_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
            temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
            temp.write_text(text)
            temp.chmod(0o444)
            os.replace(temp, path)
        out[name] = path
    return out


def _proc_and_dev(limits: Limits) -> list[str]:
    """A private /proc with the host-wide files hidden or replaced, and a /dev of plain devices only."""
    args = ["--proc", "/proc"]
    for name in PROC_HIDDEN_DIRS:
        if os.path.isdir(f"/proc/{name}"):
            args += ["--perms", "0555", "--tmpfs", f"/proc/{name}", "--remount-ro", f"/proc/{name}"]
    for name in PROC_HIDDEN_FILES:
        if os.path.isfile(f"/proc/{name}"):
            args += ["--ro-bind", "/dev/null", f"/proc/{name}"]
    for name, path in _static_proc(limits).items():
        args += ["--ro-bind", str(path), f"/proc/{name}"]
    args += ["--perms", "0755", "--dir", "/dev"]
    for name in DEVICES:
        args += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        args += ["--symlink", target, f"/dev/{name}"]
    return args


def _runtime_said() -> str:
    try:
        return host_runtime_note() or str(runtime_root())
    except SandboxError as e:
        return f"none: {e}"


def _runtime_binds(python: bool) -> list[str]:
    """/usr, the /etc files and the bots' Python: from the node's resident copy (harness/sandbox/resident.py);
    the host's own only where ``runtime_root`` allows it (never by itself)."""
    root = runtime_root()

    def source(path: str) -> str:
        return str(root / path.lstrip("/")) if root is not None else path

    args = ["--ro-bind", source("/usr"), "/usr"]
    for top in TOP_LINKS:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    made: set[Path] = set()
    for path in (*etc_files(), "/etc/alternatives"):
        if os.path.exists(path):
            args += [*_parent_dirs(Path(path), made), "--ro-bind", source(path), path]
    prefix = bot_interpreter().parent
    if python and not str(prefix).startswith("/usr/"):
        copy = str(root / "python") if root is not None else str(prefix)
        args += [*_parent_dirs(prefix, made), "--ro-bind", copy, str(prefix)]
        for site in _site_packages(prefix):  # bots get the standard library, not the harness's packages
            args += ["--perms", "0555", "--size", "4096", "--tmpfs", site]
    return args


def _site_packages(prefix: Path) -> list[str]:
    names = {"base": str(prefix), "platbase": str(prefix), "installed_base": str(prefix)}
    paths = {sysconfig.get_path(kind, vars=names) for kind in ("purelib", "platlib")}
    return sorted(p for p in paths if os.path.isdir(p) and p.startswith(str(prefix)))


def _parent_dirs(path: Path, made: set[Path]) -> list[str]:
    """Make the way to ``path`` 0755: bwrap would copy the source's mode (0700 for /root)."""
    args = []
    for parent in reversed(path.parents[:-1]):
        if parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def rlimit_args(limits: Limits, nproc: bool = True) -> list[str]:
    args = [
        PRLIMIT,
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",  # SIGXCPU, then SIGKILL a second later
        f"--as={limits.address_space_mb << 20}",
        f"--fsize={limits.file_size_mb << 20}",
        f"--nofile={limits.open_files}",
        "--core=0",
    ]
    if nproc:
        args.append(f"--nproc={limits.processes}")
    return [*args, "--"]


def _own_folder(path: Path, uid: int) -> Path:
    """``path`` made (if needed) and handed to the bot's uid, so that it may write there."""
    path.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or not path.is_dir():  # tested before resolving: a link is never handed over
        raise SandboxError(f"{path} is not a folder (a link, or a file)")
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.fchown(fd, uid, uid)
        os.fchmod(fd, 0o755)
    finally:
        os.close(fd)
    return path.resolve()


class Sandbox:
    """One bot's sandbox: ``argv`` and ``pass_fds`` for Popen, then ``cleanup()`` once it has exited."""

    def __init__(self, folder: Path, command: list[str], limits: Limits, uid: int, binds=(), tmp_dir=None):
        """``binds``: extra read-only (source, destination) pairs, e.g. a library at /ellibir/engine.
        ``tmp_dir``: a host folder bound writable as the bot's /tmp instead of the private tmpfs, so that
        what the bot writes there survives the match (``play --keep-tmp``; never in tournaments)."""
        folder = Path(folder).resolve()
        if not folder.is_dir():
            raise SandboxError(f"bot folder {folder} does not exist")
        if folder.stat().st_mode & 0o005 != 0o005:
            raise SandboxError(f"bot folder {folder} must be readable by others (the bot runs as uid {uid})")
        self.uid = uid
        self.limits = limits
        self.pass_fds: list[int] = []
        argv = [shutil.which("bwrap") or "bwrap", *_ISOLATION, "--hostname", "bot", "--clearenv"]
        for name, value in bot_environment(limits).items():
            argv += ["--setenv", name, value]
        argv += _runtime_binds(python=uses_python(command))
        made: set[Path] = set()
        for source, dest in binds:
            dest = Path(dest)
            if not dest.is_absolute() or ".." in dest.parts or dest == Path("/") or dest.parts[1] in RESERVED:
                raise SandboxError(f"cannot bind {source} at {dest}: choose a new absolute path")
            argv += [*_parent_dirs(dest, made), "--ro-bind", str(staged(source, shared=True)), str(dest)]
        argv += ["--ro-bind", str(staged(folder)), "/bot", "--chdir", "/bot", *_proc_and_dev(limits)]
        if tmp_dir is None:
            argv += ["--size", str(limits.tmp_mb << 20), "--perms", "1777", "--tmpfs", "/tmp"]
        else:
            argv += ["--bind", str(_own_folder(Path(tmp_dir), uid)), "/tmp"]
        program = _seccomp_program()
        if program:
            fd = _seccomp_fd(program)  # read once by bwrap: a Sandbox serves one run
            self.pass_fds.append(fd)
            argv += ["--seccomp", str(fd)]
        argv += ["--", SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        argv += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
        argv += [*rlimit_args(limits), *command]
        self.private_tmp = tmp_dir is None
        self.cgroups = _make_cgroups(uid, limits)
        self.frozen = False
        self._freezer: int | None = None  # an open freezer.state, once needed
        if self.cgroups:
            enter = "".join(f"echo $$ > {shlex.quote(str(g / 'cgroup.procs'))} && " for g in self.cgroups)
            argv = ["/bin/sh", "-c", enter + 'exec "$@"', "sh", *argv]
        self.argv = argv

    def spawned(self) -> None:
        """Popen has returned: bwrap holds its own copy of the seccomp fd."""
        for fd in self.pass_fds:
            os.close(fd)
        self.pass_fds = []

    def _group(self, controller: str) -> Path | None:
        return next((g for g in self.cgroups if g.parent == cgroup_parent(controller)), None)

    def freeze(self) -> None:
        """Stop every process of the bot until ``thaw``: the cgroup freezer, or SIGSTOP to each process
        of its uid where the machine has no freezer (sessions of its own do not escape either). The
        freezer usually stops a running task within microseconds, but not always at once on a loaded
        machine: ``wait_frozen`` waits for it to report FROZEN (the players do, at every turn's end)."""
        self.frozen = True  # noted first: a stop signal during the write still leaves close() to thaw
        fd = self._freezer_fd()
        if fd is not None:
            os.pwrite(fd, b"FROZEN", 0)
        else:
            for pid in processes_of(self.uid):
                send_signal(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        if not self.frozen:
            return
        fd = self._freezer_fd()
        if fd is not None:
            os.pwrite(fd, b"THAWED", 0)
        else:
            for pid in processes_of(self.uid):
                send_signal(pid, signal.SIGCONT)
        self.frozen = False  # noted last, for the same reason

    def wait_frozen(self, wait: float = 1.0) -> bool:
        """True once the freezer reports every process stopped (at once with SIGSTOP, which
        ``freeze`` has sent already)."""
        fd = self._freezer_fd()
        if fd is None:
            return self.frozen
        deadline = time.monotonic() + wait
        while True:
            try:
                if os.pread(fd, 16, 0).strip() == b"FROZEN":
                    return True
            except OSError:
                return False
            if time.monotonic() > deadline:
                return False
            time.sleep(0.0005)

    def empty_tmp(self) -> bool:
        """Remove everything in the bot's private /tmp, between two matches of one process; the bot
        must be frozen. Reached through /proc/PID/root of a process inside the sandbox; nothing the bot
        left there (a link, say) is followed. False when it cannot be done (then the process is not reused)."""
        if not self.private_tmp or not self.frozen:
            return False
        own = os.readlink("/proc/self/ns/mnt")
        for pid in self.pids():
            try:
                if os.readlink(f"/proc/{pid}/ns/mnt") == own:
                    continue  # bwrap's outer process: the host's mounts
                fd = os.open(f"/proc/{pid}/root/tmp", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                for name in os.listdir(fd):
                    if stat_is_dir(name, fd):
                        shutil.rmtree(name, dir_fd=fd)
                    else:
                        os.unlink(name, dir_fd=fd)
                return not os.listdir(fd)
            except OSError:
                return False
            finally:
                os.close(fd)
        return False

    def _freezer_fd(self) -> int | None:
        if self._freezer is None:
            freezer_anchor.hold(cgroup_parent("freezer"))  # a freeze then costs microseconds, not 50
            group = self._group("freezer")
            self._freezer = -1 if group is None else os.open(group / "freezer.state", os.O_RDWR | os.O_CLOEXEC)
        return None if self._freezer < 0 else self._freezer

    def pids(self) -> list[int]:
        """The bot's processes (bwrap's pid-1 reaper among them)."""
        for group in self.cgroups:
            try:
                return [int(p) for p in (group / "cgroup.procs").read_text().split()]
            except (OSError, ValueError):
                continue
        return processes_of(self.uid)

    def cpu_time(self) -> float | None:
        """CPU seconds used by all the bot's processes so far (cgroup cpuacct), or None."""
        for group in self.cgroups:
            usage = group / "cpuacct.usage"
            if usage.exists():
                return int(usage.read_text()) / 1e9
        return None

    def memory_bytes(self) -> int | None:
        """Memory charged to all the bot's processes now (cgroup memory.usage_in_bytes), or None."""
        for group in self.cgroups:
            usage = group / "memory.usage_in_bytes"
            if usage.exists():
                return int(usage.read_text())
        return None

    def oom_killed(self) -> bool:
        for group in self.cgroups:
            control = group / "memory.oom_control"
            if control.exists():
                for line in control.read_text().splitlines():
                    if line.startswith("oom_kill ") and int(line.split()[1]) > 0:
                        return True
        return False

    def cleanup(self, wait: float = 2.0) -> bool:
        """Kill whatever is left, remove the cgroups; True once no process of the uid is left."""
        self.spawned()
        self.frozen = True
        self.thaw()  # a frozen process does not die until it is thawed
        if self._freezer is not None and self._freezer >= 0:
            os.close(self._freezer)
        self._freezer = -1
        for group in self.cgroups:
            remove_cgroup(group, wait)
        deadline = time.monotonic() + wait
        while True:
            left = processes_of(self.uid)
            if not left:
                break
            if time.monotonic() > deadline:
                return False
            for pid in left:
                kill(pid)
            time.sleep(0.01)
        for group in self.cgroups:  # busy while its processes were dying: empty now, it can go
            remove_cgroup(group, wait)
        return True
