"""Bot processes kept between the matches of one task (protocol 2, docs/protocol.md).

A bot that answers ``hello`` with protocol 2 may serve further matches in the same process: after
``match_end`` the harness freezes it, empties its /tmp and keeps it in a ``ProcessPool``; the next
match that needs the same bot sends it ``new_match`` instead of starting a new process. The rules:

- a process never serves two matches that share deals: each kept process remembers the deal keys
  (``deal_keys``: the deal seed, and the deals themselves when given) of every match it served, and
  is offered only to a match with none of them, whatever its variant or seat rotation;
- a process serves one seat at a time: it leaves the pool while it plays;
- after a fault, a bot still on protocol 1, a manifest with ``fresh_process = true``, a match cut
  short, a local ``--keep-tmp`` or an unsandboxed bot, the process is closed, never kept;
- at most ``MAX_KEPT`` processes wait at once (the uid pool, harness/sandbox/bubblewrap.py, counts them); the one
  unused longest is closed first.

``play_batch`` (harness/runs/distributed.py) plays a task's matches inside ``with ProcessPool() as pool``
and hands the pool to ``make_players``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

MAX_KEPT = 16  # processes a task keeps waiting (a task of one seating across deal sets needs one per bot)
MAX_MATCHES = 50  # matches one process serves at most: its RLIMIT_CPU is this many matches' limits


def deal_keys(seed, deals=None) -> frozenset:
    """What identifies a match's deals: its deal seed and, when given, the deals themselves. Neither
    the variant nor the seating is part of it: the same deals under other rules are the same deals."""
    keys = {("seed", str(seed))}
    if deals:
        keys.add(("deals", hashlib.sha256(repr(list(deals)).encode()).hexdigest()))
    return frozenset(keys)


@dataclass
class Kept:
    """A bot process between matches, with the deals it has seen."""

    process: object
    key: tuple  # (manifest, options): only a player of the same bot under the same options takes it
    seen: set = field(default_factory=set)


class ProcessPool:
    """The processes one task keeps; ``enabled=False`` keeps none (every match starts its bots anew)."""

    def __init__(self, enabled: bool = True, keep: int = MAX_KEPT):
        self.enabled, self.keep = enabled, keep
        self.waiting: list[Kept] = []  # the one unused longest first
        self.started = 0  # processes started for the pool's matches (bench, tests)
        self.reused = 0  # matches served by a kept process
        self.spoke: list[bytes] = []  # what kept processes wrote unasked after match_end (so not offered again)

    def take(self, manifest, options, keys: frozenset) -> Kept | None:
        """A kept process of this bot that has seen none of ``keys``, out of the pool; or None."""
        key = (manifest, options)
        for kept in list(self.waiting):
            if kept.key != key or kept.seen & keys:
                continue
            self.waiting.remove(kept)
            if not _healthy(kept.process):
                if _spoke(kept.process):
                    self.spoke.append(_waiting(kept.process))
                _close(kept.process)
                continue
            self.reused += 1
            return kept
        return None

    def give_back(self, kept: Kept, keys: frozenset) -> None:
        """The match is over and the process may serve another (it is frozen, its /tmp empty)."""
        kept.seen |= keys
        if not self.enabled or getattr(kept.process, "matches", 0) >= MAX_MATCHES:
            _close(kept.process)
            return
        self.waiting.append(kept)
        while len(self.waiting) > self.keep:
            _close(self.waiting.pop(0).process)

    def close(self) -> None:
        while self.waiting:
            _close(self.waiting.pop().process)

    def __enter__(self) -> ProcessPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _healthy(process) -> bool:
    """Alive, and quiet since its last match (a bot that spoke unasked is not offered a new one)."""
    try:
        return process.returncode is None and not process.pending()
    except Exception:  # noqa: BLE001
        return False


def _spoke(process) -> bool:
    try:
        return process.returncode is None and process.pending()
    except Exception:  # noqa: BLE001
        return False


def _waiting(process) -> bytes:
    try:
        return process.waiting()
    except Exception:  # noqa: BLE001
        return b""


def _close(process) -> None:
    try:
        process.close()
    except Exception:  # noqa: BLE001
        pass


__all__ = ["MAX_KEPT", "Kept", "ProcessPool", "deal_keys"]
