"""One empty cgroup kept frozen while this harness runs sandboxes (cgroup v1 freezer).

The kernel switches its freezer paths on when the first cgroup starts freezing and off when the last
one thaws, patching its code each time: about 50 microseconds of the harness's CPU per switch. A match
with one sandboxed bot freezes and thaws it on every decision and would pay that twice a decision;
with this empty group frozen the count never drops to nothing and a freeze or thaw costs a few
microseconds. The group holds no process and limits nothing: the bots' own groups do the freezing.
"""

from __future__ import annotations

import atexit
import os
from pathlib import Path

PREFIX = "ellibir-anchor-"
_held: dict = {}  # pid -> the group this process made (a forked child makes its own)


def hold(parent: Path | None) -> Path | None:
    """Make and freeze this process's anchor under the freezer cgroup ``parent`` (once); its path, or None."""
    pid = os.getpid()
    if parent is None or pid in _held:
        return _held.get(pid)
    _remove_stale(parent)
    group = parent / f"{PREFIX}{pid}"
    try:
        group.mkdir(exist_ok=True)
        (group / "freezer.state").write_text("FROZEN")
    except OSError:
        release(group)
        _held[pid] = None
        return None
    _held[pid] = group
    atexit.register(_release_own, pid)
    return group


def release(group: Path) -> None:
    try:
        (group / "freezer.state").write_text("THAWED")
    except OSError:
        pass
    try:
        group.rmdir()
    except OSError:
        pass


def _release_own(pid: int) -> None:
    if os.getpid() == pid and _held.get(pid) is not None:
        release(_held.pop(pid))


def _remove_stale(parent: Path) -> None:
    """Anchors of harness processes that are gone (killed before their exit handlers ran)."""
    try:
        names = [p.name for p in parent.iterdir() if p.name.startswith(PREFIX)]
    except OSError:
        return
    for name in names:
        owner = name[len(PREFIX):]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            release(parent / name)
