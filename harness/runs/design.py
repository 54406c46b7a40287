"""Which study design answers a run's question, said in one line before anything is played.

Three designs (``harness.runs.plan.make_plan``):

- ``duplicate``: every deal seed under every seat rotation of every table (every bot plays every
  hand from every seat);
- ``independent``: each table once per deal set, on a deal of its own;
- ``common``: the same deal seeds for every variant, each table once per deal set, its seats drawn
  at random per deal set (the same seats for every variant).

The default follows the question (measured on real runs; docs/analysis.md has the table):

- a rules sweep compares variants on common deals: rotating the seats over one deal made a deal
  set's matches alike (design effects of 10-13), so the same matches gave intervals about 3.5x
  wider than without rotations;
- two bots head to head (2 players): duplicate deals, which needed 1.7-2.2x fewer matches than
  independent ones for the same precision;
- a gauntlet against one bot at 3-4 players (the challenger and copies of that bot): duplicate
  deals, the challenger at every seat of every deal. Against three copies of greedy, the same 1,000
  matches gave intervals 1.8-2.1x narrower than independent deals (0.24-0.30x the matches for the
  same precision; docs/analysis.md);
- a field at 3-4 players with copies of a bot at a table: independent deals, which needed 0.58-0.86x
  the matches of duplicate ones;
- 3-4 players, every bot once per table: duplicate deals (every bot meets every hand and seat).

A tournament with a submitted bot (the arena's) plays the **fair** design: no bot meets a deal twice,
so none can carry what it learnt of a deal into another match by a channel not yet found; each deal
is also played by a control table of the reference bot, and results are paired with it
(results/fair.py, docs/analysis.md).

``--duplicate`` / ``--no-duplicate`` (``duplicate = true/false`` in TOML), or ``--design NAME``, override
the default.
"""

from __future__ import annotations

DESIGNS = ("duplicate", "independent", "common", "fair")
TEXT = {
    "duplicate": "duplicate deals, every seat rotation",
    "independent": "independent deals, one seating per table and deal set",
    "common": "the same deals for every variant, one seat rotation per deal set drawn at random",
    "fair": "fair: no bot meets a deal twice, each deal also played by a control table of the reference bot",
}
FAIR_REASON = ("a submitted bot: no bot meets a deal twice, so none can carry a deal from one match to the next; "
               "each result is paired with the reference bot's in its seat on the same deal")


def has_copies(form: str, bots: int, players: int) -> bool:
    """Whether some table seats a bot twice (fewer bots, or field bots for a gauntlet, than seats)."""
    return bots - 1 < players - 1 if form == "gauntlet" else bots < players


def choose(kind: str, form: str, players: int, bots: int, duplicate: bool | None, design: str | None = None,
           submitted: bool = False) -> tuple[str, str]:
    """(design, the reason in a few words) for a run of ``kind`` ("tournament" or "sweep"); ``design``
    as asked for (``--design``), ``submitted``: a bot of the arena plays (then the fair design)."""
    if design is not None:
        return design, f"asked for (--design {design})"
    if duplicate is True:
        return "duplicate", "asked for (--duplicate)"
    if duplicate is False:
        return "independent", "asked for (--no-duplicate)"
    if kind == "sweep":
        return "common", ("a rules sweep compares variants on the same deals; rotating seats within a deal set "
                          "made its matches alike (design effects 10-13) and wasted them")
    if submitted:
        return "fair", FAIR_REASON
    if players == 2:
        return "duplicate", "two players head to head: duplicate deals needed 1.7-2.2x fewer matches"
    if form == "gauntlet" and bots == 2:
        return "duplicate", ("a challenger against copies of one bot plays every hand from every seat; at 4 players "
                             "duplicate deals needed 0.24-0.30x the matches")
    if has_copies(form, bots, players):
        return "independent", ("copies of a bot at a table: rotating seats over one deal makes those matches "
                               "alike (independent deals needed 0.58-0.86x the matches)")
    return "duplicate", "every bot once per table: each plays every hand from every seat"


def plan_line(plan: dict) -> str:
    """One line: the plan's size, its design and why."""
    design = plan.get("design") or ("duplicate" if plan.get("duplicate", True) else "independent")
    variants = len(plan.get("variants") or [])
    per = len(plan["matches"]) // max(1, variants * plan["deal_sets"])
    size = (f"{len(plan['matches'])} matches ({variants} variant{'s' if variants != 1 else ''} x "
            f"{plan['deal_sets']} deal sets x {per} per deal set)")
    reason = plan.get("design_reason")
    return f"plan: {size}; design: {TEXT[design]}" + (f" ({reason})" if reason else "")


def announce(run, quiet: bool, console, estimate=None) -> None:
    """Before a new run plays: the plan line, what the plan will measure (results/precision.py), and
    unless ``quiet`` the time it should take, from a pilot on fresh deals on the run's own workers
    (harness/runs/estimate.py: never a deal of the run). ``estimate``: an ``estimate.Estimate`` the
    pilot's timings go to, for the progress bar."""
    from results.precision import plan_precision

    from .estimate import Estimate, estimate_line, pilot

    plan = run.plan
    console.print(plan_line(plan), markup=False, soft_wrap=True)
    console.print(plan_precision(plan), markup=False, soft_wrap=True)
    if plan.get("skill"):
        from results.precision import skill_precision

        console.print(skill_precision(plan), markup=False, soft_wrap=True)
    if quiet:
        return
    estimate = estimate if estimate is not None else Estimate(run.slots)
    try:
        timed, wall, whole = pilot(run.executor, plan, run.slots)
    except Exception as e:  # noqa: BLE001  (the run itself will report what is wrong)
        console.print(f"estimate: the pilot did not run ({str(e).splitlines()[0] if str(e) else type(e).__name__})",
                      markup=False, soft_wrap=True)
        return
    for task in timed:
        estimate.add(task, "the pilot")
    console.print(estimate_line(estimate, len(run.todo), run.task_count(), whole, wall), markup=False,
                  soft_wrap=True)


__all__ = ["DESIGNS", "TEXT", "announce", "choose", "has_copies", "plan_line"]
