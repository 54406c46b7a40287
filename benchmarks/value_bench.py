"""Decision times of the bots that use the learned value V (vgreedy, vbot), CPU time on one core, next
to greedy's: one bot against three greedy over a few one-round deals (``benchmarks.mc_bench``'s method)."""

from __future__ import annotations

from .mc_bench import mc_decision_times


def value_decision_times(deals: int = 8) -> dict:
    """Median and 90th percentile seconds per decision of greedy, vgreedy and vbot on the same deals."""
    return {name: mc_decision_times(deals, name) for name in ("greedy", "vgreedy", "vbot")}
