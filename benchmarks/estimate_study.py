"""How good is a run's time estimate? Real runs on this machine, each estimated three ways and timed.

``python -m benchmarks.estimate_study`` plays a few small real runs (built-in and sandboxed protocol
bots, two and four players, Ray and the local executor) and prints, for each:

- the old estimate: the plan's first matches played alone in the driver (at most 4, or 3 s; here on
  fresh deals, since the run's own deals must not be peeked at), their mean time spread over the
  workers: what ``tournament run`` said before issue 27;
- the pilot's estimate (harness/runs/estimate.py): one small task per worker on fresh deals, on the
  run's workers, each match timed where it is played;
- the live estimate after 10% and 25% of the matches: elapsed play time plus the time left as the
  progress bar says it (the run's own timed matches, then its pace once every worker finished a task);
- the time the run then took to play (from its first task to its last), and the time from the
  estimate to the end of the command's work (play, then writing and merging the parts).

Each ratio is actual / estimate (1 is exact; above 1 the estimate was low); "load" is the machine's
one-minute load average during the run (other work on the machine makes every figure noisy).
docs/tournaments.md has the table of one run of this study.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CONFIGS = [
    # (label, bots, players, deal sets, rounds, workers, executor)
    ("3 built-in bots, 4 players", ["builtin:greedy", "builtin:pairs", "builtin:random"], 4, 150, 5, 2, "ray"),
    ("2 built-in bots, 2 players", ["builtin:greedy", "builtin:pairs"], 2, 300, 5, 2, "ray"),
    ("mc against greedy, 2 players", ["builtin:mc:worlds=8", "builtin:greedy"], 2, 12, 1, 2, "ray"),
    ("2 sandboxed bots, 2 players", [str(ROOT / "bots/protocol/greedy"), str(ROOT / "bots/protocol/pairs")], 2, 80,
     3, 2, "ray"),
    ("2 built-in bots, local executor", ["builtin:greedy", "builtin:pairs"], 2, 150, 5, 1, "local"),
]


def old_estimate(plan: dict, workers: int) -> float:
    """The estimate before issue 27: up to 4 of the plan's matches (3 s) in the driver, spread over the
    workers; played here on fresh deals."""
    from harness.runs.distributed import play_batch
    from harness.runs.estimate import pilot_matches
    from harness.runs.jobs import Job
    from harness.runs.parts import pack_bots

    job, packs = Job.of_plan(plan), pack_bots(plan)
    start, played = time.perf_counter(), 0
    for match in pilot_matches(plan, 4):
        play_batch(job, [match], packs)
        played += 1
        if time.perf_counter() - start >= 3.0:
            break
    return (time.perf_counter() - start) / played * len(plan["matches"]) / max(1, workers)


def one(label, bots, players, deal_sets, rounds, workers, executor, where: Path) -> dict:
    from rich.console import Console

    from harness.runs.listeners import ProgressDisplay
    from harness.runs.options import make_config
    from harness.runs.tournament import execute, prepare

    flags = {"bots": bots, "set": [f"players={players}", f"rounds={rounds}"], "deal_sets": deal_sets,
             "out": where / "run", "workers": workers, "executor": executor}
    plan, run_dir = prepare(make_config("tournament", flags))
    old = old_estimate(plan, workers)
    seen = {}

    class Watch(ProgressDisplay):
        def opened(self, run):
            super().opened(run)
            seen["estimate"], seen["at"] = self.said, time.monotonic()

        def stored(self, run, results):
            super().stored(run, results)
            share = run.outcome.done / run.outcome.planned
            for mark in (0.10, 0.25):
                if share >= mark and mark not in seen and self.estimate.source == "this run":
                    seen[mark] = run.elapsed + (self.left(run) or 0.0)

    quiet = Console(file=open(os.devnull, "w"), stderr=False)
    display = Watch(quiet, quiet=False)
    load = os.getloadavg()[0]
    outcome = execute(plan, run_dir, new=True, workers=workers, executor=executor, listeners=[display])
    after = time.monotonic() - seen["at"]
    return {"label": label, "matches": outcome.planned, "old": old, "pilot": seen.get("estimate"),
            "load": (load + os.getloadavg()[0]) / 2,
            "live10": seen.get(0.10), "live25": seen.get(0.25), "played": outcome.elapsed, "after": after}


def study(configs=CONFIGS) -> list[dict]:
    out = []
    for config in configs:
        where = Path(tempfile.mkdtemp(prefix="ellibir-estimate-"))
        where.chmod(0o755)
        try:
            out.append(one(*config, where))
        finally:
            shutil.rmtree(where, ignore_errors=True)
    return out


def table(rows: list[dict]):
    from rich.table import Table

    t = Table(title="Time estimates against the time runs took (ratio: actual / estimate)")
    for c in ("run", "matches", "load", "took to play", "old estimate", "pilot (new)", "live at 10%", "live at 25%",
              "estimate to end"):
        t.add_column(c, justify="left" if c == "run" else "right")

    def cell(estimate, actual):
        return "—" if not estimate else f"{estimate:.1f} s ({actual / estimate:.2f}x)"

    for r in rows:
        t.add_row(r["label"], str(r["matches"]), f"{r['load']:.1f}", f"{r['played']:.1f} s", cell(r["old"], r["played"]),
                  cell(r["pilot"], r["played"]), cell(r["live10"], r["played"]), cell(r["live25"], r["played"]),
                  cell(r["pilot"], r["after"]))
    return t


def main() -> None:
    from rich.console import Console

    rows = study()
    Console(width=160).print(table(rows))


if __name__ == "__main__":
    sys.exit(main())
