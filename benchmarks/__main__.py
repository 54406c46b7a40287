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
    from .coverage_study import coverage_table
    from results.coverage import study
    from results.sandwich import PRIOR_DEAL_SETS

    Console().print(coverage_table(study(), PRIOR_DEAL_SETS))


def _search_rows():
    from .search_bench import clone_ratio, determinise_rate, playout_ratio

    c = clone_ratio()
    yield "clone of a mid-round state, µs (CPU)", f"{c['clone_us']:.1f}", ""
    yield "deepcopy of the same state, µs (CPU)", f"{c['deepcopy_us']:.1f}", "baseline"
    yield "clone / deepcopy time", f"{c['ratio']:.3f}", "≤ 0.1"
    p = playout_ratio()
    yield "fast-path random playouts, actions/s", f"{p['fast']:,.0f}", ""
    yield "public checked path (observe, legal, text), actions/s", f"{p['public']:,.0f}", "baseline"
    yield "fast / public checked path", f"{p['ratio']:.1f}", "≥ 3"
    yield "public checked path without observing, actions/s", f"{p['apply_only']:,.0f}", ""
    yield "fast / public without observing", f"{p['apply_ratio']:.1f}", ""
    d = determinise_rate()
    yield "determinise a mid-round view, worlds/s", f"{d['view']:,.0f}", ""
    yield "determinise, knowledge read once, worlds/s", f"{d['knowledge']:,.0f}", ""


def _mc_rows():
    from .mc_bench import mc_decision_times

    t = mc_decision_times()
    yield "mc decision time, median s (default budget, CPU)", f"{t['median']:.3f}", "≤ 0.15"
    yield "mc decision time, 90th percentile s", f"{t['p90']:.3f}", ""


def _page_cache_rows():
    from .fairplay_bench import MAILBOX_BITS, inode_channel, page_cache_channel, resident_runtime_cost, \
        runtime_start_times

    r = page_cache_channel()
    if r is not None:
        yield f"page-cache mailbox at one table, bits of {MAILBOX_BITS} heard, host's /usr", f"{r['host']:.0f}", "baseline"
        yield "the same, the runtime's resident copy", f"{r['resident']:.0f}", "0"
    r = inode_channel()
    if r is not None:  # open: docs/security.md, "What remains"
        yield "inode-counter mailbox at one table, cards heard right of those said", f"{r['heard']} of {r['said']}", "0"
    r = resident_runtime_cost()
    if r is not None:
        yield "resident runtime copy: memory per node, MiB (files)", f"{r['mib']:,.0f} ({r['files']:,})", ""
        yield "resident runtime copy: made once per node, s wall / s CPU (warm page cache)", \
            f"{r['build_s']:.1f} / {r['build_cpu_s']:.1f}", ""
    r = runtime_start_times()
    if r is not None:
        for kind, t in r.items():
            yield f"{kind} kit start to hello, resident runtime / host's /usr (median wall s)", \
                f"{t['resident_s']:.3f} / {t['host_s']:.3f}", ""
            yield f"{kind} kit start, resident / host", f"{t['ratio']:.2f}", "≈ 1"


def _fair_design_rows():
    from .fair_design import study

    for players, deals in ((2, 200), (4, 100)):
        r = study("builtin:pairs", players, deals)
        yield (f"fair design, pairs vs greedy, {players} players ({deals} deals): program matches / rotation's",
               f"{r['fair']:.2f}", "")
        yield f"the same, independent deals / rotation's (seat-control correlation {r['rho']:.2f})", \
            f"{r['independent']:.2f}", "baseline"


def _value_rows():
    from .value_bench import value_decision_times

    t = value_decision_times()
    g = t["greedy"]
    for name, aim in (("vgreedy", "≤ 0.1"), ("vbot", "≤ 0.1")):
        yield f"{name} decision time, median / 90th percentile s (CPU)", \
            f"{t[name]['median']:.3f} / {t[name]['p90']:.3f}", f"{aim} / ≤ 0.3"
        yield f"{name} / greedy, 90th percentile decision time", f"{t[name]['p90'] / g['p90']:.0f}", ""


def _optional_rows():
    yield from _search_rows()
    yield from _mc_rows()
    yield from _value_rows()
    from .skill_bench import skill_rows

    yield from skill_rows()
    from .bots_bench import greedy_rounds

    yield "rounds/s, four greedy bots (CPU time)", f"{greedy_rounds():,.1f}", "≥ 300"
    from .solver_bench import solver_times

    t = solver_times()
    yield "solver best_opening median ms (15 cards)", f"{t['median_ms']:.3f}", "≤ 0.1"
    yield "solver best_opening p99 ms (15 cards)", f"{t['p99_ms']:.3f}", ""
    from .protocol_bench import roundtrip_rates

    r = roundtrip_rates()
    yield "raw JSON echo child round trips/s", f"{r['raw']:,.0f}", "baseline"
    yield "sandboxed bot through the harness, round trips/s", f"{r['harness']:,.0f}", ""
    yield "harness / raw round-trip rate", f"{r['ratio']:.3f}", "≥ 0.70"
    from .request_bench import request_costs

    costs = request_costs()
    for observation in ("delta", "full"):
        new, old = costs[("incremental", observation)], costs[("rebuilt", observation)]
        yield (f"request ({observation}), µs a decision early / late in a round (CPU)",
               f"{new['early_us']:.1f} / {new['late_us']:.1f}", "")
        yield f"request ({observation}): late / early", f"{new['ratio']:.2f}", "≈ the view's own growth"
        yield f"the full rebuild it replaced ({observation}): late / early", f"{old['ratio']:.2f}", "baseline"
    state = costs[("state", "delta")]
    yield "the view's own fields and legal as JSON (no history): late / early", f"{state['ratio']:.2f}", "floor"
    from .protocol_bench import staged_bytecode_startup

    r = staged_bytecode_startup()
    if r is not None:
        yield "sandboxed protocol greedy bot start to hello, staged bytecode, s (median wall)", f"{r['with_s']:.3f}", ""
        yield "the same, copies staged without bytecode, s", f"{r['without_s']:.3f}", "baseline"
        yield "start with bytecode / without", f"{r['ratio']:.2f}", "< 1"
    from .reuse_bench import tournament_ratio

    r = tournament_ratio()
    if r is not None:
        yield "4-player tournament, in-process greedy, matches per CPU s", f"{r['in_process']:.2f}", "baseline"
        yield "the same, sandboxed protocol greedy, processes kept (protocol 2)", f"{r['sandboxed']:.2f}", ""
        yield "sandboxed / in-process tournament rate (harness and bots' CPU)", f"{r['ratio']:.2f}", "≥ 0.5"
        yield "the same, the harness process's CPU only", f"{r['harness_ratio']:.2f}", ""
        yield "the same: matches in the task, bot processes started", f"{r['matches']} / {r['starts']}", ""
        yield ("CPU µs a decision: in process / sandboxed harness / sandboxed bots",
               f"{r['in_process_us']:.0f} / {r['harness_us']:.0f} / {r['bots_us']:.0f}", "")
        yield ("harness CPU µs in a sandboxed decision (median), first / last quarter of a round",
               f"{r['early_us']:.0f} / {r['late_us']:.0f}", "")
        yield "the same, last / first quarter", f"{r['late_early']:.2f}", "≈ 1 (flat)"
        yield "the ratio if the harness's protocol work cost nothing (bots' CPU as measured)", f"{r['bound']:.2f}", ""
    from .reuse_bench import bot_cache_cost

    r = bot_cache_cost()
    if r is not None:
        yield "protocol greedy bot alone on a pipe, CPU µs a request, caches warm", f"{r['warm_us']:.0f}", "baseline"
        yield "the same, 2 MB written between requests (a shared core's L2)", f"{r['swept_us']:.0f}", ""
        yield "the same, swept / warm", f"{r['swept_warm']:.2f}", ""
    from .fairplay_bench import victim_slowdown

    r = victim_slowdown()
    if r is not None:
        yield "fair clocks: a thinker's wall time per 0.1 s think, next to greedy, s", f"{r['alone_s']:.3f}", "baseline"
        yield "fair clocks: the same next to a bot whose children spin, s", f"{r['hogged_s']:.3f}", ""
        yield "fair clocks: next to the hog / next to greedy", f"{r['ratio']:.2f}", "≤ 1.5"
    from .fairplay_bench import freeze_cost

    r = freeze_cost()
    if r is not None:
        yield "sandboxed echo round trips/s, not frozen (baseline)", f"{r['plain']:,.0f}", "baseline"
        yield "the same, frozen between messages", f"{r['frozen']:,.0f}", ""
        yield "freezing and thawing a bot, µs per decision", f"{r['cost_us']:.0f}", ""
    yield from _page_cache_rows()
    yield from _fair_design_rows()
    from .ratings_bench import rating_fit_seconds

    r = rating_fit_seconds()
    yield "ratings: fit 1,000,000 synthetic 4-player matches, s", f"{r['fit_s']:.2f}", "≤ 1"
    yield "ratings: the same fit with intervals clustered by deal set, s", f"{r['fit_cluster_s']:.2f}", "≤ ~1"
    yield "ratings: the same fit from the aggregated rows only, s", f"{r['solve_s']:.2f}", ""
    from .balance_bench import balance_seconds

    r = balance_seconds()
    yield "balance tables on 1,000,000 round rows, s", f"{r['balance_s']:.2f}", ""
    yield "baseline: one scan + group_by of those rows, s", f"{r['baseline_s']:.2f}", "baseline"
    from .einundfuenfzig_bench import games_per_second

    r = games_per_second()
    yield "Einundfünfzig games/s, four random bots", f"{r['games']:,.0f}", ""
    yield "Ellibir rounds/s, four random bots, same run", f"{r['ellibir_rounds']:,.0f}", "baseline"
    from .storage_bench import storage_rows

    yield from storage_rows()
    from .ray_bench import ray_speedup

    r = ray_speedup()
    yield "Ray: start a local Ray, seconds", f"{r['ray_start_s']:.2f}", ""
    yield "Ray: matches/s, 1 worker", f"{r['one_worker']:.1f}", ""
    yield "Ray: matches/s, 2 workers", f"{r['two_workers']:.1f}", ""
    yield "Ray: speed-up, 2 workers / 1", f"{r['speedup']:.2f}", "≥ 1.8"
    yield "cores two busy processes get now", f"{r['cpu_capacity']:.2f}", "2.00 when idle"
    from .ray_bench import PIPELINE_DEAL_SETS, pipeline_ratio

    r = pipeline_ratio(PIPELINE_DEAL_SETS)
    yield f"bare loop (run_match, nothing recorded), matches per CPU-second, {r['matches']} matches", \
        f"{r['bare_per_cpu']:.1f}", "baseline"
    yield f"Ray pipeline (2 workers) per CPU-second / bare loop, {r['repeats']} runs pooled", f"{r['ray_ratio']:.2f}", \
        "≥ 0.75"
    yield "  the same, each run alone", " ".join(f"{x:.2f}" for x in r["ray_ratios"]), ""
    yield "local executor per CPU-second / bare loop", f"{r['local_ratio']:.2f}", ""
    yield "Ray pipeline per CPU-second / two bare loops at once (a second figure)", f"{r['ray_pair_ratio']:.2f}", ""
    yield "compaction at the end of a run, CPU ms per match", f"{r['compact_ms']:.2f}", ""
    small = pipeline_ratio(12)
    yield f"the same for a run of {small['matches']} matches (fixed costs weigh more)", f"{small['ray_ratio']:.2f}", ""
    from .ray_bench import two_at_once

    yield "bare loop, two at once / alone, CPU per match", f"{two_at_once():.2f}", "1.00 when idle"


if __name__ == "__main__":
    main()
