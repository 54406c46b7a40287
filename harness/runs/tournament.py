"""Tournaments and variant sweeps: options -> a plan (``run.json``) -> a run -> standings.

The parts: harness/runs/options.py (the options: config file and flags -> ``Config``), this module
(``prepare``: the options checked and the run planned, nothing written; the bots resolved and
packed; what the runner writes to the store; reading a run back), harness/runs/plan.py (the plan and
``run.json``), harness/runs/jobs.py (the typed values passed between the parts), harness/runs/runner.py
(``execute``: plays what the plan holds and the run folder does not), harness/runs/executors.py (Ray, or
in this process), harness/runs/listeners.py (standings, the sequential test, ratings, the progress
display), harness/runs/distributed.py (Ray and the task body).

``resume`` is ``execute`` with ``new=False`` on the plan of ``load_run(run_dir)``.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import plan as planning
from . import runfolder
from .design import choose as choose_design
from .listeners import SPRT_FILE, Standings, read_sprt, resume_sprt, sequential_test, write_sprt  # noqa: F401
from .options import (
    EXECUTORS, RUN_OPTIONS, SPRT_DEFAULTS, Config, TournamentError, load_config, make_config, sprt_settings,
)
from .options import _check_options
from .runlock import LOCK_FILE
from .parts import next_attempt, pack_bots, stored_rows, write  # noqa: F401
from .runner import GRACE, MAX_BATCH, TASKS_PER_WORKER, Outcome, _schema_rules, batches, execute  # noqa: F401
from bots import reference_bot
from harness.players.seeds import fresh_run_seed


# Planning -------------------------------------------------------------------------------------------

def _sprt_plan(c: Config, bots: list[dict]) -> dict:
    """The test's settings as the plan keeps them: the challenger, the bots it is tested against."""
    field = [b["label"] for b in bots[1:]]
    vs = field
    if c.vs:
        specs = [c.vs] if isinstance(c.vs, str) else list(c.vs)
        vs = list(dict.fromkeys(b["label"] for b in resolve_bots(specs, c.arena, c.game)))
        outside = [label for label in vs if label not in field]
        if outside:
            raise TournamentError(f"--vs {outside[0]} is not in the gauntlet's field ({', '.join(field)})")
    return {"bot": bots[0]["label"], "vs": vs, **sprt_settings(c)}


def resolve_bots(specs: list, arena_dir=None, game: str = "ellibir") -> list[dict]:
    """Each bot name resolved by the arena (builtin:NAME of ``game``, a bot folder, a submitted NAME[@VERSION])."""
    from harness.arena.registry import Arena, ArenaError, resolve_bot

    arena = Arena(arena_dir)
    out = []
    for spec in specs:
        try:
            bot = resolve_bot(spec, arena, game)
        except ArenaError as e:
            raise TournamentError(str(e)) from None
        if bot["kind"] != "builtin":
            bot["folder"] = str(Path(bot["folder"]).resolve())
        out.append(bot)
    distinguish(out, arena)
    if any(b["kind"] != "builtin" for b in out):
        from harness.sandbox.bubblewrap import capabilities, sandbox_available

        if not sandbox_available():
            problem = capabilities().get("problem")
            raise TournamentError(f"bot folders need the sandbox, which cannot run here: {problem}")
    return out


def distinguish(bots: list[dict], arena=None) -> None:
    """Bot folders labelled ``name@version`` like another bot of different content, in the run or
    submitted to ``arena``, get ``+HASH`` (8 hex digits of their content hash), so two versions never
    merge under one label (``namesake_warnings`` says so)."""
    clash = [b for b in bots if b["kind"] == "folder"
             and (any(o is not b and o["label"] == b["label"] and o["hash"] != b["hash"] for o in bots)
                  or submitted_namesake(b, arena) is not None)]
    for b in clash:
        b["label"] = f"{b['label']}+{b['hash'][:8]}"


def submitted_namesake(bot: dict, arena):
    """The submission of the arena named and versioned like the folder ``bot``, with other content; or None."""
    from harness.arena.registry import ArenaError

    if arena is None or bot["kind"] != "folder":
        return None
    try:
        stored = arena.find(bot["name"], bot["version"])
    except (ArenaError, OSError):
        return None
    return stored if stored.version == bot["version"] and stored.hash != bot["hash"] else None


def namesake_warnings(plan: dict, arena_dir=None) -> list[str]:
    """One line for each folder bot of ``plan`` named ``name@version`` like a submitted bot of other
    content: a bot author who changed a bot but not its version."""
    from harness.arena.registry import Arena

    arena = Arena(arena_dir)
    out = []
    for b in plan["bots"]:
        stored = submitted_namesake(b, arena)
        if stored is not None:
            out.append(f"the bot folder {b['folder']} is {b['name']}@{b['version']}, like the bot submitted to the arena "
                       f"{arena.root} under that name and version, with other content (folder {b['hash'][:12]}, "
                       f"submitted {stored.hash[:12]}): its results are labelled {b['label']}; give a changed bot "
                       f"a new version")
    return out


def prepare(c: Config) -> tuple[dict, Path]:
    """Check the options and plan the run; returns (plan, run folder). Writes nothing."""
    _check_options(c)
    sets = dict(c.sets)
    players = sets.pop("players", 4)
    try:
        players = int(players)
    except (TypeError, ValueError):
        raise TournamentError(f"players must be a whole number, got {players!r}") from None
    if not 2 <= players <= 4:
        raise TournamentError(f"--players must be 2 to 4, got {players}")
    specs = list(c.bots)
    if c.format == "gauntlet":
        specs = [c.challenger] + specs
    if not specs or (c.format == "gauntlet" and len(specs) < 2):
        raise TournamentError("give the bots with --bot (the field, for a gauntlet)")
    from .limits import check_run_size

    count = len(dict.fromkeys(specs))
    duplicate = c.duplicate if c.duplicate is not None else choose_design(c.kind, c.format, players, count, None)[0] == "duplicate"
    try:  # the plan's size from the options alone, before any table, variant or deal seed is made
        check_run_size(c.format, count, players, c.deal_sets, c.vary, duplicate, c.workers)
    except planning.PlanError as e:
        raise TournamentError(str(e)) from None
    bots = resolve_bots(specs, c.arena, c.game)
    if c.format == "gauntlet":  # the challenger is not part of its own field
        bots = bots[:1] + [b for b in bots[1:] if b["label"] != bots[0]["label"]]
        if len(bots) < 2:
            raise TournamentError("the gauntlet's field is empty: give other bots than the challenger")
    try:
        variants = planning.variant_grid(c.preset or "standard", sets, list(c.vary.items()), players, c.game)
        for v in variants:  # the varied values as the rules hold them (typed, canonical)
            normal = v["rules"].normalised()
            v["fields"] = {k: normal.get(k, value) for k, value in v["fields"].items()}  # preset: its name
        if variants[0]["rules"].game != c.game:
            raise TournamentError(f"unknown game {c.game!r} (known: {variants[0]['rules'].game})")
        seed = fresh_run_seed() if c.seed is None else c.seed
        name = c.name or planning.default_name(c.format)
        options = {"move_time": c.move_time, "bank": c.bank, "first_time": c.first_time,
                   "on_fault": c.on_fault, "max_refusals": c.max_refusals, "cpu_limit": c.cpu_limit}
        submitted = any(b["kind"] == "submitted" for b in bots)
        design, reason = choose_design(c.kind, c.format, players, len(bots), c.duplicate, c.design, submitted)
        control = resolve_bots([f"builtin:{reference_bot(c.game)}"], c.arena, c.game)[0] if design == "fair" else None
        plan = planning.make_plan(name=name, seed=seed, form=c.format, bots=bots, players=players,
                                  deal_sets=c.deal_sets, variants=variants, game=c.game, options=options, kind=c.kind,
                                  design=design, design_reason=reason, control=control)
    except ValueError as e:
        raise TournamentError(str(e)) from None
    if c.sprt:
        plan["sprt"] = _sprt_plan(c, bots)
    run_dir = c.out if c.out is not None else Path("runs") / name
    check_out(run_dir)
    try:
        runfolder.check_outside_bots(run_dir, bots)
    except runfolder.RunFolderError as e:
        raise TournamentError(str(e)) from None
    return plan, run_dir


def check_out(run_dir: Path) -> None:
    """A new run needs a folder that does not exist (or is empty) under a writable parent, and not inside
    another run's tables (its readers would find a folder among their parts, and refuse the run)."""
    from results.integrity import RUN_TABLES, is_run_folder

    for path in (run_dir.absolute(), run_dir.resolve()):
        for folder in path.parents:
            if folder.name in RUN_TABLES and is_run_folder(folder.parent):
                raise TournamentError(f"cannot write the run to {run_dir}: it is inside the run folder "
                                      f"{folder.parent}'s {folder.name}; choose another --out")
    if run_dir.exists():
        if not run_dir.is_dir():
            raise TournamentError(f"cannot write the run to {run_dir}: it is not a folder")
        if (run_dir / planning.PLAN_FILE).exists():
            raise TournamentError(f"{run_dir} already holds a run: finish it with --resume {run_dir}, "
                                  f"or choose another --out")
        if any(p.name != LOCK_FILE for p in run_dir.iterdir()):
            raise TournamentError(f"cannot write the run to {run_dir}: the folder is not empty")
        if not os.access(run_dir, os.W_OK | os.X_OK):
            raise TournamentError(f"cannot write the run to {run_dir}: permission denied")
        return
    parent = run_dir.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise TournamentError(f"cannot write the run to {run_dir}: {parent} is not a writable folder")


def job_of(plan: dict):
    """What every task of the run needs besides its matches (a ``jobs.Job``)."""
    from .jobs import Job

    return Job.of_plan(plan)



# Results --------------------------------------------------------------------------------------------

def standings_tables(plan: dict, run_dir: Path) -> list:
    """The standings of the matches stored in ``run_dir``: one table per variant, bots by mean rank
    (a bot's copies at a table count one seat each; the fair design's control tables left out). The
    mean total is over a bot's matches without a fault: after a fault the reference bot plays its seat
    out, and that play is not the bot's."""
    import polars as pl
    from rich.table import Table
    from rich.text import Text

    from results.fair import is_control
    from results.numbers import fixed
    from results.store import RunStore

    from harness.players.trace import terminal_safe

    stored = RunStore(run_dir).scan("matches").filter(~is_control(pl.col("match_id")))
    firsts = (stored.group_by("variant", "match_id").agg((pl.col("rank") == 1).sum().alias("firsts"))
              .group_by("variant").agg(pl.len().alias("matches"), (pl.col("firsts") > 1).sum().alias("shared"))
              .collect())
    shared = {r["variant"]: (r["shared"], r["matches"]) for r in firsts.iter_rows(named=True)}
    frame = (stored
             .group_by("variant", "bot")
             .agg(pl.len().alias("seats"), pl.col("rank").mean().alias("mean_rank"),
                  (pl.col("rank") == 1).mean().alias("wins"),
                  pl.col("total").filter(pl.col("faults") == 0).mean().alias("mean_total"),
                  (pl.col("faults") > 0).sum().alias("faults"))
             .collect())
    rows = frame.sort("mean_rank", "bot").to_dicts()
    tables = []
    for variant in plan["variants"]:
        title = f"Standings: {plan['name']}"
        if len(plan["variants"]) > 1:
            title += f"\n{variant_name(variant)}"
        table = Table(title=title)
        for column, justify in (("bot", "left"), ("seats", "right"), ("mean rank", "right"), ("wins", "right"),
                                ("mean total", "right"), ("faults", "right")):
            table.add_column(column, justify=justify)
        for r in rows:
            if r["variant"] == variant["id"]:
                total = "—" if r["mean_total"] is None else fixed(r["mean_total"], 1)
                table.add_row(Text(terminal_safe(r["bot"])), str(r["seats"]), f"{r['mean_rank']:.3f}", f"{100 * r['wins']:.1f}%",
                              total, str(r["faults"]))
        notes = []
        tied, matches = shared.get(variant["id"], (0, 0))
        if tied:
            notes.append(f"wins: matches finished first, a shared first place included ({tied} of {matches} matches "
                         "ended with it shared, each of its seats counted)")
        if any(r["faults"] for r in rows):
            notes.append("mean total: over matches without a fault (the reference bot played the faulty seats out)")
        if notes:
            table.caption = "\n".join(notes)
        if table.row_count:
            tables.append(table)
    return tables


def variant_name(variant: dict) -> str:
    """``threshold=71, rising_threshold=true``: the varied fields (the id when none are)."""
    import json

    return ", ".join(f"{k}={json.dumps(v)}" for k, v in variant["fields"].items()) or variant["id"]


def resume_command(run_dir: Path) -> str:
    return f"ellibir tournament run --resume {run_dir}"


def load_run(run_dir: Path) -> dict:
    """The run's ``run.json``, checked (results/integrity.py, then every value's range: harness/runs/options.py
    ``check_plan_values``): a damaged or edited plan is one line."""
    from results.integrity import check_plan

    from .options import check_plan_values

    try:
        plan = planning.read_plan(run_dir)
        check_plan(plan, Path(run_dir) / planning.PLAN_FILE)
    except ValueError as e:
        raise TournamentError(str(e)) from None
    check_plan_values(plan, Path(run_dir) / planning.PLAN_FILE)
    return plan


def missing_log(store, match_id: str) -> str:
    """Why a planned match has no log to replay: not played yet, or stored without its log."""
    if store.holder(match_id) is None:
        return f"match {match_id} is planned but not played yet: finish the run with {resume_command(store.root)}"
    return f"match {match_id} is stored, but its event log is missing from {store.root / 'logs'}"


def replay_match(run_dir: Path, match_id: str):
    """(events of the replayed match, the seating's bot labels) of a stored match."""
    from results.store import RunStore

    from harness.match.log import read

    plan = load_run(run_dir)
    try:
        planned = planning.find_match(plan, match_id)
    except planning.PlanError as e:
        raise TournamentError(str(e)) from None
    store = RunStore(run_dir)
    try:
        text = store.read_log(match_id)
    except KeyError:
        raise TournamentError(missing_log(store, match_id)) from None
    try:
        events, _notes = read(text)
    except Exception as e:  # noqa: BLE001  (a damaged log)
        raise TournamentError(f"the log of match {match_id} does not replay: {e}") from None
    return events, planned["seating"]
