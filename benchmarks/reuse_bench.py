"""A 4-player tournament of sandboxed protocol greedy bots against the same tournament in process
(issue 17): matches per CPU second of each, interleaved in one run, and their ratio.

The tournament is planned as ``tournament run`` plans it (round robin of four bots, every rotation
of each deal set) and played by ``play_batch``, the body of a Ray task, as one batch, so that bot
processes serve many matches (harness/reuse.py). CPU time counts the harness and every bot process
(the harness's own, and each bot's per match from its cgroup).
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
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
    from harness.plan import make_plan, variant_grid
    from harness.tournament import resolve_bots

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
    from harness.distributed import play_batch
    from harness.tournament import job_of, pack_bots

    from dataclasses import replace

    job = job_of(plan)
    job = replace(job, options=replace(job.options, reuse=reuse))
    return play_batch(job, list(matches if matches is not None else plan["matches"]), pack_bots(plan))


def _own_cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def timed_run(plan: dict, reuse: bool = True) -> tuple[int, float, float]:
    """Play every match of ``plan`` as ``play_batch`` does (one pool for the batch); returns the
    matches, the CPU seconds of the harness, and those of every bot process. A bot's CPU time is its
    cgroup's count per match (``SubprocessPlayer.cpu_used``): a sandboxed bot is not a child the
    harness reaps (its pid namespace's init dies with it), so RUSAGE_CHILDREN would miss it."""
    from engine.game import rules_from_dict
    from harness.match import MatchSpec, make_players, run_spec
    from harness.protocol import TimeControl
    from harness.reuse import ProcessPool

    o = plan["options"]
    clock = TimeControl(o["move_time"], o["bank"], o["first_time"])
    rules = {v["id"]: rules_from_dict(plan["game"], v["rules"]) for v in plan["variants"]}
    folders = {b["label"]: b.get("folder") or b["label"] for b in plan["bots"]}
    bots_cpu, start = 0.0, _own_cpu()
    with ProcessPool(enabled=reuse) as pool:
        for m in plan["matches"]:
            spec = MatchSpec(plan["game"], rules[m["variant"]], m["deal_seed"],
                             tuple(folders[b] for b in m["seating"]), time=clock)
            players = make_players(spec, pool=pool)
            _, _, faults = run_spec(spec, players=players)
            assert not faults, faults
            for p in players:
                used = getattr(p, "cpu_used", None)
                if getattr(p, "proc", None) is not None and used is None:
                    raise RuntimeError("no cgroup CPU count for a sandboxed bot: the ratio would be wrong")
                bots_cpu += used or 0.0
    return len(plan["matches"]), _own_cpu() - start, bots_cpu


def tournament_ratio(deal_sets: int = 4, rounds: int = 3, reuse: bool = True) -> dict | None:
    """Matches per CPU second of four sandboxed protocol greedy bots and of four in-process greedy
    bots, the same plan shape (16 matches for 4 deal sets), alternating ``rounds`` times; the best
    slice of each (other load on a shared machine only slows a slice). ``ratio`` counts the bots'
    CPU time; ``harness_ratio`` only the harness process's (what a count of the harness and its
    reaped children gives: the bots' time escapes it)."""
    from harness.sandbox import sandbox_available

    if not sandbox_available():
        return None
    names = ["g1", "g2", "g3", "g4"]
    with bot_copies(GREEDY, names) as folders:
        boxed = plan_of(folders, deal_sets)
        inproc = in_process_twin(boxed)
        rates: dict = {"sandboxed": [], "in_process": [], "harness_only": []}
        timed_run({**boxed, "matches": boxed["matches"][:4]}, reuse)  # warm up: staging, bytecode, imports
        for _ in range(rounds):
            for kind, plan in (("in_process", inproc), ("sandboxed", boxed)):
                n, harness, bots = timed_run(plan, reuse)
                rates[kind].append(n / (harness + bots))
                if kind == "sandboxed":
                    rates["harness_only"].append(n / harness)
    best = {k: max(v) for k, v in rates.items()}
    return {"sandboxed": best["sandboxed"], "in_process": best["in_process"],
            "ratio": best["sandboxed"] / best["in_process"], "matches": len(boxed["matches"]),
            "harness_ratio": best["harness_only"] / best["in_process"]}


def in_process_twin(plan: dict) -> dict:
    """The same plan with the built-in greedy bot in every seat: the in-process baseline."""
    builtin = {"kind": "builtin", "label": "builtin:greedy", "name": "greedy", "version": "", "hash": ""}
    matches = [{**m, "seating": ["builtin:greedy"] * len(m["seating"])} for m in plan["matches"]]
    return {**plan, "bots": [builtin], "matches": matches}


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    for reuse in (True, False):
        print(f"reuse={reuse}:", tournament_ratio(reuse=reuse, rounds=2))
    # batch size: a kept process serves one match per deal set of its batch, so 64 matches (16 deal
    # sets) start as many processes as 16 matches do (MAX_BATCH in harness/tournament.py is 16)
    print("reuse=True, 64 matches (16 deal sets):", tournament_ratio(deal_sets=16, rounds=1))


if __name__ == "__main__":
    main()
