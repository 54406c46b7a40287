"""The arena server's scheduling: a version plays runs until its rating settles (or its cap of deal
sets), the widest interval leased first, a job that keeps failing taken out of the queue. Every test runs on SQLite and on PostgreSQL (the ``site``
fixture of tests/test_server.py)."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from sqlalchemy import insert, select

from test_server import PASSWORD, kit_archive, lease, needs_sandbox, site  # noqa: F401  (site: the fixture)


def settings(site, **changes) -> None:
    site.server.settings = dataclasses.replace(site.server.settings, **changes)


def add_rows(site, table, *rows) -> list:
    from harness.server.tables import metadata

    with site.server._writing() as conn:
        return [conn.execute(insert(metadata.tables[table]).values(**row)).inserted_primary_key[0] for row in rows]


@needs_sandbox
def test_a_version_plays_runs_while_its_interval_is_wide_up_to_its_cap(site):
    from harness.server import queue, schedule, worker
    from harness.server.tables import runs

    settings(site, deal_sets=2, max_deal_sets=5)
    ann = site.user("ann")
    assert site.upload(ann, kit_archive()).status_code == 202
    assert worker.run(site.worker("w1"), once=True) == 1 + 2 + 2 + 1  # the check, then 5 deal sets
    with site.server.db.connect() as conn:
        played = conn.execute(select(runs).order_by(runs.c.id)).all()
        width = queue.half_widths(conn, [played[0].version_id])[played[0].version_id]
    assert [schedule.load_run(r.folder)["deal_sets"] for r in played] == [2, 2, 1]  # the last one up to the cap
    assert all(r.done for r in played) and width > 25  # still wide: the cap stopped it
    seeds = [schedule.load_run(r.folder)["seed"] for r in played]
    assert len(set(seeds)) == 3  # fresh secret seeds each run
    assert site.column("jobs", "state") == ["done"] * 6
    assert "provisional" in site.http.get("/").text

    version = played[0].version_id
    with site.server._writing() as conn:
        assert schedule.play_on(conn, site.server.arena, site.server.settings, version, 0.0) is None  # the cap
        settled = dataclasses.replace(site.server.settings, max_deal_sets=50, settle=width + 1)
        assert schedule.play_on(conn, site.server.arena, settled, version, 0.0) is None  # settled at ±(width + 1)
    assert site.server.resume() == []
    settings(site, max_deal_sets=50)  # the organiser raises the cap: the server plays on as it starts again
    [more] = site.server.resume()
    with site.server.db.connect() as conn:
        assert schedule.deal_sets_planned(conn, version) == 10  # as many again as it has played
    assert site.server.resume() == []  # one run at a time
    settings(site, settle=width + 1)
    assert "provisional" not in site.http.get("/").text  # the leaderboard's figure is the same setting


def test_the_next_run_is_sized_by_how_far_the_interval_is_from_settled():
    from harness.server.schedule import next_deal_sets
    from harness.server.settings import Settings

    given = Settings(deal_sets=8, max_deal_sets=1000)
    assert next_deal_sets(8, float("inf"), given) == 8  # unrated: as many again
    assert next_deal_sets(8, 50.0, given) == 8  # 24 more needed by the estimate: at most as many again
    assert next_deal_sets(200, 44.5, given) == 200  # 434 more needed
    assert next_deal_sets(400, 30.0, given) == 176  # (30/25)^2 = 1.44: 0.44 of 400 more
    assert next_deal_sets(600, 25.5, given) == 25  # near: 25 more, above the least run of 8
    assert next_deal_sets(990, 60.0, given) == 10  # the cap


def test_the_queue_leases_the_version_whose_interval_is_widest_first_then_the_oldest(site):
    now = site.clock()
    [owner] = add_rows(site, "users", {"name": "ann", "password": "x", "admin": False, "created": now})
    [bot] = add_rows(site, "bots", {"name": "b", "owner_id": owner, "created": now})
    narrow, wide, unrated, settled = add_rows(site, "versions", *[
        {"bot_id": bot, "version": v, "hash": "0" * 64, "status": "ready", "log": "", "created": now}
        for v in ("narrow", "wide", "unrated", "settled")])
    snapshot = {"ladder": "ellibir 2p standard", "games": 10, "date": now}
    add_rows(site, "ratings",
             {**snapshot, "version_id": settled, "rating": 1500, "lo": 1000, "hi": 2000},  # older, wide
             {**snapshot, "version_id": narrow, "rating": 1500, "lo": 1400, "hi": 1600},
             {**snapshot, "version_id": wide, "rating": 1500, "lo": 1200, "hi": 1800},
             {**snapshot, "version_id": settled, "rating": 1500, "lo": 1490, "hi": 1510})  # its latest
    job = {"kind": "check", "task": "", "matches": "[]", "state": "queued", "leases": 0, "created": now}
    ids = add_rows(site, "jobs", *[{**job, "version_id": v} for v in (narrow, settled, wide, unrated, narrow)])
    w = site.worker("w1")
    order = [lease(w)["job"] for _ in ids]
    assert order == [ids[3], ids[2], ids[0], ids[4], ids[1]]  # unrated, ±300, ±100 (oldest first), ±10
    assert w.post("/api/work/lease").status_code == 204


def test_a_job_that_keeps_failing_is_failed_listed_for_the_organiser_and_requeued(site):
    from fastapi.testclient import TestClient

    ann, bob = site.user("ann"), site.user("bob")
    site.server.make_admin("ann")
    assert site.upload(bob, kit_archive()).status_code == 202  # its check is the one job
    a, b = site.worker("wa"), site.worker("wb")
    first = lease(a)
    site.clock.now += 61  # a's lease runs out: one failure
    second = lease(b)
    job = second["job"]
    assert job == first["job"]
    back = f"/api/work/{job}/release"
    given = b.post(back, json={"lease": second["lease"], "reason": "the sandbox\nfailed"})
    assert given.json() == {"job": job, "state": "queued"}  # two
    assert b.post(back, json={"lease": second["lease"], "reason": "again"}).status_code == 409  # no longer held
    third = lease(a)
    site.clock.now += 61  # three: failed when a worker next asks
    assert b.post("/api/work/lease").status_code == 204
    late = a.post(f"/api/work/{job}/check", json={"lease": third["lease"], "report": {"passed": True}})
    assert late.status_code == 409
    failed = {"job": job, "kind": "check", "name": "mybot", "version": "1.0", "run": None, "failures": 3,
              "reason": "the lease of worker wa ran out"}
    assert site.http.get("/api/admin/jobs", headers=ann).json() == [failed]
    assert site.http.get("/api/admin/jobs", headers=bob).status_code == 403
    assert site.http.post(f"/api/admin/jobs/{job}/requeue", headers=bob).status_code == 403
    assert site.http.post(f"/api/admin/jobs/{job}/requeue", headers=ann).json() == {"job": job, "state": "queued"}
    assert site.http.post(f"/api/admin/jobs/{job}/requeue", headers=ann).status_code == 409  # queued, not failed
    assert site.http.post("/api/admin/jobs/999/requeue", headers=ann).status_code == 404

    for n in range(3):  # given back three times: failed with the worker's reason, on one line
        held = lease(b)
        assert b.post(back, json={"lease": held["lease"], "reason": "the sandbox\nfailed"}).json()["state"] == (
            "failed" if n == 2 else "queued")
    assert b.post("/api/work/lease").status_code == 204
    organiser = TestClient(site.app, cookies={"ellibir_session": ann["Authorization"][7:]})
    page = organiser.get("/admin").text
    assert f"<td>{job}</td><td>mybot 1.0</td><td>check</td><td>3</td>" in page
    assert "given back by its worker: the sandbox failed" in page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    assert organiser.post("/admin/requeue", data={"job": str(job)}).status_code == 403  # no CSRF token
    done = organiser.post("/admin/requeue", data={"csrf": csrf, "job": str(job)}, follow_redirects=False)
    assert done.status_code == 303 and site.http.get("/api/admin/jobs", headers=ann).json() == []
    assert lease(a)["job"] == job


def test_a_worker_that_cannot_play_a_job_gives_it_back_with_the_error(site, monkeypatch):
    from harness.server import worker

    assert site.upload(site.user("ann"), kit_archive()).status_code == 202

    def broken(client, work):
        raise RuntimeError("the sandbox cannot start here")

    monkeypatch.setattr(worker, "check", broken)
    with pytest.raises(RuntimeError, match="cannot start"):
        worker.run(site.worker("w1"), once=True)
    assert site.column("jobs", "state") == ["queued"] and site.column("jobs", "failures") == [1]
    assert site.column("jobs", "reason") == ["given back by its worker: the sandbox cannot start here"]


# Sessions and tokens expire -------------------------------------------------------------------------

DAY = 86400.0


def browser_log_in(site):
    """A browser's session for ann (signed up first): the log-in form sent with its CSRF token."""
    from fastapi.testclient import TestClient

    browser = TestClient(site.app)
    form = browser.get("/login").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form).group(1)
    done = browser.post("/login", data={"csrf": csrf, "name": "ann", "password": PASSWORD}, follow_redirects=False)
    assert done.status_code == 303 and browser.cookies.get("ellibir_session")
    return browser


def test_a_session_ends_when_unused_for_its_idle_time_or_at_its_lifetime(site):
    site.user("ann")
    site.server.make_admin("ann")
    browser = browser_log_in(site)
    for _ in range(2):  # used every 6 days: it lasts past its first 7
        site.clock.now += 6 * DAY
        assert browser.get("/upload").status_code == 200
    site.clock.now += 7 * DAY + 1  # unused for 7 days
    stale = browser.cookies.get("ellibir_session")
    for page in ("/upload", "/admin", "/runs/1/matches/m/logs"):
        browser.cookies.set("ellibir_session", stale, domain="testserver.local")
        ended = browser.get(page, follow_redirects=False)
        assert ended.status_code == 303 and ended.headers["location"] == "/login"
        assert browser.cookies.get("ellibir_session") is None  # the redirect removed the cookie
    assert 'href="/login"' in browser.get("/").text  # shown logged out

    browser = browser_log_in(site)  # used every 6 days, it still ends 30 days after its log-in
    for _ in range(4):
        site.clock.now += 6 * DAY
        assert browser.get("/admin").status_code == 200
    site.clock.now += 6 * DAY
    stale = browser.cookies.get("ellibir_session")
    ended = browser.post("/admin/queue", data={"csrf": "whatever", "paused": "true"}, follow_redirects=False)
    assert ended.status_code == 303 and ended.headers["location"] == "/login"
    assert site.server.who(stale) is None and not site.http.get("/api/admin/jobs",
                                                                  headers={"Authorization": f"Bearer {stale}"}).is_success
    with site.server.db.connect() as conn:
        paused = conn.exec_driver_sql("SELECT value FROM flags WHERE name = 'paused'").scalar()
    assert paused is None  # the ended session's form did nothing


def test_an_api_token_ends_at_its_lifetime_and_the_expiry_is_stored(site):
    ann = site.user("ann")
    worker = site.worker("w1")
    site.clock.now += 29 * DAY  # unused for 29 days: an API token has no idle time
    assert site.upload(ann, b"x").json() == {"error": "not a zip or tar archive"}
    site.clock.now += DAY + 1
    ended = site.upload(ann, kit_archive())
    assert ended.status_code == 401 and site.count("versions") == 0
    assert worker.post("/api/work/lease").status_code == 204  # a worker's token lasts until revoked
    with site.server.db.connect() as conn:
        rows = conn.exec_driver_sql("SELECT user_id, created, expires, idle FROM tokens ORDER BY id").all()
    assert [(r.expires - r.created, r.idle) for r in rows if r.user_id is not None] == [(30 * DAY, None)]
    assert [r.expires for r in rows if r.user_id is None] == [None]


def test_tokens_made_before_expiry_was_stored_get_the_default_lifetime(site):
    from alembic import command
    from alembic.config import Config

    from harness.server.db import MIGRATIONS, upgrade

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with site.server.db.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0003")
    now = site.clock()
    [user] = add_rows(site, "users", {"name": "ann", "password": "x", "admin": False, "created": now})
    with site.server.db.begin() as conn:
        conn.exec_driver_sql(f"INSERT INTO tokens (digest, user_id, created, revoked) VALUES ('{'a' * 64}', {user}, "
                             f"{now}, false)")
    upgrade(site.server.db)
    with site.server.db.connect() as conn:
        assert conn.exec_driver_sql("SELECT expires, idle FROM tokens").one() == (now + 30 * DAY, None)


# Replays held until the deal set is over --------------------------------------------------------------


@needs_sandbox
def test_a_match_is_shown_only_once_every_match_of_its_deal_set_is_stored_across_jobs(site):
    """A deal set split over two jobs: the first job's matches are stored, and still neither their
    viewer nor their owner's logs are shown, nor linked, until the second job's are."""
    from fastapi.testclient import TestClient
    from sqlalchemy import update

    from harness.server import schedule, worker
    from harness.server.tables import jobs

    ann = site.user("ann")
    assert site.upload(ann, kit_archive()).status_code == 202
    w = site.worker("w1")
    check = lease(w)
    assert w.post(f"/api/work/{check['job']}/check", json={"lease": check["lease"],
                                                          "report": worker.check(w, check)}).status_code == 200
    with site.server._writing() as conn:
        first = conn.execute(select(jobs).where(jobs.c.kind == "play").order_by(jobs.c.id)).first()
        ids = json.loads(first.matches)
        assert len(ids) > 1
        conn.execute(update(jobs).where(jobs.c.id == first.id).values(matches=json.dumps(ids[:1])))
        conn.execute(insert(jobs).values(kind="play", version_id=first.version_id, run_id=first.run_id,
                                         task=first.task + "b", matches=json.dumps(ids[1:]), state="queued",
                                         leases=0, created=site.clock()))
    half = lease(w)
    assert [m["id"] for m in half["matches"]] == ids[:1]
    stored = w.post(f"/api/work/{half['job']}/results", json={"lease": half["lease"], "results": worker.play(w, half)})
    assert stored.json() == {"stored": 1}
    owner = TestClient(site.app, cookies={"ellibir_session": ann["Authorization"][7:]})
    page = f"/runs/{first.run_id}/matches/{ids[0]}"
    held = owner.get(page)
    assert held.status_code == 404 and "every match of its deal set is over" in held.text
    assert owner.get(page + "/logs").status_code == 404
    assert ids[0] not in owner.get("/bots/mybot").text
    with site.server.db.connect() as conn:
        assert schedule.over(conn, first.run_id, site.the_run()[0].folder) == set()

    assert worker.run(w, once=True) == 2  # the deal set's other half, and the other deal set
    assert owner.get(page).status_code == 200 and owner.get(page + "/logs").status_code == 200
    assert f'href="{page}"' in owner.get("/bots/mybot").text


# Volunteers -----------------------------------------------------------------------------------------


@needs_sandbox
def test_a_volunteer_s_results_are_played_again_by_a_second_worker_and_a_forged_one_flagged(site):
    from fastapi.testclient import TestClient

    from harness.server import worker
    from typer_cli import cli

    ann = site.user("ann")
    site.server.make_admin("ann")
    assert site.upload(ann, kit_archive()).status_code == 202
    where = ["--arena", site.server.arena.root] + (["--database", site.url] if site.url else [])
    made = cli("worker-token", "v1", "--volunteer", *where)
    assert made.exit_code == 0
    v = TestClient(site.app, headers={"Authorization": f"Bearer {made.stdout.strip()}"})
    t = site.worker("t1")
    assert v.post("/api/work/lease").status_code == 204  # a volunteer plays no check
    check = lease(t)
    assert t.post(f"/api/work/{check['job']}/check", json={"lease": check["lease"],
                                                          "report": worker.check(t, check)}).status_code == 200

    honest = lease(v)
    played = worker.play(v, honest)
    answer = v.post(f"/api/work/{honest['job']}/results", json={"lease": honest["lease"], "results": played})
    assert answer.json() == {"stored": 0, "checking": len(played)} and site.count("results") == 0
    forged = lease(v)
    assert forged["job"] != honest["job"]
    lies = worker.play(v, forged)
    lies[0]["matches"][0]["total"] += 7
    v.post(f"/api/work/{forged['job']}/results", json={"lease": forged["lease"], "results": lies})
    assert v.post("/api/work/lease").status_code == 204  # both wait for another worker
    assert [w["flagged"] for w in site.http.get("/api/admin/workers", headers=ann).json()] == ["", ""]

    again = lease(t)  # a trusted worker plays the honest one again: they agree, its results stored
    assert again["job"] == honest["job"]
    answer = t.post(f"/api/work/{again['job']}/results", json={"lease": again["lease"], "results": worker.play(t, again)})
    assert answer.json() == {"stored": len(played)} and site.count("results") == len(played)
    assert [w["flagged"] for w in site.http.get("/api/admin/workers", headers=ann).json()] == ["", ""]
    assert worker.run(t, once=True) == 1  # and the forged one
    run, stored = site.the_run()
    assert run.done and len(set(stored)) == run.planned == site.count("results")
    workers = {w["name"]: w for w in site.http.get("/api/admin/workers", headers=ann).json()}
    assert workers["t1"] == {"name": "t1", "volunteer": False, "flagged": ""}
    assert workers["v1"]["volunteer"] and workers["v1"]["flagged"] == (
        f"job {forged['job']}: its results differ from worker t1's")
    assert v.post("/api/work/lease").status_code == 204  # flagged: leased nothing more
    organiser = TestClient(site.app, cookies={"ellibir_session": ann["Authorization"][7:]})
    assert f"flagged: job {forged['job']}: its results differ" in organiser.get("/admin").text


@needs_sandbox
def test_two_volunteers_who_differ_are_both_flagged_and_the_job_is_played_afresh(site):
    from fastapi.testclient import TestClient

    from harness.server import worker

    assert site.upload(site.user("ann"), kit_archive()).status_code == 202
    t = site.worker("t1")
    check = lease(t)
    t.post(f"/api/work/{check['job']}/check", json={"lease": check["lease"], "report": worker.check(t, check)})
    v1, v2 = (TestClient(site.app, headers={"Authorization": f"Bearer {site.server.add_worker(n, volunteer=True)}"})
              for n in ("v1", "v2"))
    first = lease(v1)
    played = worker.play(v1, first)
    v1.post(f"/api/work/{first['job']}/results", json={"lease": first["lease"], "results": played})
    second = lease(v2)
    assert second["job"] == first["job"]  # the oldest job, set aside by v1, goes to another worker
    played[-1]["ranks"] = played[-1]["ranks"][::-1]
    answer = v2.post(f"/api/work/{second['job']}/results", json={"lease": second["lease"], "results": played})
    assert answer.json() == {"stored": 0, "differ": True} and site.count("results") == 0
    with site.server.db.connect() as conn:
        flagged = dict(conn.exec_driver_sql("SELECT name, flagged FROM workers WHERE volunteer").all())
    assert flagged == {"v1": f"job {first['job']}: its results differ from worker v2's",
                       "v2": f"job {first['job']}: its results differ from volunteer v1's"}
    assert v1.post("/api/work/lease").status_code == v2.post("/api/work/lease").status_code == 204
    assert lease(t)["job"] == first["job"]  # played afresh, by the trusted worker
    assert not list((site.server.work / "aside").iterdir())


def test_two_uploads_agree_but_for_their_timing_columns():
    from harness.server.volunteers import same_play

    item = {"id": "m", "ranks": [1, 2], "log": "{}\n", "rounds": [{"seat": 0, "time_sum": 0.1}],
            "matches": [{"seat": 0, "total": 10, "time_sum": 0.5, "time_max": 0.2}]}
    slower = {**item, "matches": [{"seat": 0, "total": 10, "time_sum": 2.5, "time_max": 1.0}],
              "rounds": [{"seat": 0, "time_sum": 3.0}]}
    assert same_play([item], [slower])
    assert not same_play([item], [{**item, "log": "{}\n{}\n"}])  # another decision
    assert not same_play([item], [{**item, "matches": [{"seat": 0, "total": 11, "time_sum": 0.5}]}])
