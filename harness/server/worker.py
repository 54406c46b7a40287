"""``ellibir worker``: ask the server for a job, play it here (the check of a new version, or a deal
set of the ladder, with the tournament's task body and the sandbox), upload what it gave, again. A
worker that dies holds its job until the lease runs out; the server then gives it to another."""

from __future__ import annotations

import threading
from collections.abc import Mapping

import httpx2 as httpx


class WorkerError(RuntimeError):
    """The server refused the worker, or cannot be reached: one line; ``status`` is the HTTP status
    (0 when there was no answer)."""

    def __init__(self, message: str, status: int = 0):
        super().__init__(message)
        self.status = status


LOST = (403, 404, 409, 422)  # refused for this job only (its lease lost, its results refused, a bot's files gone): go on


def connect(server: str, token: str, timeout: float = 120.0) -> httpx.Client:
    return httpx.Client(base_url=server.rstrip("/"), headers={"Authorization": f"Bearer {token}"}, timeout=timeout)


def run(client, once: bool = False, idle: float = 5.0, stop: threading.Event | None = None,
        on_refused=None) -> int:
    """Play jobs until ``stop`` is set (or, ``once``, until the queue is empty); returns the jobs whose
    upload was accepted. ``on_refused(work, error)`` is told of an upload refused for that job alone
    (the worker goes on)."""
    stop = stop or threading.Event()
    done = 0
    while not stop.is_set():
        try:
            work = _call(client, "POST", "/api/work/lease")
        except WorkerError as e:
            if e.status or once:
                raise
            stop.wait(idle)  # the server is starting, restarting or out of reach: ask again
            continue
        if work is None:
            if once:
                break
            stop.wait(idle)
            continue
        try:
            done += _do(client, work, idle, stop)
        except WorkerError as e:
            if e.status not in LOST:
                raise
            if on_refused is not None:
                on_refused(work, e)
    return done


def _do(client, work: dict, idle: float, stop: threading.Event) -> int:
    """Play one job, its lease renewed meanwhile, and send what it gave; 1 when accepted. A job this
    node cannot play (its sandbox or a bot's files fail) is given back with the error, which goes on."""
    try:
        with Renewer(client, work):
            if work["kind"] == "check":
                path, body = f"/api/work/{work['job']}/check", {"lease": work["lease"], "report": check(client, work)}
            else:
                path, body = f"/api/work/{work['job']}/results", {"lease": work["lease"], "results": play(client, work)}
    except (ValueError, RuntimeError, OSError) as e:
        if not isinstance(e, WorkerError) or e.status == 404:  # a bot's files gone (its version deleted): the job's
            give_back(client, work, str(e))
        raise
    _upload(client, path, body, idle, stop)
    return 1


def give_back(client, work: dict, reason: str) -> None:
    """The job back to the server, which queues it for another worker (or fails it at its last try)."""
    try:
        _call(client, "POST", f"/api/work/{work['job']}/release", {"lease": work["lease"], "reason": reason[:500]})
    except WorkerError:
        pass  # the lease runs out instead


def _upload(client, path: str, body: dict, idle: float, stop: threading.Event, tries: int = 12) -> None:
    """Send a job's outcome, asking again while the server cannot be reached (it may be restarting)."""
    for attempt in range(tries):
        try:
            _call(client, "POST", path, body)
            return
        except WorkerError as e:
            if e.status or attempt == tries - 1 or stop.is_set():
                raise
            stop.wait(idle)


class Renewer:
    """While a job is played: its lease renewed every third of its length (``interval``), so that a
    slow job is not given to another worker while this one is still at it. A renewal refused (the
    lease lost) or not answered ends the renewals; the upload then says what happened."""

    def __init__(self, client, work: dict, interval: float | None = None):
        self.client, self.work = client, work
        self.interval = interval if interval is not None else max(1.0, float(work.get("seconds") or 60) / 3)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.stop.wait(self.interval):
            try:
                _call(self.client, "POST", f"/api/work/{self.work['job']}/renew", {"lease": self.work["lease"]})
            except WorkerError:
                return

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_exc):
        self.stop.set()
        self.thread.join()


def _call(client, method: str, path: str, body=None):
    try:
        response = client.request(method, path, json=body)
    except httpx.HTTPError as e:
        raise WorkerError(f"cannot reach the server: {e}") from None
    if response.status_code == 204:
        return None
    if response.status_code >= 400:
        raise WorkerError(f"the server refused {path}: {response.status_code} {_detail(response)}", response.status_code)
    return response.json()


def _detail(response) -> str:
    try:
        return str(response.json().get("error"))
    except (ValueError, AttributeError):
        return response.text[:200]


class BotFiles(Mapping):
    """A job's bot folders by label, as ``play_batch`` and ``bot_folder`` take them: the packed files
    are asked of the server only for a folder this node's cache lacks (``bot_folder`` reads them then)."""

    def __init__(self, client, work: dict):
        self.client, self.work, self.fetched = client, work, {}

    def __getitem__(self, label: str) -> bytes:
        if label not in self.fetched:
            digest = self.work["bots"][label]
            try:
                response = self.client.post(f"/api/work/{self.work['job']}/files",
                                            json={"lease": self.work["lease"], "hash": digest})
            except httpx.HTTPError as e:
                raise WorkerError(f"cannot reach the server: {e}") from None
            if response.status_code != 200:
                raise WorkerError(f"the server refused the files of {label}: {response.status_code} "
                                  f"{_detail(response)}", response.status_code)
            self.fetched[label] = response.content
        return self.fetched[label]

    def __iter__(self):
        return iter(self.work["bots"])

    def __len__(self) -> int:
        return len(self.work["bots"])


def check(client, work: dict) -> dict:
    """The arena's check of a new version (``check_submission``), in the sandbox."""
    from harness.arena.registry import ArenaError, CheckFailed, check_submission
    from harness.runs.nodecheck import bot_folder

    digest = work["bots"]["new"]
    folder = bot_folder("new", digest, BotFiles(client, work))  # checked against the hash as unpacked
    try:
        report = check_submission(folder, int(work["matches"]))
    except CheckFailed as e:
        report = e.report
        if report is None:
            return {"passed": False, "lines": list(e.reasons), "warnings": []}
    except ArenaError as e:
        return {"passed": False, "lines": [str(e)], "warnings": []}
    return {"passed": bool(report.passed), "lines": list(report.lines), "warnings": list(report.warnings)}


def play(client, work: dict) -> list:
    """A deal set of a ladder run, by the tournament's task body (harness/runs/distributed.play_batch)."""
    from harness.runs.distributed import play_batch
    from harness.runs.jobs import Job

    played = play_batch(Job.of_plan(work["plan"]), work["matches"], BotFiles(client, work))
    return [{"id": r.id, "seating": list(r.seating), "ranks": list(r.ranks), "matches": r.matches,
             "rounds": r.rounds, "log": r.log, "stderr": {str(k): v for k, v in (r.stderr or {}).items()},
             "times": {str(k): v for k, v in (r.times or {}).items()}}
            for r in played]
