"""The Elo of knowing everything: a gauntlet of the clairvoyant bot (bots/clairvoyant.py: mc whose one
world is the true state of the round, every hand and the stock in its order) against copies of greedy,
on duplicate deal sets, rated on the project's scale (a development tool; docs/bots.md has the figures).

    nice -n 19 .venv/bin/python -m benchmarks.ceiling_elo runs/ceil --deal-sets 400 --seed 62
    nice -n 19 .venv/bin/python -m benchmarks.ceiling_elo runs/ceil --stop-after 50   # resumes; 50 more deal sets
    .venv/bin/ellibir ratings runs/ceil --anchor builtin:greedy                       # the run folder rated

The run is planned and played by the tournament's own calls (``tournament.prepare``, ``runner.execute``
with the local executor, one deal set per task, in plan order) inside ``bots.analysis_bots()``: the one
block where the clairvoyant bot's name is allowed, as in a skill study's own tables. The plan is an
ordinary gauntlet (``tournament run --format gauntlet`` with the same options plans the same deal
seeds and seatings), so ``ellibir ratings`` reads the folder like any run; ``tournament run --resume``
refuses it (the plan names a bot for analysis only), and this tool resumes it instead. Only matches
played in this process see the clairvoyant: ``harness.match.run.run_match`` shows it the match.

Given a folder that holds a run, it resumes that run (the options given must match its plan) and
plays at most ``--stop-after`` more deal sets; at the end it prints the project's ratings
(``harness.cli.ratings.rate``, the call ``ellibir ratings --anchor builtin:greedy`` makes: 95%
intervals clustered by deal set, whole deal sets only) and the CPU time of this call.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bots import analysis_bots

CHALLENGER = "builtin:clairvoyant"
FIELD = "builtin:greedy"


class StopAfter:
    """A runner listener: whole deal sets in plan order (one per task), and a stop asked for after
    ``count`` of them are stored by this call (None: play to the end)."""

    def __init__(self, count: int | None):
        self.count, self.sets = count, 0

    def loaded(self, run) -> bool:
        run.by_deal_set = True
        return False

    def stored(self, run, results) -> None:
        self.sets += len({(r.id.split("-")[0], r.id.split("-")[1]) for r in results})
        if self.count is not None and self.sets >= self.count:
            run.request_stop()


def plan_of(out: Path, deal_sets: int, seed: int, rounds: int, players: int, challenger: str, field: str):
    """(plan, new): the run in ``out`` if it holds one (checked against the options), else a new plan."""
    from harness.runs import plan as planning
    from harness.runs.tournament import TournamentError, load_run, make_config, prepare

    if (out / planning.PLAN_FILE).exists():
        plan = load_run(out)  # inside analysis_bots(): its clairvoyant is allowed here only
        want = {"seed": seed, "deal_sets": deal_sets, "players": players, "challenger": challenger,
                "format": "gauntlet"}
        have = {k: plan.get(k) for k in want}
        rules = plan["variants"][0]["rules"]
        if have != want or rules.get("rounds") != rounds or [b["label"] for b in plan["bots"]] != [challenger, field]:
            raise TournamentError(f"{out} holds another run ({json.dumps(have)}, rounds {rules.get('rounds')}): "
                                  f"give its options or another folder")
        return plan, False
    flags = {"format": "gauntlet", "challenger": challenger, "bots": [field], "players": players,
             "deal_sets": deal_sets, "rounds": rounds, "seed": seed, "name": out.name, "out": out,
             "workers": 1, "executor": "local", "duplicate": True}
    plan, _ = prepare(make_config("tournament", flags))
    return plan, True


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks.ceiling_elo", description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--deal-sets", type=int, default=400)
    p.add_argument("--seed", type=int, default=62)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--challenger", default=CHALLENGER)
    p.add_argument("--field", default=FIELD)
    p.add_argument("--stop-after", type=int, default=None, help="deal sets to play in this call at most")
    p.add_argument("--rate-only", action="store_true")
    a = p.parse_args(argv)

    from harness.cli.ratings import rate
    from harness.runs.tournament import execute
    from results.runs import open_runs

    cpu, wall = time.process_time(), time.perf_counter()
    with analysis_bots():
        plan, new = plan_of(a.out, a.deal_sets, a.seed, a.rounds, a.players, a.challenger, a.field)
        if not a.rate_only:
            outcome = execute(plan, a.out, new=new, workers=1, executor="local", listeners=[StopAfter(a.stop_after)])
            print(f"{outcome.done} of {outcome.planned} planned matches in {a.out} ({outcome.played} played now; "
                  f"{time.process_time() - cpu:.0f} CPU s, {time.perf_counter() - wall:.0f} s wall)")
            for line in outcome.errors:
                print(f"error: {line}")
    report = rate(open_runs([a.out]), anchor=a.field)
    for board in report["leaderboards"]:
        for row in board.get("bots") or []:
            print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
