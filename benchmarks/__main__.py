"""`make bench`: the figures the issues name, each with the baseline it is measured against."""

from __future__ import annotations

import os

from rich.console import Console
from rich.table import Table

from .engine_bench import engine_actions, trivial_actions


def _pin_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def main() -> None:
    _pin_one_core()
    table = Table(title="ellibir benchmarks (one core)")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_column("aim", justify="right")
    engine = engine_actions()
    trivial = trivial_actions()
    table.add_row("engine actions/s, random play", f"{engine:,.0f}", "≥ 250,000")
    table.add_row("trivial draw/discard loop actions/s", f"{trivial:,.0f}", "baseline")
    table.add_row("engine / trivial loop", f"{engine / trivial:.3f}", "")
    for name, value, aim in _optional_rows():
        table.add_row(name, value, aim)
    Console().print(table)


def _optional_rows():
    try:
        from .bots_bench import greedy_rounds
    except ImportError:
        greedy_rounds = None
    if greedy_rounds:
        yield "rounds/s, four greedy bots", f"{greedy_rounds():,.1f}", "≥ 300"
    try:
        from .solver_bench import solver_times
    except ImportError:
        return
    t = solver_times()
    yield "solver best_opening median ms (15 cards)", f"{t['median_ms']:.3f}", "≤ 0.1"
    yield "solver best_opening p99 ms (15 cards)", f"{t['p99_ms']:.3f}", ""


if __name__ == "__main__":
    main()
