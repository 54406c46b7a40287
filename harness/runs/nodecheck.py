"""What a worker checks before it plays a job's matches, and where it keeps bot folders.

- ``check_node(job)``: the worker runs the code the plan was made with (``plan.project_version``,
  kept in the job) and, when the job has bot folders, the sandbox works on this node
  (``sandbox.sandbox_problem``). Otherwise it raises ``NodeRefused``, whose one-line message names
  the node and what is wrong; the runner stops the run on it (harness/runs/runner.py). Checked once per
  worker process.
- ``bot_folder(label, digest, packs)``: the bot folder of content hash ``digest`` on this node. Each
  node unpacks a folder once, into ``$TMPDIR/ellibir-bots-UID/DIGEST`` (moved into place whole, so
  another worker never sees half of it); every later task on the node reuses it. A worker process
  checks the content hash of a cached folder the first time it uses it, and unpacks it afresh if
  the files differ. The cache folder must belong to this uid and be writable by it alone. A folder no
  worker of the node has used for ``CACHE_UNUSED_FOR`` (and a half-unpacked one that old) is removed
  when another is unpacked: every version of every bot a node ever played was kept, up to 64 MiB each.
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import stat
import tempfile
from pathlib import Path

CACHE_PREFIX = "ellibir-bots-"
CACHE_UNUSED_FOR = 2 * 86400  # seconds a cached bot folder may go unused before the next unpacking removes it


class NodeRefused(RuntimeError):
    """A worker will not play this job on its node; the message is one line."""


def node_name() -> str:
    return socket.gethostname()


def worker_version() -> str:
    from .plan import project_version

    return project_version()


@functools.cache
def _checked(version: str, needs_sandbox: bool) -> None:
    mine = worker_version()
    if version and mine != version:
        raise NodeRefused(f"node {node_name()} (pid {os.getpid()}) runs ellibir {mine}, but the run was planned "
                          f"with ellibir {version}: install the plan's version on every node")
    if needs_sandbox:
        from harness.sandbox.bubblewrap import sandbox_problem

        problem = sandbox_problem()
        if problem:
            raise NodeRefused(f"node {node_name()} (pid {os.getpid()}) cannot sandbox bot programs: {problem}")


def check_node(job) -> None:
    """Raise NodeRefused unless this worker may play ``job`` (a ``jobs.Job``)."""
    _checked(job.version, any(b.packed for b in job.bots.values()))


# The bot folder cache --------------------------------------------------------------------------------

_VERIFIED: dict = {}  # digest -> folder, checked by this process


def cache_root() -> Path:
    root = Path(tempfile.gettempdir()) / f"{CACHE_PREFIX}{os.geteuid()}"
    try:
        root.mkdir(mode=0o755)
    except FileExistsError:
        pass
    st = os.lstat(root)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise NodeRefused(f"node {node_name()}: the bot cache {root} is not a folder of uid {os.geteuid()} "
                          f"that only it may write")
    os.chmod(root, 0o755)  # the sandboxed bot (another uid) reads its files
    return root


def bot_folder(label: str, digest: str, packs: dict) -> str:
    """The folder of bot ``label`` (content hash ``digest``) on this node, unpacked from ``packs``
    if this node has not got it yet."""
    if digest in _VERIFIED and os.path.isdir(_VERIFIED[digest]):  # gone: unused here for days, removed
        _touch(_VERIFIED[digest])
        return _VERIFIED[digest]
    from harness.arena.registry import content_hash
    from harness.players.botfiles import unpack_folder

    root = cache_root()
    final = root / digest
    unpacked = not (final.is_dir() and content_hash(final) == digest)
    if unpacked:
        scratch = Path(tempfile.mkdtemp(prefix=f".{digest[:16]}.", dir=root))
        try:
            fresh = unpack_folder(packs[label], scratch / "bot")
            if content_hash(fresh) != digest:
                raise RuntimeError(f"bot {label}: the unpacked files do not match the planned hash")
            if final.exists():  # damaged or edited: move it aside, then put ours in its place
                os.rename(final, scratch / "old")
            try:
                os.rename(fresh, final)
            except OSError:  # another worker placed it meanwhile
                if content_hash(final) != digest:
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    _touch(final)  # used now (an unpacked folder may carry an old time): the prune below keeps it
    if unpacked:
        prune_cache(root)
    _VERIFIED[digest] = str(final)
    return str(final)


def _touch(path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def prune_cache(root: Path, unused_for: float = CACHE_UNUSED_FOR, now: float | None = None) -> list[str]:
    """Remove the cached bot folders (and half-unpacked ones) of ``root`` unused for ``unused_for``
    seconds; returns their names."""
    import time

    now = time.time() if now is None else now
    removed = []
    for entry in os.scandir(root):
        try:
            stale = now - entry.stat(follow_symlinks=False).st_mtime > unused_for
        except OSError:
            continue
        if stale and entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.name)
    return removed
