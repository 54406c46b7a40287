"""The arena server (harness/server/): accounts and tokens, uploads (hostile archives refused with one
line, nothing stored), validation before ranking, leases and their expiry, a worker that dies
mid-batch (nothing lost, nothing twice), forged and repeated worker uploads, rate limits, the
command line's upload to a real server on loopback. Every test runs on SQLite and on a PostgreSQL
server the tests start themselves (tests/pgserver.py)."""

from __future__ import annotations

import bz2
import gzip
import io
import os
import json
import lzma
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tarfile
import tempfile
import threading
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from harness.sandbox.bubblewrap import sandbox_available

from typer_cli import cli, one_line_error

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "bots" / "kits" / "python"
PASSWORD = "correct horse battery"
CHEAP = (1, 1024, 1)  # argon2 at a low cost: the tests sign up many users
# The server's modules (FastAPI, SQLAlchemy...) are imported by the tests that use them, not when every
# pytest worker collects this file.
needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="the sandbox (bubblewrap, root) is not available here")


class Clock:
    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", "postgresql"])
def site(request, monkeypatch):
    """A fresh server (small ladder: 2 players, 1 round, 2 deal sets against greedy, one run a version) on
    a fake clock, and a fresh bot cache for this process's worker (so that it asks the server for every
    bot's files)."""
    from harness.arena.registry import remove_tree
    from harness.runs import nodecheck
    from harness.server.service import Server
    from harness.server.settings import Settings

    top = Path(tempfile.mkdtemp(prefix="ellibir-server-test-"))
    top.chmod(0o755)  # the sandbox runs bots as another uid
    (top / "bots").mkdir(mode=0o755)
    monkeypatch.setattr(nodecheck, "cache_root", lambda: top / "bots")  # this test's own node cache, empty
    monkeypatch.setattr(nodecheck, "_VERIFIED", {})
    url = request.getfixturevalue("postgres").new_database() if request.param == "postgresql" else None
    clock = Clock()
    server = Server(top / "arena", url, Settings(players=2, rounds=1, deal_sets=2, max_deal_sets=2,
                                                 field=("builtin:greedy",), check_matches=1, lease=60.0,
                                                 argon2=CHEAP), clock)
    site = Site(server, clock, url)
    yield site
    server.close()
    remove_tree(top)


class Site:
    def __init__(self, server, clock: Clock, url: str | None):
        from fastapi.testclient import TestClient

        from harness.server.api import make_app

        self.server, self.clock, self.url = server, clock, url
        self.app = make_app(server)
        self.http = TestClient(self.app)

    def user(self, name: str) -> dict:
        assert self.http.post("/api/signup", json={"name": name, "password": PASSWORD}).status_code == 201
        token = self.http.post("/api/login", json={"name": name, "password": PASSWORD}).json()["token"]
        return {"Authorization": f"Bearer {token}"}

    def worker(self, name: str):
        from fastapi.testclient import TestClient

        client = TestClient(self.app)
        client.headers["Authorization"] = f"Bearer {self.server.add_worker(name)}"
        return client

    def upload(self, headers: dict, data: bytes):
        return self.http.post("/api/bots", content=data, headers=headers)

    def column(self, table: str, name: str) -> list:
        from sqlalchemy import select

        from harness.server.tables import metadata

        with self.server.db.connect() as conn:
            return list(conn.execute(select(metadata.tables[table].c[name])).scalars())

    def count(self, table: str) -> int:
        return len(self.column(table, "id"))

    def the_run(self):
        """The one ladder run: its row, and the match ids its parts hold."""
        from sqlalchemy import select

        from harness.server.tables import runs
        from results.store import RunStore

        with self.server.db.connect() as conn:
            run = conn.execute(select(runs)).one()
        return run, RunStore(run.folder).scan("matches").select("match_id").collect()["match_id"].to_list()


def kit_archive(name="mybot", version="1.0", main: str | None = None) -> bytes:
    """The Python starter kit as a zip under one folder, renamed; ``main`` replaces its main.py."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for path in sorted(KIT.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                data = path.read_bytes()
                if path.name == "bot.toml":
                    data = f'name = "{name}"\nversion = "{version}"\ncommand = ["python3", "main.py"]\n'.encode()
                elif path.name == "main.py" and main is not None:
                    data = main.encode()
                z.writestr(f"{name}/{path.relative_to(KIT)}", data)
    return buffer.getvalue()


def tar_with(*members, mode: str = "w:gz") -> bytes:
    """A tar.gz (or ``mode``) of a valid bot.toml plus ``members`` (TarInfo, bytes or None)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tar:
        toml = b'name = "evil"\nversion = "1"\ncommand = ["python3", "main.py"]\n'
        info = tarfile.TarInfo("bot.toml")
        info.size = len(toml)
        tar.addfile(info, io.BytesIO(toml))
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def entry(name: str, kind=tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


def header_bomb(size: int) -> bytes:
    """A tar.bz2 whose first member is a PAX header declaring ``size`` bytes of data (zeros): bzip2
    streams, one for the header and one of 16 MiB of zeros repeated (a reader decodes them in turn)."""
    header = tarfile.TarInfo("PaxHeader/bot.toml")
    header.type, header.size = tarfile.XHDTYPE, size
    zeros = bz2.compress(bytes(16 << 20))
    return bz2.compress(header.tobuf(format=tarfile.USTAR_FORMAT)) + zeros * (size // (16 << 20) + 1)


def zip_with(name: str, data: bytes, mode: int = 0o100644) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bot.toml", 'name = "evil"\nversion = "1"\ncommand = ["python3", "main.py"]\n')
        info = zipfile.ZipInfo(name)
        info.external_attr = mode << 16
        z.writestr(info, data)
    return buffer.getvalue()


# Accounts and tokens -------------------------------------------------------------------------------


def test_sign_up_log_in_and_tokens_that_are_stored_hashed(site):
    http = site.http
    assert http.post("/api/signup", json={"name": "ann", "password": PASSWORD}).status_code == 201
    taken = http.post("/api/signup", json={"name": "ann", "password": PASSWORD})
    assert taken.status_code == 400 and taken.json() == {"error": "the name ann is taken"}
    assert http.post("/api/signup", json={"name": "bob", "password": "short"}).status_code == 400
    assert http.post("/api/login", json={"name": "ann", "password": "wrong password"}).status_code == 401
    assert http.post("/api/login", json={"name": "nobody", "password": PASSWORD}).status_code == 401
    token = http.post("/api/login", json={"name": "ann", "password": PASSWORD}).json()["token"]
    stored = site.column("tokens", "digest")
    assert stored and token not in stored and all(len(d) == 64 for d in stored)  # the sha256 only
    mine = {"Authorization": f"Bearer {token}"}
    forged = {"Authorization": "Bearer " + token[:-2] + ("AA" if not token.endswith("AA") else "BB")}
    assert site.upload(forged, b"x").status_code == 401
    assert site.upload({}, b"x").status_code == 401
    as_worker = site.worker("w1")
    assert as_worker.post("/api/bots", content=b"x").status_code == 403  # a worker's token uploads no bot
    assert http.post("/api/work/lease", headers=mine).status_code == 403  # a user's token leases no job
    assert site.upload(mine, b"not an archive").json() == {"error": "not a zip or tar archive"}
    for body in (b"[" * 60_000, b'{"name": ' + b"[" * 60_000, b"\xff{}"):  # nested past the parser's depth
        answer = http.post("/api/login", content=body)
        assert answer.status_code == 422 and answer.json() == {"error": "the request is not JSON"}


# Uploads --------------------------------------------------------------------------------------------


HOSTILE = {
    "a symbolic link": (tar_with((entry("main.py", tarfile.SYMTYPE, "/etc/passwd"), None)), "is a link"),
    "a hard link": (tar_with((entry("main.py", tarfile.LNKTYPE, "bot.toml"), None)), "is a link"),
    "a device": (tar_with((entry("dev", tarfile.CHRTYPE), None)), "is a special file"),
    "a FIFO": (tar_with((entry("fifo", tarfile.FIFOTYPE), None)), "is a special file"),
    "an absolute path": (tar_with((entry("/tmp/owned.py"), b"x")), "must be relative paths"),
    "a path out of the folder": (tar_with((entry("sub/../../owned.py"), b"x")), "points outside the bot folder"),
    "a deep path": (tar_with((entry("/".join(["d"] * 17) + "/f"), b"x")), "deeper than 16 folders"),
    "a zip link": (zip_with("main.py", b"/etc/passwd", stat.S_IFLNK | 0o777), "is a link"),
    "a zip path out": (zip_with("../owned.py", b"x"), "points outside the bot folder"),
    "a zip bomb": (zip_with("big.bin", bytes(3 << 20)), "unpacks to more than 2 MiB"),
    "too many files": (tar_with(*[(entry(f"f{i}"), b"") for i in range(6)]), "more than 5 files"),
    "a name twice": (tar_with((entry("main.py"), b"a"), (entry("main.py"), b"b")), "names one path twice"),
    "a truncated tar": (tar_with((entry("main.py"), os.urandom(1 << 16)))[:-4000], "the tar archive is damaged"),
    "a zip with a bad checksum": (zip_with("main.py", b"x" * 1000).replace(b"x" * 8, b"y" * 8, 1), "Bad CRC-32"),
    # tarfile reads a PAX header's data whole into memory: 128 MiB from these 1,200 bytes
    "a bzip2 bomb in a header": (lambda: header_bomb(128 << 20), "unpacks to more than 2 MiB"),  # made when used
    "a gzip bomb in a file": (lambda: tar_with((entry("big.bin"), bytes(40 << 20))), "unpacks to more than 2 MiB"),
    "an xz tar": (tar_with((entry("main.py"), b"x"), (entry("main.py"), b"y"), mode="w:xz"), "names one path twice"),
    "a truncated bzip2 tar": (tar_with((entry("main.py"), os.urandom(1 << 16)), mode="w:bz2")[:-4000],
                              "the tar archive is damaged"),
}


def test_hostile_archives_are_refused_with_one_line_and_nothing_stored(site, monkeypatch):
    import harness.server.archive as archive

    monkeypatch.setattr(archive, "MAX_BYTES", 2 << 20)  # the caps lowered, so that the test stays small
    monkeypatch.setattr(archive, "MAX_FILES", 5)
    ann = site.user("ann")
    work = site.server.work
    cases = [(what, data() if callable(data) else data, reason) for what, (data, reason) in HOSTILE.items()]
    tracemalloc.start()
    for what, data, reason in cases:
        site.clock.now += 3600  # past the rate limit on uploads
        answer = site.upload(ann, data)
        assert answer.status_code == 400, what
        error = answer.json()["error"]
        assert reason in error and "\n" not in error and str(work) not in error, (what, error)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 48 << 20, f"{peak >> 20} MiB at the peak: a bomb was read into memory"
    assert site.count("versions") == 0
    assert not list((work / "uploads").iterdir()) and not list((work / "tmp").iterdir())
    assert not (Path("/tmp/owned.py").exists())
    site.clock.now += 3600
    big = site.http.post("/api/bots", content=bytes(site.server.settings.max_archive + 1), headers=ann)
    assert big.status_code == 413 and site.count("versions") == 0


def test_a_bot_folder_is_taken_in_each_archive_format(site):
    """Plain tar, gzip, bzip2, xz and the older .lzma (no magic bytes): each decompressed into a file
    before tarfile reads it, so each is taken as it was."""
    import dataclasses

    site.server.settings = dataclasses.replace(site.server.settings, max_pending=5)  # five checks waiting at once
    ann = site.user("ann")
    members = zipfile.ZipFile(io.BytesIO(kit_archive("formats")))
    for n, compress in enumerate([lambda b: b, gzip.compress, bz2.compress, lzma.compress,
                                  lambda b: lzma.compress(b, format=lzma.FORMAT_ALONE)]):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            for info in members.infolist():
                data = members.read(info).replace(b'version = "1.0"', f'version = "1.{n}"'.encode())
                member = tarfile.TarInfo(info.filename)
                member.size = len(data)
                tar.addfile(member, io.BytesIO(data))
        site.clock.now += 3600
        answer = site.upload(ann, compress(buffer.getvalue()))
        assert answer.status_code == 202 and answer.json()["version"] == f"1.{n}", answer.text
    assert not list((site.server.work / "tmp").iterdir())


# Validation, leases, workers -----------------------------------------------------------------------


def lease(client) -> dict:
    answer = client.post("/api/work/lease")
    assert answer.status_code == 200, answer.text
    return answer.json()


@needs_sandbox
def test_a_failing_version_keeps_its_log_for_its_owner_and_is_never_ranked(site):
    from harness.server import worker
    from harness.server.api import version_path

    ann, bob = site.user("ann"), site.user("bob")
    crash = "import sys\nsys.stderr.write('<script>boom</script>\\n')\nsys.exit(3)\n"
    assert site.upload(ann, kit_archive("crasher", "1.0", main=crash)).status_code == 202
    assert worker.run(site.worker("w1"), once=True) == 1
    mine = site.http.get(version_path("crasher", "1.0"), headers=ann).json()
    assert mine["status"] == "failed" and "handshake" in mine["log"]
    assert "log" not in site.http.get(version_path("crasher", "1.0"), headers=bob).json()
    assert "log" not in site.http.get(version_path("crasher", "1.0")).json()
    assert site.count("runs") == 0 and site.server.arena.list() == [] and site.server.ladder() == []
    more = site.http.post(version_path("crasher", "1.0") + "/matches", headers=ann)
    assert more.status_code == 409 and "only a validated version" in more.json()["error"]


@needs_sandbox
def test_leases_expire_and_a_dead_workers_matches_are_played_once_forged_uploads_refused(site):
    from harness.server import worker
    from harness.server.api import version_path

    ann = site.user("ann")
    version = "<em>1.0&"  # what a page shows of it must be escaped
    main = (KIT / "main.py").read_text().replace('if __name__ == "__main__":\n',
                                                   'if __name__ == "__main__":\n    log("<script>alert(1)</script> mine")\n')
    answer = site.upload(ann, kit_archive("mybot", version, main))
    assert answer.status_code == 202 and answer.json()["status"] == "pending", answer.text
    again = site.upload(ann, kit_archive("mybot", version, main))  # the same content again: nothing new
    assert again.status_code == 202 and again.json()["new"] is False and site.count("versions") == 1
    assert site.upload(site.user("eve"), kit_archive("mybot", "2.0")).status_code == 403  # ann's name
    a, b = site.worker("wa"), site.worker("wb")
    check = lease(a)
    assert check["kind"] == "check"
    assert a.post(f"/api/work/{check['job']}/check", json={"lease": check["lease"],
                                                          "report": worker.check(a, check)}).json()["status"] == "ready"
    assert site.server.arena.find("mybot", version).label == f"mybot@{version}"
    from harness.runs.nodecheck import cache_root

    assert (cache_root() / check["bots"]["new"] / "main.py").is_file()  # fetched into the test's empty cache

    dead = lease(a)  # worker a takes a deal set, and dies with it
    live = lease(b)
    assert dead["kind"] == live["kind"] == "play" and dead["job"] != live["job"]
    files = f"/api/work/{live['job']}/files"
    some_hash = next(iter(live["bots"].values()))
    assert a.post(files, json={"lease": live["lease"], "hash": some_hash}).status_code == 403  # b's job
    assert b.post(files, json={"lease": live["lease"], "hash": "0" * 64}).status_code == 404  # not its bot
    played = worker.play(b, live)
    url, body = f"/api/work/{live['job']}/results", {"lease": live["lease"], "results": played}
    assert a.post(url, json=body).status_code == 403  # another worker's lease
    assert b.post(url, json={**body, "lease": live["lease"] + "x"}).status_code == 409  # a wrong or stale lease
    other = json.loads(json.dumps(played))
    other[0]["seating"] = other[0]["seating"][::-1]
    assert "planned seating" in b.post(url, json={**body, "results": other}).json()["error"]
    foreign = json.loads(json.dumps(played))
    foreign[0]["matches"][0]["run"] = "another-run"
    assert "another match or run" in b.post(url, json={**body, "results": foreign}).json()["error"]
    assert "leased matches" in b.post(url, json={**body, "results": played[:-1]}).json()["error"]
    swapped = json.loads(json.dumps(played))
    rows = next(r["matches"] for r in swapped if len(set(r["seating"])) > 1)  # a table of two different bots
    rows[0]["bot"], rows[1]["bot"] = rows[1]["bot"], rows[0]["bot"]
    assert "another bot than its seat's" in b.post(url, json={**body, "results": swapped}).json()["error"]
    timed = json.loads(json.dumps(played))
    seat_times = next(r["times"] for r in timed if r["times"])
    seat = next(iter(seat_times))
    seat_times[seat] = [-1.0] * len(seat_times[seat])
    assert "not non-negative numbers" in b.post(url, json={**body, "results": timed}).json()["error"]
    seat_times[seat] = [1.0] * (len(seat_times[seat]) + 1)
    assert "one decision time a decision" in b.post(url, json={**body, "results": timed}).json()["error"]
    seat_times["9"] = []
    assert "seats it does not have" in b.post(url, json={**body, "results": timed}).json()["error"]
    assert site.count("results") == 0
    assert b.post(url, json=body).json() == {"stored": len(played)}
    assert b.post(url, json=body).json() == {"stored": 0}  # the same upload again: accepted once
    assert b.post("/api/work/lease").status_code == 204  # a's deal set is still leased

    site.clock.now += 61  # a's lease runs out: its deal set goes to b, with a new lease
    assert worker.run(b, once=True) == 1
    late = a.post(f"/api/work/{dead['job']}/results", json={"lease": dead["lease"], "results": played})
    assert late.status_code == 409  # a comes back: its lease is gone

    assert max(site.column("jobs", "leases")) == 2  # the dead worker's deal set, leased again
    run, stored = site.the_run()
    assert run.done and len(set(stored)) == run.planned == site.count("results") == len(stored) // 2
    board = site.server.ladder()
    assert [b["bot"] for b in board[0]["bots"]].count(f"mybot@{version}") == 1
    page = site.http.get("/")
    assert "&lt;em&gt;1.0&amp;" in page.text and "<em>" not in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]
    listed = site.http.get("/api/bots").json()
    assert listed[0]["status"] == "ready" and listed[0]["rating"]["games"] > 0
    # The match page: the viewer, with the bot's stderr for its owner alone, escaped in its data block.
    from fastapi.testclient import TestClient

    owner = TestClient(site.app, cookies={"ellibir_session": ann["Authorization"][7:]})  # ann's session
    first = f"/runs/{run.id}/matches/{stored[0]}"
    bot_page = owner.get("/bots/mybot").text
    assert f'href="{first}"' in bot_page
    [(ahead, behind, level)] = re.findall(r"<tr><td>builtin:greedy</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td></tr>",
                                          bot_page)  # the matchups: every match against greedy, counted once
    import polars as pl
    from results.store import RunStore

    seated = RunStore(run.folder).scan("matches").filter(pl.col("bot") == f"mybot@{version}").collect()
    assert 0 < int(ahead) + int(behind) + int(level) == seated["match_id"].n_unique()  # the control tables left out
    own = owner.get(first)
    assert own.status_code == 200 and "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e mine" in own.text
    assert "<script>alert" not in own.text and "script-src 'sha256-" in own.headers["content-security-policy"]
    shown = site.http.get(first)  # nobody's session: the viewer without anyone's stderr
    assert shown.status_code == 200 and "alert(1)" not in shown.text and 'id="replay-data"' in shown.text
    assert site.http.get(f"/runs/{run.id}/matches/no-such-match").status_code == 404
    logs = owner.get(first + "/logs")  # the owner's logs: decisions, times, stderr (escaped)
    assert logs.headers["cache-control"] == own.headers["cache-control"] == "no-store"  # kept by no cache
    assert logs.status_code == 200 and "&lt;script&gt;alert(1)&lt;/script&gt; mine" in logs.text
    assert "<script>" not in logs.text and "decisions" in logs.text and " ms<" in logs.text
    times = [float(t) for t in re.findall(r'<td class="ms">([0-9.]+)</td>', logs.text)]
    mine = RunStore(run.folder).scan("matches").filter((pl.col("match_id") == stored[0])
                                                       & (pl.col("bot") == f"mybot@{version}")).collect()
    assert len(times) == mine["decisions"].sum() > 0  # one time a decision, each decision's own
    assert abs(sum(times) - mine["time_sum"].sum() * 1000) <= 0.0005 * len(times) + 1e-6  # kept to the µs
    assert re.search(r"<td>longest", logs.text)
    for path in Path(run.folder, "stderr").glob("*.jsonl.gz"):  # an older run: no times kept
        lines = [json.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines()]
        path.write_bytes(gzip.compress(b"".join(json.dumps({k: v for k, v in line.items() if k != "times_ms"}).encode()
                                                + b"\n" for line in lines)))
    older = owner.get(first + "/logs")
    assert older.status_code == 200 and "not kept" in older.text and 'class="ms"' not in older.text
    mallory = TestClient(site.app)
    mallory.cookies.set("ellibir_session", site.user("mallory2")["Authorization"][7:])
    refused = mallory.get(first + "/logs")
    assert refused.status_code == 403 and "mine" not in refused.text  # another user
    assert site.http.get(first + "/logs").status_code == 401  # nobody
    more = version_path("mybot", version) + "/matches"
    assert site.http.post(more, headers=site.user("mallory")).status_code == 403  # not mallory's bot
    assert site.http.post(more, headers=ann).json() == {"run": 2, "matches": run.planned}
    assert lease(b)["kind"] == "play"


@needs_sandbox
def test_a_bots_matchups_count_the_runs_of_bots_uploaded_after_it(site):
    """bob's bot, uploaded after ann's, seats it as a rival in its own run: ann's page counts those
    matches too, each once."""
    import polars as pl
    from sqlalchemy import select

    from harness.server import worker
    from harness.server.tables import runs
    from results.store import RunStore

    w = site.worker("w1")
    assert site.upload(site.user("ann"), kit_archive("first", "1.0")).status_code == 202
    worker.run(w, once=True)
    assert site.upload(site.user("bob"), kit_archive("second", "1.0")).status_code == 202
    worker.run(w, once=True)
    with site.server.db.connect() as conn:
        folders = list(conn.execute(select(runs.c.folder).order_by(runs.c.id)).scalars())
    seats = pl.concat([RunStore(f).scan("matches").select("run", "match_id", "bot").collect() for f in folders])
    both = seats.group_by("run", "match_id").agg(pl.col("bot")).filter(
        pl.col("bot").list.contains("first@1.0") & pl.col("bot").list.contains("second@1.0"))
    assert len(folders) == 2 and len(both) > 0
    page = site.http.get("/bots/first").text
    [counts] = re.findall(r"<tr><td>second@1.0</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td></tr>", page)
    assert sum(map(int, counts)) == len(both)  # two seats a table: one pair a match


def test_the_organiser_pauses_the_queue_and_disables_a_version(site):
    ann, bob = site.user("ann"), site.user("bob")
    where = ["--arena", site.server.arena.root] + (["--database", site.url] if site.url else [])
    one_line_error(cli("make-admin", "carol", *where), "no user carol")
    assert site.http.post("/api/admin/queue", json={"paused": True}, headers=ann).status_code == 403
    assert cli("make-admin", "ann", *where).stdout == "ann is an organiser\n"
    assert site.upload(bob, kit_archive("bobbot")).status_code == 202
    w = site.worker("w1")
    assert site.http.post("/api/admin/queue", json={"paused": True}, headers=bob).status_code == 403
    assert site.http.post("/api/admin/queue", json={"paused": True}, headers=ann).json() == {"paused": True}
    assert w.post("/api/work/lease").status_code == 204  # paused: nothing is leased
    assert site.http.post("/api/admin/queue", json={"paused": False}, headers=ann).status_code == 200
    held = lease(w)
    assert held["kind"] == "check"
    disable = "/api/admin/bots/bobbot/1.0/disable"
    assert site.http.post(disable, headers=bob).status_code == 403
    assert site.http.post(disable, headers=ann).json()["cancelled"] == 1
    late = w.post(f"/api/work/{held['job']}/check", json={"lease": held["lease"],
                                                          "report": {"passed": True, "lines": [], "warnings": []}})
    assert late.status_code == 409 and "cancelled" in late.json()["error"]
    assert [v["status"] for v in site.http.get("/api/bots").json()] == ["disabled"]
    assert site.server.arena.list() == [] and w.post("/api/work/lease").status_code == 204


def test_a_lease_renewed_by_a_working_worker_is_not_given_away(site):
    from harness.server import worker

    assert site.upload(site.user("ann"), kit_archive()).status_code == 202
    a, b = site.worker("wa"), site.worker("wb")
    held = lease(a)
    renew = f"/api/work/{held['job']}/renew"
    site.clock.now += 50
    assert a.post(renew, json={"lease": held["lease"]}).json() == {"expires": site.clock.now + 60}
    site.clock.now += 50  # past the first deadline, before the renewed one
    assert b.post("/api/work/lease").status_code == 204
    assert b.post(renew, json={"lease": held["lease"]}).status_code == 403
    site.clock.now += 11
    taken = lease(b)
    assert taken["job"] == held["job"]  # not renewed in time: the next worker's
    assert a.post(renew, json={"lease": held["lease"]}).status_code == 409

    renewed, original = threading.Event(), site.server.renew

    def renew_and_tell(*args):
        answer = original(*args)
        renewed.set()
        return answer

    site.server.renew = renew_and_tell
    with worker.Renewer(b, taken, interval=0.01):  # what the worker runs while it plays
        assert renewed.wait(60), "the worker never renewed its lease"
    site.server.renew = original


# Rate limits and the schema -------------------------------------------------------------------------


def test_rate_limits_answer_429_with_retry_after(site):
    site.user("ann")
    wrong = {"name": "ann", "password": "not the password"}
    for _ in range(site.server.settings.rates["log-in"].count - 1):  # sign-up's own log-in counted one
        assert site.http.post("/api/login", json=wrong).status_code == 401
    limited = site.http.post("/api/login", json={"name": "ann", "password": PASSWORD})
    assert limited.status_code == 429 and 1 <= int(limited.headers["retry-after"]) <= 60
    assert "too many log-in" in limited.json()["error"]
    site.clock.now += int(limited.headers["retry-after"])
    assert site.http.post("/api/login", json={"name": "ann", "password": PASSWORD}).status_code == 200
    ann = {"Authorization": f"Bearer {site.http.post('/api/login', json={'name': 'ann', 'password': PASSWORD}).json()['token']}"}
    for _ in range(site.server.settings.rates["upload"].count):
        site.upload(ann, b"x")
    refused = site.upload(ann, kit_archive())
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0 and site.count("versions") == 0


def test_log_ins_with_junk_names_leave_the_rate_limiter_no_keys_to_hold(site):
    """A log-in's name is a key of the rate limiter, which keeps 100,000 keys: names no user can have
    (a 60 kB name) are refused before they are counted, and an address past its limit adds no name,
    so a flood of log-ins holds neither gigabytes of keys nor pushes out the keys of other names."""
    site.user("ann")
    for n in range(site.server.settings.rates["log-in"].count * 3):
        answer = site.http.post("/api/login", json={"name": f"{n}" + "x" * 60_000, "password": PASSWORD})
        assert answer.status_code in (401, 429)
        answer = site.http.post("/api/login", json={"name": f"user{n}", "password": PASSWORD})
        assert answer.status_code in (401, 429)
    keys = [key for _action, key in site.server.limiter.seen]
    assert max(map(len, keys)) < 64 and len(keys) <= site.server.settings.rates["log-in"].count + 1, keys[:12]


@pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression-based index")
@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_the_migrations_make_the_declared_tables(site):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from harness.server.tables import metadata

    with site.server.db.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
        if conn.dialect.name == "sqlite":
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            # SQLite's indexes on lower(name), which Alembic cannot reflect there (PostgreSQL's it compares)
            made = dict(conn.exec_driver_sql("SELECT name, sql FROM sqlite_master WHERE name LIKE '%_name_folded'").all())
            assert {k: " ".join(v.split()) for k, v in made.items()} == {
                f"{t}_name_folded": f"CREATE UNIQUE INDEX {t}_name_folded ON {t} (lower(name)) WHERE NOT case_twin"
                for t in ("users", "bots")}


# The command line against a real server -------------------------------------------------------------


@pytest.fixture
def live(site):
    """The site's app served by uvicorn on a loopback socket bound first (so no wait for it)."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(site.app, log_level="error", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    yield site, f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(30)
    sock.close()


def test_bot_submit_list_and_delete_with_a_token_talk_to_the_server(live, tmp_path):
    site, url = live
    token = site.user("ann")["Authorization"].split()[1]
    folder = tmp_path / "mybot"
    shutil.copytree(KIT, folder)
    (folder / "bot.toml").write_text('name = "mybot"\nversion = "1.0"\ncommand = ["python3", "main.py"]\n')
    done = cli("bot", "submit", folder, "--server", url, "--token", token)
    assert done.exit_code == 0 and done.stdout.startswith("uploaded mybot 1.0 (hash ") and "pending" in done.stdout
    listed = cli("bot", "list", "--server", url, "--json")
    assert [(v["name"], v["status"], v["owner"]) for v in json.loads(listed.stdout)] == [("mybot", "pending", "ann")]
    one_line_error(cli("bot", "submit", folder, "--server", url, "--token", "ellibir_forged"),
                   "the server refused (401)")
    assert site.count("versions") == 1

    other = site.user("bob")["Authorization"].split()[1]
    one_line_error(cli("bot", "delete", "mybot", "1.0", "--server", url, "--token", other), "the server refused (403)")
    one_line_error(cli("bot", "delete", "mybot", "2.0", "--server", url, "--token", token), "the server refused (404)")
    one_line_error(cli("bot", "delete", "mybot", "1.0", "--token", token), "needs --server")
    gone = cli("bot", "delete", "mybot", "1.0", "--server", url, "--token", token)
    assert gone.exit_code == 0 and gone.stdout.startswith("deleted mybot 1.0: withdrawn, ") and "bytes freed" in gone.stdout
    listed = cli("bot", "list", "--server", url, "--json")
    assert [(v["name"], v["status"]) for v in json.loads(listed.stdout)] == [("mybot", "withdrawn")]
    again = cli("bot", "delete", "mybot", "1.0", "--server", url, "--token", token)
    assert again.exit_code == 0 and "0 bytes freed" in again.stdout


def big_bot(files: int, zeros: int) -> bytes:
    """A tar.bz2 of a valid bot folder of ``files`` small files and one file of ``zeros`` zero bytes:
    small to send, long to unpack, hash and keep."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:bz2") as tar:
        for name, data in [("bot.toml", b'name = "big"\nversion = "1"\ncommand = ["python3", "main.py"]\n'),
                           ("zeros.bin", bytes(zeros))] + [(f"d{i % 50}/f{i}.txt", b"%d\n" % i) for i in range(files)]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize("site", ["sqlite"], indirect=True)  # the event loop's, whatever the database
def test_the_server_answers_others_while_it_unpacks_an_upload(live):
    """An upload is unpacked, checked, hashed and kept off the server's event loop: requests sent
    meanwhile (a worker's renewal, a page) are answered before the upload is."""
    import httpx2 as httpx

    site, url = live
    token = site.user("ann")["Authorization"].split()[1]
    data = big_bot(5000, 48 << 20)
    host, port = url.removeprefix("http://").split(":")
    raw = socket.create_connection((host, int(port)))
    raw.sendall(b"POST /api/bots HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n"
                b"Connection: close\r\n\r\n" % (host.encode(), token.encode(), len(data)) + data)
    answered = []

    def read():
        chunks = []
        while chunk := raw.recv(1 << 16):
            chunks.append(chunk)
        answered.append(b"".join(chunks))

    reader = threading.Thread(target=read)
    reader.start()
    others = 0
    with httpx.Client(base_url=url, timeout=60) as http:
        while reader.is_alive():
            assert http.get("/api/bots").status_code == 200
            others += reader.is_alive()
    reader.join()
    raw.close()
    assert answered[0].startswith(b"HTTP/1.1 202"), answered[0][:300]
    assert others >= 3, f"{others} requests answered while the upload was unpacked"


@needs_sandbox
def test_a_worker_killed_mid_batch_loses_nothing_and_nothing_is_played_twice_then_a_purge(live, env):
    """A real ``ellibir worker`` is killed (SIGKILL, its whole session) right after it leases a deal set;
    then the worker that played everything is purged, and its matches are to be played again."""
    from harness.server import worker

    site, url = live
    ann = site.user("ann")
    assert site.upload(ann, kit_archive()).status_code == 202
    survivor = site.worker("survivor")
    check = lease(survivor)
    report = worker.check(survivor, check)
    survivor.post(f"/api/work/{check['job']}/check", json={"lease": check["lease"], "report": report})
    token = site.server.add_worker("doomed")
    leased, original = threading.Event(), site.server.lease

    def lease_and_tell(worker_id):
        work = original(worker_id)
        if work is not None and work["kind"] == "play":
            leased.set()
        return work

    site.server.lease = lease_and_tell
    doomed = subprocess.Popen([sys.executable, "-m", "harness", "worker", "--server", url, "--token", token],
                              cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        assert leased.wait(120), "the worker never leased a deal set"
    finally:
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait()
    site.server.lease = original
    site.clock.now += site.server.settings.lease + 1
    worker.run(survivor, once=True)
    assert max(site.column("jobs", "leases")) == 2  # the dead worker's deal set, leased again
    run, stored = site.the_run()
    assert run.done and len(set(stored)) == run.planned == site.count("results") == len(stored) // 2

    site.server.make_admin("ann")  # the survivor turns out not to be believed: the organiser purges it
    purged = site.http.post("/api/admin/workers/survivor/purge", headers=ann).json()
    assert purged == {"worker": "survivor", "jobs": 2, "matches": run.planned}
    run, stored = site.the_run()
    assert not run.done and run.stored == 0 and stored == [] and site.count("results") == 0
    assert survivor.post("/api/work/lease").status_code == 401  # its token is revoked
    assert lease(site.worker("fresh"))["kind"] == "play" and site.server.ladder() == []


def test_a_bad_database_url_is_one_line_and_nothing_is_made(tmp_path):
    one_line_error(cli("worker-token", "w1", "--arena", tmp_path / "arena", "--database", "mysql://root:secret@db/x"),
                   "database 'mysql' is not supported")
    one_line_error(cli("worker-token", "w1", "--arena", tmp_path / "arena", "--database", "not a url:secret"),
                   "the database URL cannot be read")
    one_line_error(cli("worker-token", "w1", "--arena", tmp_path / "arena", "--database",
                       f"postgresql://ann:secret@/none?host={tmp_path}"), "cannot open the database")
    one_line_error(cli("serve", "--arena", tmp_path / "arena", "--field", "builtin:nobody"), "unknown bot")
    assert not (tmp_path / "arena").exists()


def test_the_leaderboard_escapes_sorts_by_the_lower_bound_and_marks_provisional_ratings():
    from harness.server.pages import leaderboard_page

    ladder = {"game": "ellibir", "players": 4, "name": "standard", "anchor": "builtin:greedy", "scale": "<i>scale",
              "bots": [{"bot": "builtin:greedy", "rating": 1500.0, "lo": 1500.0, "hi": 1500.0, "games": 90},
                       {"bot": "wide@1", "rating": 1600.0, "lo": 1400.0, "hi": 1800.0, "games": 8},
                       {"bot": "tight@<script>", "rating": 1550.0, "lo": 1530.0, "hi": 1570.0, "games": 400}]}
    page = leaderboard_page([ladder], [{"name": "x", "version": "<script>alert(1)</script>", "owner": "o&o",
                                        "status": "ready"}])
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "o&amp;o" in page
    assert "&lt;i&gt;scale" in page
    rows = [line for line in page.splitlines() if line.startswith("<tr><td>")][:3]
    assert [r.split("</td>")[0].removeprefix("<tr><td>") for r in rows] == ["tight@&lt;script&gt;", "builtin:greedy", "wide@1"]
    assert page.count("provisional") == 1 and "provisional" in page.split("wide@1")[1].split("</tr>")[0]


@needs_sandbox
def test_a_worker_stopped_by_ctrl_c_says_so_and_exits_130(live, env):
    """SIGINT ends ``ellibir worker`` as it ends a match: one line and exit code 130 (it said
    "error: 130" and exited 2, its own stop caught as an error: typer's Exit is a RuntimeError)."""
    site, url = live
    token, asked, original = site.server.add_worker("stopped"), threading.Event(), site.server.lease

    def lease_and_tell(worker_id):
        asked.set()
        return original(worker_id)

    site.server.lease = lease_and_tell
    process = subprocess.Popen([sys.executable, "-m", "harness", "worker", "--server", url, "--token", token],
                               cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert asked.wait(120), "the worker never asked for work"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        site.server.lease = original
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert err.strip().splitlines() == ["interrupted: the worker was stopped, its bot programs ended"], err


def test_bot_list_marks_a_rating_without_an_interval_as_provisional():
    """bot list --server showed "1652 1 games" for a version rated on one deal set, as if settled."""
    from harness.cli.bot import rated

    assert rated({"rating": 1652.4, "lo": None, "hi": None, "games": 1, "ladder": "4p"}) == \
        "1652, no interval yet (provisional), 1 game (4p)"
    assert rated({"rating": 1500, "lo": 1480.2, "hi": 1519.6, "games": 40, "ladder": "4p"}) == "1500 [1480, 1520] 40 games (4p)"
    assert rated(None) == "—"
