"""A user deletes one of their own versions: it is withdrawn (``versions.status``; a version the
organiser disabled stays ``disabled``) and marked deleted (``versions.deleted``), its jobs not yet
done are cancelled (its check, its own ladder runs), its bytes stop counting against the user's
bound at once, and its files go: a pending version's upload at once, a ready version's arena copy
as soon as no run still to be played seats it (another version's run may have it as a rival, and
its workers fetch its files). What other results depend on stays: the matches it played in every
run, their replays, the ratings recorded, its name (no other user takes it) and its version (never
uploaded again with other content). Functions of a ``Server``."""

from __future__ import annotations

from sqlalchemy import update

from . import queue
from .service import Refused, Server
from .tables import versions


def delete(server: Server, user_id: int, name: str, version: str) -> dict:
    """The owner's version deleted, as this module says: its status, the bytes it no longer counts
    (``freed``) and the jobs cancelled. Deleting it again changes nothing."""
    with server._writing() as conn:
        row = server._version_row(conn, name, version)
        if row.owner_id != user_id:
            raise Refused(f"{name} is another user's bot", 403)
        if row.deleted is not None:
            return {"name": name, "version": version, "status": row.status, "freed": 0, "cancelled": 0}
        status = "disabled" if row.status == "disabled" else "withdrawn"
        conn.execute(update(versions).where(versions.c.id == row.id)
                     .values(status=status, kept=0, deleted=server.clock()))
        cancelled = queue.cancel(conn, row.id)
    if row.status == "pending":
        server._drop_upload(row.hash)
    server.sweep_deleted()
    return {"name": name, "version": version, "status": status, "freed": row.kept or 0, "cancelled": cancelled}

