"""Volunteer workers, whose results are checked: a play job a volunteer has played is not stored but
set aside and given to a second worker (never the same one); the two uploads are compared (each
match's ranks, match and round rows but for their timing columns, and its log: the decisions). When
they agree the second is stored. When they differ, the volunteer is flagged for the organiser and
leased nothing more; a trusted second worker's results are stored, and two volunteers who differ are
both flagged and the job is played afresh. Volunteers play no checks (a check stores a bot in the
arena)."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select, update

from results.schema import TIMING_COLUMNS

from .tables import jobs, workers


def worker_of(conn, worker_id: int):
    return conn.execute(select(workers.c.name, workers.c.volunteer, workers.c.flagged)
                        .where(workers.c.id == worker_id)).one()


def vouch(conn, folder: Path, row, worker_id: int, items: list) -> dict | None:
    """A play job's upload, checked as this module says: None when it is to be stored, else the answer
    to the worker (nothing stored). ``folder`` keeps the uploads set aside; ``items`` passed
    ``schedule.results_of``."""
    me = worker_of(conn, worker_id)
    kept = folder / f"{row.id}.json"
    if row.volunteer_id is None:
        if not me.volunteer:
            return None
        kept.write_text(json.dumps(items))
        conn.execute(update(jobs).where(jobs.c.id == row.id).values(
            state="queued", volunteer_id=worker_id, lease=None, worker_id=None, expires=None))
        return {"stored": 0, "checking": len(items)}
    first = worker_of(conn, row.volunteer_id)
    agree = kept.exists() and same_play(json.loads(kept.read_text()), items)
    conn.execute(update(jobs).where(jobs.c.id == row.id).values(volunteer_id=None))
    kept.unlink(missing_ok=True)
    if agree:
        return None
    flag(conn, row.volunteer_id, f"job {row.id}: its results differ from worker {me.name}'s")
    if not me.volunteer:
        return None
    flag(conn, worker_id, f"job {row.id}: its results differ from volunteer {first.name}'s")
    conn.execute(update(jobs).where(jobs.c.id == row.id).values(state="queued", lease=None, worker_id=None,
                                                                expires=None))
    return {"stored": 0, "differ": True}


def flag(conn, worker_id: int, reason: str) -> None:
    conn.execute(update(workers).where(workers.c.id == worker_id).values(flagged=reason[:2000]))


def forget(conn, folder: Path, worker_id: int) -> None:
    """The uploads a purged worker had set aside: the jobs wait for them no more."""
    for job_id in conn.execute(select(jobs.c.id).where(jobs.c.volunteer_id == worker_id)).scalars():
        (folder / f"{job_id}.json").unlink(missing_ok=True)
    conn.execute(update(jobs).where(jobs.c.volunteer_id == worker_id).values(volunteer_id=None))


def same_play(a: list, b: list) -> bool:
    """Two uploads of one job agree: match by match, the ranks, the match and round rows without their
    timing columns (a machine's speed), and the log."""
    def played(items):
        return {i["id"]: (list(i.get("ranks") or []), _rows(i["matches"]), _rows(i["rounds"]), i["log"])
                for i in items}

    return played(a) == played(b)


def _rows(rows: list) -> list:
    return sorted((json.dumps({k: v for k, v in r.items() if k not in TIMING_COLUMNS}, sort_keys=True)
                   for r in rows))


def listed(conn) -> list:
    """Every worker for the organiser: name, volunteer, why it is flagged ("" when it is not)."""
    return [{"name": r.name, "volunteer": bool(r.volunteer), "flagged": r.flagged} for r in conn.execute(
        select(workers.c.name, workers.c.volunteer, workers.c.flagged).order_by(workers.c.name))]
