"""What the arena's pages keep between requests (harness/server/kept.py): a page asked for again reads
no run file while the results stay as they were, and shows every change at once: a new result, a
purge, results stored again after a purge, a version deleted; a kept viewer's page carries nobody's
stderr, and its owner still gets theirs. Every keeper is bounded. A request that waits for the
server's write lock holds up no page. On SQLite and on PostgreSQL (the ``site`` fixture of
tests/test_server.py) where the database matters."""

from __future__ import annotations

import re
import threading

import pytest

from test_server import KIT, kit_archive, lease, live, needs_sandbox, site  # noqa: F401  (site, live: fixtures)
from test_server_withdraw import trusted_check

MARK = "a-line-for-its-owner-alone"


def matchups(page: str) -> tuple:
    """(ahead, behind, level) against greedy on a bot's page."""
    [counts] = re.findall(r"<tr><td>builtin:greedy</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td></tr>", page)
    return tuple(map(int, counts))


def recent(page: str) -> set:
    return set(re.findall(r'<li><a href="(/runs/\d+/matches/[^"]+)">', page))


def played(site, w) -> list:
    """A deal set leased by the worker and played in the sandbox (not yet sent)."""
    from harness.server import worker

    work = lease(w)
    assert work["kind"] == "play"
    return work, worker.play(w, work)


def send(w, work: dict, items: list) -> None:
    answer = w.post(f"/api/work/{work['job']}/results", json={"lease": work["lease"], "results": items})
    assert answer.json() == {"stored": len(items)}, answer.text


def reversed_outcome(items: list) -> list:
    """The deal set's results as a lying worker might send them: the two tables' logs swapped, and the
    submitted bot's table's ranks turned round (ahead becomes behind; behind or level becomes ahead)."""
    first, second = items
    first["log"], second["log"] = second["log"], first["log"]
    for item in items:
        rows = item["matches"]
        mine = [r for r in rows if r["bot"].startswith("mybot@")]
        if mine:
            other = next(r for r in rows if r is not mine[0])
            ahead = mine[0]["rank"] < other["rank"]
            mine[0]["rank"], other["rank"] = (2, 1) if ahead else (1, 2)
            item["ranks"] = [r["rank"] for r in sorted(rows, key=lambda r: r["seat"])]
    return items


@needs_sandbox
def test_kept_pages_read_nothing_again_and_show_each_change_at_once(site, monkeypatch):
    from fastapi.testclient import TestClient

    from harness.server import schedule, views
    from results.store import RunStore

    reads, rated = [], []
    for name in ("scan", "read_log"):
        real = getattr(RunStore, name)
        monkeypatch.setattr(RunStore, name, lambda self, *a, _real=real, _name=name: reads.append(_name) or _real(self, *a))
    real_rating = schedule.ladder_entries
    monkeypatch.setattr(schedule, "ladder_entries", lambda arena: rated.append(1) or real_rating(arena))

    ann = site.user("ann")
    main = (KIT / "main.py").read_text().replace('if __name__ == "__main__":\n',
                                                   f'if __name__ == "__main__":\n    log("{MARK}")\n')
    assert site.upload(ann, kit_archive("mybot", "1.0", main)).status_code == 202
    w1, w2, w3 = site.worker("w1"), site.worker("w2"), site.worker("w3")
    trusted_check(site, w1)
    owner = TestClient(site.app, cookies={"ellibir_session": ann["Authorization"][7:]})
    mallory = TestClient(site.app, cookies={"ellibir_session": site.user("mallory")["Authorization"][7:]})

    def bot_page() -> str:
        answer = site.http.get("/bots/mybot")
        assert answer.status_code == 200
        return answer.text

    # One deal set stored: one table of mybot against greedy (the other is the design's control table).
    send(w1, *played(site, w1))
    first = bot_page()
    assert sum(matchups(first)) == 1 and len(recent(first)) == 1
    [x1] = recent(first)
    reads.clear()
    assert bot_page() == first and reads == []  # kept: no part read again
    anonymous = site.http.get(x1).text
    assert MARK not in anonymous and 'id="replay-data"' in anonymous
    reads.clear()
    assert site.http.get(x1).text == anonymous and reads == []  # kept
    assert MARK in owner.get(x1).text  # the owner's own stderr, never the page kept for others
    assert MARK not in mallory.get(x1).text and site.http.get(x1).text == anonymous

    # The second deal set: the run is whole. Its ladders, rated as it finished, are the leaderboard's.
    work, items = played(site, w2)
    rated.clear()
    send(w2, work, items)
    assert len(rated) == 1 and "mybot@1.0" in site.http.get("/").text and len(rated) == 1
    second = bot_page()
    assert sum(matchups(second)) == 2 and len(recent(second)) == 2  # at once
    [x2] = recent(second) - {x1}
    assert MARK in owner.get(x2).text  # its owner first: what others are shown next must not be that
    before_purge = site.http.get(x2).text
    assert MARK not in before_purge and MARK not in mallory.get(x2).text

    # w2 is purged: its deal set is taken out at once.
    site.server.make_admin("ann")
    assert site.http.post("/api/admin/workers/w2/purge", headers=ann).json()["matches"] == 2
    purged = bot_page()
    assert matchups(purged) == matchups(first) and recent(purged) == {x1}  # as before the second deal set
    assert site.http.get(x2).status_code == 404
    # Played again, by a worker that lies about it: as many matches stored as before the purge, other results.
    work, items = played(site, w3)
    send(w3, work, reversed_outcome(items))
    again = bot_page()
    assert recent(again) == {x1, x2} and matchups(again) != matchups(second)
    run, stored = site.the_run()
    seats = RunStore(run.folder).scan("matches").collect()
    mine = {r["match_id"]: r["rank"] for r in seats.iter_rows(named=True) if r["bot"] == "mybot@1.0"}
    theirs = {r["match_id"]: r["rank"] for r in seats.iter_rows(named=True)
              if r["bot"] == "builtin:greedy" and r["match_id"] in mine}
    assert matchups(again) == (sum(mine[m] < theirs[m] for m in mine), sum(mine[m] > theirs[m] for m in mine),
                               sum(mine[m] == theirs[m] for m in mine))
    shown = site.http.get(x2).text
    match_id = x2.rsplit("/", 1)[1]
    assert shown != before_purge and shown == views._viewer(run.folder, match_id, tuple(
        next(i["seating"] for i in items if i["id"] == match_id)), set())

    # mybot 1.0 deleted by ann: withdrawn on its page and on the leaderboard at once, its matches kept.
    assert site.http.delete("/api/bots/mybot/1.0", headers=ann).json()["status"] == "withdrawn"
    page = bot_page()
    assert '<span class="status">withdrawn</span>' in page and recent(page) == {x1, x2}
    assert "withdrawn</td>" in site.http.get("/").text


def test_a_keeper_is_bounded_makes_a_value_once_and_keeps_no_failure():
    from harness.server.kept import Kept

    kept = Kept(10, weigh=len)
    for n in range(6):
        kept.get(n, lambda n=n: "x" * 3)
    assert len(kept) == 3 and kept.weight == 9  # the least recently used went first
    assert kept.get(5, lambda: "other") == "xxx" and kept.get(0, lambda: "new") == "new"
    assert kept.get("big", lambda: "x" * 11) == "x" * 11 and kept.weight <= 10  # too heavy to keep
    assert kept.get(4, lambda: "y") == "xxx"  # among the most recently used: still kept

    started, release, made = threading.Event(), threading.Event(), []

    def slow():
        made.append(1)
        started.set()
        release.wait(30)
        return "slow"

    answers = []
    maker = threading.Thread(target=lambda: answers.append(kept.get("k", slow)))
    maker.start()
    assert started.wait(30)
    waiter = threading.Thread(target=lambda: answers.append(kept.get("k", slow)))
    waiter.start()
    release.set()
    maker.join(30)
    waiter.join(30)
    assert answers == ["slow", "slow"] and made == [1]  # made once, however many asked meanwhile

    def failing():
        raise ValueError("no")

    with pytest.raises(ValueError):
        kept.get("bad", failing)
    assert kept.get("bad", lambda: "made again") == "made again"


class WatchedLock:
    """The server's write lock, telling when a thread waits for it."""

    def __init__(self):
        self.lock = threading.Lock()
        self.waiting = threading.Event()

    def __enter__(self):
        if not self.lock.acquire(blocking=False):
            self.waiting.set()
            self.lock.acquire()
        return self

    def __exit__(self, *_exc):
        self.lock.release()


@pytest.mark.parametrize("site", ["sqlite"], indirect=True)  # the event loop's, whatever the database
def test_a_request_waiting_for_the_write_lock_holds_up_no_page(live):
    """A sign-up (its password hashed, then written) waits for the write lock off the event loop: pages
    are answered meanwhile."""
    import httpx2 as httpx

    site, url = live
    site.server.lock = watched = WatchedLock()
    answered = []
    with watched:
        signing_up = threading.Thread(target=lambda: answered.append(httpx.post(
            f"{url}/api/signup", json={"name": "ann", "password": "correct horse battery"}, timeout=60).status_code))
        signing_up.start()
        assert watched.waiting.wait(30), "the sign-up never asked for the write lock"
        with httpx.Client(base_url=url, timeout=10) as http:
            try:
                assert http.get("/").status_code == 200 and http.get("/api/bots").status_code == 200
            except httpx.TimeoutException:
                pytest.fail("the leaderboard waited for the sign-up's write lock")
    signing_up.join(60)
    assert answered == [201]
