"""The browser's side of the server: cookie sessions, CSRF checks, and the pages' routes.

A session is an API token (accounts.issue_token) held in an HttpOnly, SameSite=Strict cookie, Secure
when the request came over https; log-out revokes it. Every form carries a CSRF token: for a session,
a digest of its token (so it changes with each log-in and is never stored); before log-in, a random
value also set as its own cookie (double submit). A POST whose token does not match is refused (403)
before anything else is read. A session ends after Settings.token_life, or session_idle unused: an
ended one is logged out (its cookie removed), and a page or form that needs a user leads to /login."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from . import failures, views, withdraw
from .pages import leaderboard_page, render
from .service import Refused, Server

SESSION = "ellibir_session"
PRE_SESSION = "ellibir_form"  # the CSRF value of forms shown before log-in
MAX_FORM = 64 << 10  # bytes of a form that holds no file
ACCOUNT_FORMS = {"login": ("log in", "current-password"), "signup": ("sign up", "new-password")}
VIEWER_EXTRA = "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"  # besides the viewer's own policy


class SessionEnded(Refused):
    """The visit's session has expired: log in again."""

    def __init__(self):
        super().__init__("your session has ended: log in again", 401)


def session_csrf(token: str) -> str:
    return hashlib.sha256(b"csrf\0" + token.encode("utf-8", "surrogateescape")).hexdigest()


class Visit:
    """One request's session: its user (or None) and the CSRF value its forms carry."""

    def __init__(self, server: Server, request: Request):
        self.request = request
        self.token = request.cookies.get(SESSION)
        self.user = views.session_user(server, self.token)
        self.ended = self.token is not None and self.user is None
        self.fresh_form = None  # a new pre-session value, set as a cookie by ``page``
        if self.user is not None:
            self.csrf = session_csrf(self.token)
        else:
            given = request.cookies.get(PRE_SESSION, "")
            if len(given) == 43 and given.replace("-", "").replace("_", "").isalnum():
                self.csrf = given
            else:
                self.csrf = self.fresh_form = secrets.token_urlsafe(32)

    def check(self, form) -> None:
        if self.ended:
            raise SessionEnded()
        given = form.get("csrf")
        if not isinstance(given, str) or self.fresh_form is not None or not hmac.compare_digest(given, self.csrf):
            raise Refused("the form's CSRF token is missing or wrong: reload the page and send it again", 403)

    def need_user(self) -> dict:
        if self.ended:
            raise SessionEnded()
        if self.user is None:
            raise Refused("log in first", 401)
        return self.user

    def user_id(self, required: bool = False) -> int | None:
        """The visitor's id, or None; an ended session, where ``required``, leads to /login."""
        if required and self.ended:
            raise SessionEnded()
        return self.user["id"] if self.user else None

    def page(self, template: str, status: int = 200, **values) -> HTMLResponse:
        response = HTMLResponse(render(template, user=self.user, csrf=self.csrf, **values), status_code=status)
        self.set_form_cookie(response)
        return response

    def set_form_cookie(self, response) -> None:
        if self.ended:
            self.end_session(response)
        if self.fresh_form is not None:
            response.set_cookie(PRE_SESSION, self.fresh_form, httponly=True, samesite="strict",
                                secure=self.secure, path="/")

    @property
    def secure(self) -> bool:
        return self.request.url.scheme == "https"

    def end_session(self, response) -> None:
        response.delete_cookie(SESSION, path="/", httponly=True, samesite="strict", secure=self.secure)

    def start_session(self, token: str, to: str = "/") -> RedirectResponse:
        response = RedirectResponse(to, status_code=303)
        response.set_cookie(SESSION, token, httponly=True, samesite="strict", secure=self.secure, path="/")
        return response


def refused_page(server: Server, request: Request, e: Refused, headers: dict | None = None):
    visit = Visit(server, request)
    if isinstance(e, SessionEnded):
        response = RedirectResponse("/login", status_code=303)
        visit.end_session(response)
        return response
    response = visit.page("refused", status=e.status, code=e.status, message=str(e))
    response.headers.update(headers or {})
    return response


async def _form(request: Request, cap: int):
    declared = request.headers.get("content-length")
    if declared is None or not declared.isdigit():
        raise Refused("a form is sent with its length (Content-Length)", 411)
    if int(declared) > cap:
        raise Refused(f"the form is larger than {cap >> 20} MiB" if cap >= 1 << 20 else "the form is too large", 413)
    return await request.form(max_files=1, max_fields=8)


async def _user_form(server: Server, request: Request) -> tuple:
    """(a form a user sent, the user), its CSRF token checked before anything else is read."""
    visit = await run_in_threadpool(Visit, server, request)
    form = await _form(request, MAX_FORM)
    visit.check(form)
    return form, visit.need_user()


def add_pages(app: FastAPI, server: Server) -> None:
    def address(request: Request) -> str:
        return request.client.host if request.client else "?"

    @app.get("/", response_class=HTMLResponse)
    def leaderboard(request: Request):
        visit = Visit(server, request)
        response = HTMLResponse(leaderboard_page(server.ladder(), server.bot_list(), server.settings.settle,
                                                 user=visit.user, csrf=visit.csrf))
        visit.set_form_cookie(response)
        return response

    def account_page(visit: Visit, kind: str, status: int = 200, name: str = "", error: str | None = None):
        heading, autocomplete = ACCOUNT_FORMS[kind]
        return visit.page("account", status=status, heading=heading, action=f"/{kind}", name=name,
                          autocomplete=autocomplete, error=error)

    async def account_post(request: Request, kind: str):
        """Log-in, or sign-up and then log-in: a new session, replacing the one the visit had."""
        visit = await run_in_threadpool(Visit, server, request)
        form = await _form(request, MAX_FORM)
        visit.check(form)
        name, password = str(form.get("name", "")), str(form.get("password", ""))

        def enter() -> str:  # argon2 and the database: off the event loop
            if kind == "signup":
                server.sign_up(name, password, address(request))
            return server.log_in(name, password, address(request), session=True)

        try:
            token = await run_in_threadpool(enter)
        except Refused as e:
            return account_page(visit, kind, e.status, name, str(e))
        await run_in_threadpool(views.log_out, server, visit.token)
        return visit.start_session(token, "/upload" if kind == "signup" else "/")

    @app.get("/login", response_class=HTMLResponse)
    def login_form(request: Request):
        return account_page(Visit(server, request), "login")

    @app.get("/signup", response_class=HTMLResponse)
    def signup_form(request: Request):
        return account_page(Visit(server, request), "signup")

    @app.post("/login")
    async def login(request: Request):
        return await account_post(request, "login")

    @app.post("/signup")
    async def signup(request: Request):
        return await account_post(request, "signup")

    @app.post("/logout")
    async def logout(request: Request):
        visit = await run_in_threadpool(Visit, server, request)
        visit.check(await _form(request, MAX_FORM))
        await run_in_threadpool(views.log_out, server, visit.token)
        response = RedirectResponse("/", status_code=303)
        visit.end_session(response)
        return response

    @app.get("/upload", response_class=HTMLResponse)
    def upload_form(request: Request):
        visit = Visit(server, request)
        if visit.user is None:
            response = RedirectResponse("/login", status_code=303)
            visit.set_form_cookie(response)
            return response
        return visit.page("upload")

    @app.post("/upload")
    async def upload(request: Request):
        visit = await run_in_threadpool(Visit, server, request)
        visit.need_user()  # nobody's 16 MiB read for nothing
        try:
            await run_in_threadpool(server.room, visit.user["id"])  # nor that of a user at a bound
        except Refused as e:
            return visit.page("upload", status=e.status, error=str(e))
        form = await _form(request, server.settings.max_archive + MAX_FORM)
        visit.check(form)
        user = visit.need_user()
        archive = form.get("archive")
        if archive is None or isinstance(archive, str):
            return visit.page("upload", status=422, error="choose an archive of your bot folder")
        data = await archive.read(server.settings.max_archive + 1)
        try:
            done = await run_in_threadpool(server.upload, user["id"], data)  # seconds of work: off the event loop
        except Refused as e:
            return visit.page("upload", status=e.status, error=str(e))
        return RedirectResponse(f"/bots/{quote(done['name'], safe='')}?uploaded={quote(done['version'], safe='')}",
                                status_code=303)

    @app.get("/bots/{name}", response_class=HTMLResponse)
    def bot(name: str, request: Request, uploaded: str | None = None):
        visit = Visit(server, request)
        shown = views.bot_page(server, name, visit.user_id())
        waiting = {v["version"] for v in shown["versions"] if v["status"] == "pending"}  # the next step is its check
        return visit.page("bot", bot=shown, uploaded=uploaded if shown["mine"] and uploaded in waiting else None)

    @app.post("/bots/{name}/delete")
    async def delete_version(name: str, request: Request):
        form, user = await _user_form(server, request)
        await run_in_threadpool(withdraw.delete, server, user["id"], name, str(form.get("version", "")))
        return RedirectResponse(f"/bots/{quote(name, safe='')}", status_code=303)

    @app.get("/runs/{run_id}/matches/{match_id}", response_class=HTMLResponse)
    def match(run_id: int, match_id: str, request: Request):
        visit = Visit(server, request)
        text, policy = views.match_page(server, run_id, match_id, visit.user_id())
        return HTMLResponse(text, headers={"Content-Security-Policy": f"{policy}; {VIEWER_EXTRA}"})

    @app.get("/runs/{run_id}/matches/{match_id}/logs", response_class=HTMLResponse)
    def match_logs(run_id: int, match_id: str, request: Request):
        visit = Visit(server, request)
        logs = views.match_logs(server, run_id, match_id, visit.user_id(required=True))
        return visit.page("logs", run=run_id, match=match_id, **logs)

    @app.get("/admin", response_class=HTMLResponse)
    def admin(request: Request):
        visit = Visit(server, request)
        visit.user_id(required=True)
        return visit.page("admin", **views.admin_page(server, visit.user))

    @app.post("/admin/{action}")
    async def admin_action(action: str, request: Request):
        form, user = await _user_form(server, request)
        await run_in_threadpool(organise, action, form, user["id"])
        return RedirectResponse("/admin", status_code=303)

    def organise(action: str, form, user_id: int) -> None:
        if action == "queue":
            server.pause(user_id, form.get("paused") == "true")
        elif action == "disable":
            server.disable(user_id, str(form.get("name", "")), str(form.get("version", "")))
        elif action == "purge":
            server.purge_worker(user_id, str(form.get("worker", "")))
        elif action == "requeue":
            job = str(form.get("job", ""))
            if not job.isdigit():
                raise Refused("requeue needs a job's number", 422)
            failures.requeue(server, user_id, int(job))
        else:
            raise Refused(f"no organiser's action {action}", 404)
