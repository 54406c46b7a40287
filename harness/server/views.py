"""What the browser pages read and do beyond the API's operations: a session's user, log-out, a bot's
page (its versions, each check's report for its owner alone, its rating history, its recent matches
and its record against each other bot), a match's viewer, the organiser's view of the queue. Functions of a ``Server``; errors are ``Refused`` with one line."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from sqlalchemy import select, update

from . import accounts, failures, kept, queue, schedule, volunteers
from .service import Refused, Server
from .tables import bots, ratings, results, runs, tokens, users, versions

RECENT = 20  # matches listed on a bot's page


def session_user(server: Server, token: str | None) -> dict | None:
    """The user a session's token names ({"id", "name", "admin"}), or None (no token, revoked, expired,
    a worker's). A session used lasts unused ``session_idle`` from now (written when that moves its
    end by more than a hundredth, not at every page)."""
    found = server.who(token)
    if found is None or found[0] is None:
        return None
    idle_until = server.clock() + server.settings.session_idle
    if found.idle is not None and idle_until - found.idle > server.settings.session_idle / 100:
        with server._writing() as conn:
            accounts.touch(conn, token, idle_until)
    with server.db.connect() as conn:
        row = conn.execute(select(users.c.id, users.c.name, users.c.admin).where(users.c.id == found[0])).first()
    return {"id": row.id, "name": row.name, "admin": bool(row.admin)} if row else None


def log_out(server: Server, token: str | None) -> None:
    """The session's token revoked (the cookie alone is then worth nothing)."""
    if token and token.startswith(accounts.PREFIX) and len(token) <= 200:
        with server._writing() as conn:
            conn.execute(update(tokens).where(tokens.c.digest == accounts.digest(token)).values(revoked=True))


def bot_page(server: Server, name: str, user_id: int | None) -> dict:
    """A bot's owner, its versions (newest first; the check's report only when ``user_id`` owns it),
    each version's rating snapshots, its recent matches and its matchups (``matches_and_matchups``)."""
    with server.db.connect() as conn:
        purges = kept.purges(conn)  # the results' state first, then what it names (kept.py)
        every_run = conn.execute(select(runs.c.id, runs.c.folder, runs.c.stored)
                                 .where(runs.c.folder != "").order_by(runs.c.id)).all()
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
        shown.append({"version": r.version, "hash": r.hash[:16], "status": r.status, "deleted": r.deleted is not None,
                      "log": r.log if mine else None, "ratings": snapshots})
    versions_of = {r.id: f"{bot.name}@{r.version}" for r in rows}
    state = (purges, sum(r.stored for r in every_run))
    matches, ups = server.pages.bots.get((tuple(sorted(versions_of)), state),
                                         lambda: matches_and_matchups(server, versions_of, every_run, purges))
    return {"name": bot.name, "owner": bot.owner, "mine": mine, "versions": shown, "matches": matches,
            "matchups": ups}


def matches_and_matchups(server: Server, versions_of: dict, every_run: list, purges: int) -> tuple[list, list]:
    """(the recent matches, the matchups) of the versions ``versions_of`` ({version id: label}) over the
    ladder runs ``every_run`` (rows of id, folder, stored) as stored when ``purges`` purges were
    counted: the matches of the versions' own runs that they sat in (not the design's control tables)
    and whose deal set is stored whole, newest first; and ``matchups``."""
    labels = set(versions_of.values())
    with server.db.connect() as conn:
        recent = conn.execute(select(results.c.run_id, results.c.match_id)
                              .join(runs, runs.c.id == results.c.run_id)
                              .where(runs.c.version_id.in_(list(versions_of)))
                              .order_by(results.c.id.desc()).limit(RECENT * 8)).all()
        folders = {r.id: r.folder for r in every_run}
        over = {(run, m) for run in {p.run_id for p in recent} for m in schedule.over(conn, run, folders[run])}
    seats = _seats(server, every_run, purges, labels)  # read once: the recent matches and the matchups
    seated = {(r, m) for r, m, b in zip(seats["r"], seats["match_id"], seats["bot"]) if b in labels} if len(seats) else set()
    matches = [{"run": p.run_id, "match": p.match_id} for p in recent
               if (p.run_id, p.match_id) in seated and (p.run_id, p.match_id) in over][:RECENT]
    return matches, matchups(seats, labels)


def _seats(server: Server, every_run: list, purges: int, labels: set):
    """The seats of the stored matches of the runs ``every_run`` at the tables where one of ``labels``
    sat: r (the run's id), match_id, bot, rank. Each run's seats are read from its parts once for each
    state of its results (``Server.pages.seats``)."""
    import polars as pl

    from results.store import RunStore

    def read(folder):
        return lambda: RunStore(folder).scan("matches").select("match_id", "bot", "rank").collect()

    frames = [server.pages.seats.get((run, stored, purges), read(folder)).with_columns(pl.lit(run).alias("r"))
              for run, folder, stored in every_run if stored]
    if not frames:
        return pl.DataFrame()
    seats = pl.concat(frames)
    tables = seats.filter(pl.col("bot").is_in(sorted(labels))).select("r", "match_id").unique()
    return seats.join(tables, on=["r", "match_id"], how="semi")


def matchups(seats, labels: set) -> list:
    """The bot's record against each other bot over ``seats`` (``_seats`` of every ladder run, each
    match once, whoever's run it is): at each table, every seat of one of ``labels`` against every
    other seat, finished ahead (a lower rank: 1 is best), behind, or level. Tables where the bot did
    not sit (the design's controls) count for nothing."""
    import polars as pl

    if not len(seats):
        return []
    mine = seats.filter(pl.col("bot").is_in(sorted(labels)))
    other = seats.filter(~pl.col("bot").is_in(sorted(labels)))
    pairs = mine.join(other, on=["r", "match_id"], suffix="_other")
    table = (pairs.group_by("bot_other")
             .agg(ahead=(pl.col("rank") < pl.col("rank_other")).sum(),
                  behind=(pl.col("rank") > pl.col("rank_other")).sum(),
                  level=(pl.col("rank") == pl.col("rank_other")).sum())
             .sort("bot_other"))
    return [{"bot": r["bot_other"], "ahead": r["ahead"], "behind": r["behind"], "level": r["level"]}
            for r in table.iter_rows(named=True)]


def _stored_match(conn, run_id: int, match_id: str, user_id: int | None) -> tuple[str, set]:
    """(the run folder of a stored ladder match, the labels of the bots ``user_id`` owns); 404 while
    any match of its deal set is not stored (``schedule.over``), whichever job it is in."""
    found = conn.execute(select(runs.c.folder).join(results, results.c.run_id == runs.c.id)
                         .where(runs.c.id == run_id, results.c.match_id == str(match_id))).first()
    if found is None:
        raise Refused(f"no match {match_id} of run {run_id} is over", 404)
    if str(match_id) not in schedule.over(conn, run_id, found.folder):
        raise Refused(f"match {match_id} is shown once every match of its deal set is over", 404)
    owned = set() if user_id is None else {
        f"{r.name}@{r.version}" for r in conn.execute(
            select(bots.c.name, versions.c.version).join(versions, versions.c.bot_id == bots.c.id)
            .where(bots.c.owner_id == user_id))}
    return found.folder, owned


def match_logs(server: Server, run_id: int, match_id: str, user_id: int | None) -> dict:
    """The owner's logs of a match: for each seat whose bot ``user_id`` owns, its decisions, refusals,
    decision times (each decision's own, when the run kept them) and the stderr tail the run kept; and
    the run's move time. Refused (403) to anyone who owns no seat's bot."""
    import polars as pl

    from harness.runs.faultlog import read_stderr_and_times
    from harness.runs.tournament import load_run
    from results.store import RunStore

    if user_id is None:
        raise Refused("log in first: a match's logs are its bots' owners' alone", 401)
    with server.db.connect() as conn:
        folder, owned = _stored_match(conn, run_id, match_id, user_id)
    rows = (RunStore(folder).scan("matches").filter(pl.col("match_id") == str(match_id))
            .filter(pl.col("bot").is_in(sorted(owned))).sort("seat").collect())
    if rows.is_empty():
        raise Refused("a match's logs are its bots' owners' alone", 403)
    stderr, times = read_stderr_and_times(folder, str(match_id))
    move_ms = load_run(Path(folder))["options"]["move_time"] * 1000
    seats = [{"seat": r["seat"], "bot": r["bot"], "decisions": r["decisions"], "refusals": r["refusals"],
              "mean": f"{r['time_sum'] / r['decisions'] * 1000:.1f} ms" if r["decisions"] else "—",
              "longest": "—" if r["time_max"] is None else f"{r['time_max'] * 1000:.1f} ms",
              "bank": "—" if r["bank_left"] is None else f"{r['bank_left']:.2f} s",
              "stderr": stderr.get(r["seat"], ""), "times": decision_times(times.get(r["seat"]), move_ms)}
             for r in rows.iter_rows(named=True)]
    return {"seats": seats, "move_time": f"{move_ms:g} ms"}


def decision_times(listed: list | None, move_ms: float) -> list | None:
    """Each decision's time as the logs page lists it (its number, milliseconds, and marks: the longest,
    over the move time), or None when the run did not keep them."""
    if listed is None:
        return None
    longest = max(listed, default=None)
    return [{"n": n, "ms": f"{t:.3f}", "marks": _marks(t == longest, t > move_ms)} for n, t in enumerate(listed, 1)]


def _marks(longest: bool, over: bool) -> str:
    return ", ".join(["longest"] * longest + ["over the move time"] * over)


def match_page(server: Server, run_id: int, match_id: str, user_id: int | None) -> tuple[str, str]:
    """(the viewer's page, its Content-Security-Policy) of a ladder match. It is shown only once every
    match of its deal set is stored (``_stored_match``), so no match of a deal still being played is
    ever shown. The bots' stderr is shown to each seat's owner alone: a seat's stderr is on the page
    only when ``user_id`` owns that seat's bot. The page of a visitor who owns none of its bots (the
    same for all of them) is kept until a purge (kept.py: a stored match's log changes only then)."""
    with server.db.connect() as conn:
        purges = kept.purges(conn)  # first: the page kept under it is read after
        folder, owned = _stored_match(conn, run_id, match_id, user_id)
    seating = kept.plan_index(folder).seating[str(match_id)]
    seats = {seat for seat, label in enumerate(seating) if label in owned}
    if seats:
        return _viewer(folder, str(match_id), seating, seats), _policy()
    kept_page = server.pages.viewers.get((run_id, str(match_id), purges),
                                         lambda: _viewer(folder, str(match_id), seating, set()))
    return kept_page, _policy()


def _viewer(folder: str, match_id: str, seating: tuple, seats: set) -> str:
    """The viewer's page of a stored match, with the stderr of the seats ``seats``."""
    from harness.replay.viewer import page_html
    from harness.runs.faultlog import read_stderr
    from results.store import RunStore

    store = RunStore(folder)
    text = store.read_log(match_id)
    stderr = {s: tail for s, tail in read_stderr(folder, match_id, store).items() if s in seats} if seats else {}
    return page_html(_match_doc(text, seating), f"match {match_id}", stderr=stderr)


@functools.cache
def _policy() -> str:
    from harness.replay.viewer import viewer_policy

    return viewer_policy()


DOCS_KEPT = 64  # replayed matches the server keeps for their pages
_docs = kept.Kept(DOCS_KEPT)


def _match_doc(text: str, seating) -> dict:
    """The viewer's replay of a stored log, kept by the log's digest (the replay is most of a page's
    cost; a match played again after a purge has another log, so another entry)."""
    from engine.events import read_lines
    from harness.replay.viewer import match_doc

    key = (hashlib.sha256(text.encode()).hexdigest(), tuple(seating or ()))
    return _docs.get(key, lambda: match_doc(read_lines(text), seating))


def admin_page(server: Server, user: dict | None) -> dict:
    """What the organiser's page shows: whether the queue is paused, every version, every worker, the
    failed jobs."""
    if user is None or not user["admin"]:
        raise Refused("this needs the organiser (an admin)", 403)
    with server.db.connect() as conn:
        paused = queue.paused(conn)
        listed = volunteers.listed(conn)
    return {"paused": paused, "versions": server.bot_list(), "workers": listed,
            "failed": failures.failed_jobs(server, user["id"])}
