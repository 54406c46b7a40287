"""What the server keeps of each version on its disk, and the bounds on it. A pending version keeps
its unpacked upload (``.server/uploads/HASH/bot/``), which its check's worker fetches; once the check
has passed the version is in the arena (``NAME/VERSION/``, what the ladder's workers fetch) and the
upload goes, and once it has failed (or the version is disabled before its check) only the check's
report stays, in the database. A version its owner deleted (withdraw.py) keeps nothing once no run
still to be played seats it. ``versions.kept`` holds the bytes each version keeps, as
``footprint`` counts them: every file and folder rounded up to whole blocks of 4 KiB, so ten
thousand empty files count as the 40 MiB of disk they take."""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import time
from pathlib import Path

from harness.arena.registry import ArenaError, remove_tree

BLOCK = 4096
STALE = 3600.0  # seconds: a leftover in uploads/ or tmp/ older than this is removed when serve starts


def footprint(path) -> int:
    """The bytes ``path`` (a folder or a file) takes, each file and folder rounded up to whole
    blocks (at least one). Symbolic links count one block, unfollowed."""
    path = Path(path)
    if path.is_symlink() or not path.is_dir():
        try:
            return BLOCK * max(1, math.ceil(path.lstat().st_size / BLOCK))
        except FileNotFoundError:
            return 0
    total = BLOCK
    with os.scandir(path) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                total += footprint(entry.path)
            else:
                total += BLOCK * max(1, math.ceil(entry.stat(follow_symlinks=False).st_size / BLOCK))
    return total


def drop_upload(work: Path, digest: str) -> None:
    """A version's upload, no longer needed (its check is over, or it will never run)."""
    remove_tree(work / "uploads" / digest)


def drop_arena_copy(arena, work: Path, name: str, version: str) -> bool:
    """A version's copy in the arena (``NAME/VERSION/``) removed: moved out of the arena into
    ``.server/tmp/`` first (one rename, so that a reader finds the whole copy or none), then deleted;
    the bot's folder too once its last version is gone. False when there was no copy."""
    try:
        folder = arena.find(name, version).folder.parent
    except ArenaError:
        return False
    scratch = work / "tmp" / f"deleted-{secrets.token_hex(8)}"
    folder.chmod(0o755)  # a folder moved to another parent has its ".." rewritten: it must be writable
    os.rename(folder, scratch)
    remove_tree(scratch)
    with contextlib.suppress(OSError):
        folder.parent.rmdir()
    return True


def leftovers(folder: Path, keep: set, now: float | None = None) -> list:
    """The entries of ``folder`` not named in ``keep`` and older than ``STALE`` (a second server on the
    same arena may be writing a newer one)."""
    now = time.time() if now is None else now
    out = []
    for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
        try:
            if entry.name not in keep and entry.lstat().st_mtime < now - STALE:
                out.append(entry)
        except FileNotFoundError:
            continue
    return out


def mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"
