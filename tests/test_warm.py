"""Every page a bot can read is read again by the harness, so that none is slower than another (issue 25's
channel, through memory a virtual machine's host takes back: harness/sandbox/warm.py).

The attack itself, two bots passing a hand through the read times of a shared file, is
tests/test_page_cache.py; a page goes cold only after minutes unread, so those tests catch a cold
copy only where one is left (a node's copy made hours before). These tests prove the defence's parts
by what they do, not by how fast anything reads: a sweep reads every byte of every regular file and
opens nothing else; each process that starts a sandbox runs a keeper; one process of a node holds
the keeper's lock at a time, and another takes it over when that process is gone.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.sandbox import warm
from harness.sandbox.bubblewrap import sandbox_available

ROOT = Path(__file__).resolve().parent.parent


def lock_held(top: Path) -> bool:
    """Whether a process other than this one holds ``top``'s keeper lock (POSIX locks are per process)."""
    with open(top / warm.LOCK, "a") as f:
        try:
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.lockf(f, fcntl.LOCK_UN)
        return False


def wait_for(condition, what: str, limit: float = 60.0):
    """Poll ``condition`` until it holds; fail naming ``what`` after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"never happened: {what}")
        time.sleep(0.05)


def test_a_sweep_reads_every_byte_of_every_regular_file_and_opens_nothing_else(tmp_path):
    top = tmp_path / "stage"
    (top / "a" / "b").mkdir(parents=True)
    sizes = {"small": 10, "a/page": 4096, "a/b/big": 3 * (1 << 20) + 17, "a/empty": 0}
    for name, size in sizes.items():
        (top / name).write_bytes(os.urandom(size))
    outside = tmp_path / "outside"
    outside.write_bytes(b"x" * 5000)
    (top / "a" / "link").symlink_to(outside)  # a link may lead anywhere: not followed
    os.mkfifo(top / "a" / "fifo")  # opening it for reading would wait for a writer: never read
    assert warm.sweep(top) == sum(sizes.values())


def test_a_sweep_skips_what_vanishes_or_cannot_be_read(tmp_path):
    top = tmp_path / "stage"
    top.mkdir()
    (top / "kept").write_bytes(b"y" * 100)
    locked = top / "locked"
    locked.write_bytes(b"z" * 100)
    locked.chmod(0)
    expected = 200 if os.geteuid() == 0 else 100  # root reads a file of mode 0 too
    assert warm.sweep(top) == expected
    assert warm.sweep(tmp_path / "gone") == 0


KEEPER = """import sys, threading, time
from pathlib import Path
from harness.sandbox import warm
warm.keep_warm(Path(sys.argv[1]), period=float(sys.argv[2]))
print(sorted(t.name for t in threading.enumerate()), flush=True)
time.sleep(3600)
"""


def start_keeper(top: Path, period: float) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", KEEPER, str(top), str(period)], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True)


def test_one_process_of_a_node_sweeps_and_another_takes_over_when_it_is_gone(tmp_path):
    top = tmp_path / "stage"
    top.mkdir()
    (top / "file").write_bytes(b"q" * 10000)
    first = start_keeper(top, 0.2)
    second = None
    try:
        assert warm.KEEPER in first.stdout.readline()  # the keeper thread runs
        assert warm.last_sweep(top) is not None  # swept before returning: nobody had
        wait_for(lambda: lock_held(top), "the first keeper takes the node's lock")
        second = start_keeper(top, 0.2)
        assert warm.KEEPER in second.stdout.readline()
        first.kill()
        first.wait()
        wait_for(lambda: lock_held(top), "the second keeper takes the lock over")
        before = warm.last_sweep(top)
        wait_for(lambda: warm.last_sweep(top) != before, "the second keeper sweeps")
    finally:
        for p in (first, second):
            if p is not None:
                p.kill()
                p.wait()
    assert not lock_held(top)  # a dead process holds nothing


@pytest.mark.skipif(not sandbox_available(), reason="needs the bubblewrap sandbox (root)")
def test_a_process_that_takes_the_runtime_copy_keeps_the_node_s_copies_warm():
    code = ("import threading, time; from harness.sandbox import resident, staging, warm; "
            "resident.runtime_root(); last = warm.last_sweep(staging.STAGE_DIR); "
            "print(warm.KEEPER in [t.name for t in threading.enumerate()], "
            "last is not None and time.time() - last <= 2 * warm.PERIOD)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]
