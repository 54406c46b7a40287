"""The arena server's measurements (issue 31), on loopback: ``python -m benchmarks.arena_bench``.

It starts ``ellibir serve`` (SQLite, in a temporary folder) and two ``ellibir worker`` processes, as
docs/arena.md says to, signs a user up, and measures:

- **validation**: the Python starter kit, renamed, uploaded (``POST /api/bots``), timed until its
  status is ``ready`` (its check played by a worker in the sandbox); each upload is made while the
  two workers are running and idle (polling every 5 s, their default): the first after the workers
  start, the others after the versions before were disabled (their ladder runs cancelled);
- **deal sets a minute**: a ladder run of the first upload (the server's design: a gauntlet against
  the field, ``--deal-sets`` deal sets), requested again and again and timed from the request until
  the run's ratings are recorded; interleaved with ``ellibir tournament run --workers 2`` (a local
  Ray) on the same bots, design, rules and deal sets, timed from start to exit. The CPU of each side
  is the CPU of its processes and all their descendants (the server and the workers with their
  sandboxed bots; the command with Ray's processes), read from /proc every 0.2 s;
- **page latency** at ``--users`` simulated users (asyncio tasks with one httpx client, each asking
  for the leaderboard, the bot's page and a match page in turn, a random think time between, mean
  ``--think`` s) while the two workers play one more ladder run; no page is asked for after the run
  is over or after ``--load-seconds`` (the pages asked for by then are answered and counted). The
  same pages asked for by one user, ten times each, with the workers idle, for comparison.

Everything is bounded: a fixed count of uploads, runs and users, and every wait has a deadline. The
figures depend on the machine's other work: the one-minute load average and the CPU others used are
printed with them.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import math
import os
import re
import random
import signal
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "bots" / "kits" / "python"
USER, PASSWORD = "bench", "a bench password, long enough"
DEADLINE = 600.0  # seconds any one wait may take before the benchmark gives up
TICK = os.sysconf("SC_CLK_TCK")


# Processes -------------------------------------------------------------------------------------


def ellibir(*args, env: dict | None = None, **popen) -> subprocess.Popen:
    """``ellibir ARGS`` in its own session (so that it and what it starts can be stopped together)."""
    full_env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "harness", *map(str, args)], cwd=ROOT, env=full_env,
                            start_new_session=True, **popen)


def ellibir_output(*args) -> str:
    done = ellibir(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = done.communicate(timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"ellibir {' '.join(map(str, args))}: {err.strip()[-500:]}")
    return out.strip()


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(15)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# CPU -------------------------------------------------------------------------------------------


def children_of() -> dict:
    found: dict = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            found.setdefault(parent, []).append(int(entry))
    return found


def tree_cpu(roots) -> dict:
    """CPU seconds so far of ``roots`` and every process under them, by (pid, start time)."""
    children, todo, seen, out = children_of(), list(roots), set(), {}
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        todo.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[(pid, fields[19])] = (int(fields[11]) + int(fields[12])) / TICK
    return out


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy since boot (every core)."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / TICK  # all but idle and iowait


class CpuMeter:
    """The CPU of the processes under ``roots`` from ``start()`` to ``stop()``, read every 0.2 s (a
    process that ends loses what it used since its last reading); the machine's too."""

    def __init__(self, roots_of):
        self.roots_of = roots_of  # called at each reading: the processes' roots may change
        self.first: dict = {}
        self.last: dict = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> CpuMeter:
        self.first = tree_cpu(self.roots_of())
        self.last = dict(self.first)
        self.machine = machine_busy()
        self.thread.start()
        return self

    def _loop(self) -> None:
        while not self.done.wait(0.2):
            self.last.update(tree_cpu(self.roots_of()))

    def stop(self) -> tuple[float, float]:
        """(CPU seconds of the processes, CPU seconds of the whole machine) over the interval."""
        self.done.set()
        self.thread.join()
        self.last.update(tree_cpu(self.roots_of()))
        ours = sum(t - self.first.get(key, 0.0) for key, t in self.last.items())
        return ours, machine_busy() - self.machine


# The arena -------------------------------------------------------------------------------------


def kit_archive(name: str, folder: Path = KIT) -> bytes:
    """A bot folder (the Python starter kit unless told) as a tar.gz of a folder NAME, its bot.toml naming it NAME."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(p for p in folder.iterdir() if p.is_file()):
            data = path.read_bytes()
            if path.name == "bot.toml":
                data = re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', data.decode()).encode()
            info = tarfile.TarInfo(f"{name}/{path.name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def wait_for(what: str, test, every: float = 0.05):
    """``test()``'s first true answer, asked every ``every`` seconds until DEADLINE."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        answer = test()
        if answer:
            return answer
        time.sleep(every)
    raise TimeoutError(f"gave up waiting for {what} after {DEADLINE:.0f} s")


class Site:
    """``ellibir serve`` and two ``ellibir worker`` processes on loopback, over a fresh arena."""

    def __init__(self, top: Path, deal_sets: int, max_deal_sets: int | None = None):
        import httpx2 as httpx

        self.arena = top / "arena"
        self.base = f"http://127.0.0.1:{free_port()}"
        tokens = [ellibir_output("worker-token", f"w{n}", "--arena", self.arena) for n in (1, 2)]
        self.log = open(top / "processes.log", "w")
        self.server = ellibir("serve", "--arena", self.arena, "--port", self.base.rsplit(":", 1)[1],
                              "--deal-sets", deal_sets,  # by default runs on request only; else until settled
                              "--max-deal-sets", deal_sets if max_deal_sets is None else max_deal_sets,
                              stdout=self.log, stderr=self.log)
        self.http = httpx.Client(base_url=self.base, timeout=60)
        wait_for("the server", self._up, 0.2)
        self.workers = [ellibir("worker", "--server", self.base, env={"ELLIBIR_WORKER_TOKEN": t},
                                stdout=self.log, stderr=self.log) for t in tokens]
        self.token = self._account()
        ellibir_output("make-admin", USER, "--arena", self.arena)  # to disable versions

    def _up(self) -> bool:
        import httpx2 as httpx

        try:
            return self.http.get("/api/bots").status_code == 200
        except httpx.HTTPError:
            return False

    def _account(self) -> str:
        assert self.http.post("/api/signup", json={"name": USER, "password": PASSWORD}).status_code == 201
        token = self.http.post("/api/login", json={"name": USER, "password": PASSWORD}).json()["token"]
        self.http.headers["Authorization"] = f"Bearer {token}"
        return token

    def pids(self) -> list:
        return [p.pid for p in (self.server, *self.workers)]

    def close(self) -> None:
        for process in (*self.workers, self.server):
            stop(process)
        self.http.close()
        self.log.close()

    def status(self, name: str) -> str:
        return self.http.get(f"/api/bots/{name}/1.0").json()["status"]

    def ratings_of_run(self, run: str) -> bool:
        path = self.arena / "ratings.jsonl"
        return path.exists() and any(json.loads(line).get("run") == run for line in path.read_text().splitlines())

    def rated_runs(self, name: str) -> int:
        path = self.arena / "ratings.jsonl"
        lines = path.read_text().splitlines() if path.exists() else []
        return sum(json.loads(line).get("name") == name for line in lines)

    def first_run(self, name: str) -> int:
        """The number of the ladder run whose ratings of ``name`` were recorded first."""
        lines = (self.arena / "ratings.jsonl").read_text().splitlines()
        record = next(r for r in map(json.loads, lines) if r.get("name") == name)
        return int(record["run"].removeprefix("ladder-"))

    def run_folder(self, number: int) -> Path:
        found, = (self.arena / ".server" / "runs").glob(f"run-{number:06d}-*")
        return found


def upload_until_ready(site: Site, name: str, folder: Path = KIT) -> float:
    """Seconds from the upload of the bot folder (the kit unless told) named ``name`` until it is ready."""
    start = time.monotonic()
    answer = site.http.post("/api/bots", content=kit_archive(name, folder))
    assert answer.status_code == 202, answer.text
    status = wait_for(f"{name}'s check", lambda: (s := site.status(name)) != "pending" and s)
    seconds = time.monotonic() - start
    assert status == "ready", f"{name} is {status}"
    return seconds


def upload_and_withdraw(site: Site, name: str, settle: float = 5.0) -> float:
    """``upload_until_ready``, then the version disabled (its ladder run cancelled) and ``settle``
    seconds for a worker to drop the deal set it holds, so the next upload meets idle workers."""
    seconds = upload_until_ready(site, name)
    assert site.http.post(f"/api/admin/bots/{name}/1.0/disable").is_success
    time.sleep(settle)
    return seconds


def server_run(site: Site, name: str) -> dict:
    """One more ladder run of ``name``, requested and timed until its ratings are recorded."""
    meter = CpuMeter(site.pids).start()
    start = time.monotonic()
    answer = site.http.post(f"/api/bots/{name}/1.0/matches")
    assert answer.is_success, answer.text
    run = answer.json()["run"]
    wait_for(f"ladder run {run}", lambda: site.ratings_of_run(f"ladder-{run:06d}"), 0.1)
    wall = time.monotonic() - start
    cpu, machine = meter.stop()
    plan = json.loads((site.run_folder(run) / "run.json").read_text())
    return {"run": run, "deal_sets": plan["deal_sets"], "wall": wall, "cpu": cpu, "machine": machine}


def same_tournament(plan: dict, site: Site, out: Path) -> list:
    """``tournament run``'s arguments for the bots, design, rules and deal sets of a ladder run's plan."""
    rules = plan["variants"][0]["rules"]
    field = [b["label"] for b in plan["bots"] if b["label"] != plan["challenger"]]
    return ["tournament", "run", "--format", "gauntlet", "--challenger", plan["challenger"],
            *[a for bot in field for a in ("--bot", bot)], "--design", plan["design"],
            "--players", plan["players"], "--rounds", rules["rounds"], "--deal-sets", plan["deal_sets"],
            "--workers", 2, "--arena", site.arena, "--out", out, "--quiet"]


def command_run(site: Site, plan: dict, out: Path) -> dict:
    """``ellibir tournament run --workers 2`` on a ladder run's bots and design, timed to its exit."""
    meter = CpuMeter(lambda: [process.pid])
    start = time.monotonic()
    process = ellibir(*same_tournament(plan, site, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    meter.start()
    try:
        _, err = process.communicate(timeout=DEADLINE)
    finally:
        stop(process)
    wall = time.monotonic() - start
    cpu, machine = meter.stop()
    assert process.returncode == 0, err[-2000:]
    own = json.loads((out / "run.json").read_text())
    differs = [k for k in ("design", "players", "options", "deal_sets", "challenger") if own[k] != plan[k]]
    assert not differs and own["variants"][0]["rules"] == plan["variants"][0]["rules"], differs
    return {"deal_sets": own["deal_sets"], "wall": wall, "cpu": cpu, "machine": machine}


# Page latency ----------------------------------------------------------------------------------


def percentile(values: list, q: float) -> float:
    """The nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


async def one_user(client, pages: list, think: float, until, seen: list, failures: list) -> None:
    turn = random.randrange(len(pages))
    while not until():
        kind, path = pages[turn % len(pages)]
        turn += 1
        start = time.perf_counter()
        try:
            answer = await client.get(path)
            ok = answer.status_code == 200
        except Exception as e:  # a refused or timed-out request is a failure to count, not a crash
            ok, answer = False, e
        (seen if ok else failures).append((kind, time.perf_counter() - start))
        await asyncio.sleep(random.uniform(0, 2 * think))


async def page_load(base: str, pages: list, users: int, think: float, until) -> tuple[list, list]:
    import httpx2 as httpx

    seen, failures = [], []
    limits = httpx.Limits(max_connections=users, max_keepalive_connections=users)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        await asyncio.gather(*(one_user(client, pages, think, until, seen, failures) for _ in range(users)))
    return seen, failures


def latency_under_play(site: Site, name: str, pages: list, users: int, think: float, seconds: float) -> dict:
    """Pages asked for by ``users`` simulated users while the workers play one more ladder run."""
    answer = site.http.post(f"/api/bots/{name}/1.0/matches")
    assert answer.is_success, answer.text
    run = f"ladder-{answer.json()['run']:06d}"
    start = time.monotonic()

    def over() -> bool:
        return time.monotonic() - start > seconds or site.ratings_of_run(run)

    meter = CpuMeter(site.pids).start()
    seen, failures = asyncio.run(page_load(site.base, pages, users, think, over))
    wall = time.monotonic() - start
    cpu, machine = meter.stop()
    run_over = site.ratings_of_run(run)
    wait_for(f"ladder run {run}", lambda: site.ratings_of_run(run), 0.2)  # the workers idle again
    return {"seen": seen, "failures": failures, "wall": wall, "run_over": run_over, "cpu": cpu, "machine": machine}


def quiet_latency(site: Site, pages: list, times: int = 10) -> list:
    """Each page asked for ``times`` times in turn by one user, the workers idle: (kind, seconds)."""
    seen = []
    for _ in range(times):
        for kind, path in pages:
            start = time.perf_counter()
            assert site.http.get(path).status_code == 200
            seen.append((kind, time.perf_counter() - start))
    return seen


def match_pages(site: Site, number: int) -> list:
    """The leaderboard, the bot's page and a match page of ladder run ``number``."""
    plan = json.loads((site.run_folder(number) / "run.json").read_text())
    match = plan["matches"][0]["id"]
    return [("leaderboard", "/"), ("bot", f"/bots/{plan['challenger'].split('@')[0]}"),
            ("match", f"/runs/{number}/matches/{match}")]


# The report ------------------------------------------------------------------------------------


def load_average() -> float:
    return os.getloadavg()[0]


def show_validation(times: list) -> None:
    shown = " ".join(f"{t:.1f}" for t in times)
    print(f"upload to ready, s: {shown}; median {statistics.median(times):.1f} (aim ≤ 60)")


def show_rates(server: list, command: list) -> None:
    def per_minute(runs):
        return 60 * sum(r["deal_sets"] for r in runs) / sum(r["wall"] for r in runs)

    def per_cpu_minute(runs):
        return 60 * sum(r["deal_sets"] for r in runs) / sum(r["cpu"] for r in runs)

    for label, runs in (("server, 2 workers", server), ("tournament run --workers 2", command)):
        for r in runs:
            print(f"  {label}: {r['deal_sets']} deal sets in {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU "
                  f"(the machine: {r['machine']:.1f} s CPU, others {max(0.0, r['machine'] - r['cpu']):.1f})")
    s, c = per_minute(server), per_minute(command)
    print(f"deal sets a minute: server {s:.1f}, tournament run {c:.1f}, ratio {s / c:.2f} (aim ≥ 0.8)")
    s, c = per_cpu_minute(server), per_cpu_minute(command)
    print(f"deal sets a CPU minute: server {s:.1f}, tournament run {c:.1f}, ratio {s / c:.2f}")


def show_latency(result: dict, users: int, think: float) -> None:
    seen = result["seen"]
    print(f"page latency, {users} users (think time mean {think} s), {result['wall']:.1f} s while the workers "
          f"played (run over: {result['run_over']}); {len(seen)} pages, {len(result['failures'])} failed, "
          f"{len(seen) / result['wall']:.0f}/s; server and workers {result['cpu']:.1f} s CPU, "
          f"the machine {result['machine']:.1f} s")
    for kind in ("leaderboard", "bot", "match", None):
        times = [t for k, t in seen if kind is None or k == kind]
        if times:
            print(f"  {kind or 'all'}: median {1000 * statistics.median(times):.0f} ms, "
                  f"95th percentile {1000 * percentile(times, 0.95):.0f} ms ({len(times)})")


def show_quiet(seen: list) -> None:
    print("page latency, one user, the workers idle:")
    for kind in ("leaderboard", "bot", "match"):
        times = [t for k, t in seen if k == kind]
        print(f"  {kind}: median {1000 * statistics.median(times):.0f} ms, longest {1000 * max(times):.0f} ms "
              f"({len(times)})")


def measure(top: Path, args) -> None:
    print(f"load average at start: {load_average():.2f} on {os.cpu_count()} cores")
    site = Site(top, args.deal_sets)
    try:
        first = f"{USER}-1"
        ready = [upload_until_ready(site, first)]
        wait_for(f"{first}'s first ladder run", lambda: site.rated_runs(first) >= 1, 0.2)  # the warm-up
        number = site.first_run(first)
        plan = json.loads((site.run_folder(number) / "run.json").read_text())
        server, command = [], []
        for n in range(args.repeats):
            server.append(server_run(site, first))
            command.append(command_run(site, plan, top / f"command-{n}"))
        pages = match_pages(site, number)
        quiet = quiet_latency(site, pages)
        latency = latency_under_play(site, first, pages, args.users, args.think, args.load_seconds)
        ready += [upload_and_withdraw(site, f"{USER}-{n}") for n in range(2, args.uploads + 1)]
    finally:
        site.close()
    show_validation(ready)
    show_rates(server, command)
    show_latency(latency, args.users, args.think)
    show_quiet(quiet)
    print(f"load average at the end: {load_average():.2f}")


def settle(top: Path, args) -> None:
    """``--folder`` (the kit unless told) uploaded into a fresh arena whose server plays it on until its rating settles
    (±SETTLE Elo, the server's defaults but for ``--deal-sets``): its rating every 30 s until then,
    or until ``--settle`` minutes have passed."""
    from harness.server.settings import SETTLE, Settings, half_width

    print(f"load average at start: {load_average():.2f} on {os.cpu_count()} cores")
    site = Site(top, args.deal_sets, max_deal_sets=Settings.max_deal_sets)
    meter = CpuMeter(site.pids).start()
    try:
        start = time.monotonic()
        upload_until_ready(site, USER, Path(args.folder))
        end, width = start + 60 * args.settle, float("inf")
        while time.monotonic() < end and width > SETTLE:
            time.sleep(min(30.0, max(0.0, end - time.monotonic())))
            rating = next(v["rating"] for v in site.http.get("/api/bots").json() if v["name"] == USER)
            if rating:
                width = half_width(rating["lo"], rating["hi"])
                print(f"{(time.monotonic() - start) / 60:5.1f} min: {rating['rating']:.0f} "
                      f"[{rating['lo']:.0f}, {rating['hi']:.0f}] ±{width:.1f} Elo, {rating['games']} games", flush=True)
        minutes = (time.monotonic() - start) / 60
        cpu, machine = meter.stop()
    finally:
        site.close()
    said = "settled" if width <= SETTLE else "not settled"
    print(f"{said} (±{SETTLE:.0f} Elo) after {minutes:.1f} minutes; server and workers {cpu / 60:.1f} CPU minutes, "
          f"the machine {machine / 60:.1f}; load average at the end: {load_average():.2f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.arena_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--deal-sets", type=int, default=8, help="deal sets of a ladder run (the server's default: 8)")
    parser.add_argument("--repeats", type=int, default=3, help="ladder runs and command runs, interleaved")
    parser.add_argument("--uploads", type=int, default=3, help="uploads timed until ready")
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--think", type=float, default=1.0, help="a user's mean think time between pages, s")
    parser.add_argument("--load-seconds", type=float, default=60.0, help="the page load's longest duration")
    parser.add_argument("--settle", type=float, metavar="MINUTES",
                        help="instead: the kit played on until its rating settles, for at most this long")
    parser.add_argument("--folder", default=str(KIT), help="with --settle: the bot folder uploaded (the Python kit)")
    args = parser.parse_args(argv)
    top = Path(tempfile.mkdtemp(prefix="ellibir-arena-bench-"))
    top.chmod(0o755)  # the sandbox runs bots as another uid
    try:
        (settle if args.settle else measure)(top, args)
    finally:
        from harness.arena.registry import remove_tree

        remove_tree(top)


if __name__ == "__main__":
    main()
