"""The ladders rated when a run is whole, outside the server's write lock (harness/server/rating.py):
workers and users are answered while a rating is computed; two runs finishing together, a purge
during a rating, and a server stopped between storing a run's results and rating it all end with the
ratings of a rating from scratch of the stored runs; the leaderboard's latest rating per version is
found by an index. A rating is held on an event the test sets, never on the clock. On SQLite and on
PostgreSQL (the ``site`` fixture of tests/test_server.py) where the database matters."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import insert, select, text

from test_server import kit_archive, lease, needs_sandbox, site  # noqa: F401  (site: the fixture)
from test_server_pages import played, send
from test_server_withdraw import trusted_check

WAIT = 60  # seconds: a bound on waiting for an event, never a cause of passing


class Watched:
    """The server's write lock (installed before anything holds it), setting ``moved`` when a thread
    has to wait for it (``waited``)."""

    def __init__(self, site):
        self.lock, self.moved, self.waited = threading.Lock(), threading.Event(), False
        self.released = lambda: None  # called by each thread that lets go of it
        site.server.lock = self

    def __enter__(self):
        if not self.lock.acquire(blocking=False):
            self.waited = True
            self.moved.set()
            self.lock.acquire()
        return self

    def __exit__(self, *_exc):
        self.lock.release()
        self.released()


class Held:
    """``schedule.ladder_entries`` held on its ``hold``-th call until ``release`` is set (``rating``
    is set once it is held); every call counted."""

    def __init__(self, monkeypatch, hold: int = 1):
        from harness.server import schedule

        self.real, self.calls, self.hold = schedule.ladder_entries, 0, hold
        self.rating, self.release = threading.Event(), threading.Event()
        monkeypatch.setattr(schedule, "ladder_entries", self)

    def __call__(self, arena):
        self.calls += 1
        if self.calls == self.hold:
            self.rating.set()
            assert self.release.wait(WAIT)
        return self.real(arena)


def in_thread(call) -> tuple[threading.Thread, list]:
    out = []
    thread = threading.Thread(target=lambda: out.append(call()))
    thread.start()
    return thread, out


def meanwhile(watched: Watched, call):
    """``call()`` answered while a rating is held: its answer; a failure if it waits for the write lock."""
    watched.moved = moved = threading.Event()
    thread, out = in_thread(lambda: (call(), moved.set())[0])
    assert moved.wait(WAIT)
    assert not watched.waited, "it waited for the write lock while the ladders were rated"
    thread.join(WAIT)
    return out[0]


def from_scratch(site) -> dict:
    """Each submitted version's rating as the arena's stored runs give it now: label -> (rating, lo, hi, games)."""
    from harness.server import schedule

    return {b["bot"]: (b["rating"], b["lo"], b["hi"], b["games"]) for entry in schedule.ladder_entries(site.server.arena)
            for b in entry.get("bots", []) if "@" in b["bot"] and b.get("rating") is not None}


def latest(site) -> dict:
    """Each version's latest rating snapshot (``bot list``): label -> (rating, lo, hi, games)."""
    return {f"{v['name']}@{v['version']}": tuple(v["rating"][k] for k in ("rating", "lo", "hi", "games"))
            for v in site.server.bot_list() if v["rating"]}


def shown(site) -> dict:
    return {b["bot"]: (b["rating"], b["lo"], b["hi"], b["games"]) for entry in site.server.ladder()
            for b in entry.get("bots", []) if "@" in b["bot"] and b.get("rating") is not None}


def done(site) -> list:
    return site.column("runs", "done")


@needs_sandbox
@pytest.mark.parametrize("site", ["sqlite"], indirect=True)  # the server's own lock, whatever the database
def test_a_renewal_and_uploads_are_answered_while_a_finished_run_is_rated(site, monkeypatch):
    ann = site.user("ann")
    assert site.upload(ann, kit_archive("mybot")).status_code == 202
    w1, w2, w3 = site.worker("w1"), site.worker("w2"), site.worker("w3")
    trusted_check(site, w1)
    send(w1, *played(site, w1))
    last = played(site, w2)
    assert site.upload(ann, kit_archive("other")).status_code == 202
    check = lease(w3)
    assert check["kind"] == "check"

    held, watched = Held(monkeypatch), Watched(site)
    finishing, answer = in_thread(lambda: send(w2, *last))  # the run's last deal set: rated as it is stored
    try:
        assert held.rating.wait(WAIT)
        renewed = meanwhile(watched, lambda: w3.post(f"/api/work/{check['job']}/renew", json={"lease": check["lease"]}))
        assert renewed.status_code == 200, renewed.text
        uploaded = meanwhile(watched, lambda: site.upload(ann, kit_archive("third")))
        assert uploaded.status_code == 202, uploaded.text
        assert done(site) == [False]  # stored, not yet rated
    finally:
        held.release.set()
        finishing.join(WAIT)
    assert answer == [None] and done(site) == [True]
    assert latest(site) == from_scratch(site) == shown(site) and "mybot@1.0" in latest(site)


@needs_sandbox
def test_two_runs_finishing_together_and_a_purge_meanwhile_end_rated_as_from_scratch(site, monkeypatch):
    ann = site.user("ann")
    site.server.make_admin("ann")
    assert site.upload(ann, kit_archive("abot")).status_code == 202
    assert site.upload(ann, kit_archive("bbot")).status_code == 202
    workers = {name: site.worker(name) for name in ("a1", "a2", "b1", "b2", "again")}
    trusted_check(site, workers["a1"])
    trusted_check(site, workers["a1"])
    jobs = {name: played(site, workers[name]) for name in ("a1", "a2", "b1", "b2")}
    runs = {name: jobs[name][0]["plan"]["name"] for name in jobs}
    assert runs["a1"] == runs["a2"] != runs["b1"] == runs["b2"]  # a1, a2 play abot's run; b1, b2 bbot's
    send(workers["a1"], *jobs["a1"])
    send(workers["b1"], *jobs["b1"])

    held, watched = Held(monkeypatch), Watched(site)
    first, _ = in_thread(lambda: send(workers["a2"], *jobs["a2"]))  # abot's run whole: its rating held
    try:
        assert held.rating.wait(WAIT)
        watched.moved = moved = threading.Event()
        watched.released = moved.set  # the next write committed is the one below: the rating holds none
        second, _ = in_thread(lambda: send(workers["b2"], *jobs["b2"]))  # bbot's run whole too
        assert moved.wait(WAIT) and not watched.waited  # stored meanwhile; its own rating waits its turn
        purged = meanwhile(watched, lambda: site.http.post("/api/admin/workers/a1/purge", headers=ann))
        assert purged.json()["matches"] > 0  # abot's first deal set out, while its run was being rated
    finally:
        held.release.set()
        first.join(WAIT)
        second.join(WAIT)
    assert held.calls == 2  # rated again after the purge: what the first rating read counted purged results
    assert sorted(done(site)) == [False, True]  # bbot's run rated; abot's is no longer whole
    assert latest(site) == from_scratch(site) == shown(site) and set(latest(site)) == {"abot@1.0", "bbot@1.0"}

    send(workers["again"], *played(site, workers["again"]))  # the purged deal set played again: abot's run whole
    assert done(site) == [True, True]
    assert latest(site) == from_scratch(site) == shown(site)


def test_ratings_of_a_state_older_than_the_stored_or_before_a_purge_are_not_stored(site):
    from harness.server import kept, rating

    stored = []
    with site.server._writing() as conn:
        assert rating.store(conn, (0, 4), [], stored.append) is True
        assert rating.store(conn, (0, 2), [], stored.append) is False  # older than what is stored
        assert rating.store(conn, (0, 4), [], stored.append) is False
        kept.count_purge(conn)
        assert rating.store(conn, (0, 6), [], stored.append) is None  # a purge since: rated again
        assert rating.store(conn, (1, 3), [], stored.append) is True
        assert rating.rated(conn) == (1, 3)
    assert len(stored) == 2


class Crash(RuntimeError):
    """The server stopping between storing a run's last results and rating it."""


@needs_sandbox
def test_a_run_stored_whole_but_not_rated_is_rated_as_the_server_starts(site, monkeypatch):
    from harness.server import schedule
    from harness.server.service import Server

    ann = site.user("ann")
    assert site.upload(ann, kit_archive("mybot")).status_code == 202
    w1, w2 = site.worker("w1"), site.worker("w2")
    trusted_check(site, w1)
    send(w1, *played(site, w1))
    last = played(site, w2)
    real = schedule.ladder_entries
    monkeypatch.setattr(schedule, "ladder_entries", lambda arena: (_ for _ in ()).throw(Crash("stopped")))
    with pytest.raises(Crash):
        send(w2, *last)
    run, _ids = site.the_run()
    assert run.stored == run.planned and not run.done  # the results kept, the rating lost with the server
    assert site.count("ratings") == 0
    monkeypatch.setattr(schedule, "ladder_entries", real)

    again = Server(site.server.arena.root, site.url, site.server.settings, site.clock)  # serve starts again
    try:
        again.resume()
        assert done(site) == [True] and site.count("ratings") > 0
        assert latest(site) == from_scratch(site) and "mybot@1.0" in latest(site)
        assert again.resume() == [] and site.count("ratings") == len(latest(site))  # nothing rated twice
    finally:
        again.close()


def test_the_latest_rating_of_each_version_is_found_by_an_index(site):
    from sqlalchemy import event

    from harness.server.tables import bots, ratings, users, versions

    with site.server._writing() as conn:
        conn.execute(insert(users).values(name="u", password="x", admin=False, created=0))
        owner = conn.execute(select(users.c.id)).scalar()
        conn.execute(insert(bots), [{"name": f"b{n}", "owner_id": owner, "created": 0} for n in range(10)])
        ids = list(conn.execute(select(bots.c.id).order_by(bots.c.id)).scalars())
        conn.execute(insert(versions), [{"bot_id": b, "version": "1", "hash": "h", "status": "ready", "log": "",
                                         "created": 0} for b in ids])
        rated = list(conn.execute(select(versions.c.id).order_by(versions.c.id)).scalars())[:8]  # two never rated
        conn.execute(insert(ratings), [{"version_id": rated[n % 8], "ladder": "l", "rating": float(n), "lo": 0.0,
                                        "hi": 1.0, "games": n, "date": 0.0} for n in range(5000)])
        if conn.dialect.name == "postgresql":
            conn.execute(text("ANALYZE"))  # as autovacuum would
    asked = []
    watch = lambda _conn, _cursor, sql, params, _context, _many: asked.append((sql, params))  # noqa: E731
    event.listen(site.server.db, "before_cursor_execute", watch)
    try:
        listed = site.server.bot_list()  # the leaderboard's versions with their latest ratings
    finally:
        event.remove(site.server.db, "before_cursor_execute", watch)
    assert [v["rating"]["games"] if v["rating"] else None for v in listed] == [4992 + n for n in range(8)] + [None] * 2
    [(sql, params)] = [(q, p) for q, p in asked if "ratings" in q]
    with site.server.db.connect() as conn:
        if conn.dialect.name == "sqlite":
            plan = [r[3] for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, params)]
            assert any("USING COVERING INDEX ratings_latest" in step for step in plan), plan
            assert all(step.startswith("SCAN versions") for step in plan if step.startswith("SCAN")), plan
        else:
            plan = " ".join(r[0] for r in conn.exec_driver_sql("EXPLAIN " + sql, params))
            assert "ratings_latest" in plan and "Seq Scan on ratings" not in plan, plan
