"""``ellibir tournament run`` and ``ellibir sweep``: options -> a plan -> the run -> the standings
(harness/runs/tournament.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console


from harness.arena.registry import ENV as ARENA_ENV
from harness.players.trace import terminal_safe
from harness.runs.limits import check, says

from .app import InputError, app, fail
from .commands import Commands


# Tournaments and sweeps (harness/runs/tournament.py) --------------------------------------------------

tournament_app = Commands(help="Tournaments between bots on Ray: planned up front, interrupt-safe, resumable.",
                          no_args_is_help=True, pretty_exceptions_enable=False)

ConfigOpt = Annotated[Optional[Path], typer.Option(
    "--config", metavar="FILE",
    help="A TOML file with the options (its keys: docs/tournaments.md); flags override it.")]
BotsOpt = Annotated[Optional[list[str]], typer.Option(
    "--bot", metavar="BOT", help="A bot: builtin:NAME, the path of a bot folder, or a submitted NAME or NAME@VERSION. "
                                 "Repeatable; for a gauntlet, the field.")]
PlayersOpt = Annotated[Optional[int], typer.Option(help="Players at every table, 2 to 4 (default 4): short for "
                                                       "--set players=N.")]
FormatOpt = Annotated[Optional[str], typer.Option(
    "--format", metavar="round-robin|gauntlet",
    help="round-robin: every combination of the bots at the tables (filled with copies when there are fewer "
         "bots than seats); gauntlet: the challenger against the field, one challenger per table.")]
ChallengerOpt = Annotated[Optional[str], typer.Option(metavar="BOT", help="The gauntlet's challenger.")]
DealSetsOpt = Annotated[Optional[int], typer.Option(
    "--deal-sets", metavar="N",
    help=f"Deal seeds ({says('--deal-sets')}, default 10; a plan holds at most 1,000,000 matches, at most 64 "
         f"bots and 1,000 variants); under duplicate deals each is played under every seat rotation of every "
         f"table (see --duplicate).")]
DuplicateOpt = Annotated[Optional[bool], typer.Option(
    "--duplicate/--no-duplicate",
    help="Duplicate deals: every deal seed under every seat rotation of every table. --no-duplicate: each table "
         "once per deal set, on a deal of its own. Default: by the question (two players: duplicate; copies of a "
         "bot at 3-4-player tables: independent; a sweep: the same deals per variant, one rotation drawn per deal "
         "set); the plan says which and why.")]
DesignOpt = Annotated[Optional[str], typer.Option(
    "--design", metavar="duplicate|independent|fair",
    help="The design instead of --duplicate/--no-duplicate. fair: no bot meets a deal twice (a deal set plays "
         "its deal once per bot, at tables that share no bot, and at a control table of the reference bot, whose "
         "result in each seat is subtracted; the arena's default for submitted bots; docs/analysis.md).")]
RoundsOpt = Annotated[Optional[int], typer.Option(help="Counted rounds per match: short for --set rounds=N.")]
GameOpt = Annotated[Optional[str], typer.Option(help="The game (default ellibir).")]
PresetOpt = Annotated[Optional[str], typer.Option(help="Rules preset: standard or tr-wiki.")]
SetOpt = Annotated[Optional[list[str]], typer.Option(
    "--set", metavar="FIELD=VALUE", help="Override one rules field. Repeatable.")]
MoveTimeOpt = Annotated[Optional[float], typer.Option(
    "--move-time", metavar="SECONDS", help=f"Time for one decision of a bot program ({says('--move-time')}).")]
BankOpt = Annotated[Optional[float], typer.Option(
    "--bank", metavar="SECONDS",
    help=f"Overtime per match a bot program may spend beyond its move times ({says('--bank')}).")]
FirstTimeOpt = Annotated[Optional[float], typer.Option(
    "--first-time", metavar="SECONDS",
    help=f"Time for a bot program's handshake and first decision ({says('--first-time')}).")]
OnFaultOpt = Annotated[Optional[str], typer.Option(
    "--on-fault", metavar="forfeit|fallback", help="What a bot's fault costs, as in play.")]
MaxRefusalsOpt = Annotated[Optional[int], typer.Option(
    help=f"Refusals a seat may have in one turn, as in play ({says('--max-refusals')}).")]
CpuLimitOpt = Annotated[Optional[float], typer.Option(
    "--cpu-limit", metavar="SECONDS", help=f"CPU time a bot program may use in one match, as in play "
                                           f"({says('--cpu-limit')}; default: what its clock allows, plus 5 s).")]
SeedOpt = Annotated[Optional[int], typer.Option(
    help=f"The run's seed, {says('--seed')}: it fixes the plan and every deal (default: a fresh 128-bit random seed, kept in "
         f"run.json). A small seed is guessable: a bot that tries small seeds can learn every hand.")]
NameOpt = Annotated[Optional[str], typer.Option(help="The run's name (default: FORMAT-DATE-TIME-XXXX).")]
OutOpt = Annotated[Optional[Path], typer.Option(metavar="DIR", help="The run folder (default: ./runs/NAME).")]
WorkersOpt = Annotated[Optional[int], typer.Option(
    metavar="N", help=f"Tasks at once: the local Ray's CPUs (default: all cores), or a cap on a cluster "
                      f"({says('--workers')}).")]
AddressOpt = Annotated[Optional[str], typer.Option(
    metavar="ADDRESS", help="Join a running Ray cluster: auto, HOST:PORT or ray://HOST:PORT (default: a local Ray).")]
ExecutorOpt = Annotated[Optional[str], typer.Option(
    "--executor", metavar="ray|local",
    help="ray (default): a local Ray or the cluster of --address; local: every match in this process, one at a "
         "time, without Ray's start (small runs).")]
QuietOpt = Annotated[bool, typer.Option(
    "--quiet", help="No progress bar and no time estimate (no pilot): the plan, then the standings.")]
CompactOpt = Annotated[Optional[bool], typer.Option(
    "--compact/--no-compact", help="At the end of the run, merge its parts (a file per task) into few large files "
                                    "(default); --no-compact leaves them as written (`ellibir compact` merges later).")]
ResumeOpt = Annotated[Optional[Path], typer.Option(
    metavar="DIR", help="Finish the run in DIR (its run.json): the planned matches not played yet.")]
ArenaOpt = Annotated[Optional[Path], typer.Option(
    "--arena", metavar="DIR", help=f"Where submitted bots are found (default: ${ARENA_ENV}, or ./arena).")]
SprtOpt = Annotated[bool, typer.Option(
    "--sprt", help="Gauntlet only: stop as soon as a sequential test (SPRT) of the challenger against the field, "
                   "over whole deal sets, decides; the verdict goes to RUN/sprt.json.")]
VsOpt = Annotated[Optional[list[str]], typer.Option(
    "--vs", metavar="BOT", help="With --sprt: the field bot(s) the challenger is tested against (default: the "
                                "whole field). Repeatable.")]
Elo0Opt = Annotated[Optional[float], typer.Option(
    "--elo0", metavar="ELO", help="With --sprt: H0, the challenger is ELO stronger (default 0).")]
Elo1Opt = Annotated[Optional[float], typer.Option(
    "--elo1", metavar="ELO", help="With --sprt: H1, the challenger is ELO stronger; above --elo0 (default 5).")]
AlphaOpt = Annotated[Optional[float], typer.Option(
    "--alpha", metavar="P", help="With --sprt: the chance of accepting H1 when H0 holds (default 0.05).")]
BetaOpt = Annotated[Optional[float], typer.Option(
    "--beta", metavar="P", help="With --sprt: the chance of accepting H0 when H1 holds (default 0.05).")]


ReplicateOpt = Annotated[Optional[Path], typer.Option(
    "--replicate", metavar="RUN_DIR",
    help="Confirm the run in RUN_DIR on new deals: the same bots (the same code), rules, variants, design, "
         "deal sets and options, fresh deal seeds (a new run, default name RUN-replica). Takes only --name, --out, "
         "--seed, --deal-sets, --arena and how to play (--workers, --address, --executor, --quiet, --no-compact); "
         "then `ellibir balance RUN REPLICA` (or ratings, report) checks each finding on the new deals.")]


def replica_plan(kind: str, config: Optional[Path], replicate: Path, flags: dict):
    """(plan, run folder) of ``--replicate``: the options a replication may take, the first run's plan."""
    from harness.runs.replicate import REPLICA_OPTIONS, replica

    given = sorted(k for k, v in flags.items() if v is not None and k not in REPLICA_OPTIONS)
    if given or config is not None:
        raise InputError(f"--replicate takes the bots, rules and design from {replicate}/run.json: give only "
                         f"--name, --out, --seed, --deal-sets, --arena and --workers, --address, --executor, "
                         f"--no-compact, --quiet with it (not {', '.join(given) or '--config'})")
    plan, run_dir = replica(replicate, flags.get("name"), flags.get("out"), flags.get("seed"), flags.get("deal_sets"),
                            flags.get("arena"))
    if plan["kind"] != kind:
        other = "ellibir sweep" if plan["kind"] == "sweep" else "ellibir tournament run"
        raise InputError(f"{replicate} is a {plan['kind']}: replicate it with {other} --replicate {replicate}")
    return plan, run_dir


def run_tournament(kind: str, config: Optional[Path], resume: Optional[Path], flags: dict,
                   replicate: Optional[Path] = None, planner=None) -> None:
    """The body of ``tournament run``, ``sweep`` and ``study skill``: options -> plan -> run -> standings.
    ``planner``: settings -> (plan, run folder), instead of the tournament's ``prepare``."""
    from harness.runs.listeners import ProgressDisplay
    from harness.runs.plan import vary_warnings
    from harness.runs.tournament import (
        RUN_OPTIONS, execute, load_run, make_config, namesake_warnings, prepare, resume_command, standings_tables,
    )

    try:
        if resume is not None and replicate is not None:
            raise InputError("give --resume or --replicate, not both")
        if replicate is not None:
            plan, run_dir = replica_plan(kind, config, replicate, flags)
            workers, address, quiet = flags.get("workers"), flags.get("address"), bool(flags.get("quiet"))
            executor, compact, new = flags.get("executor") or "ray", flags.get("compact") is not False, True
            if executor not in ("ray", "local"):
                raise InputError(f"--executor must be one of ray, local, got {executor!r}")
            if executor == "local" and address is not None:
                raise InputError("--address joins a Ray cluster: it is not for --executor local")
            typer.echo(f"replicating {plan['replicates']['run']} on fresh deals: {run_dir}", err=True)
        elif resume is not None:
            given = sorted(k for k, v in flags.items() if v is not None and k not in RUN_OPTIONS)
            if given or config is not None:
                raise InputError(f"--resume takes the plan from {resume}/run.json: give only --workers, --address, "
                                 f"--executor, --no-compact and --quiet with it (not {', '.join(given) or '--config'})")
            plan, run_dir, new = load_run(resume), resume, False
            workers, address, quiet = flags.get("workers"), flags.get("address"), bool(flags.get("quiet"))
            executor, compact = flags.get("executor") or "ray", flags.get("compact") is not False
            if executor not in ("ray", "local"):
                raise InputError(f"--executor must be one of ray, local, got {executor!r}")
        else:
            settings = make_config(kind, flags, config)
            plan, run_dir = (planner or prepare)(settings)
            for line in vary_warnings(settings.vary) + namesake_warnings(plan, settings.arena):
                typer.echo(terminal_safe(f"warning: {line}"), err=True)
            if plan.get("sprt"):
                from .sprt import symmetric_warning

                said = symmetric_warning(plan["sprt"]["elo0"], plan["sprt"]["elo1"])
                if said:
                    typer.echo(f"warning: {said}", err=True)
            new, workers, address, quiet = True, settings.workers, settings.address, settings.quiet
            executor, compact = settings.executor, settings.compact
        check("--workers", workers)
        display = ProgressDisplay(Console(stderr=True, highlight=False), quiet)
        outcome = execute(plan, run_dir, new=new, workers=workers, address=address, executor=executor,
                          listeners=[display], compact=compact)
    except (ValueError, OSError) as e:
        fail(e)
    for line in outcome.warnings:
        typer.echo(terminal_safe(f"warning: {line}"), err=True)
    console = Console(highlight=False)
    for table in standings_tables(plan, run_dir) if outcome.done else []:
        console.print(table)
    if outcome.done:
        print_breakdown(run_dir)
    if outcome.sprt is not None:
        from .sprt import sprt_table, verdict_line

        console.print(sprt_table(outcome.sprt))
        typer.echo(verdict_line(outcome.sprt))
    typer.echo(f"{outcome.done} of {outcome.planned} planned matches are in {run_dir} "
               f"({outcome.played} played now)")
    if plan.get("replicates") and outcome.done:
        first = plan["replicates"]["dir"]
        typer.echo(f"compare it with the first run: ellibir balance {first} {run_dir} (each finding of the first run "
                   f"checked on the new deals; ratings and report too)")
    if outcome.decided:
        typer.echo("the SPRT has decided: the run is over" + (" (nothing to play)" if not outcome.played else ""))
    elif outcome.stopped or outcome.done < outcome.planned:
        for line in outcome.errors:
            typer.echo(terminal_safe(f"error: {line}"), err=True)
        what = ("a worker refused the run" if outcome.refused else "interrupted" if outcome.stopped
                else f"{outcome.failed} matches failed")
        typer.echo(f"{what}: finish the run with: {resume_command(run_dir)}", err=True)
    raise typer.Exit(outcome.exit_code)


def print_breakdown(run_dir: Path) -> None:
    """Each bot's rounds, points, penalties, refusals and faults (``ellibir bots`` has its times too:
    they differ from run to run, the standings do not)."""
    from results.runs import open_runs

    from .bots import print_short

    try:
        runs = open_runs([run_dir])
    except ValueError:
        return  # a run the analysis refuses: ellibir bots RUN says why
    print_short(runs, timing=False)


def option_flags(bot, set_, format_, quiet, vary=None, sprt=False, vs=None, **rest) -> dict:
    """The options given on the command line, named as in ``harness.tournament.Config`` (None: not given)."""
    return {"bots": bot or None, "set": set_ or None, "vary": vary or None, "format": format_, "quiet": quiet or None,
            "sprt": sprt or None, "vs": vs or None, **rest}


@tournament_app.command("run")
def tournament_run(
    config: ConfigOpt = None, bot: BotsOpt = None, players: PlayersOpt = None, format_: FormatOpt = None,
    challenger: ChallengerOpt = None, deal_sets: DealSetsOpt = None, duplicate: DuplicateOpt = None,
    design: DesignOpt = None,
    rounds: RoundsOpt = None, game: GameOpt = None, preset: PresetOpt = None, set_: SetOpt = None,
    move_time: MoveTimeOpt = None, bank: BankOpt = None, first_time: FirstTimeOpt = None, on_fault: OnFaultOpt = None,
    max_refusals: MaxRefusalsOpt = None, cpu_limit: CpuLimitOpt = None, seed: SeedOpt = None, name: NameOpt = None,
    out: OutOpt = None,
    workers: WorkersOpt = None, address: AddressOpt = None, executor: ExecutorOpt = None, quiet: QuietOpt = False,
    resume: ResumeOpt = None, compact: CompactOpt = None,
    arena: ArenaOpt = None, sprt: SprtOpt = False, vs: VsOpt = None, elo0: Elo0Opt = None, elo1: Elo1Opt = None,
    alpha: AlphaOpt = None, beta: BetaOpt = None, replicate: ReplicateOpt = None,
) -> None:
    """Play a tournament on Ray: every match planned up front in RUN/run.json, duplicate deals (every deal
    seed under every seat rotation), results written as they finish. Ctrl-C stops cleanly; --resume
    finishes the run. A gauntlet with --sprt stops as soon as the test decides. Exit code 0: every planned
    match is in the run (or the SPRT decided), 1: some failed, 2: bad input, 130: interrupted."""
    given = {k: v for k, v in locals().items() if k not in ("config", "resume", "replicate")}
    run_tournament("tournament", config, resume, option_flags(**given), replicate)


@app.command()
def sweep(
    vary: Annotated[Optional[list[str]], typer.Option(
        "--vary", metavar="FIELD=V1,V2,...",
        help="A rules field and its values; repeat for a grid, e.g. --vary threshold=51,71,101 "
             "--vary rising_threshold=false,true, or --vary preset=standard,tr-wiki. Commas inside brackets do "
             "not split. `ellibir rules` lists every field.")] = None,
    config: ConfigOpt = None, bot: BotsOpt = None, players: PlayersOpt = None, format_: FormatOpt = None,
    challenger: ChallengerOpt = None, deal_sets: DealSetsOpt = None, duplicate: DuplicateOpt = None,
    rounds: RoundsOpt = None, game: GameOpt = None, preset: PresetOpt = None, set_: SetOpt = None,
    move_time: MoveTimeOpt = None, bank: BankOpt = None, first_time: FirstTimeOpt = None, on_fault: OnFaultOpt = None,
    max_refusals: MaxRefusalsOpt = None, cpu_limit: CpuLimitOpt = None, seed: SeedOpt = None, name: NameOpt = None,
    out: OutOpt = None,
    workers: WorkersOpt = None, address: AddressOpt = None, executor: ExecutorOpt = None, quiet: QuietOpt = False,
    resume: ResumeOpt = None, compact: CompactOpt = None,
    arena: ArenaOpt = None, replicate: ReplicateOpt = None,
) -> None:
    """Play a tournament across a grid of rules variants, every variant on the same deal seeds (common
    random numbers). Options as in tournament run, plus --vary."""
    given = {k: v for k, v in locals().items() if k not in ("config", "resume", "replicate")}
    run_tournament("sweep", config, resume, option_flags(**given), replicate)
