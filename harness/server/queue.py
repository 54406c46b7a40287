"""The queue of jobs and their leases. A job is leased to one worker at a time with a secret (kept
as its sha256) and a deadline; a job whose deadline passed goes to the next worker that asks, with a
new secret, so the old holder's upload is refused. A job is done once: the first accepted upload.
The jobs of the version whose rating is least settled (the widest interval) are leased first. A
job whose lease runs out, or whose worker gives it back, ``tries`` times is failed: leased no more
until the organiser requeues it."""

from __future__ import annotations

import json
import secrets

from sqlalchemy import and_, delete, func, insert, or_, select, update

from .accounts import digest
from .settings import half_width
from .tables import flags, jobs, ratings, workers


class LeaseError(ValueError):
    """An upload that does not hold the job's current lease: ``status`` is the HTTP status to answer."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.status = status


def _lapsed(now: float):
    return and_(jobs.c.state == "leased", jobs.c.expires <= now)


def _free(now: float):
    return or_(jobs.c.state == "queued", _lapsed(now))


def lease(conn, worker_id: int, now: float, seconds: float, tries: int = 3):
    """Lease a free job to the worker: the oldest of the version whose interval is widest (a version
    not yet rated counts widest, so checks come first). (job row, secret), or None when none is free,
    the queue is paused or the worker is flagged. A volunteer is leased no check, and no worker the
    job whose results it set aside (volunteers.py)."""
    me = conn.execute(select(workers.c.volunteer, workers.c.flagged).where(workers.c.id == worker_id)).one()
    if paused(conn) or me.flagged:
        return None
    mine = or_(jobs.c.volunteer_id.is_(None), jobs.c.volunteer_id != worker_id)
    if me.volunteer:
        mine = and_(mine, jobs.c.kind == "play")
    for job in conn.execute(select(jobs.c.id, jobs.c.failures, jobs.c.worker_id)
                            .where(_lapsed(now), jobs.c.failures + 1 >= tries)).all():
        fail(conn, job, _ran_out(conn, job.worker_id), tries)
    for _attempt in range(5):
        free = conn.execute(select(jobs.c.version_id, func.min(jobs.c.id).label("first")).where(_free(now), mine)
                            .group_by(jobs.c.version_id)).all()
        if not free:
            return None
        widths = half_widths(conn, [r.version_id for r in free])
        row = min(free, key=lambda r: (-widths[r.version_id], r.first))
        job = conn.execute(select(jobs.c.state, jobs.c.failures, jobs.c.worker_id).where(jobs.c.id == row.first)).one()
        lapsed = {"failures": job.failures + 1, "reason": _ran_out(conn, job.worker_id)} if job.state == "leased" else {}
        secret = secrets.token_urlsafe(24)
        taken = conn.execute(update(jobs).where(jobs.c.id == row.first, _free(now), jobs.c.failures == job.failures)
                             .values(state="leased", lease=digest(str(secret)), worker_id=worker_id,
                                     expires=now + seconds, leases=jobs.c.leases + 1, **lapsed)).rowcount
        if taken == 1:  # no other server thread took it between the two statements
            return conn.execute(select(jobs).where(jobs.c.id == row.first)).one(), secret
    return None


def half_widths(conn, version_ids: list) -> dict:
    """Each version's half width of its rating's interval, as of the latest snapshot of each of its
    ladders (the widest of them); infinite for a version with no rating yet."""
    newest = (select(func.max(ratings.c.id).label("id")).where(ratings.c.version_id.in_(version_ids))
              .group_by(ratings.c.version_id, ratings.c.ladder).subquery())
    out = dict.fromkeys(version_ids, float("-inf"))
    for r in conn.execute(select(ratings.c.version_id, ratings.c.lo, ratings.c.hi).join(newest, newest.c.id == ratings.c.id)):
        out[r.version_id] = max(out[r.version_id], half_width(r.lo, r.hi))
    return {v: float("inf") if w == float("-inf") else w for v, w in out.items()}


def _ran_out(conn, worker_id) -> str:
    name = conn.execute(select(workers.c.name).where(workers.c.id == worker_id)).scalar()
    return f"the lease of worker {name} ran out"


def fail(conn, job, reason: str, tries: int) -> str:
    """One more failure of a job (``job``: its id, failures): queued again with its reason, or failed
    at the ``tries``-th; the job's new state."""
    state = "failed" if job.failures + 1 >= tries else "queued"
    conn.execute(update(jobs).where(jobs.c.id == job.id).values(
        state=state, failures=job.failures + 1, reason=reason[:2000], lease=None, worker_id=None, expires=None))
    return state


def retry(conn, job_id: int) -> bool:
    """A failed job queued again with its failures forgotten (the organiser's); False if it is not failed."""
    return conn.execute(update(jobs).where(jobs.c.id == job_id, jobs.c.state == "failed")
                        .values(state="queued", failures=0, reason="")).rowcount == 1


def held(conn, job_id: int, worker_id: int, secret: str):
    """(the job, whether this very lease has done it already) when ``secret`` is the job's current
    lease and the worker holds it; else LeaseError: 409 for a lease that is not the current one,
    403 for the current lease in another worker's hands."""
    row = conn.execute(select(jobs).where(jobs.c.id == job_id)).first()
    if row is None:
        raise LeaseError(f"no job {job_id}", 404)
    if row.lease != digest(str(secret)):
        raise LeaseError(f"job {job_id} is not leased with this lease (it expired and went to another worker, or "
                         f"the lease is wrong)")
    if row.worker_id != worker_id:
        raise LeaseError(f"job {job_id} is leased to another worker", 403)
    if row.state == "cancelled":
        raise LeaseError(f"job {job_id} was cancelled (its version was disabled or deleted)")
    return row, row.state == "done"


def renew(conn, row, now: float, seconds: float) -> float:
    """A held lease's deadline moved to ``now + seconds`` (the worker is still at it); the new deadline."""
    if row.state != "leased":
        raise LeaseError(f"job {row.id} is {row.state}")
    conn.execute(update(jobs).where(jobs.c.id == row.id, jobs.c.lease == row.lease).values(expires=now + seconds))
    return now + seconds


def paused(conn) -> bool:
    return conn.execute(select(flags.c.value).where(flags.c.name == "paused")).scalar() == "1"


def set_paused(conn, value: bool) -> None:
    conn.execute(delete(flags).where(flags.c.name == "paused"))
    conn.execute(insert(flags).values(name="paused", value="1" if value else "0"))


def cancel(conn, version_id: int) -> int:
    """Take a version's jobs not yet done out of the queue (a lease held on one is refused from now on)."""
    undone = jobs.c.state.in_(("queued", "leased", "failed"))
    return conn.execute(update(jobs).where(jobs.c.version_id == version_id, undone)
                        .values(state="cancelled", expires=None)).rowcount


def requeue(conn, job_id: int) -> None:
    conn.execute(update(jobs).where(jobs.c.id == job_id).values(state="queued", lease=None, worker_id=None,
                                                                expires=None))


def finish(conn, job_id: int) -> None:
    conn.execute(update(jobs).where(jobs.c.id == job_id).values(state="done", expires=None))


def match_ids(row) -> list:
    return json.loads(row.matches)
