"""The server's operations, one method each, on the database, the arena folder and a clock; the web
layer (api.py) only parses requests and calls these. Errors are exceptions with one line."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import time
from pathlib import Path

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from harness.arena.check import CheckReport
from harness.arena.registry import Arena, ArenaError, check_bot_folder, record_run_ratings, remove_tree
from harness.players.botfiles import check_submittable, content_hash, pack_folder
from harness.players.manifest import ManifestError, load_manifest, require_game
from harness.runs.tournament import load_run

from . import accounts, kept, queue, rating, schedule, storage, volunteers
from .archive import ArchiveError, keep, unpack
from .db import open_database, sqlite_url
from .limits import Limiter
from .settings import Settings
from .tables import bots, jobs, ratings, results, runs, tokens, users, versions, workers

MAX_LOG = 200_000  # characters of a check's report kept


class Refused(ValueError):
    """A request refused: one line; ``status`` is the HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(" ".join(str(message).split()))
        self.status = status


class Server:
    def __init__(self, root, database: str | None = None, settings: Settings = Settings(), clock=time.time):
        self.arena = Arena(root)
        schedule.check_field(self.arena, settings)
        self.db = open_database(database) if database else None  # a bad URL refused before anything is made
        self.work = self.arena.root / ".server"
        for sub in ("uploads", "runs", "tmp", "aside"):
            (self.work / sub).mkdir(parents=True, exist_ok=True)
        self.work.chmod(0o755)
        (self.work / "uploads").chmod(0o755)  # a check's sandbox reads the bot as another uid
        self.db = self.db or open_database(sqlite_url(self.work))
        self.settings = settings
        self.clock = clock
        self.limiter = Limiter(settings.rates, clock)
        self.passwords = accounts.Passwords(*settings.argon2)
        self.lock = threading.Lock()  # one write transaction at a time (``_writing``)
        self._ladders = None  # (the results' state, the ladders rated from it), as last rated (``ladder``)
        self._ladder_lock = threading.Lock()
        self.pages = kept.Pages()  # what the pages compute from stored results, kept (kept.py)

    # Accounts -----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _writing(self):
        """A write transaction, one at a time in this server (SQLite would refuse a second writer)."""
        with self.lock, self.db.begin() as conn:
            yield conn

    def sign_up(self, name: str, password: str, address: str) -> None:
        self.limiter.hit("sign-up", address)
        try:
            accounts.check_user_name(name)
            hashed = self.passwords.hash(accounts.check_password(password))
            with self._writing() as conn:
                accounts.sign_up(conn, name, hashed, self.clock())
        except accounts.AccountError as e:
            raise Refused(str(e)) from None
        except IntegrityError:  # another server process signed the name up meanwhile
            raise Refused(f"the name {name} is taken") from None

    def log_in(self, name: str, password: str, address: str, session: bool = False) -> str:
        """A new API token for the user (``session``: a browser's, which also ends when unused)."""
        self.limiter.hit("log-in", f"address:{address}")  # first: a refused address adds no key for its names
        if not accounts.USER_NAME.fullmatch(name):  # no such user; and the limiter keeps no key of 64 kB
            raise Refused("wrong name or password", 401)
        self.limiter.hit("log-in", f"name:{name}")
        with self.db.connect() as conn:
            user, hashed = accounts.password_of(conn, name)
        if not self.passwords.verify(hashed, password):  # as long for an unknown name as for a wrong password
            raise Refused("wrong name or password", 401)
        with self._writing() as conn:
            return accounts.issue_token(conn, self.clock(), user_id=user, life=self.settings.token_life,
                                        idle=self.settings.session_idle if session else None)

    def add_worker(self, name: str, volunteer: bool = False) -> str:
        with self._writing() as conn:
            try:
                return accounts.add_worker(conn, name, self.clock(), volunteer)
            except accounts.AccountError as e:
                raise Refused(str(e)) from None

    def make_admin(self, name: str) -> None:
        with self._writing() as conn:
            try:
                accounts.make_admin(conn, name)
            except accounts.AccountError as e:
                raise Refused(str(e)) from None

    def who(self, token: str | None):
        if not token:  # a visitor without a session: nothing to look up
            return None
        with self.db.connect() as conn:
            return accounts.who(conn, token, self.clock())

    # Bots ---------------------------------------------------------------------------------------

    def upload(self, user_id: int, data: bytes) -> dict:
        """An archive of a bot folder: unpacked, checked as ``bot submit`` checks a folder, kept and
        queued for validation. Nothing is kept when it is refused."""
        self.limiter.hit("upload", f"user:{user_id}")
        if len(data) > self.settings.max_archive:
            raise Refused(f"the archive is larger than {self.settings.max_archive >> 20} MiB", 413)
        self.room(user_id)  # a user at a bound is refused before the archive is unpacked
        temp = Path(tempfile.mkdtemp(prefix="upload-", dir=self.work / "tmp"))
        try:
            folder = unpack(data, temp / "bot")
            manifest = load_manifest(folder)
            require_game(manifest, self.settings.game)
            check_bot_folder(folder, "the archive")
            check_submittable(manifest.name)
            digest = content_hash(folder)
            return self._keep(user_id, manifest, folder, digest, storage.footprint(folder) + storage.BLOCK)
        except Refused:
            raise
        except (ArchiveError, ManifestError, ArenaError, ValueError) as e:
            raise Refused(str(e).replace(str(temp / "bot"), "the archive")) from None
        finally:
            remove_tree(temp)

    def room(self, user_id: int, size: int = storage.BLOCK, conn=None) -> None:
        """Refused (one line) unless the user may keep ``size`` bytes more and queue one more check:
        fewer than ``max_pending`` of their versions wait for their check, their versions keep at most
        ``max_stored`` bytes with these, all users' versions at most ``max_stored_all`` (so that new
        accounts do not multiply ``max_stored``), and the disk keeps ``min_free`` bytes free after this
        upload and its arena copy."""
        if conn is None:
            with self.db.connect() as conn:
                return self.room(user_id, size, conn)
        s = self.settings
        mine = (select(func.count()).select_from(jobs.join(versions, versions.c.id == jobs.c.version_id)
                                                  .join(bots, bots.c.id == versions.c.bot_id))
                .where(bots.c.owner_id == user_id, jobs.c.kind == "check", jobs.c.state.in_(("queued", "leased"))))
        waiting = conn.execute(mine).scalar_one()
        if waiting >= s.max_pending:
            raise Refused(f"{waiting} of your versions wait for their check, the most a user may have: upload "
                          f"again once one is checked", 429)
        theirs = (select(func.coalesce(func.sum(versions.c.kept), 0)).join(bots, bots.c.id == versions.c.bot_id)
                  .where(bots.c.owner_id == user_id))
        kept = int(conn.execute(theirs).scalar_one())  # int: PostgreSQL's sum is a Decimal
        if kept + size > s.max_stored:
            more = "" if size <= storage.BLOCK else f" and this version needs {storage.mib(size)}"
            raise Refused(f"your versions keep {storage.mib(kept)} on the server{more}: a user may keep at most "
                          f"{storage.mib(s.max_stored)}", 413)
        everyone = int(conn.execute(select(func.coalesce(func.sum(versions.c.kept), 0))).scalar_one())
        if everyone + size > s.max_stored_all:
            raise Refused(f"the server keeps as much as it may for all its users together "
                          f"({storage.mib(s.max_stored_all)}): it takes no uploads for now", 507)
        if shutil.disk_usage(self.work).free - 2 * size < s.min_free:
            raise Refused("the server is short of disk space: it takes no uploads for now", 507)

    def _keep(self, user_id: int, manifest, folder: Path, digest: str, size: int) -> dict:
        try:
            return self._keep_version(user_id, manifest, folder, digest, size)
        except IntegrityError:  # another server process took the name (or this version) meanwhile
            raise Refused(f"{manifest.name} {manifest.version}: another upload took the name or the version "
                          f"meanwhile; upload again to see which", 409) from None

    def _keep_version(self, user_id: int, manifest, folder: Path, digest: str, size: int) -> dict:
        name, version, now = manifest.name, manifest.version, self.clock()
        with self._writing() as conn:
            bot = conn.execute(select(bots).where(bots.c.name == name)).first()
            if bot is None:
                self._new_bot_name(conn, name)
            if bot is not None and bot.owner_id != user_id:
                raise Refused(f"the name {name} belongs to another user", 403)
            if bot is None:
                bot_id = conn.execute(insert(bots).values(name=name, owner_id=user_id, created=now)).inserted_primary_key[0]
            else:
                bot_id = bot.id
            same = conn.execute(select(versions).where(versions.c.bot_id == bot_id, versions.c.version == version)).first()
            if same is not None:
                if same.hash != digest:
                    raise Refused(f"{name} {version} was uploaded with other content: give the changed bot a new "
                                  f"version", 409)
                return {"name": name, "version": version, "hash": digest, "status": same.status, "new": False}
            self.room(user_id, size, conn)  # again, in the write transaction: two uploads at once counted both
            keep(folder, self.work / "uploads" / digest)
            version_id = conn.execute(insert(versions).values(bot_id=bot_id, version=version, hash=digest,
                                                              status="pending", log="", created=now,
                                                              kept=size)).inserted_primary_key[0]
            conn.execute(insert(jobs).values(kind="check", version_id=version_id, task="", matches="[]",
                                             state="queued", leases=0, created=now))
        return {"name": name, "version": version, "hash": digest, "status": "pending", "new": True}

    def _new_bot_name(self, conn, name: str) -> None:
        """Refused unless ``name`` may name a new bot: no bot of the server's nor of the arena's (one
        entered from its own machine) has it, ignoring case."""
        taken = conn.execute(select(bots.c.name).where(func.lower(bots.c.name) == name.lower())).scalar()
        if taken is not None:
            raise Refused(accounts.taken_name(name, taken), 409)
        for entry in self.arena.root.iterdir() if self.arena.root.is_dir() else ():
            if entry.name.lower() == name.lower() and self._in_arena(entry.name):
                raise Refused(f"the name {name} belongs to a bot entered in the arena from its own machine"
                              + ("" if entry.name == name else f" ({entry.name}: names are told apart ignoring case)"),
                              409)

    def _in_arena(self, name: str, version: str | None = None) -> bool:
        try:
            self.arena.find(name, version)
        except ArenaError:
            return False
        return True

    def bot_list(self) -> list:
        with self.db.connect() as conn:
            rows = conn.execute(select(bots.c.name, versions.c.id, versions.c.version, versions.c.hash,
                                       versions.c.status, versions.c.created, users.c.name.label("owner"))
                                .join(versions, versions.c.bot_id == bots.c.id)
                                .join(users, users.c.id == bots.c.owner_id).order_by(bots.c.name, versions.c.id)).all()
            latest = self._latest_ratings(conn)
        return [{"name": r.name, "version": r.version, "hash": r.hash, "status": r.status, "owner": r.owner,
                 "date": r.created, "rating": latest.get(r.id)} for r in rows]

    @staticmethod
    def _latest_ratings(conn) -> dict:
        """Each version's latest rating snapshot: one search of the index ``ratings_latest`` a version,
        however many snapshots are kept."""
        older = ratings.alias("older")
        # a range, not an equality: PostgreSQL would order by id alone and may walk the primary key back
        # through every snapshot (all of them, for a version never rated); this order is the index's only
        newest = (select(older.c.id).where(older.c.version_id.between(versions.c.id, versions.c.id))
                  .order_by(older.c.version_id.desc(), older.c.id.desc()).limit(1).scalar_subquery())
        rows = conn.execute(select(ratings).select_from(versions).join(ratings, ratings.c.id == newest)).all()
        return {r.version_id: {"ladder": r.ladder, "rating": r.rating, "lo": r.lo, "hi": r.hi, "games": r.games}
                for r in rows}

    def version(self, user_id: int | None, name: str, version: str) -> dict:
        """A version's status; its check's report only for its owner."""
        with self.db.connect() as conn:
            row = self._version_row(conn, name, version)
        out = {"name": name, "version": version, "hash": row.hash, "status": row.status}
        if user_id is not None and user_id == row.owner_id:
            out["log"] = row.log
        return out

    @staticmethod
    def _version_row(conn, name: str, version: str):
        row = conn.execute(select(versions, bots.c.owner_id, bots.c.name).join(bots, versions.c.bot_id == bots.c.id)
                           .where(bots.c.name == name, versions.c.version == version)).first()
        if row is None:
            raise Refused(f"no bot {name} {version}", 404)
        return row

    def request_matches(self, user_id: int, name: str, version: str) -> dict:
        """More deal sets on the ladder for one's own ready version."""
        self.limiter.hit("matches", f"user:{user_id}")
        with self._writing() as conn:
            row = self._version_row(conn, name, version)
            if row.owner_id != user_id:
                raise Refused(f"{name} is another user's bot", 403)
            if row.status != "ready":
                raise Refused(f"{name} {version} is {row.status}: only a validated version plays on the ladder", 409)
            run = schedule.plan_run(conn, self.arena, self.settings, row.id, f"{name}@{version}", self.clock())
            planned = conn.execute(select(runs.c.planned).where(runs.c.id == run)).scalar_one()
        return {"run": run, "matches": planned}

    def resume(self) -> list:
        """Each ready version whose rating has not settled, with no unfinished run and deal sets left
        (``schedule.play_on``), planned another run (``serve`` does this as it starts, so a cap or a
        figure changed since applies at once); the new runs' ids. What no version needs is removed
        first (``tidy``), and runs left whole but not rated by a server that stopped are rated (``rate``)."""
        self.tidy()
        self.rate()
        with self._writing() as conn:
            ready = conn.execute(select(versions.c.id).where(versions.c.status == "ready").order_by(versions.c.id)).scalars()
            planned = [schedule.play_on(conn, self.arena, self.settings, v, self.clock()) for v in list(ready)]
        return [run for run in planned if run is not None]

    def ladder(self) -> list:
        """The arena's ladders, rated again only when a run has finished (by ``rate``, which hands them
        over) or after a purge (by the next page): pages ask for them often. A disabled version left
        off, a withdrawn one (deleted by its owner) marked, both still rated with the matches they played
        (the others' ratings depend on them)."""
        with self.db.connect() as conn:
            purges, latest = kept.purges(conn), rating.rated(conn)  # two rows: asked at every page
        with self._ladder_lock:
            kept_from = self._ladders[0] if self._ladders else None
            if kept_from is None or kept_from[0] != purges or (latest is not None and latest > kept_from):
                with self.db.connect() as conn:  # a purge, or another process rated: rated again here
                    key, _whole = rating.state(conn)  # first: the ladders rated after it are never older
                self._ladders = (key, schedule.ladder_entries(self.arena))
            rated = self._ladders[1]
        with self.db.connect() as conn:
            out = {f"{r.name}@{r.version}": r.status for r in conn.execute(
                select(bots.c.name, versions.c.version, versions.c.status).join(versions, versions.c.bot_id == bots.c.id)
                .where(versions.c.status.in_(("disabled", "withdrawn"))))}
        return [{**entry, "bots": [{**b, "withdrawn": out.get(b["bot"]) == "withdrawn"} for b in entry.get("bots", [])
                                   if out.get(b["bot"]) != "disabled"]} if "bots" in entry
                else entry for entry in rated]

    def _rated(self, key: tuple, ladders: list) -> None:
        """The ladders as rated from the results' state ``key``, kept for the pages unless those kept are
        of a later state (a page rating them meanwhile finishes first)."""
        with self._ladder_lock:
            if self._ladders is None or key >= self._ladders[0]:
                self._ladders = (key, ladders)

    def rate(self) -> None:
        """The runs whole but not yet done rated with the arena's ladders, and their versions played on,
        without the write lock held while rating (rating.py: the steps and their order)."""
        with rating.one_at_a_time(self.work):
            recorded = set()
            while True:
                with self.db.connect() as conn:
                    key, whole = rating.state(conn)
                if not whole:
                    return
                for run in whole:
                    if run.id not in recorded:  # once, though a purge has it rated again
                        record_run_ratings(load_run(Path(run.folder)), run.folder)
                        recorded.add(run.id)
                ladders = schedule.ladder_entries(self.arena)
                now = self.clock()
                with self._writing() as conn:
                    stored = rating.store(conn, key, whole, lambda conn: schedule.snapshot(conn, ladders, now))
                    for version_id in sorted({r.version_id for r in whole}) if stored else ():
                        schedule.play_on(conn, self.arena, self.settings, version_id, now)
                if stored is not None:
                    if stored:
                        self._rated(key, ladders)
                    return

    # The organiser ------------------------------------------------------------------------------

    def _require_admin(self, conn, user_id: int) -> None:
        if not conn.execute(select(users.c.admin).where(users.c.id == user_id)).scalar():
            raise Refused("this needs the organiser (an admin)", 403)

    def pause(self, user_id: int, paused: bool) -> dict:
        """Pause the queue (workers are given nothing; what they hold they may finish) or resume it."""
        with self._writing() as conn:
            self._require_admin(conn, user_id)
            queue.set_paused(conn, paused)
        return {"paused": paused}

    def disable(self, user_id: int, name: str, version: str) -> dict:
        """A version out of the competition: its jobs not yet done cancelled, never planned again, left
        off the pages' ladders (the matches it played stay in their runs)."""
        with self._writing() as conn:
            self._require_admin(conn, user_id)
            row = self._version_row(conn, name, version)
            unchecked = row.status == "pending"  # its upload is needed no more; a ready one stays in the arena
            conn.execute(update(versions).where(versions.c.id == row.id).values(
                status="disabled", **({"kept": 0} if unchecked else {})))
            cancelled = queue.cancel(conn, row.id)
        if unchecked:
            self._drop_upload(row.hash)
        self.sweep_deleted()  # its runs cancelled may have been the last to seat a deleted version
        return {"name": name, "version": version, "status": "disabled", "cancelled": cancelled}

    def purge_worker(self, user_id: int, name: str) -> dict:
        """A worker not to be believed: its tokens revoked, the ladder matches it uploaded taken out of
        their runs and queued again, the jobs it holds given back (cancelled instead when their
        version's owner has deleted it). A check it made stands."""
        with self._writing() as conn:
            self._require_admin(conn, user_id)
            worker_id = conn.execute(select(workers.c.id).where(workers.c.name == name)).scalar()
            if worker_id is None:
                raise Refused(f"no worker {name}", 404)
            conn.execute(update(tokens).where(tokens.c.worker_id == worker_id).values(revoked=True))
            volunteers.forget(conn, self.work / "aside", worker_id)
            held = conn.execute(select(jobs).where(jobs.c.worker_id == worker_id, jobs.c.state.in_(("leased", "done")),
                                                   jobs.c.kind == "play")).all()
            matches = 0
            for job in held:
                if job.state == "done":
                    run = conn.execute(select(runs).where(runs.c.id == job.run_id)).one()
                    schedule.remove_results(run.folder, job.task)
                    gone = conn.execute(delete(results).where(results.c.job_id == job.id)).rowcount
                    conn.execute(update(runs).where(runs.c.id == run.id).values(stored=run.stored - gone, done=False))
                    matches += gone
                queue.requeue(conn, job.id)
            deleted = conn.execute(select(versions.c.id).where(versions.c.id.in_({job.version_id for job in held}),
                                                              versions.c.deleted.is_not(None))).scalars()
            for version_id in list(deleted):
                queue.cancel(conn, version_id)
            kept.count_purge(conn)  # the pages' ladders rated again, a rating under way too (``rate``)
        return {"worker": name, "jobs": len(held), "matches": matches}

    # Workers ------------------------------------------------------------------------------------

    def lease(self, worker_id: int) -> dict | None:
        """The next job for the worker, with what it needs to play it; None when the queue is empty."""
        with self._writing() as conn:
            got = queue.lease(conn, worker_id, self.clock(), self.settings.lease, self.settings.tries)
            if got is None:
                return None
            row, secret = got
            work = {"job": row.id, "lease": secret, "kind": row.kind, "expires": row.expires,
                    "seconds": self.settings.lease}
            if row.kind == "check":
                v = conn.execute(select(versions.c.hash).where(versions.c.id == row.version_id)).scalar_one()
                work.update({"bots": {"new": v}, "matches": self.settings.check_matches})
            else:
                folder = conn.execute(select(runs.c.folder).where(runs.c.id == row.run_id)).scalar_one()
                work.update(schedule.work_of(folder, queue.match_ids(row)))
        return work

    def bot_files(self, worker_id: int, job_id: int, secret: str, digest: str) -> bytes:
        """A bot folder of a job the worker holds, packed (``pack_folder``), by its content hash."""
        with self.db.connect() as conn:
            row, _done = self._held(conn, job_id, worker_id, secret, None)
            if row.kind == "check":
                v = conn.execute(select(versions.c.hash).where(versions.c.id == row.version_id)).scalar_one()
                folder = self.work / "uploads" / v / "bot" if v == digest else None
                folder = folder if folder is not None and folder.is_dir() else None  # gone once the check is over
            else:
                run = conn.execute(select(runs.c.folder).where(runs.c.id == row.run_id)).scalar_one()
                folder = schedule.bot_files(run, queue.match_ids(row), str(digest))
        try:
            if folder is not None:
                return pack_folder(folder)
        except (OSError, ArenaError):  # removed meanwhile: its version deleted, or its check over
            pass
        raise Refused(f"job {job_id} has no bot with content hash {str(digest)[:16]} (or its files are gone: "
                      f"its version was deleted)", 404)

    def renew(self, worker_id: int, job_id: int, secret: str) -> dict:
        """The worker holding a job is still at it: its lease runs ``settings.lease`` seconds from now."""
        with self._writing() as conn:
            row, _done = self._held(conn, job_id, worker_id, secret, None)
            try:
                return {"expires": queue.renew(conn, row, self.clock(), self.settings.lease)}
            except queue.LeaseError as e:
                raise Refused(str(e), e.status) from None

    def finish_check(self, worker_id: int, job_id: int, secret: str, report: dict) -> dict:
        """A check's report: a pass stores the version in the arena and plans its ladder run; a
        failure keeps the report and is never ranked."""
        if not isinstance(report, dict) or not isinstance(report.get("passed"), bool):
            raise Refused("a check's report needs passed (true or false)", 422)
        lines = [str(x) for x in report.get("lines") or []][:5000]
        warnings = [str(x) for x in report.get("warnings") or []][:1000]
        with self._writing() as conn:
            row, already = self._held(conn, job_id, worker_id, secret, "check")
            if already:
                return {"stored": False}
            v = conn.execute(select(versions, bots.c.name).join(bots, versions.c.bot_id == bots.c.id)
                             .where(versions.c.id == row.version_id)).one()
            text = "\n".join(lines + [f"warning: {w}" for w in warnings])[-MAX_LOG:]
            status, kept = "failed", 0
            if report["passed"]:
                checked = CheckReport(True, lines, [], warnings)
                try:
                    stored, _new = self.arena.store(self.work / "uploads" / v.hash / "bot", self.settings.check_matches,
                                                    checked)
                    status, kept = "ready", storage.footprint(stored.folder.parent)  # the arena's copy, its record
                except ArenaError as e:
                    text += f"\nnot stored in the arena: {e}"
            conn.execute(update(versions).where(versions.c.id == v.id).values(status=status, log=text, kept=kept))
            queue.finish(conn, job_id)
            if status == "ready":
                try:
                    schedule.plan_run(conn, self.arena, self.settings, v.id, f"{v.name}@{v.version}", self.clock())
                except (ValueError, OSError) as e:  # the version stays ready; the organiser asks for matches again
                    conn.execute(update(versions).where(versions.c.id == v.id).values(
                        log=text + f"\nnot planned on the ladder: {' '.join(str(e).split())}"))
        self._drop_upload(v.hash)  # the check is over: the ladder's workers fetch the arena's copy
        return {"stored": True, "status": status}

    def finish_play(self, worker_id: int, job_id: int, secret: str, items) -> dict:
        """A play job's results: checked against the leased matches and the run's schema, written as a
        part once, in a short write transaction; then, when the run is whole, rated (``rate``, the write
        lock not held)."""
        now = self.clock()
        with self._writing() as conn:
            row, already = self._held(conn, job_id, worker_id, secret, "play")
            if already:
                return {"stored": 0}
            run = conn.execute(select(runs).where(runs.c.id == row.run_id)).one()
            ids = queue.match_ids(row)
            try:
                plan = schedule.load_run(Path(run.folder))
                played = schedule.results_of(plan, ids, items)
                checked = volunteers.vouch(conn, self.work / "aside", row, worker_id, items)
                if checked is not None:  # a volunteer's results, set aside for a second worker's
                    return checked
                schedule.store_results(run.folder, row.task, played)
            except schedule.ResultsRefused as e:
                raise Refused(str(e), 422) from None
            for match_id in ids:
                conn.execute(insert(results).values(run_id=run.id, match_id=match_id, job_id=job_id,
                                                    worker_id=worker_id, received=now))
            queue.finish(conn, job_id)
            stored = run.stored + len(ids)
            conn.execute(update(runs).where(runs.c.id == run.id).values(stored=stored))
        if stored >= run.planned:
            self.rate()
            self.sweep_deleted()
        return {"stored": len(ids)}

    def _drop_upload(self, digest: str) -> None:
        """A version's upload removed, unless a pending version still needs it (the same content)."""
        with self.db.connect() as conn:
            needed = conn.execute(select(versions.c.id).where(versions.c.hash == digest,
                                                              versions.c.status == "pending")).first()
        if needed is None:
            storage.drop_upload(self.work, digest)

    def sweep_deleted(self) -> int:
        """The arena copies of deleted versions (withdraw.py) that no run still to be played seats,
        removed; how many. Called when a version is deleted or disabled, when a run is whole, and when
        ``serve`` starts (``tidy``)."""
        with self.db.connect() as conn:
            deleted = conn.execute(select(bots.c.name, versions.c.version).join(bots, bots.c.id == versions.c.bot_id)
                                   .where(versions.c.deleted.is_not(None)).order_by(versions.c.id)).all()
            left = [(r.name, r.version) for r in deleted if self._in_arena(r.name, r.version)]
            needed = schedule.seated_in_open_runs(conn) if left else set()
        return sum(storage.drop_arena_copy(self.arena, self.work, name, version)
                   for name, version in left if f"{name}@{version}" not in needed)

    def tidy(self) -> dict:
        """What no version needs, removed (``serve`` does this as it starts; a server that stopped
        between a check's end and its upload's removal leaves one): uploads of versions no longer
        pending, scratch folders of uploads cut short; and the bytes kept by versions of a database
        made before ``versions.kept``, measured; the arena copies of deleted versions no run needs
        (``sweep_deleted``). Only leftovers older than ``storage.STALE``."""
        self.sweep_deleted()
        with self.db.connect() as conn:
            pending = set(conn.execute(select(versions.c.hash).where(versions.c.status == "pending")).scalars())
            unmeasured = conn.execute(select(versions.c.id, versions.c.hash, versions.c.status, versions.c.version,
                                             bots.c.name).join(bots, bots.c.id == versions.c.bot_id)
                                      .where(versions.c.kept.is_(None))).all()
        removed = storage.leftovers(self.work / "uploads", pending) + storage.leftovers(self.work / "tmp", set())
        for path in removed:
            remove_tree(path) if path.is_dir() and not path.is_symlink() else path.unlink(missing_ok=True)
        with self._writing() as conn:
            for v in unmeasured:
                if v.status == "pending":
                    kept = storage.footprint(self.work / "uploads" / v.hash)
                else:
                    try:  # a ready version, or one disabled once ready: its arena copy
                        kept = storage.footprint(self.arena.find(v.name, v.version).folder.parent)
                    except ArenaError:  # failed, or disabled before its check
                        kept = 0
                conn.execute(update(versions).where(versions.c.id == v.id).values(kept=kept))
        return {"removed": len(removed), "measured": len(unmeasured)}

    @staticmethod
    def _held(conn, job_id, worker_id, secret, kind):
        try:
            row, already = queue.held(conn, int(job_id), worker_id, str(secret))
        except queue.LeaseError as e:
            raise Refused(str(e), e.status) from None
        if kind is not None and row.kind != kind:
            raise Refused(f"job {job_id} is a {row.kind} job", 422)
        return row, already

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.db.dispose()
