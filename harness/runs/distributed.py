"""Ray: start a local Ray or join a cluster, ship bot folders, play batches of matches in tasks.

- ``connect(workers, address)``: an embedded local Ray (``address`` None) with ``workers`` CPUs, or
  an existing cluster (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``). An address that does not
  answer fails within ``timeout`` seconds with ``ClusterError``: the port is probed with a socket
  first, then joined from a child process that is killed when the wait is over. Every node of a
  cluster needs this project installed (the same Python environment): tasks import ``harness``.
- Bot folders travel packed: ``pack_folder`` makes a tar.gz of the folder's files (what the arena's
  content hash covers), put once in Ray's object store; each node unpacks a folder once into its
  cache, keyed by content hash (harness/runs/nodecheck.py), readable by others (the sandbox runs the
  bot as another uid). ``builtin:`` bots run inside the worker.
- ``play_batch`` (the task body) checks the node (harness/runs/nodecheck.py), plays matches and returns
  their rows and event logs (``jobs.MatchResult``); the driver writes them (harness/runs/runner.py). ``Pool`` keeps a bounded number of tasks in flight; a
  task whose worker or node dies is retried elsewhere by Ray (``MAX_RETRIES``); a bot's failure is
  a result of its match, never a retry.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import time

CONNECT_TIMEOUT = 20.0  # seconds to wait for a cluster address to answer (ELLIBIR_CONNECT_TIMEOUT)
CONNECT_TIMEOUT_RANGE = (1.0, 3600.0)
MAX_RETRIES = 3  # Ray retries of a task whose worker or node died
OBJECT_STORE = 256 * 1024 * 1024  # the local Ray's object store: rows and logs are small
# The local Ray collects no metrics and no event-loop statistics (nothing reads them): its idle
# processes then use 3.5% of a core instead of 4.2% (benchmarks/ray_bench.py measures the whole tree).
LOCAL_SYSTEM_CONFIG = {"enable_metrics_collection": False, "event_stats": False}
CLIENT_PORT = 10001  # Ray Client's default port (ray://HOST)


class ClusterError(RuntimeError):
    """Ray could not be started or reached; the message is one line."""


# Connecting ----------------------------------------------------------------------------------------

def _host_port(address: str, default_port: int | None = None) -> tuple[str, int]:
    text = address.split("://", 1)[1] if "://" in address else address
    text = text.split("/", 1)[0]
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, ""
    host = host.strip("[]")
    if not port and default_port is not None:
        port = str(default_port)
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(f"bad Ray address {address!r}: expected auto, HOST:PORT or ray://HOST:PORT")
    return host, int(port)


def resolve_address(address: str) -> tuple[str, int]:
    """The host and port that must answer for ``address``."""
    if address == "auto":
        try:
            from ray._private.services import canonicalize_bootstrap_address_or_die

            found = canonicalize_bootstrap_address_or_die("auto")
        except Exception as e:  # noqa: BLE001  (no cluster, or several)
            raise ClusterError(f"--address auto: no Ray cluster found on this machine ({_one_line(e)})") from None
        return _host_port(found)
    if address.startswith("ray://"):
        return _host_port(address, CLIENT_PORT)
    return _host_port(address)


def probe(host: str, port: int, timeout: float) -> None:
    """Raise ClusterError unless something accepts a TCP connection at host:port within ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            with socket.create_connection((host, port), timeout=max(0.1, min(left, 5.0))):
                return
        except OSError as e:
            reason = e.strerror or type(e).__name__
            if isinstance(e, (ConnectionRefusedError, socket.gaierror)) or time.monotonic() + 0.5 >= deadline:
                raise ClusterError(f"no Ray cluster answers at {host}:{port} ({reason})") from None
            time.sleep(0.5)


_CHECK = """
import json, logging, sys
import ray
try:
    ray.init(address=sys.argv[1], logging_level=logging.ERROR, log_to_driver=False)
    print(json.dumps({"cpus": ray.cluster_resources().get("CPU", 0)}))
except Exception as e:
    print(json.dumps({"error": " ".join(str(e).split())[:300] or type(e).__name__}))
"""


def check_cluster(address: str, timeout: float) -> None:
    """Join the cluster at ``address`` from a child process, which is killed after ``timeout``
    seconds: ``ray.init`` itself can wait for a silent address for ever."""
    import json
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", _CHECK, address], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(child)
        raise ClusterError(f"the Ray cluster at {address} does not answer (waited {timeout:.0f} s); if it uses "
                           f"token authentication, give this driver its token: RAY_AUTH_MODE=token and "
                           f"RAY_AUTH_TOKEN (docs/cluster.md)") from None  # Ray waits for ever on a wrong token
    except BaseException:
        _kill_group(child)
        raise
    try:
        answer = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        answer = {"error": f"the check ended with exit code {child.returncode}"}
    if "error" in answer:
        raise ClusterError(f"cannot join the Ray cluster at {address}: {answer['error']}")
    if not answer.get("cpus"):
        raise ClusterError(f"the Ray cluster at {address} has no CPUs")


def _kill_group(child) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except OSError:
        pass
    child.wait()


def connect_timeout() -> float:
    """How long to wait for a cluster to answer: ``$ELLIBIR_CONNECT_TIMEOUT`` seconds, else 20."""
    given = os.environ.get("ELLIBIR_CONNECT_TIMEOUT", "").strip()
    if not given:
        return CONNECT_TIMEOUT
    low, high = CONNECT_TIMEOUT_RANGE
    try:
        value = float(given)
    except ValueError:
        value = float("nan")
    if not low <= value <= high:
        raise ClusterError(f"ELLIBIR_CONNECT_TIMEOUT must be {low:g} to {high:g} seconds, got {given!r}")
    return value


def connect(workers: int | None = None, address: str | None = None, timeout: float | None = None) -> int:
    """Start a local Ray with ``workers`` CPUs (default: all cores), or join the cluster at
    ``address``, waiting ``timeout`` seconds at most for it to answer (``connect_timeout()``); returns
    the number of tasks that may run at once. Raises ClusterError."""
    try:
        import ray
    except ImportError:
        raise ClusterError("Ray is not installed (pip install 'ray>=2.40')") from None
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR,
             "configure_logging": True}
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if ray.is_initialized():
        ray.shutdown()
    if address is None:
        cpus = workers or os.cpu_count() or 1
        try:
            ray.init(address="local", num_cpus=cpus, object_store_memory=OBJECT_STORE, _node_ip_address="127.0.0.1",
                     _system_config=dict(LOCAL_SYSTEM_CONFIG), **quiet)
        except Exception as e:  # noqa: BLE001
            raise ClusterError(f"cannot start a local Ray: {_one_line(e)}") from None
        _watch_local_ray()
        return cpus
    timeout = connect_timeout() if timeout is None else timeout
    host, port = resolve_address(address)
    started = time.monotonic()
    probe(host, port, timeout)
    target = address if address != "auto" else f"{host}:{port}"
    check_cluster(target, max(1.0, timeout - (time.monotonic() - started)))
    try:
        if target.startswith("ray://"):
            ray.init(address=target, logging_level=logging.ERROR)
        else:
            ray.init(address=target, **{k: v for k, v in quiet.items() if k != "include_dashboard"})
        cpus = int(ray.cluster_resources().get("CPU", 0))
    except Exception as e:  # noqa: BLE001
        _shutdown_quietly()
        raise ClusterError(f"cannot join the Ray cluster at {address}: {_one_line(e)}") from None
    if cpus < 1:
        _shutdown_quietly()
        raise ClusterError(f"the Ray cluster at {address} has no CPUs")
    return min(cpus, workers) if workers else cpus


def shutdown() -> None:
    _shutdown_quietly()
    from . import raywatch

    raywatch.stop()


def _watch_local_ray() -> None:
    """A watchdog (harness/runs/raywatch.py) that kills the Ray processes this driver started if it dies."""
    from . import raywatch

    try:
        import ray

        node = ray._private.worker._global_node
        pids = [p.pid for _name, p in node.live_processes()]
    except Exception:  # noqa: BLE001  (Ray's internals moved: no watchdog, Ray's own timeouts apply)
        return
    raywatch.start(pids)


def _shutdown_quietly() -> None:
    try:
        import ray

        if ray.is_initialized():
            ray.shutdown()
    except Exception:  # noqa: BLE001
        pass


def _one_line(e) -> str:
    return " ".join(str(e).split())[:300] or type(e).__name__


# The task ------------------------------------------------------------------------------------------

_RULES: dict = {}


def _rules(game: str, variant: str, normalised: dict):
    """The rules of a variant of ``game``, built once per worker process."""
    from engine.game import rules_from_dict

    key = (game, variant)
    if key not in _RULES:
        _RULES[key] = rules_from_dict(game, normalised)
    return _RULES[key]


def play_batch(job, batch: list, packs: dict) -> list:
    """Play the matches of ``batch`` (``jobs.PlannedMatch`` items, or the plan's match dicts); runs in a
    Ray worker, or in this process under the local executor.

    ``job``: a ``jobs.Job``. ``packs``: label -> ``pack_folder`` bytes of each folder or submitted
    bot. First the node is checked (harness/runs/nodecheck.py: ``NodeRefused`` when it runs other code or
    cannot sandbox); bot folders come from the node's cache; bot processes are kept between the
    batch's matches (harness/players/reuse.py). Returns one ``jobs.MatchResult`` per match.
    """
    import contextlib

    from bots import analysis_bots

    from .jobs import PlannedMatch
    from .nodecheck import bot_folder, check_node
    from harness.players.reuse import ProcessPool

    check_node(job)
    batch = [m if isinstance(m, PlannedMatch) else PlannedMatch.of(m) for m in batch]
    needed = {label for m in batch for label in m.seating if label in packs}
    names = {label: bot_folder(label, job.bots[label].hash, packs) for label in sorted(needed)}
    pool = ProcessPool(enabled=job.options.reuse)  # bot processes kept between matches (protocol 2)
    allowed = analysis_bots() if job.analysis else contextlib.nullcontext()  # harness/runs/study.py
    try:
        with allowed:
            return [play_one(job, m, names, pool) for m in batch]
    finally:
        pool.close()


def ready(job) -> str:
    """A worker's first call: the node check, and the task body's modules loaded; returns the node's name."""
    from harness.match import run  # noqa: F401  (the players, the engine, the bots)
    from .nodecheck import check_node, node_name
    from results import rows  # noqa: F401

    check_node(job)
    return node_name()


def play_one(job, m, names: dict, pool=None):
    """One planned match: its rows, its event log, the bots' stderr (a ``jobs.MatchResult``)."""
    from results.rows import match_rows, round_rows

    from harness.match.log import Recorder
    from harness.match.seatplay import seat_play, stand_in_rounds
    from .faultlog import bot_stderr, bot_times
    from .jobs import MatchResult
    from harness.match.run import MatchSpec, make_players, run_spec
    from harness.protocol.messages import TimeControl

    started = time.perf_counter()  # the match's time on this worker, bot processes' start included
    o = job.options
    rules = _rules(job.game, m.variant, job.variants[m.variant])
    seating = m.seating
    spec = MatchSpec(job.game, rules, m.deal_seed, tuple(names.get(b, b) for b in seating),
                     max_refusals=o.max_refusals, on_fault=o.on_fault,
                     time=TimeControl(o.move_time, o.bank, o.first_time), cpu_limit=o.cpu_limit)
    players = make_players(spec, pool=pool)
    for p, label in zip(players, seating):
        if hasattr(p, "label"):
            p.label = label  # the run's name for the bot, as in its rows
    recorder = Recorder()
    result, _events, faults = run_spec(spec, on_event=recorder, players=players)
    bots = [{"label": b, "version": job.bots[b].version, "hash": job.bots[b].hash} for b in seating]
    play = seat_play(players, recorder.events)
    return MatchResult(m.id, seating, list(result.ranks),
                       match_rows(job.run, m.id, m.deal_set, job.game, rules, result, faults, bots, play),
                       round_rows(job.run, m.id, m.deal_set, job.game, rules, result, bots,
                                  stand_in_rounds(recorder.events)),
                       recorder.text(), bot_stderr(players), time.perf_counter() - started, bot_times(players))


# The pool ------------------------------------------------------------------------------------------

class Pool:
    """Submit tasks (``jobs.Task``) as Ray tasks, at most ``limit`` in flight; ``wait`` returns
    finished ones (``jobs.TaskDone``).

    ``put`` objects (the job, the packs) go to the object store once and are shared by every task.
    """

    def __init__(self, job, packs: dict, limit: int, body=None):
        import ray

        self.ray = ray
        self.body = body or play_batch
        self.remote = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(self.body)
        self.job = ray.put(job)
        self.packs = ray.put(packs)
        self.limit = max(1, limit)
        self.running: dict = {}  # ObjectRef -> Task

    def warm(self, count: int) -> None:
        """Run ``ready`` ``count`` times at once, so that the workers have checked their node and loaded
        the task body before the first match (``NodeRefused`` is raised here, before any match is
        played, when a node refuses). A worker that got no warm-up still checks in ``play_batch``."""
        from .nodecheck import NodeRefused

        remote = self.ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(ready)
        refs = [remote.options(name="ready").remote(self.job) for _ in range(max(1, count))]
        try:
            self.ray.get(refs)
        except NodeRefused as e:
            raise NodeRefused(_one_line(getattr(e, "cause", None) or e)) from None

    @property
    def full(self) -> bool:
        return len(self.running) >= self.limit

    def submit(self, task) -> None:
        ref = self.remote.options(name=f"{self.body.__name__}:{task.id}").remote(self.job, list(task.matches), self.packs)
        self.running[ref] = task

    def wait(self, timeout: float) -> list:
        """Finished tasks (``jobs.TaskDone``); waits up to ``timeout`` seconds for the first."""
        from .jobs import TaskDone
        from .nodecheck import NodeRefused

        if not self.running:
            return []
        done, _ = self.ray.wait(list(self.running), num_returns=1, timeout=timeout)
        if done:  # collect whatever else is ready too
            more, _ = self.ray.wait(list(self.running), num_returns=len(self.running), timeout=0)
            done = list(dict.fromkeys(done + more))
        out = []
        for ref in done:
            task = self.running.pop(ref)
            try:
                out.append(TaskDone(task, self.ray.get(ref)))
            except NodeRefused as e:  # Ray's error is also an instance of its cause's class
                out.append(TaskDone(task, None, _one_line(getattr(e, "cause", None) or e), refused=True))
            except Exception as e:  # noqa: BLE001  (a task that failed after its retries)
                out.append(TaskDone(task, None, _one_line(e)))
        return out

    def cancel(self) -> int:
        """Cancel every task in flight (their matches stay unplayed); returns how many."""
        n = len(self.running)
        for ref in list(self.running):
            try:
                self.ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001
                pass
        self.running.clear()
        return n
