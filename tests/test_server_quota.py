"""What the arena server keeps on its disk, and its bounds per user: the bytes a user's versions keep
(``Settings.max_stored``), the versions waiting for their check (``Settings.max_pending``), the disk's
free space (``Settings.min_free``); an upload's files removed once its check is over, the version
still played from its arena copy and its check's report still shown to its owner; another user's
uploads untouched. Every test runs on SQLite and on PostgreSQL (the ``site`` fixture of
tests/test_server.py)."""

from __future__ import annotations

import dataclasses
import os
import re

import pytest
from sqlalchemy import select, update

from test_server import ROOT, kit_archive, lease, needs_sandbox, site  # noqa: F401  (site: the fixture)

CRASH = "import sys\nsys.exit(3)\n"


def settings(site, **changes) -> None:
    site.server.settings = dataclasses.replace(site.server.settings, **changes)


def kept(site) -> dict:
    """Each version's ``name version`` -> (status, the bytes it keeps)."""
    from harness.server.tables import bots, versions

    with site.server.db.connect() as conn:
        rows = conn.execute(select(bots.c.name, versions.c.version, versions.c.status, versions.c.kept)
                            .join(bots, bots.c.id == versions.c.bot_id)).all()
    return {f"{r.name} {r.version}": (r.status, r.kept) for r in rows}


def uploads(site) -> set:
    return {p.name for p in (site.server.work / "uploads").iterdir()}


def hash_of(site, name: str, version: str = "1.0") -> str:
    return site.http.get(f"/api/bots/{name}/{version}").json()["hash"]


def one_line(answer, status: int, *words) -> str:
    error = answer.json()["error"]
    assert answer.status_code == status and "\n" not in error and all(w in error for w in words), answer.text
    return error


def upload_page(site, headers: dict, data: bytes):
    """The upload form sent by the user's browser session (its CSRF token from the form)."""
    from fastapi.testclient import TestClient

    browser = TestClient(site.app, cookies={"ellibir_session": headers["Authorization"][7:]})
    csrf = re.search(r'name="csrf" value="([^"]+)"', browser.get("/upload").text).group(1)
    return browser.post("/upload", data={"csrf": csrf}, files={"archive": ("bot.zip", data, "application/zip")},
                        follow_redirects=False)


def test_a_user_over_the_storage_bound_is_refused_in_one_line_and_another_user_is_not(site):
    from harness.server.storage import footprint

    ann, bob = site.user("ann"), site.user("bob")
    settings(site, max_pending=10)
    assert site.upload(ann, kit_archive("first")).status_code == 202
    [first] = uploads(site)
    size = footprint(site.server.work / "uploads" / first)
    assert kept(site) == {"first 1.0": ("pending", size)}  # what the server keeps of it, measured
    assert 4096 < size < 64 << 10
    settings(site, max_stored=size + size // 2)  # room for one version of the kit, not two
    error = one_line(site.upload(ann, kit_archive("second")), 413, "your versions keep", "a user may keep at most")
    assert "this version needs" in error and site.count("versions") == 1 and uploads(site) == {first}
    page = upload_page(site, ann, kit_archive("second"))  # the upload page says so
    assert page.status_code == 413 and error in page.text and site.count("versions") == 1
    assert site.upload(bob, kit_archive("bobs")).status_code == 202  # bob's bytes are his own

    settings(site, max_stored=size)  # ann at the bound: refused before the body is even unpacked
    error = one_line(site.upload(ann, b"not an archive at all"), 413, "your versions keep", "a user may keep at most")
    assert "this version needs" not in error
    assert upload_page(site, ann, b"junk").status_code == 413

    everyone = sum(k for _status, k in kept(site).values())
    settings(site, max_stored=1 << 30, max_stored_all=everyone + size // 2)  # room for no kit more, whoever asks
    one_line(site.upload(site.user("dan"), kit_archive("dans")), 507, "for all its users together")
    settings(site, max_stored_all=1 << 40, min_free=1 << 62)  # the disk itself short of space: nobody uploads
    one_line(site.upload(site.user("carol"), kit_archive("carols")), 507, "short of disk space")
    assert site.count("versions") == 2 and len(uploads(site)) == 2


@needs_sandbox
def test_a_user_with_checks_waiting_at_the_cap_is_refused_until_one_is_checked(site):
    from harness.server import worker

    ann, bob = site.user("ann"), site.user("bob")
    assert site.server.settings.max_pending == 2  # the default
    for name in ("one", "two"):
        assert site.upload(ann, kit_archive(name)).status_code == 202
    error = one_line(site.upload(ann, kit_archive("three")), 429, "2 of your versions wait for their check")
    assert upload_page(site, ann, kit_archive("three")).status_code == 429
    assert error in upload_page(site, ann, kit_archive("three")).text
    assert site.count("versions") == 2 and len(uploads(site)) == 2
    assert site.upload(bob, kit_archive("bobs")).status_code == 202  # bob's checks are his own

    w = site.worker("w1")
    job = lease(w)  # a check being played still waits
    assert job["kind"] == "check"
    one_line(site.upload(ann, kit_archive("three")), 429, "wait for their check")
    done = w.post(f"/api/work/{job['job']}/check", json={"lease": job["lease"], "report": worker.check(w, job)})
    assert done.json()["status"] == "ready"
    assert site.upload(ann, kit_archive("three")).status_code == 202  # one checked: room for one more
    one_line(site.upload(ann, kit_archive("four")), 429, "wait for their check")


@needs_sandbox
# two real checks and a ladder run, on SQLite only: the SQL that differs between the databases is room's
@pytest.mark.parametrize("site", ["sqlite"], indirect=True)
def test_after_a_check_passes_or_fails_the_upload_is_gone_the_version_plays_and_its_log_shows(site):
    from harness.server import worker

    ann, bob = site.user("ann"), site.user("bob")
    assert site.upload(ann, kit_archive("good")).status_code == 202
    assert site.upload(ann, kit_archive("crasher", main=CRASH)).status_code == 202
    assert site.upload(bob, kit_archive("bobs")).status_code == 202
    good, crasher, bobs = hash_of(site, "good"), hash_of(site, "crasher"), hash_of(site, "bobs")
    assert uploads(site) == {good, crasher, bobs}
    w = site.worker("w1")
    for _ in range(2):  # ann's two checks, the oldest jobs
        job = lease(w)
        assert job["kind"] == "check" and job["bots"]["new"] in (good, crasher)
        answer = w.post(f"/api/work/{job['job']}/check", json={"lease": job["lease"], "report": worker.check(w, job)})
        assert answer.status_code == 200
        gone = w.post(f"/api/work/{job['job']}/files", json={"lease": job["lease"], "hash": job["bots"]["new"]})
        assert gone.status_code == 404  # its check is over: its upload with it
    assert uploads(site) == {bobs}  # bob's, still waiting for its check, untouched
    from harness.server.storage import footprint

    arena_copy = site.server.arena.find("good", "1.0").folder
    assert kept(site) == {"good 1.0": ("ready", footprint(arena_copy.parent)), "crasher 1.0": ("failed", 0),
                          "bobs 1.0": ("pending", footprint(site.server.work / "uploads" / bobs))}
    mine = site.http.get("/api/bots/crasher/1.0", headers=ann).json()
    assert mine["status"] == "failed" and "handshake" in mine["log"]  # the failed check's report stays

    assert worker.run(w, once=True) >= 1 + 2 + 2  # bob's check, then both ladder runs, from the arena's copies
    assert uploads(site) == set() and kept(site)["bobs 1.0"][0] == "ready"
    runs = site.column("runs", "done")
    assert runs == [True, True] and site.count("results") > 0
    board = {b["bot"] for entry in site.server.ladder() for b in entry["bots"]}
    assert {"good@1.0", "bobs@1.0"} <= board
    assert site.http.post("/api/bots/good/1.0/matches", headers=ann).status_code == 202  # it plays on
    job = lease(w)
    fetched = w.post(f"/api/work/{job['job']}/files", json={"lease": job["lease"], "hash": job["bots"]["good@1.0"]})
    assert fetched.status_code == 200  # its one copy, the arena's
    played = w.post(f"/api/work/{job['job']}/results", json={"lease": job["lease"], "results": worker.play(w, job)})
    assert played.json()["stored"] > 0
    assert worker.run(w, once=True) >= 1 and site.column("runs", "done") == [True, True, True]


def test_an_upload_stays_while_its_check_may_be_played_and_goes_when_the_version_is_disabled(site):
    """A check that keeps failing leaves its version pending: its upload stays for the organiser's
    requeue. Disabled before its check, a version needs its upload no more."""
    from fastapi.testclient import TestClient

    ann = site.user("ann")
    site.server.make_admin("ann")
    settings(site, max_pending=1)
    assert site.upload(ann, kit_archive("stuck")).status_code == 202
    stuck = hash_of(site, "stuck")
    w = site.worker("w1")
    for _ in range(site.server.settings.tries):
        job = lease(w)
        w.post(f"/api/work/{job['job']}/release", json={"lease": job["lease"], "reason": "no sandbox here"})
    assert site.column("jobs", "state") == ["failed"] and uploads(site) == {stuck}
    assert site.upload(ann, kit_archive("other")).status_code == 202  # a failed check is not waiting
    assert site.http.post(f"/api/admin/jobs/{job['job']}/requeue", headers=ann).status_code == 200
    again = lease(w)
    files = w.post(f"/api/work/{again['job']}/files", json={"lease": again["lease"], "hash": stuck})
    assert files.status_code == 200 and files.content  # the requeued check still has its files
    assert site.http.post("/api/admin/bots/stuck/1.0/disable", headers=ann).status_code == 200
    assert site.http.post("/api/admin/bots/other/1.0/disable", headers=ann).status_code == 200
    assert uploads(site) == set() and kept(site) == {"stuck 1.0": ("disabled", 0), "other 1.0": ("disabled", 0)}
    assert TestClient(site.app).get("/").status_code == 200


def test_serve_as_it_starts_removes_what_no_version_needs_and_measures_older_versions(site):
    """A server stopped between a check's end and its upload's removal, scratch left by an upload
    cut short, and the versions of a database made before ``versions.kept``: ``resume`` (which
    ``serve`` calls as it starts) tidies them; what is newer than ``storage.STALE`` it leaves."""
    from harness.server.tables import versions

    ann = site.user("ann")
    assert site.upload(ann, kit_archive("waiting")).status_code == 202
    waiting = hash_of(site, "waiting")
    work = site.server.work
    orphan, part, scratch, fresh = (work / "uploads" / ("f" * 64), work / "uploads" / ".part-x",
                                    work / "tmp" / "upload-x", work / "tmp" / "upload-new")
    for folder in (orphan / "bot", part / "bot", scratch / "bot", fresh):
        folder.mkdir(parents=True)
        (folder / "main.py").write_text("x" * 10_000)
    old = 2 * 3600  # older than storage.STALE
    for path in (orphan, part, scratch, work / "uploads" / waiting):
        os.utime(path, (os.path.getmtime(path) - old,) * 2)
    size = kept(site)["waiting 1.0"][1]
    with site.server._writing() as conn:
        conn.execute(update(versions).values(kept=None))  # as the migration leaves an older database's
    site.server.resume()
    from harness.server import storage

    assert storage.STALE < old and uploads(site) == {waiting}
    assert {p.name for p in (work / "tmp").iterdir()} == {"upload-new"}
    assert kept(site) == {"waiting 1.0": ("pending", size)}


def test_the_settings_are_documented_with_their_defaults():
    from harness.server.settings import Settings

    text = (ROOT / "docs" / "arena.md").read_text()
    given = Settings()
    assert (given.max_stored, given.max_stored_all, given.max_pending, given.min_free) == (256 << 20, 16 << 30, 2, 1 << 30)
    for name in ("max_stored", "max_stored_all", "max_pending", "min_free"):
        assert f"Settings.{name}" in text


def _serving(arena, *options):
    """``ellibir serve`` in a process of its own on a free loopback port; (process, base url) once it listens."""
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "harness", "serve", "--arena", str(arena), "--port", str(port),
                                *map(str, options)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT)
    while process.poll() is None:  # until it accepts a connection (or has stopped: the assert below says why)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            break
        except OSError:
            time.sleep(0.05)
    assert process.poll() is None, process.stdout.read().decode()
    return process, f"http://127.0.0.1:{port}"


def _token(http) -> dict:
    from test_server import PASSWORD

    answer = http.post("/api/login", json={"name": "ann", "password": PASSWORD})
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def big_kit(name: str, size: int) -> bytes:
    """The kit with ``size`` incompressible bytes more."""
    import io
    import zipfile

    big = io.BytesIO()
    with zipfile.ZipFile(big, "w") as z:
        with zipfile.ZipFile(io.BytesIO(kit_archive(name))) as kit:
            for item in kit.infolist():
                z.writestr(item, kit.read(item))
        z.writestr(f"{name}/blob.bin", os.urandom(size))
    return big.getvalue()


def test_serve_s_options_set_the_bounds_a_real_server_refuses_uploads_by(tmp_path):
    """``serve --max-stored MIB --max-stored-all MIB --max-pending N --min-free MIB`` (docs/arena.md): a
    server started with them refuses by them, each in one line."""
    import httpx2 as httpx

    from test_server import PASSWORD

    process, url = _serving(tmp_path / "arena", "--max-stored", 2, "--max-stored-all", 1, "--max-pending", 2)
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            assert http.post("/api/signup", json={"name": "ann", "password": PASSWORD}).status_code == 201
            ann = _token(http)
            assert http.post("/api/bots", content=kit_archive("first"), headers=ann).status_code == 202
            one_line(http.post("/api/bots", content=big_kit("big", 5 << 19), headers=ann), 413, "at most 2.0 MiB")
            one_line(http.post("/api/bots", content=big_kit("big", 3 << 19), headers=ann), 507,
                     "for all its users together (1.0 MiB)")
            assert http.post("/api/bots", content=kit_archive("second"), headers=ann).status_code == 202
            one_line(http.post("/api/bots", content=kit_archive("third"), headers=ann), 429, "2 of your versions wait")
    finally:
        process.terminate()
        process.wait()
    process, url = _serving(tmp_path / "arena", "--min-free", 1 << 30, "--max-pending", 10)  # a PiB free: none has
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            ann = _token(http)
            one_line(http.post("/api/bots", content=kit_archive("fourth"), headers=ann), 507, "short of disk space")
    finally:
        process.terminate()
        process.wait()
