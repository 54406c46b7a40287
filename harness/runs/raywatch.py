"""A watchdog for the local Ray that the harness starts: when the driver dies, even by SIGKILL, it
kills that Ray's processes (and their descendants) at once, instead of leaving them for minutes.

The driver starts it with ``start(pids)`` right after ``ray.init``, giving the pids of the Ray
processes it started; the watchdog records each one with its start time, so that a pid reused by
an unrelated process later is never touched, and once a second records their descendants too (Ray's
own processes die with the driver and orphan the agents the raylet started, so the tree must be
known before the driver dies). It holds the read end of a pipe whose write end only
the driver has (close-on-exec, so Ray's processes do not inherit it): the kernel closes that end
when the driver dies, the watchdog reads end of file and kills. On a normal shutdown the driver
writes ``stop`` first and the watchdog leaves quietly. Only the standard library is used here.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

_state: dict = {}
POLL = 1.0  # seconds between two looks at the tree of Ray's processes


def start_time(pid: int) -> str | None:
    """The process's start time (field 22 of /proc/PID/stat), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def start(pids) -> None:
    """Start the watchdog over the processes ``pids`` (the driver's own local Ray)."""
    stop()
    roots = [f"{pid}:{start_time(pid)}" for pid in pids if start_time(pid) is not None]
    if not roots:
        return
    read, write = os.pipe()  # both non-inheritable; only ``read`` is passed on
    try:
        child = subprocess.Popen([sys.executable, "-m", "harness.runs.raywatch", str(read), *roots], pass_fds=(read,),
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True, close_fds=True)
    except OSError:
        os.close(write)
        return
    finally:
        os.close(read)
    _state.update(child=child, write=write)


def stop() -> None:
    """The driver shuts its Ray down itself: tell the watchdog to leave without killing anything."""
    child, write = _state.pop("child", None), _state.pop("write", None)
    if write is not None:
        try:
            os.write(write, b"stop")
        except OSError:
            pass
        os.close(write)
    if child is not None:
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _children() -> dict:
    out: dict = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            out.setdefault(ppid, []).append(int(entry))
    return out


def descendants(pids) -> set:
    """``pids`` and every process below them (read before anything is killed: orphans move to init)."""
    children = _children()
    found: set = set()
    todo = list(pids)
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, []))
    return found


def _tree(roots) -> set:
    """The recorded processes still alive (same start time) and all their descendants."""
    return descendants(pid for pid, started in roots if start_time(pid) == started)


def kill_tree(roots) -> None:
    for _ in range(3):  # a process may start another while they are killed
        found = _tree(roots) - {os.getpid()}
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.2)


def main(argv: list) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the driver; the driver decides
    fd = int(argv[0])
    known = {(int(p), s) for p, _, s in (r.partition(":") for r in argv[1:])}
    data = b""
    while True:
        # Ray's own processes die with the driver (their parent-death signal), orphaning the agents
        # the raylet started: so the tree is recorded while the driver lives, not read after it died
        alive = {(pid, start_time(pid)) for pid in _tree(known)}
        known = {(pid, started) for pid, started in alive if started is not None}
        ready, _, _ = select.select([fd], [], [], POLL)
        if ready:
            chunk = os.read(fd, 64)
            if not chunk:
                break
            data += chunk
    if not data.startswith(b"stop"):
        kill_tree(known)


if __name__ == "__main__":
    main(sys.argv[1:])
