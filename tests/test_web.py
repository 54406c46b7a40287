"""The arena's pages in a real browser: Debian's Chromium (headless, desktop width) driven by
Playwright for Python against the real server (uvicorn on loopback, in this process), every flow on
SQLite and on PostgreSQL (a cluster the tests start, tests/pgserver.py). One browser for the file,
one server per database (and a server of its own per database for the played match); each test has
its own browser context (its own cookies).

Flows: sign up, log out and in again (the cookie's flags; a logged-out session is worth nothing);
upload in the browser with the next step shown; a failed check's log shown to its owner, escaped,
and to nobody else; the leaderboard; script in a version's name shown as text; an upload rate
limit (429 with Retry-After); the organiser pausing the queue and disabling a version (a user refused the page); an
owner deleting a version on its page (another user shown no control, their form refused); a
command-line upload with a token (`ellibir bot submit --server`); POSTs without or with a wrong CSRF
token refused; a real worker checking two uploads (one fails in the sandbox, its log shown) and
playing the ladder: the rated leaderboard, a replay in the viewer, the owner's logs, another user
refused them."""

from __future__ import annotations

import io
import json
import os
import socket
import tarfile
import tempfile
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "bots" / "kits" / "python"
CHROMIUM = "/usr/bin/chromium"
PASSWORD = "correct horse battery"
CHEAP = (1, 1024, 1)  # argon2 at a low cost

pytestmark = pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason="Debian's chromium is not installed")


def kit_archive(name: str, version: str = "1.0", stderr: str | None = None, main: str | None = None) -> bytes:
    """The Python starter kit, renamed, as a tar.gz of its folder; ``stderr``: a line it writes there;
    ``main``: its main.py instead."""
    toml = (KIT / "bot.toml").read_text().replace('name = "starter-python"', f'name = "{name}"')
    toml = toml.replace('version = "1.0"', f'version = "{version}"')
    main = main if main is not None else (KIT / "main.py").read_text()
    if stderr is not None:
        main = main.replace('if __name__ == "__main__":\n', f'if __name__ == "__main__":\n    log({stderr!r})\n')
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(p for p in KIT.iterdir() if p.is_file()):  # not a __pycache__ a run left
            data = {"bot.toml": toml.encode(), "main.py": main.encode()}.get(path.name) or path.read_bytes()
            info = tarfile.TarInfo(f"{name}/{path.name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class Live:
    """The server on a loopback socket, served by uvicorn in a thread."""

    def __init__(self, cluster=None):
        """On a fresh database of ``cluster`` (tests/pgserver.py), or on SQLite when it is None."""
        import uvicorn

        from harness.server.api import make_app
        from harness.server.limits import Rate
        from harness.server.service import Server
        from harness.server.settings import Settings

        self.cluster = cluster
        url = cluster.new_database() if cluster is not None else None
        self.top = Path(tempfile.mkdtemp(prefix="ellibir-web-test-"))
        self.top.chmod(0o755)  # a check's sandbox reads the uploaded bot as another uid
        rates = {"log-in": Rate(100, 60.0), "sign-up": Rate(100, 3600.0), "upload": Rate(2, 3600.0),
                 "matches": Rate(5, 3600.0)}
        self.server = Server(self.top / "arena", url, Settings(players=2, rounds=1, deal_sets=1, max_deal_sets=1,
                                                               field=("builtin:greedy",), check_matches=1,
                                                               argon2=CHEAP, rates=rates))
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)  # connections wait in the backlog until uvicorn accepts them: nothing to wait for
        self.base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.uvicorn = uvicorn.Server(uvicorn.Config(make_app(self.server), log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.uvicorn.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        self.sock = sock

    def sibling(self) -> Live:
        """Another server on the same kind of database, with a queue of its own."""
        return Live(self.cluster)

    def close(self):
        from harness.arena.registry import remove_tree

        self.uvicorn.should_exit = True
        self.thread.join()
        self.sock.close()
        self.server.close()
        remove_tree(self.top)

    def api(self, token: str | None = None):
        import httpx2 as httpx

        return httpx.Client(base_url=self.base, timeout=30,
                            headers={"Authorization": f"Bearer {token}"} if token else {})


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                           "--disable-background-networking", "--disable-component-update",
                                           "--disable-sync", "--no-first-run"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live(request):
    """The server for the module's flows on one database; pytest runs every SQLite flow, then every
    PostgreSQL one, so each server is started once."""
    cluster = request.getfixturevalue("postgres") if request.param == "postgresql" else None
    site = Live(cluster)
    yield site
    site.close()


@pytest.fixture
def page(browser, live):
    """A fresh browser context (no cookies) at desktop width; a script dialog fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live.base)
    context.set_default_timeout(10_000)
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    yield page
    context.close()
    assert dialogs == [], f"a script ran: {dialogs}"


def sign_up(page, name: str) -> None:
    page.goto("/signup")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:has-text('sign up')")
    page.wait_for_url("**/upload")
    assert page.text_content("#who") == name


def upload(page, data: bytes, filename: str = "bot.tar.gz"):
    page.goto("/upload")
    page.set_input_files("input[name=archive]", {"name": filename, "mimeType": "application/gzip", "buffer": data})
    with page.expect_navigation():
        page.click("button:has-text('upload')")


def test_sign_up_log_out_and_log_in(page, live):
    sign_up(page, "ann")
    cookie, = [c for c in page.context.cookies() if c["name"] == "ellibir_session"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and not cookie["secure"]  # http on loopback
    page.click("button:has-text('log out')")
    page.wait_for_url(live.base + "/")
    assert page.locator("#who").count() == 0
    # The old cookie, put back, names nobody: log-out revoked its token.
    page.context.add_cookies([{**cookie}])
    page.goto("/upload")
    assert page.url.endswith("/login")
    page.fill("input[name=name]", "ann")
    page.fill("input[name=password]", "a wrong password")
    page.click("button:has-text('log in')")
    assert page.text_content("#error") == "wrong name or password"
    page.fill("input[name=password]", PASSWORD)
    page.click("button:has-text('log in')")
    page.wait_for_url(live.base + "/")
    assert page.text_content("#who") == "ann"
    assert "default-src 'none'" in page.request.get("/login").headers["content-security-policy"]


def test_upload_the_next_step_and_a_failed_check_shown_to_its_owner_alone(page, live, browser):
    sign_up(page, "bea")
    upload(page, kit_archive("beabot"))
    assert page.url.endswith("/bots/beabot?uploaded=1.0")
    assert "waits for its check" in page.text_content("#next")
    assert page.text_content(".status") == "pending"
    # A worker checks it; the check fails, and its log holds markup and a control character.
    worker = live.api(live.server.add_worker("w-bea"))
    job = worker.post("/api/work/lease").json()
    log = ["seat 0 crashed", "stderr: <script>alert('log')</script> \x1b[31m"]
    assert worker.post(f"/api/work/{job['job']}/check",
                       json={"lease": job["lease"], "report": {"passed": False, "lines": log}}).status_code == 200
    page.reload()
    assert page.text_content(".status") == "failed"
    assert page.text_content("pre.log") == "\n".join(log)
    assert page.locator("pre.log script").count() == 0
    # Another user, and nobody, see the page without the log.
    other = browser.new_context(base_url=live.base)
    stranger = other.new_page()
    sign_up(stranger, "cid")
    stranger.goto("/bots/beabot")
    assert stranger.text_content(".status") == "failed" and stranger.locator("pre.log").count() == 0
    token = live.api().post("/api/login", json={"name": "cid", "password": PASSWORD}).json()["token"]
    assert "log" not in live.api(token).get("/api/bots/beabot/1.0").json()
    other.close()


def test_the_leaderboard_and_script_in_a_version_shown_as_text(page, live):
    sign_up(page, "dan")
    upload(page, kit_archive("danbot", "<img src=x onerror=alert(1)>"))
    assert page.text_content("h2") == "version <img src=x onerror=alert(1)>: pending"
    assert page.locator("img").count() == 0
    page.goto("/")
    row = page.locator("#versions tr", has_text="danbot")
    assert row.locator("td").all_text_contents() == ["danbot", "<img src=x onerror=alert(1)>", "dan", "pending"]
    row.locator("a").click()
    page.wait_for_url("**/bots/danbot")


def test_a_bad_upload_is_one_line_and_the_upload_limit_says_when(page, live):
    sign_up(page, "eve")
    upload(page, b"not an archive", "junk.zip")
    assert page.text_content("#error") == "not a zip or tar archive"
    upload(page, kit_archive("xbot")[:40], "cut.tar.gz")
    assert page.locator("#error").count() == 1 and "\n" not in page.text_content("#error")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        upload(page, kit_archive("evebot"))
    assert answer.value.status == 429 and int(answer.value.headers["retry-after"]) > 0
    assert page.text_content("#error").startswith("too many upload: try again in ")
    assert "evebot" not in [v["name"] for v in live.api().get("/api/bots").json()]


def test_the_organiser_pauses_the_queue_and_a_user_is_refused(page, live, browser):
    sign_up(page, "fay")
    assert page.goto("/admin").status == 403
    live.server.make_admin("fay")
    page.goto("/admin")
    assert page.text_content("#queue") == "The queue is running."
    page.click("#toggle")
    page.wait_for_url("**/admin")
    assert page.text_content("#queue") == "The queue is paused."
    worker = live.api(live.server.add_worker("w-fay"))
    assert worker.post("/api/work/lease").status_code == 204  # paused: nothing is leased
    page.click("#toggle")
    assert page.text_content("#queue") == "The queue is running."
    upload(page, kit_archive("faybot"))
    page.goto("/admin")
    page.locator("tr", has_text="faybot").locator("button:has-text('disable')").click()
    page.wait_for_url("**/admin")
    assert page.locator("tr", has_text="faybot").locator("td").nth(2).text_content() == "disabled"
    assert [v["status"] for v in live.api().get("/api/bots").json() if v["name"] == "faybot"] == ["disabled"]


def test_a_command_line_upload_with_a_token_shows_in_the_browser(page, live, tmp_path):
    from typer_cli import cli

    sign_up(page, "gus")
    token = live.api().post("/api/login", json={"name": "gus", "password": PASSWORD}).json()["token"]
    with tarfile.open(fileobj=io.BytesIO(kit_archive("gusbot"))) as tar:
        tar.extractall(tmp_path, filter="data")
    done = cli("bot", "submit", tmp_path / "gusbot", "--server", live.base, "--token", token)
    assert done.exit_code == 0 and done.stdout.startswith("uploaded gusbot 1.0 ") and "pending" in done.stdout
    listed = cli("bot", "list", "--server", live.base, "--json")
    mine = [(v["owner"], v["status"]) for v in json.loads(listed.stdout) if v["name"] == "gusbot"]
    assert mine == [("gus", "pending")]
    page.goto("/bots/gusbot")
    assert page.text_content(".status") == "pending" and page.text_content("p") == "by gus"


def test_posts_without_the_csrf_token_are_refused(page, live):
    sign_up(page, "hal")
    live.server.make_admin("hal")
    for form in ({"paused": "true"}, {"paused": "true", "csrf": "0" * 64}):
        answer = page.request.post("/admin/queue", form=form)
        assert answer.status == 403 and "CSRF" in answer.text()
    page.goto("/admin")
    assert page.text_content("#queue") == "The queue is running."
    answer = page.request.post("/logout", form={})
    assert answer.status == 403
    page.goto("/")
    assert page.text_content("#who") == "hal"  # still signed in
    # Before log-in: a log-in POST from another site carries no form cookie, and is refused.
    fresh = page.context.browser.new_context(base_url=live.base)
    answer = fresh.request.post("/login", form={"name": "hal", "password": PASSWORD, "csrf": "x" * 43})
    assert answer.status == 403
    assert not [c for c in fresh.cookies() if c["name"] == "ellibir_session"]
    fresh.close()


def test_an_owner_deletes_a_version_on_its_page_and_another_user_cannot(page, live, browser):
    sign_up(page, "kim")
    upload(page, kit_archive("kimbot"))
    upload(page, kit_archive("kimbot", "2.0"))
    page.goto("/bots/kimbot")
    old = page.locator("section.version", has_text="version 1.0")
    assert not old.locator("button:has-text('delete version 1.0')").is_visible()  # folded until asked for
    old.locator("summary:has-text('delete this version')").click()
    with page.expect_navigation():
        old.locator("button:has-text('delete version 1.0')").click()
    assert page.url.endswith("/bots/kimbot")
    old = page.locator("section.version", has_text="version 1.0")
    assert old.locator(".status").text_content() == "withdrawn" and old.locator("details").count() == 0
    assert "Deleted by its owner" in old.locator("p.deleted").text_content()
    statuses = {v["version"]: v["status"] for v in live.api().get("/api/bots").json() if v["name"] == "kimbot"}
    assert statuses == {"1.0": "withdrawn", "2.0": "pending"}
    # Another user sees no control, and the form sent with their own session is refused.
    other = browser.new_context(base_url=live.base)
    stranger = other.new_page()
    sign_up(stranger, "lou")
    stranger.goto("/bots/kimbot")
    assert stranger.locator("details.delete").count() == 0
    csrf = stranger.get_attribute("form[action='/logout'] input[name=csrf]", "value")
    answer = stranger.request.post("/bots/kimbot/delete", form={"version": "2.0", "csrf": csrf})
    assert answer.status == 403 and "kimbot is another user&#39;s bot" in answer.text() and "<h1>403</h1>" in answer.text()
    answer = stranger.request.post("/bots/kimbot/delete", form={"version": "2.0"})
    assert answer.status == 403 and "CSRF" in answer.text()
    other.close()
    assert [v["status"] for v in live.api().get("/api/bots").json() if v["version"] == "2.0"] == ["pending"]


CRASH = "import sys\nsys.stderr.write('<i>crashed</i>\\n')\nsys.exit(3)\n"


def test_a_played_match_in_the_viewer_and_its_owners_logs(live, browser, monkeypatch, tmp_path):
    """A server of its own (its queue holds this test's jobs alone) and a real worker in the sandbox:
    it checks two uploads (one crashes: its log on its page) and plays the other's ladder; then the
    rated leaderboard, the match page's viewer and the owner's logs in the browser."""
    from harness.runs import nodecheck
    from harness.sandbox.bubblewrap import sandbox_available
    from harness.server import worker

    if not sandbox_available():
        pytest.skip("the sandbox (bubblewrap, root) is not available here")
    monkeypatch.setattr(nodecheck, "cache_root", lambda: tmp_path)  # this test's own bot cache, empty
    monkeypatch.setattr(nodecheck, "_VERIFIED", {})
    tmp_path.chmod(0o755)
    own = live.sibling()
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=own.base)
        context.set_default_timeout(10_000)
        mine = context.new_page()
        errors = console_errors(mine)
        sign_up(mine, "ida")
        upload(mine, kit_archive("idabot", stderr="<b>marker-7</b>"))
        upload(mine, kit_archive("idacrash", main=CRASH))
        assert worker.run(own.api(own.server.add_worker("w-ida")), once=True) == 3  # two checks, one ladder job
        a_failed_check_shows_its_log(mine)
        the_leaderboard_rates_the_bot(mine)
        viewer = the_viewer_and_the_owners_logs(mine)
        assert errors == []
        other = browser.new_context(base_url=own.base).new_page()
        sign_up(other, "jon")
        assert other.goto(viewer + "/logs").status == 403
        assert other.goto(viewer).status == 200 and "marker-7" not in other.content()
        other.context.close()
        context.close()
    finally:
        own.close()


def console_errors(page) -> list:
    """The page's console errors from now on (a CSP violation is one), the favicon's 404 left out."""
    errors = []
    page.on("console", lambda m: errors.append(m.text)
            if m.type == "error" and not m.location.get("url", "").endswith("/favicon.ico") else None)
    return errors


def a_failed_check_shows_its_log(page) -> None:
    page.goto("/bots/idacrash")
    assert page.text_content(".status") == "failed"
    log = page.text_content("pre.log")
    assert "handshake: crash" in log and "<i>crashed</i>" in log  # its stderr, as text
    assert page.locator("pre.log i").count() == 0


def the_leaderboard_rates_the_bot(page) -> None:
    page.goto("/")
    rows = {cells[0]: cells[1:] for cells in (row.locator("td").all_text_contents()
                                             for row in page.locator("table").first.locator("tr").all()) if cells}
    assert set(rows) == {"idabot@1.0", "builtin:greedy"}
    rating, _interval, games, mark = rows["idabot@1.0"]  # one deal set: too few for an interval
    assert float(rating) > 0 and int(games) > 0 and mark == "provisional"
    assert rows["builtin:greedy"][0] == "1500"  # the reference bot


def the_viewer_and_the_owners_logs(page) -> str:
    """The bot's page, its first match in the viewer, then that match's logs; the viewer's URL."""
    page.goto("/bots/idabot")
    assert page.text_content(".status") == "ready"
    assert page.locator("#matchups td").first.text_content() == "builtin:greedy"
    page.locator("#matches a").first.click()
    page.wait_for_selector("#events li")  # the viewer's script ran under the page's CSP
    viewer = page.url
    page.goto(viewer + "/logs")
    assert "<b>marker-7</b>\n" in page.text_content("pre.stderr")  # its first line, as text
    assert page.locator("pre.stderr b").count() == 0 and "ms" in page.text_content("table")
    return viewer
