"""`make bench`: a small skill study (issue 29) played in this process, its skill level and gap with
their intervals, the CPU it took, and the A/A check of skill × variant on relabelled deal sets.
docs/analysis.md ("Skill") has the larger runs and their commands.

    nice -n 19 .venv/bin/python -m benchmarks.skill_bench [deal_sets]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def skill_study(deal_sets: int = 10, seed: int = 29) -> dict:
    from results.balance import balance
    from results.per_match import low_wins
    from results.runs import open_runs
    from results.skill import points
    from results.skill_balance import design_of

    from .skill_aa import aa

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "study"
        start = time.process_time()
        child = subprocess.run([sys.executable, "-m", "harness", "study", "skill", "--ladder",
                                "builtin:random,builtin:greedy,builtin:outs", "--players", "4", "--rounds", "1",
                                "--deal-sets", str(deal_sets), "--seed", str(seed), "--executor", "local", "--quiet",
                                "--out", str(out)], cwd=ROOT, capture_output=True, text=True)
        if child.returncode != 0:
            raise RuntimeError(child.stderr[-2000:])
        cpu = time.process_time() - start
        runs = open_runs([out])
        doc = balance(runs)
        design = design_of(runs.plans)
        pts = points(runs.rounds, design.pairs(), low_wins(runs.matches))
        check = aa(pts, doc["variants"][0]["variant"], design, repeats=200)
    skill = doc["variants"][0]["skill"]
    return {"deal_sets": deal_sets, "gaps": skill["gaps"], "levels": skill["levels"], "restricted": skill["restricted"],
            "aa": check["rejected"], "cpu_children": _children_cpu(), "cpu_here": cpu}


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def skill_rows(deal_sets: int = 10):
    r = skill_study(deal_sets)
    for g in r["gaps"]:
        yield (f"skill gap {g['strong']} over {g['weak']}, points a round ({deal_sets} deal sets)",
               f"{g['estimate']:+.1f} [{g['lo']:+.1f}, {g['hi']:+.1f}]", "")
    for x in r["levels"]:
        yield (f"skill level, beginner {x['beginner']}", f"{x['estimate']:.2f} [{x['lo']:.2f}, {x['hi']:.2f}]",
               "interval ≤ 0.10 wide at full size")
    yield "A/A skill x variant, share called different (200 relabellings)", f"{r['aa']:.3f}", "≤ 0.05"
    yield "skill study CPU seconds (the study's process)", f"{r['cpu_children']:.0f}", ""


if __name__ == "__main__":
    for row in skill_rows(int(sys.argv[1]) if len(sys.argv) > 1 else 10):
        print(*row, sep="  |  ")
