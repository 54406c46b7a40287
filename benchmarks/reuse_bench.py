"""A 4-player tournament of sandboxed protocol greedy bots against the same tournament in process
(issue 17): matches per CPU second of each, interleaved in one run, and their ratio.

The tournament is planned as ``tournament run`` plans it (round robin of four bots, every rotation
of each deal set), large enough that the runner's batches are full (``MAX_BATCH`` matches on a
2-core machine), and split into batches as the runner splits it (``runner.batches``). The first
``tasks`` batches are played, each with its own process pool as ``play_batch`` plays a task, so
that bot processes serve as many matches as they would in a large run (harness/players/reuse.py). CPU
time counts the harness and every bot process (the harness's own, and each bot's per match from
its cgroup). The harness's CPU time inside each sandboxed decision is also kept by where the
decision falls in its round (first or last quarter): flat, it does not grow with the history.

Where the rest goes: ``bound`` is the ratio if the harness's protocol work cost nothing, and
``bot_cache_cost`` measures the same bot's CPU per request alone on a pipe with its caches warm and
with them written over between requests, as the other processes of a shared core do.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GREEDY = ROOT / "bots" / "protocol" / "greedy"


@contextmanager
def bot_copies(source: Path, names: list[str]):
    """Copies of the bot folder ``source`` under other names (a plan needs distinct bots)."""
    scratch = Path(tempfile.mkdtemp(prefix="ellibir-reuse-"))
    try:
        scratch.chmod(0o755)
        out = []
        for name in names:
            folder = scratch / name
            shutil.copytree(source, folder, ignore=shutil.ignore_patterns("__pycache__"))
            text = (folder / "bot.toml").read_text()
            lines = [f'name = "{name}"' if line.startswith("name =") else line for line in text.splitlines()]
            (folder / "bot.toml").write_text("\n".join(lines) + "\n")
            os.chmod(folder, 0o755)
            out.append(str(folder))
        yield out
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def plan_of(specs: list[str], deal_sets: int, seed: int = 17, vary: list | None = None, overrides: dict | None = None,
            players: int = 4, cpu_limit: float | None = None) -> dict:
    """The plan ``tournament run`` would make: round robin, duplicate deals (every rotation)."""
    from harness.runs.plan import make_plan, variant_grid
    from harness.runs.tournament import resolve_bots

    bots = resolve_bots(specs)
    variants = variant_grid("standard", overrides or {}, vary or [], players)
    options = {"move_time": 5.0, "bank": 30.0, "first_time": 20.0, "on_fault": "forfeit", "max_refusals": 3}
    if cpu_limit is not None:
        options["cpu_limit"] = cpu_limit
    return make_plan(name="reuse-bench", seed=seed, form="round-robin", bots=bots, players=players,
                     deal_sets=deal_sets, variants=variants, options=options)


def play(plan: dict, reuse: bool = True, matches: list | None = None) -> list[dict]:
    """Every match of ``plan`` (or ``matches``) as one batch of ``play_batch``; ``reuse`` False: a new
    process per seat and match."""
    from harness.runs.distributed import play_batch
    from harness.runs.tournament import job_of, pack_bots

    from dataclasses import replace

    job = job_of(plan)
    job = replace(job, options=replace(job.options, reuse=reuse))
    return play_batch(job, list(matches if matches is not None else plan["matches"]), pack_bots(plan))


SLOTS = 2  # the workers the runner would have: the batch size depends on it for small plans


def _own_cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def tasks_of(plan: dict, tasks: int | None = None) -> list[list]:
    """The plan's matches in the runner's batches (``runner.batches`` for ``SLOTS`` workers), the
    first ``tasks`` of them."""
    from harness.runs.runner import batches

    out = batches(list(plan["matches"]), SLOTS)
    return out if tasks is None else out[:tasks]


class DecisionClock:
    """The harness's CPU time inside each sandboxed decision (the request built and sent, the reply
    read and checked), by the decision's place in its round: first quarter, middle, last quarter."""

    def __init__(self):
        self.rounds: dict = {}  # (match, round) -> [CPU ns of each decision, in order]

    def wrap(self, player, match: int) -> None:
        decide = player.decide
        clock = time.process_time_ns

        def timed(view, legal):
            start = clock()
            out = decide(view, legal)
            self.rounds.setdefault((match, view.round_index), []).append(clock() - start)
            return out

        player.decide = timed

    def early_late(self) -> tuple[float, float]:
        """Median µs of a decision in the first and in the last quarter of its round (medians: a moment
        of other load on the machine moves a mean)."""
        parts: tuple = ([], [])
        for spent in self.rounds.values():
            n = len(spent)
            for i, ns in enumerate(spent):
                if i < n / 4:
                    parts[0].append(ns)
                elif i >= 3 * n / 4:
                    parts[1].append(ns)
        return statistics.median(parts[0]) / 1000, statistics.median(parts[1]) / 1000


def timed_run(plan: dict, tasks: list[list], reuse: bool = True, clock: DecisionClock | None = None) -> dict:
    """Play ``tasks`` (lists of the plan's matches) as ``play_batch`` plays its batch, one process
    pool per task; returns the matches, the decisions, the CPU seconds of the harness and those of
    every bot process, and how many bot processes started. A bot's CPU time is its cgroup's count per match
    (``SubprocessPlayer.cpu_used``): a sandboxed bot is not a child the harness reaps (its pid
    namespace's init dies with it), so RUSAGE_CHILDREN would miss it."""
    from harness.match.run import make_players, run_spec
    from harness.players.reuse import ProcessPool

    spec_of = spec_maker(plan)
    bots_cpu, started, played, decisions, start = 0.0, 0, 0, 0, _own_cpu()
    thinking = [0]  # CPU ns inside the decisions of in-process bots
    for task in tasks:
        with ProcessPool(enabled=reuse) as pool:
            for m in task:
                spec = spec_of(m)
                players = make_players(spec, pool=pool)
                for p in players:
                    if not getattr(p, "checked", False):
                        _time_decisions(p, thinking)
                if clock is not None:
                    for p in players:
                        if getattr(p, "checked", False):
                            clock.wrap(p, played)
                _, events, faults = run_spec(spec, players=players)
                assert not faults, faults
                played += 1
                decisions += sum(1 for e in events if e.get("e") == "decision")
                for p in players:
                    used = getattr(p, "cpu_used", None)
                    if getattr(p, "proc", None) is not None and used is None:
                        raise RuntimeError("no cgroup CPU count for a sandboxed bot: the ratio would be wrong")
                    bots_cpu += used or 0.0
                    started += getattr(p, "checked", False) and getattr(p, "kept", None) is None
    return {"matches": played, "decisions": decisions, "harness": _own_cpu() - start, "bots": bots_cpu,
            "starts": started, "thinking": thinking[0] / 1e9}


def spec_maker(plan: dict):
    """A function from a match of ``plan`` to its ``MatchSpec``."""
    from engine.game import rules_from_dict
    from harness.match.run import MatchSpec
    from harness.protocol.messages import TimeControl

    o = plan["options"]
    time_control = TimeControl(o["move_time"], o["bank"], o["first_time"])
    rules = {v["id"]: rules_from_dict(plan["game"], v["rules"]) for v in plan["variants"]}
    folders = {b["label"]: b.get("folder") or b["label"] for b in plan["bots"]}
    return lambda m: MatchSpec(plan["game"], rules[m["variant"]], m["deal_seed"],
                               tuple(folders[b] for b in m["seating"]), time=time_control)


def _time_decisions(player, total: list) -> None:
    decide, clock = player.decide, time.process_time_ns

    def timed(view, legal):
        start = clock()
        out = decide(view, legal)
        total[0] += clock() - start
        return out

    player.decide = timed


def tournament_ratio(deal_sets: int | None = None, tasks: int = 1, rounds: int = 2, reuse: bool = True) -> dict | None:
    """Matches per CPU second of four sandboxed protocol greedy bots and of four in-process greedy
    bots, the same matches (the first ``tasks`` of the runner's batches of a ``deal_sets`` plan),
    alternating ``rounds`` times; the best slice of each (other load on a shared machine only slows a
    slice). ``deal_sets`` None: just enough for full batches (each seating in four rotations).
    ``ratio`` counts the bots' CPU time; ``harness_ratio`` only the harness process's (what a
    count of the harness and its reaped children gives: the bots' time escapes it). ``early_us`` and
    ``late_us``: the harness's CPU µs inside a sandboxed decision early and late in a round;
    ``in_process_us``, ``harness_us`` and ``bots_us``: CPU µs per decision (the best slices)."""
    from harness.runs.runner import MAX_BATCH, TASKS_PER_WORKER
    from harness.sandbox.bubblewrap import sandbox_available

    if not sandbox_available():
        return None
    deal_sets = deal_sets or SLOTS * TASKS_PER_WORKER * MAX_BATCH // 4
    names = ["g1", "g2", "g3", "g4"]
    with bot_copies(GREEDY, names) as folders:
        boxed = plan_of(folders, deal_sets)
        inproc = in_process_twin(boxed)
        work = tasks_of(boxed, tasks)
        twin = {m["id"]: m for m in inproc["matches"]}
        work_inproc = [[twin[m["id"]] for m in task] for task in work]
        timed_run(boxed, [work[0][:2]], reuse)  # warm up: staging, bytecode, imports
        clock, runs = DecisionClock(), {"in_process": [], "sandboxed": []}
        for _ in range(rounds):
            runs["in_process"].append(timed_run(inproc, work_inproc, reuse))
            runs["sandboxed"].append(timed_run(boxed, work, reuse, clock))
    best = {k: min(v, key=lambda r: (r["harness"] + r["bots"]) / r["matches"]) for k, v in runs.items()}
    rate = {k: r["matches"] / (r["harness"] + r["bots"]) for k, r in best.items()}
    harness_rate = max(r["matches"] / r["harness"] for r in runs["sandboxed"])
    boxed_run, inproc_run = best["sandboxed"], best["in_process"]
    early, late = clock.early_late()
    return {"sandboxed": rate["sandboxed"], "in_process": rate["in_process"],
            "ratio": rate["sandboxed"] / rate["in_process"], "matches": boxed_run["matches"], "batch": len(work[0]),
            "starts": boxed_run["starts"], "harness_ratio": harness_rate / rate["in_process"],
            "in_process_us": 1e6 * (inproc_run["harness"] + inproc_run["bots"]) / inproc_run["decisions"],
            "harness_us": 1e6 * boxed_run["harness"] / boxed_run["decisions"],
            "bots_us": 1e6 * boxed_run["bots"] / boxed_run["decisions"],
            "early_us": early, "late_us": late, "late_early": late / early,
            "bound": _bound(inproc_run, boxed_run)}


def _bound(inproc: dict, boxed: dict) -> float:
    """The ratio if the harness's protocol work cost nothing: the in-process loop's own work (the
    engine and the runner, without the bots' decisions) plus the sandboxed bots' CPU, per decision."""
    whole = (inproc["harness"] + inproc["bots"]) / inproc["decisions"]
    loop = whole - inproc["thinking"] / inproc["decisions"]
    return whole / (loop + boxed["bots"] / boxed["decisions"])


def in_process_twin(plan: dict) -> dict:
    """The same plan with the built-in greedy bot in every seat: the in-process baseline."""
    builtin = {"kind": "builtin", "label": "builtin:greedy", "name": "greedy", "version": "", "hash": ""}
    matches = [{**m, "seating": ["builtin:greedy"] * len(m["seating"])} for m in plan["matches"]]
    return {**plan, "bots": [builtin], "matches": matches}




SWEEP = 2 << 20  # bytes written between two requests: the L2 cache of one core here, which the harness
# and three other Python bots sharing a core write over between two turns of one bot


def bot_cache_cost(matches: int = 4, rounds: int = 2, sweep: int = SWEEP) -> dict | None:
    """Why a sandboxed bot costs more CPU a decision than the same code in process: the protocol
    greedy bot's CPU µs a request when the requests of ``matches`` recorded 4-player matches come
    over a pipe from a process that does nothing else between them (``warm_us``), and when that
    process writes ``sweep`` bytes of memory between two requests (``swept_us``), as the harness
    and the other bots do to the caches of a shared core. No sandbox here: the bot's own work only.
    Interleaved ``rounds`` times, the best of each."""
    from harness.sandbox.bubblewrap import bot_interpreter, sandbox_available

    if not sandbox_available():
        return None
    streams = _recorded_streams(matches)
    command = [str(bot_interpreter() / "python3"), str(GREEDY / "main.py")]
    best: dict = {}
    for _ in range(rounds):
        for name, size in (("warm_us", 0), ("swept_us", sweep)):
            start_only = _feed(command, [streams[0][:1]], 0)[0]
            cpu, requests = _feed(command, streams, size)
            us = 1e6 * (cpu - start_only) / requests
            best[name] = min(best.get(name, us), us)
    return {**best, "requests": requests, "swept_warm": best["swept_us"] / best["warm_us"]}


def _recorded_streams(matches: int) -> list[list[bytes]]:
    """The lines each seat's bot was sent in ``matches`` sandboxed matches of greedy bots, one stream
    per seat and match (each starts with its hello)."""
    import orjson
    from harness.match.run import make_players, run_spec

    with bot_copies(GREEDY, ["g1", "g2", "g3", "g4"]) as folders:
        plan = plan_of(folders, matches)
        spec_of, streams = spec_maker(plan), []
        for m in plan["matches"][:matches]:
            spec = spec_of(m)
            records: dict = {seat: [] for seat in range(len(m["seating"]))}
            run_spec(spec, players=make_players(spec, records=records))
            streams += [[orjson.dumps(msg) + b"\n" for way, _, msg in r if way == "out"] for r in records.values()]
    return streams


def _feed(command: list, streams: list, sweep: int) -> tuple[float, int]:
    """One bot process (new_match between streams) fed ``streams``, a reply read after each message
    that asks for one; ``sweep`` bytes written between requests. Its CPU seconds and the requests."""
    import subprocess

    import orjson

    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    memory, fill, requests = bytearray(sweep), bytes(range(256)) * (sweep // 256), 0
    for n, lines in enumerate(streams):
        for line in lines:
            kind = orjson.loads(line)["type"]
            if kind == "hello" and n:
                line, kind = line.replace(b'"type":"hello"', b'"type":"new_match"', 1), "new_match"
            proc.stdin.write(line)
            if kind in ("hello", "new_match", "request"):
                proc.stdout.readline()
                requests += kind == "request"
                if sweep:
                    memory[:] = fill
    proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, requests


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    for reuse in (True, False):
        print(f"reuse={reuse}:", tournament_ratio(reuse=reuse))
    print("bot alone on a pipe:", bot_cache_cost())


if __name__ == "__main__":
    main()
