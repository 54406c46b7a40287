"""The ladders rated when a run is whole, without the server's write lock held (``Server.rate``), so
that workers and users are answered while they are rated. The steps, in this order:

1. The upload that completes a run stores its results in a short write transaction: the run is whole
   (``stored`` reaches ``planned``) but not yet ``done``.
2. One rating at a time for the arena (``one_at_a_time``: a lock file, so server processes sharing it
   take turns), with no transaction open: the results' state is read (``state``: the purges counted,
   then every run's ``stored``, as kept.py keys the pages), then what it names: each run whole but
   not done has its ratings recorded in the arena's ``ratings.jsonl`` (``record_run_ratings``), then
   the arena's ladders are rated (``schedule.ladder_entries``).
3. A short write transaction stores them (``store``): if a purge came after step 2 read the state,
   nothing is stored and step 2 runs again (what it read may count purged results); if ratings of a
   later state are stored already, nothing is (they count these runs too); else the ladders' snapshot
   rows, those runs ``done``, and the state rated (the row ``rated`` of ``flags``). Then the versions
   of those runs play on (``schedule.play_on``, which waits for a version's runs to be done).

A server that stops between step 1 and 3 leaves its whole runs not done: the next rating, when any
run finishes or as ``serve`` starts (``Server.resume``), rates them."""

from __future__ import annotations

import contextlib
import fcntl
import os

from sqlalchemy import insert, select, update

from . import kept
from .tables import flags, runs

RATED = "rated"  # the row of ``flags``: the results' state that the latest snapshot was rated from
LOCK_FILE = "rating.lock"  # in the server's folder


@contextlib.contextmanager
def one_at_a_time(folder):
    """Held while the arena is rated: by one thread of one server process at a time (an exclusive
    ``flock``, which the kernel lets go of if the process dies)."""
    fd = os.open(os.path.join(folder, LOCK_FILE), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def state(conn) -> tuple[tuple[int, int], list]:
    """(the results' state, the runs whole but not yet done: rows of id, folder, version_id). The state
    is (purges, the sum of every run's ``stored``): later states are greater (kept.py: results only grow
    between purges), and the runs are read after the purges, in one statement."""
    purges = kept.purges(conn)
    rows = conn.execute(select(runs.c.id, runs.c.folder, runs.c.version_id, runs.c.stored, runs.c.planned,
                               runs.c.done)).all()
    whole = [r for r in rows if not r.done and r.planned and r.stored >= r.planned]
    return (purges, sum(r.stored for r in rows)), whole


def rated(conn) -> tuple[int, int] | None:
    """The state the latest snapshot was rated from (None before the first)."""
    value = conn.execute(select(flags.c.value).where(flags.c.name == RATED)).scalar()
    return tuple(int(n) for n in value.split()) if value else None


def store(conn, key: tuple, whole: list, snapshot) -> bool | None:
    """In a write transaction: the ratings rated from state ``key`` of the runs ``whole`` stored by
    ``snapshot(conn)``, and those runs done: True; False when a later state's are stored already; None
    when a purge came since ``key`` was read (to be rated again)."""
    if kept.purges(conn) != key[0]:
        return None
    before = rated(conn)
    if before is not None and before >= key:
        return False
    snapshot(conn)
    conn.execute(update(runs).where(runs.c.id.in_([r.id for r in whole])).values(done=True))
    value = f"{key[0]} {key[1]}"
    if not conn.execute(update(flags).where(flags.c.name == RATED).values(value=value)).rowcount:
        conn.execute(insert(flags).values(name=RATED, value=value))
    return True
