"""The web layer: requests parsed, a ``Server`` method called, its answer or its refusal (one line,
``{"error": ...}``) returned. Users and workers authenticate with ``Authorization: Bearer TOKEN``."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders

from . import failures, volunteers, withdraw
from .limits import RateLimited
from .service import Refused, Server
from .web import add_pages, refused_page

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",  # an owner's logs and a check's report stay out of caches, and off Back after log-out
}
MAX_JSON = 64 << 10  # bytes of a user's JSON request (a worker's results have the server's own cap)


class SecurityHeaders:
    """``SECURITY_HEADERS`` on every answer that does not set its own (an ASGI middleware: starlette's
    ``BaseHTTPMiddleware`` costs a task and a stream a request)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for k, v in SECURITY_HEADERS.items():
                    headers.setdefault(k, v)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def make_app(server: Server) -> FastAPI:
    app = FastAPI(title="ellibir arena", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.server = server

    @app.exception_handler(Refused)
    def refused(request: Request, e: Refused):
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": str(e)}, status_code=e.status)
        return refused_page(server, request, e)

    @app.exception_handler(RateLimited)
    def limited(request: Request, e: RateLimited):
        headers = {"Retry-After": str(e.retry_after)}
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": str(e)}, status_code=429, headers=headers)
        return refused_page(server, request, Refused(str(e), 429), headers)

    app.add_middleware(SecurityHeaders)

    def principal(request: Request):
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        found = server.who(token.strip()) if scheme.lower() == "bearer" else None
        if found is None:
            raise Refused("a valid token is required (Authorization: Bearer TOKEN)", 401)
        return found

    def user(found=Depends(principal)) -> int:
        if found[0] is None:
            raise Refused("this needs a user's token, not a worker's", 403)
        return found[0]

    def worker(found=Depends(principal)) -> int:
        if found[1] is None:
            raise Refused("this needs a worker's token", 403)
        return found[1]

    def address(request: Request) -> str:
        return request.client.host if request.client else "?"

    @app.post("/api/signup", status_code=201)
    async def sign_up(request: Request):
        body = await _json(request, MAX_JSON)
        await run_in_threadpool(server.sign_up, _text(body, "name"), _text(body, "password"), address(request))
        return {"name": body["name"]}

    @app.post("/api/login")
    async def log_in(request: Request):
        body = await _json(request, MAX_JSON)
        return {"token": await run_in_threadpool(server.log_in, _text(body, "name"), _text(body, "password"),
                                                 address(request))}

    @app.post("/api/bots", status_code=202)
    async def upload(request: Request, user_id: int = Depends(user)):
        await run_in_threadpool(server.room, user_id)  # a user at a bound: refused before the body is read
        data = await _body(request, server.settings.max_archive)
        return await run_in_threadpool(server.upload, user_id, data)  # seconds of work: off the event loop

    @app.get("/api/bots")
    def bot_list():
        return server.bot_list()

    @app.get("/api/bots/{name}/{version}")
    def version(name: str, version: str, request: Request):
        found = None
        if request.headers.get("authorization"):
            found = principal(request)
        return server.version(found[0] if found else None, name, version)

    @app.delete("/api/bots/{name}/{version}")
    def delete_version(name: str, version: str, user_id: int = Depends(user)):
        return withdraw.delete(server, user_id, name, version)

    @app.post("/api/bots/{name}/{version}/matches", status_code=202)
    def more_matches(name: str, version: str, user_id: int = Depends(user)):
        return server.request_matches(user_id, name, version)

    @app.get("/api/ladder")
    def ladder():
        return server.ladder()

    @app.post("/api/admin/queue")
    async def pause(request: Request, user_id: int = Depends(user)):
        body = await _json(request, MAX_JSON)
        if not isinstance(body.get("paused"), bool):
            raise Refused("paused is required (true or false)", 422)
        return await run_in_threadpool(server.pause, user_id, body["paused"])

    @app.post("/api/admin/bots/{name}/{version}/disable")
    def disable(name: str, version: str, user_id: int = Depends(user)):
        return server.disable(user_id, name, version)

    @app.post("/api/admin/workers/{name}/purge")
    def purge(name: str, user_id: int = Depends(user)):
        return server.purge_worker(user_id, name)

    @app.get("/api/admin/workers")
    def worker_list(user_id: int = Depends(user)):
        with server.db.connect() as conn:
            server._require_admin(conn, user_id)
            return volunteers.listed(conn)

    @app.get("/api/admin/jobs")
    def failed_jobs(user_id: int = Depends(user)):
        return failures.failed_jobs(server, user_id)

    @app.post("/api/admin/jobs/{job_id}/requeue")
    def requeue(job_id: int, user_id: int = Depends(user)):
        return failures.requeue(server, user_id, job_id)

    @app.post("/api/work/lease")
    def lease(worker_id: int = Depends(worker)):
        work = server.lease(worker_id)
        return Response(status_code=204) if work is None else work

    @app.post("/api/work/{job_id}/renew")
    async def renew(job_id: int, request: Request, worker_id: int = Depends(worker)):
        body = await _json(request, MAX_JSON)
        return await run_in_threadpool(server.renew, worker_id, job_id, _text(body, "lease"))

    @app.post("/api/work/{job_id}/release")
    async def give_back(job_id: int, request: Request, worker_id: int = Depends(worker)):
        body = await _json(request, MAX_JSON)
        return await run_in_threadpool(failures.give_back, server, worker_id, job_id, _text(body, "lease"),
                                       _text(body, "reason"))

    @app.post("/api/work/{job_id}/files")
    async def bot_files(job_id: int, request: Request, worker_id: int = Depends(worker)):
        body = await _json(request, MAX_JSON)
        data = await run_in_threadpool(server.bot_files, worker_id, job_id, _text(body, "lease"), _text(body, "hash"))
        return Response(data, media_type="application/octet-stream")

    @app.post("/api/work/{job_id}/check")
    async def check_done(job_id: int, request: Request, worker_id: int = Depends(worker)):
        body = await _json(request, MAX_JSON * 16)
        return await run_in_threadpool(server.finish_check, worker_id, job_id, _text(body, "lease"), body.get("report"))

    @app.post("/api/work/{job_id}/results")
    async def results_done(job_id: int, request: Request, worker_id: int = Depends(worker)):
        body = await _json(request, server.settings.max_results)
        return await run_in_threadpool(server.finish_play, worker_id, job_id, _text(body, "lease"), body.get("results"))

    add_pages(app, server)
    return app


async def _body(request: Request, cap: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > cap):
        raise Refused(f"the request is larger than {cap >> 20} MiB" if cap >= 1 << 20 else "the request is too large", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise Refused("the request is too large", 413)
        chunks.append(chunk)
    return b"".join(chunks)


async def _json(request: Request, cap: int) -> dict:
    import json

    data = await _body(request, cap)
    try:
        body = json.loads(data) if len(data) < 1 << 20 else await run_in_threadpool(json.loads, data)
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: 60 kB of "[" nest too deep
        raise Refused("the request is not JSON", 422) from None
    if not isinstance(body, dict):
        raise Refused("the request must be a JSON object", 422)
    return body


def _text(body: dict, key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str):
        raise Refused(f"{key} is required (text)", 422)
    return value


def version_path(name: str, version: str) -> str:
    return f"/api/bots/{quote(name, safe='')}/{quote(version, safe='')}"
