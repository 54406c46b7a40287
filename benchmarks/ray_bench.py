"""Matches per second on a local Ray with 1 and with 2 workers (the same plan), and what starting and
stopping the local Ray costs. ``python -m benchmarks.ray_bench`` prints them.

The whole pipeline is timed (tasks, rows, event logs, Parquet parts written by the driver), from the
first task submitted to the last part written; Ray's start is measured apart. Aim: ≥ 1.8× on 2 cores.

``pipeline_ratio``: the whole pipeline's matches per CPU-second (the driver and every process under
it: workers, raylet, GCS, from the first task submitted to the end of the run; the workers' start,
their node check and imports, is counted with Ray's start) over the bare loop's (the same matches
played by ``run_match`` in one process, nothing recorded). Aim: ≥ 0.75. Three Ray runs, each between
two bare loops, pooled (the CPU a match costs on a shared machine drifts from minute to minute);
each run's own ratio is given too. ``ray_pair_ratio`` is a second figure, not the aim's: the
pipeline over two bare loops run at once (half the plan each). The compaction at the end of a run
is left out of it and measured apart (``compact_ms``, CPU ms per match), as is the CPU a match of
the bare loop costs more when two run at once than alone (``two_at_once``: on a shared or virtual
machine two busy processes slow each other, which the 2-worker pipeline pays and the bare loop not).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

BOTS = ("builtin:greedy", "builtin:pairs", "builtin:random")
# The pipeline ratio's plan: 576 matches. Each run's fixed costs (the first tasks' warm-up, the tail
# where one worker waits for the other, Ray's idle processes) are counted; at 144 matches they weigh
# about twice as much as at 576, and at a million matches nothing.
PIPELINE_DEAL_SETS = 48
PIPELINE_REPEATS = 3  # Ray runs pooled into the figure, each between two bare loops


def bench_plan(deal_sets: int = 12, rounds: int = 2, seed: int = 1) -> dict:
    from harness.runs.plan import make_plan, variant_grid
    from harness.runs.tournament import resolve_bots

    variants = variant_grid("standard", {"rounds": rounds}, [], 4)
    options = {"move_time": 1.0, "bank": 5.0, "first_time": 10.0, "on_fault": "forfeit", "max_refusals": 3}
    return make_plan(name="bench", seed=seed, form="round-robin", bots=resolve_bots(list(BOTS)), players=4,
                     deal_sets=deal_sets, variants=variants, options=options)


def matches_per_second(plan: dict, workers: int) -> float:
    from harness.runs.tournament import execute

    with tempfile.TemporaryDirectory(prefix="ellibir-bench-") as tmp:
        outcome = execute(plan, Path(tmp) / "run", new=True, workers=workers, quiet=True)
    assert outcome.done == outcome.planned, outcome.errors
    return outcome.played / outcome.elapsed


def _tree_cpu(pid: int) -> dict:
    """CPU seconds so far of each process under ``pid`` (itself left out), by (pid, start time)."""
    from harness.runs.raywatch import descendants

    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for child in descendants([pid]) - {pid}:
        try:
            with open(f"/proc/{child}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[(child, fields[19])] = (int(fields[11]) + int(fields[12])) / tick
    return out


class CpuMeter:
    """A runner listener (harness/runs/runner.py): CPU seconds of the driver and of every process under
    it (the local Ray's workers, raylet, GCS) from the first task submitted to the end of the run."""

    def __init__(self):
        self.driver = 0.0
        self.tree: dict = {}
        self.cpu = 0.0

    def playing(self, run) -> None:
        self.driver, self.tree = time.process_time(), _tree_cpu(os.getpid())

    def finished(self, run) -> None:
        after = _tree_cpu(os.getpid())
        children = sum(t - self.tree.get(key, 0.0) for key, t in after.items())
        self.cpu = time.process_time() - self.driver + children


def pipeline_per_cpu(plan: dict, workers: int = 2) -> tuple[float, float]:
    """(matches per CPU second, matches per wall second) of the whole Ray pipeline on ``plan``."""
    from harness.runs.tournament import execute

    meter = CpuMeter()
    with tempfile.TemporaryDirectory(prefix="ellibir-bench-") as tmp:
        outcome = execute(plan, Path(tmp) / "run", new=True, workers=workers, listeners=[meter], compact=False)
    assert outcome.done == outcome.planned, outcome.errors
    return outcome.played / meter.cpu, outcome.played / outcome.elapsed


def bare_per_cpu(plan: dict) -> float:
    """Matches per CPU second of the bare loop: the plan's matches played in this process by
    ``run_match`` with the built-in players, nothing recorded, no rows, nothing written."""
    from engine.game import rules_from_dict
    from harness.match.run import MatchSpec, run_spec

    rules = {v["id"]: rules_from_dict(plan["game"], v["rules"]) for v in plan["variants"]}
    start = time.process_time()
    for m in plan["matches"]:
        run_spec(MatchSpec(plan["game"], rules[m["variant"]], m["deal_seed"], tuple(m["seating"])))
    return len(plan["matches"]) / (time.process_time() - start)


def _bare_half(args: tuple) -> tuple[int, float]:
    """(matches, CPU seconds) of the bare loop over every other match of the plan, from ``start``."""
    plan, start = args
    half = dict(plan, matches=plan["matches"][start::2])
    return len(half["matches"]), len(half["matches"]) / bare_per_cpu(half)


def bare_pair_per_cpu(plan: dict) -> float:
    """Matches per CPU second of two bare loops at once, in two processes, each playing half the plan
    (the conditions of the 2-worker pipeline's workers, without the pipeline)."""
    from concurrent.futures import ProcessPoolExecutor

    small = dict(plan, matches=plan["matches"][:4])
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_bare_half, [(small, 0), (small, 1)]))  # both processes started and warm
        done = list(pool.map(_bare_half, [(plan, 0), (plan, 1)]))
    return sum(n for n, _ in done) / sum(cpu for _, cpu in done)


def pipeline_ratio(deal_sets: int = PIPELINE_DEAL_SETS, rounds: int = 2, repeats: int = PIPELINE_REPEATS) -> dict:
    """The Ray pipeline's matches per CPU second over the bare loop's (``ray_ratio``, aim: ≥ 0.75),
    and the local executor's, on the same plan.

    The Ray pipeline runs ``repeats`` times, each run between two bare loops (the bare loop alone
    ``repeats`` + 1 times in all): the figures are pooled, all matches over all CPU seconds, since
    on a shared machine the CPU a match costs drifts by a quarter from one minute to the next.
    ``ray_ratios``: each run's own ratio, over the bare loops just before and after it (the spread).
    ``ray_pair_ratio``: the Ray pipeline over two bare loops run at once (``bare_pair_per_cpu``,
    measured next to each bare loop), a second figure that leaves out what two busy processes cost
    each other; the aim is on ``ray_ratio``."""
    from harness.runs.runfolder import compact_run
    from harness.runs.tournament import execute

    plan = bench_plan(deal_sets, rounds)
    n = len(plan["matches"])
    bare, pair, ray, ratios = [bare_per_cpu(plan)], [bare_pair_per_cpu(plan)], [], []
    local = compact_cpu = 0.0
    for k in range(max(1, repeats)):
        ray_cpu, ray_wall = pipeline_per_cpu(plan)
        ray.append((ray_cpu, ray_wall))
        if k == 0:
            meter = CpuMeter()
            with tempfile.TemporaryDirectory(prefix="ellibir-bench-") as tmp:
                execute(plan, Path(tmp) / "run", new=True, executor="local", listeners=[meter], compact=False)
                shutil.copytree(Path(tmp) / "run", Path(tmp) / "warm")
                compact_run(Path(tmp) / "warm")  # its modules loaded, as at the end of a run
                start = time.process_time()
                compact_run(Path(tmp) / "run")
                compact_cpu = time.process_time() - start
            local = n / meter.cpu
        pair.append(bare_pair_per_cpu(plan))
        bare.append(bare_per_cpu(plan))
        ratios.append(ray_cpu / _pooled(bare[-2:]))
    base, pair_base = _pooled(bare), _pooled(pair)
    ray_per_cpu = _pooled([r for r, _ in ray])
    return {"matches": n, "repeats": len(ray), "bare_per_cpu": base, "ray_per_cpu": ray_per_cpu,
            "ray_per_s": _pooled([w for _, w in ray]), "local_per_cpu": local, "ray_ratio": ray_per_cpu / base,
            "ray_ratios": ratios, "local_ratio": local / base, "bare_pair_per_cpu": pair_base,
            "ray_pair_ratio": ray_per_cpu / pair_base, "compact_ms": 1000 * compact_cpu / n}


def _pooled(rates: list) -> float:
    """Matches per second over several measurements of the same plan: all matches over all seconds."""
    return len(rates) / sum(1 / r for r in rates)


def _bare_rate(deal_sets: int) -> float:
    return bare_per_cpu(bench_plan(deal_sets))


def two_at_once(deal_sets: int = 6) -> float:
    """CPU per match of the bare loop when two copies run at once, over its CPU per match alone
    (1.0 on an idle machine with two real cores)."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_bare_rate, [1, 1]))  # both processes started and warm
        alone = pool.submit(_bare_rate, deal_sets).result()
        both = list(pool.map(_bare_rate, [deal_sets, deal_sets]))
    return alone / (sum(both) / 2)


def ray_start_cost(workers: int = 2) -> tuple[float, float]:
    """Seconds to start a local Ray, and to shut it down."""
    from harness.runs.distributed import connect, shutdown

    start = time.monotonic()
    connect(workers)
    started = time.monotonic()
    shutdown()
    return started - start, time.monotonic() - started


def _spin(n: int) -> float:
    start = time.perf_counter()
    x = 0
    for i in range(n):
        x += i
    return time.perf_counter() - start


def cpu_capacity(n: int = 5_000_000) -> float:
    """How many cores two CPU-bound processes get at the moment (2.0 on an idle 2-core machine): the
    ceiling of the speed-up, on machines shared with other work."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_spin, [n // 10] * 2))  # start both processes first
        one = pool.submit(_spin, n).result()
        start = time.perf_counter()
        list(pool.map(_spin, [n, n]))
        both = time.perf_counter() - start
    return 2 * one / both


def ray_speedup(deal_sets: int = 12, rounds: int = 2) -> dict:
    """matches/s on 1 and 2 workers for the same plan, their ratio, and Ray's fixed costs (seconds)."""
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if cpus is not None:  # `make bench` pins itself to one core; Ray's processes would inherit that
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    try:
        start, stop = ray_start_cost()
        plan = bench_plan(deal_sets, rounds)
        one = matches_per_second(plan, 1)
        two = matches_per_second(plan, 2)
        capacity = cpu_capacity()
    finally:
        if cpus is not None:
            os.sched_setaffinity(0, cpus)
    return {"matches": len(plan["matches"]), "one_worker": one, "two_workers": two, "speedup": two / one,
            "ray_start_s": start, "ray_shutdown_s": stop, "cores": os.cpu_count(), "cpu_capacity": capacity}


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    r = ray_speedup()
    table = Table(title=f"Ray: {r['matches']} matches, 3 bots, 4 players, 2 rounds; {r['cores']} cores")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_column("aim", justify="right")
    table.add_row("matches/s, 1 worker", f"{r['one_worker']:.1f}", "")
    table.add_row("matches/s, 2 workers", f"{r['two_workers']:.1f}", "")
    table.add_row("speed-up, 2 workers / 1", f"{r['speedup']:.2f}×", "≥ 1.8×")
    table.add_row("cores two busy processes get now", f"{r['cpu_capacity']:.2f}", "2.00 when idle")
    table.add_row("starting the local Ray, s", f"{r['ray_start_s']:.1f}", "")
    table.add_row("shutting it down, s", f"{r['ray_shutdown_s']:.1f}", "")
    p = pipeline_ratio()
    table.add_row(f"bare loop, matches per CPU-second ({p['matches']} matches)", f"{p['bare_per_cpu']:.1f}", "baseline")
    table.add_row(f"Ray pipeline (2 workers) / bare loop, per CPU-second, {p['repeats']} runs pooled",
                  f"{p['ray_ratio']:.2f}", "≥ 0.75")
    table.add_row("  each run alone", " ".join(f"{r:.2f}" for r in p["ray_ratios"]), "")
    table.add_row("local executor / bare loop, per CPU-second", f"{p['local_ratio']:.2f}", "")
    table.add_row("Ray pipeline / two bare loops at once, per CPU-second (not the aim's figure)",
                  f"{p['ray_pair_ratio']:.2f}", "")
    table.add_row("compaction at the end of the run, CPU ms per match", f"{p['compact_ms']:.2f}", "")
    table.add_row("bare loop, two at once / alone, CPU per match", f"{two_at_once():.2f}", "1.00 when idle")
    Console().print(table)


if __name__ == "__main__":
    main()
