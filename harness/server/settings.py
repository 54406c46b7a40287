"""What an organiser chooses for a server: the ladder's game, table size, rounds and field, how many
deal sets a version plays a run and how many at most while its rating settles, the lease, the caps
on what is received and kept, the rate limits."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .limits import Rate

SETTLE = 25.0  # Elo: a rating has settled once its 95% interval reaches no further than this either side


def half_width(lo, hi) -> float:
    """Half the width of a rating's interval; infinite for a rating without one."""
    return float("inf") if lo is None or hi is None else (hi - lo) / 2


@dataclass(frozen=True)
class Settings:
    game: str = "ellibir"
    players: int = 4
    rounds: int = 11
    deal_sets: int = 8  # deal sets a validated version plays against the field, per run
    settle: float = SETTLE  # a version plays runs until its interval is within ±settle Elo...
    max_deal_sets: int = 1000  # ...or it has played this many deal sets
    field: tuple = ("builtin:greedy", "builtin:pairs", "builtin:random")  # the bots every version meets
    rivals: int = 3  # besides the field: the latest version of this many other ready bots
    check_matches: int = 3  # the check's matches (one round each, every table size)
    lease: float = 600.0  # seconds a worker holds a job before it goes back to the queue
    tries: int = 3  # a job whose lease runs out, or is given back, this many times is failed
    token_life: float = 30 * 86400.0  # seconds a user's token (an API token, a browser session) lasts
    session_idle: float = 7 * 86400.0  # seconds a browser session lasts unused
    max_archive: int = 16 << 20  # bytes of an uploaded archive
    max_results: int = 64 << 20  # bytes of a worker's upload
    max_stored: int = 256 << 20  # bytes a user's versions keep on the server's disk (storage.footprint)
    max_stored_all: int = 16 << 30  # bytes all users' versions keep between them, however many accounts there are
    max_pending: int = 2  # a user's versions waiting for their check (queued or being checked)
    min_free: int = 1 << 30  # bytes left free on the arena's disk: an upload that would leave less is refused
    argon2: tuple = (3, 65536, 4)  # time cost, memory (KiB), lanes: argon2-cffi's defaults
    rates: dict = dataclasses.field(default_factory=lambda: {
        "log-in": Rate(10, 60.0), "sign-up": Rate(5, 3600.0), "upload": Rate(10, 3600.0),
        "matches": Rate(5, 3600.0),
    })
