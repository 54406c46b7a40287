"""Jobs that keep failing: a worker gives back a job it cannot play (its reason, one line), a job
whose lease runs out or is given back ``Settings.tries`` times is failed and leased no more, the
organiser lists the failed jobs with their reasons and queues one again. Functions of a ``Server``."""

from __future__ import annotations

from sqlalchemy import select

from . import queue
from .service import Refused, Server
from .tables import bots, jobs, versions


def give_back(server: Server, worker_id: int, job_id: int, secret: str, reason: str) -> dict:
    """The worker holding a job cannot play it: queued again for another worker (one failure more),
    or failed at the last try."""
    with server._writing() as conn:
        row, done = server._held(conn, job_id, worker_id, secret, None)
        if done or row.state != "leased":
            raise Refused(f"job {job_id} is {row.state}", 409)
        text = " ".join(str(reason).split())[:500] or "no reason given"
        state = queue.fail(conn, row, f"given back by its worker: {text}", server.settings.tries)
    return {"job": row.id, "state": state}


def failed_jobs(server: Server, user_id: int) -> list:
    """The failed jobs, for the organiser: each with its bot, kind, failures and the last reason."""
    with server.db.connect() as conn:
        server._require_admin(conn, user_id)
        rows = conn.execute(select(jobs.c.id, jobs.c.kind, jobs.c.failures, jobs.c.reason, jobs.c.run_id,
                                   bots.c.name, versions.c.version)
                            .join(versions, versions.c.id == jobs.c.version_id).join(bots, bots.c.id == versions.c.bot_id)
                            .where(jobs.c.state == "failed").order_by(jobs.c.id)).all()
    return [{"job": r.id, "kind": r.kind, "name": r.name, "version": r.version, "run": r.run_id,
             "failures": r.failures, "reason": r.reason} for r in rows]


def requeue(server: Server, user_id: int, job_id: int) -> dict:
    """A failed job queued again, its failures forgotten (the organiser's)."""
    with server._writing() as conn:
        server._require_admin(conn, user_id)
        if not queue.retry(conn, job_id):
            state = conn.execute(select(jobs.c.state).where(jobs.c.id == job_id)).scalar()
            raise Refused(f"no job {job_id}" if state is None else f"job {job_id} is {state}, not failed",
                          404 if state is None else 409)
    return {"job": job_id, "state": "queued"}
