"""A user deletes their own version (harness/server/withdraw.py): its files go and its bytes stop
counting against ``max_stored``; its check or its own ladder runs, mid-way, are cancelled and their
workers' uploads refused; what other versions' results need stays (its arena copy while another
version's run still to be played seats it, then it goes; its matches, their replays and the ratings);
nobody else may delete it. On SQLite and on PostgreSQL (the ``site`` fixture of tests/test_server.py),
but for the ladder run played in the sandbox, on SQLite alone."""

from __future__ import annotations

import re

import pytest

from test_server import kit_archive, lease, needs_sandbox, site  # noqa: F401  (site: the fixture)
from test_server_quota import hash_of, kept, one_line, settings, upload_page, uploads

PASSED = {"passed": True, "lines": ["a trusted worker's check"], "warnings": []}


def trusted_check(site, w) -> dict:
    """The oldest check leased and passed on the worker's word (no sandbox): the version is stored in
    the arena and its first ladder run planned."""
    job = lease(w)
    assert job["kind"] == "check"
    answer = w.post(f"/api/work/{job['job']}/check", json={"lease": job["lease"], "report": PASSED})
    assert answer.json() == {"stored": True, "status": "ready"}, answer.text
    return job


def states(site, name: str) -> list:
    """The states of the jobs of ``name``'s version 1.0, oldest first."""
    from sqlalchemy import select

    from harness.server.tables import bots, jobs, versions

    with site.server.db.connect() as conn:
        return list(conn.execute(select(jobs.c.state).join(versions, versions.c.id == jobs.c.version_id)
                                 .join(bots, bots.c.id == versions.c.bot_id).where(bots.c.name == name)
                                 .order_by(jobs.c.id)).scalars())


def in_arena(site, name: str) -> bool:
    return site.server._in_arena(name, "1.0")


def test_an_owner_deletes_a_version_mid_check_its_files_and_bytes_go_and_nobody_else_may(site):
    from fastapi.testclient import TestClient

    ann, bob = site.user("ann"), site.user("bob")
    assert site.upload(ann, kit_archive("first")).status_code == 202
    digest, size = hash_of(site, "first"), kept(site)["first 1.0"][1]
    settings(site, max_stored=size)  # ann at her bound: stuck until she deletes
    one_line(site.upload(ann, kit_archive("second")), 413, "your versions keep")
    w = site.worker("w1")
    job = lease(w)  # its check is being played as it is deleted
    url = "/api/bots/first/1.0"
    one_line(site.http.delete(url), 401, "a valid token is required")
    one_line(site.http.delete(url, headers=bob), 403, "another user's bot")
    one_line(w.delete(url), 403, "a user's token")
    one_line(site.http.delete("/api/bots/first/9.9", headers=ann), 404, "no bot first 9.9")
    assert kept(site) == {"first 1.0": ("pending", size)} and uploads(site) == {digest}  # refused: nothing changed

    answer = site.http.delete(url, headers=ann)
    assert answer.json() == {"name": "first", "version": "1.0", "status": "withdrawn", "freed": size, "cancelled": 1}
    assert kept(site) == {"first 1.0": ("withdrawn", 0)} and uploads(site) == set()
    files = w.post(f"/api/work/{job['job']}/files", json={"lease": job["lease"], "hash": digest})
    one_line(files, 409, "cancelled")
    late = w.post(f"/api/work/{job['job']}/check", json={"lease": job["lease"], "report": PASSED})
    one_line(late, 409, "cancelled")  # the check's worker comes back: nothing is stored
    assert site.server.arena.list() == [] and site.count("runs") == 0
    assert site.http.delete(url, headers=ann).json()["freed"] == 0  # a second time changes nothing
    one_line(site.upload(ann, kit_archive("first", main="print(1)\n")), 409, "other content")  # the version stays taken
    same = site.upload(ann, kit_archive("first"))
    assert same.status_code == 202 and same.json()["status"] == "withdrawn" and same.json()["new"] is False
    again = upload_page(site, ann, kit_archive("first"))  # the same on the upload page: its bot's page
    shown = TestClient(site.app, cookies={"ellibir_session": ann["Authorization"][7:]}).get(again.headers["location"])
    assert "Deleted by its owner" in shown.text and "waits for its check" not in shown.text
    assert site.upload(ann, kit_archive("second")).status_code == 202  # room again
    assert site.http.get("/api/bots/first/1.0").json()["status"] == "withdrawn"
    assert lease(w)["bots"]["new"] == hash_of(site, "second")  # the one check left


def test_a_deleted_version_s_arena_copy_stays_while_another_version_s_run_seats_it(site):
    """ann's ready version is deleted while its own run and bob's run, which seats it as a rival, are
    queued: its own run's jobs are cancelled and its bytes freed at once, its arena copy stays for
    bob's run (whose worker still fetches it) and goes when that run has nothing left to play (here the
    organiser disables bob's version). A disabled version deleted by its owner stays disabled."""
    ann, bob = site.user("ann"), site.user("bob")
    w = site.worker("w1")
    assert site.upload(ann, kit_archive("first")).status_code == 202
    trusted_check(site, w)
    own = [lease(w), lease(w)]  # ann's run, being played
    assert site.upload(bob, kit_archive("second")).status_code == 202
    trusted_check(site, w)
    bobs = [lease(w), lease(w)]  # bob's run: its deal sets seat greedy, then ann's version
    assert {j["plan"]["name"] for j in own} == {"ladder-000001"} and {j["plan"]["name"] for j in bobs} == {"ladder-000002"}
    [held] = [j for j in bobs if "first@1.0" in j["bots"]]
    assert states(site, "first") == ["done", "leased", "leased"] and in_arena(site, "first")
    size = kept(site)["first 1.0"][1]

    answer = site.http.delete("/api/bots/first/1.0", headers=ann).json()
    assert answer == {"name": "first", "version": "1.0", "status": "withdrawn", "freed": size, "cancelled": 2}
    assert states(site, "first") == ["done", "cancelled", "cancelled"] and kept(site)["first 1.0"] == ("withdrawn", 0)
    assert in_arena(site, "first")  # bob's run still needs it
    files = w.post(f"/api/work/{held['job']}/files", json={"lease": held["lease"], "hash": held["bots"]["first@1.0"]})
    assert files.status_code == 200 and files.content
    one_line(site.http.post("/api/bots/first/1.0/matches", headers=ann), 409, "is withdrawn")

    site.server.make_admin("bob")
    assert site.http.post("/api/admin/bots/second/1.0/disable", headers=bob).status_code == 200
    assert not in_arena(site, "first") and in_arena(site, "second")  # nothing left to play seats ann's
    assert not (site.server.arena.root / "first").exists()
    answer = site.http.delete("/api/bots/second/1.0", headers=bob).json()
    assert answer["status"] == "disabled" and answer["freed"] > 0 and not in_arena(site, "second")
    assert kept(site) == {"first 1.0": ("withdrawn", 0), "second 1.0": ("disabled", 0)}
    assert not list((site.server.work / "tmp").iterdir())  # moved out of the arena, then removed


@needs_sandbox
# a ladder run played to its end in the sandbox, on SQLite only: the SQL is the tests' above
@pytest.mark.parametrize("site", ["sqlite"], indirect=True)
def test_a_version_deleted_mid_run_leaves_its_matches_replays_and_ratings(site):
    from harness.server import worker

    ann, bob = site.user("ann"), site.user("bob")
    w, v = site.worker("w1"), site.worker("w2")
    assert site.upload(ann, kit_archive("first")).status_code == 202
    assert worker.run(w, once=True) == 3  # its check in the sandbox, its run's two deal sets
    assert site.upload(bob, kit_archive("second")).status_code == 202
    trusted_check(site, w)
    assert site.http.post("/api/bots/first/1.0/matches", headers=ann).status_code == 202
    bobs = [lease(w), lease(v)]  # bob's run, seating ann's version: not yet rated, so leased first
    mine = lease(v)  # ann's own second run, mid-way
    assert {j["plan"]["name"] for j in bobs} == {"ladder-000002"} and mine["plan"]["name"] == "ladder-000003"

    assert site.http.delete("/api/bots/first/1.0", headers=ann).json()["cancelled"] == 2
    one_line(v.post(f"/api/work/{mine['job']}/results", json={"lease": mine["lease"], "results": []}), 409, "cancelled")
    for client, job in zip((w, v), bobs):  # bob's run played to its end, ann's bot in its seats
        played = client.post(f"/api/work/{job['job']}/results", json={"lease": job["lease"],
                                                                       "results": worker.play(client, job)})
        assert played.json()["stored"] > 0
    assert sorted(site.column("runs", "done")) == [False, True, True]  # ann's second run stays unfinished
    assert not in_arena(site, "first")  # the last run to seat it is whole: its files are gone

    board = {b["bot"]: b for entry in site.server.ladder() for b in entry["bots"]}
    assert board["first@1.0"]["withdrawn"] and not board["second@1.0"]["withdrawn"]
    assert board["first@1.0"]["games"] > 0 and board["second@1.0"]["games"] > 0  # bob's rating keeps ann's matches
    front = site.http.get("/").text
    assert re.search(r"<tr><td>first@1.0</td>.*?<td>withdrawn</td></tr>", front, re.S)
    page = site.http.get("/bots/first").text
    assert "Deleted by its owner" in page and "delete version" not in page
    first = re.search(r'href="(/runs/\d+/matches/[^"]+)"', page).group(1)
    assert site.http.get(first).status_code == 200  # its replay stays

    # The worker that played bob's deal set with ann's bot is purged: that deal set cannot be played
    # again, its workers are told why and go on, and it fails for the organiser to see.
    [purged] = [name for name, job in zip(("w1", "w2"), bobs) if "first@1.0" in job["bots"]]
    site.server.make_admin("bob")
    assert site.http.post(f"/api/admin/workers/{purged}/purge", headers=bob).status_code == 200
    assert "queued" not in states(site, "first")  # ann's own runs are not played again
    assert worker.run(site.worker("w3"), once=True) == 0
    [failed] = site.http.get("/api/admin/jobs", headers=bob).json()
    assert failed["name"] == "second" and failed["failures"] == 3 and "its version was deleted" in failed["reason"]
