"""What the browser pages read and do beyond the API's operations: a session's user, log-out, a bot's
page (its versions, each check's report for its owner alone, its rating history), the organiser's
view of the queue. Functions of a ``Server``; errors are ``Refused`` with one line."""

from __future__ import annotations

from sqlalchemy import select, update

from . import accounts, queue
from .service import Refused, Server
from .tables import bots, ratings, tokens, users, versions, workers


def session_user(server: Server, token: str | None) -> dict | None:
    """The user a session's token names ({"id", "name", "admin"}), or None (no token, revoked, a worker's)."""
    found = server.who(token)
    if found is None or found[0] is None:
        return None
    with server.db.connect() as conn:
        row = conn.execute(select(users.c.id, users.c.name, users.c.admin).where(users.c.id == found[0])).first()
    return {"id": row.id, "name": row.name, "admin": bool(row.admin)} if row else None


def log_out(server: Server, token: str | None) -> None:
    """The session's token revoked (the cookie alone is then worth nothing)."""
    if token and token.startswith(accounts.PREFIX) and len(token) <= 200:
        with server._writing() as conn:
            conn.execute(update(tokens).where(tokens.c.digest == accounts.digest(token)).values(revoked=True))


def bot_page(server: Server, name: str, user_id: int | None) -> dict:
    """A bot's owner, its versions (newest first; the check's report only when ``user_id`` owns it) and
    each version's rating snapshots."""
    with server.db.connect() as conn:
        bot = conn.execute(select(bots.c.id, bots.c.name, bots.c.owner_id, users.c.name.label("owner"))
                           .join(users, users.c.id == bots.c.owner_id).where(bots.c.name == str(name))).first()
        if bot is None:
            raise Refused(f"no bot {name}", 404)
        mine = user_id is not None and user_id == bot.owner_id
        rows = conn.execute(select(versions).where(versions.c.bot_id == bot.id).order_by(versions.c.id.desc())).all()
        history = conn.execute(select(ratings).where(ratings.c.version_id.in_([r.id for r in rows]))
                               .order_by(ratings.c.id)).all()
    shown = []
    for r in rows:
        snapshots = [{"ladder": h.ladder, "rating": f"{h.rating:.0f}",
                      "interval": f"[{h.lo:.0f}, {h.hi:.0f}]" if h.lo is not None and h.hi is not None else "—",
                      "games": h.games} for h in history if h.version_id == r.id]
        shown.append({"version": r.version, "hash": r.hash[:16], "status": r.status,
                      "log": r.log if mine else None, "ratings": snapshots})
    return {"name": bot.name, "owner": bot.owner, "mine": mine, "versions": shown}


def admin_page(server: Server, user: dict | None) -> dict:
    """What the organiser's page shows: whether the queue is paused, every version, every worker."""
    if user is None or not user["admin"]:
        raise Refused("this needs the organiser (an admin)", 403)
    with server.db.connect() as conn:
        paused = queue.paused(conn)
        names = list(conn.execute(select(workers.c.name).order_by(workers.c.name)).scalars())
    return {"paused": paused, "versions": server.bot_list(), "workers": names}
