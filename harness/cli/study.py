"""``ellibir study skill``: a sweep's options plus a ladder of bots -> the skill study's plan
(harness/runs/study.py) -> the run, as ``sweep`` plays it (harness/cli/tournament.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import InputError, fail
from .commands import Commands
from .tournament import (
    AddressOpt, ArenaOpt, BankOpt, CompactOpt, ConfigOpt, CpuLimitOpt, DealSetsOpt, ExecutorOpt, FirstTimeOpt, GameOpt,
    MaxRefusalsOpt, MoveTimeOpt, NameOpt, OnFaultOpt, OutOpt, PlayersOpt, PresetOpt, QuietOpt, ResumeOpt, RoundsOpt,
    SeedOpt, SetOpt, WorkersOpt, option_flags, run_tournament,
)

study_app = Commands(help="Studies that plan their own tables: does a variant reward skill?",
                     no_args_is_help=True, pretty_exceptions_enable=False)


def ladder_of(text: Optional[str]) -> list[str]:
    """``builtin:random,builtin:greedy,...`` -> the names, weakest first; InputError for an empty one."""
    names = [n.strip() for n in (text or "").split(",") if n.strip()]
    if len(names) < 2:
        raise InputError("--ladder needs two bots or more, weakest first, e.g. builtin:random,builtin:greedy,builtin:outs")
    return names


@study_app.command("skill")
def skill(
    ladder: Annotated[Optional[str], typer.Option(
        "--ladder", metavar="BOT,BOT,...",
        help="The bots, weakest first, named as everywhere (builtin:NAME, a folder, NAME@VERSION): each rung is "
             "played against copies of the one below. Random and greedy, when on it, are the beginners of the skill "
             "level; the last is its best real player. The clairvoyant bot is added by the study itself.")] = None,
    vary: Annotated[Optional[list[str]], typer.Option(
        "--vary", metavar="FIELD=V1,V2,...", help="A rules field and its values, as in sweep (optional).")] = None,
    restricted: Annotated[bool, typer.Option(
        "--restricted/--no-restricted", help="Also play the restricted bots against copies of pairs (default).")] = True,
    config: ConfigOpt = None, players: PlayersOpt = None, deal_sets: DealSetsOpt = None, rounds: RoundsOpt = None,
    game: GameOpt = None, preset: PresetOpt = None, set_: SetOpt = None, move_time: MoveTimeOpt = None,
    bank: BankOpt = None, first_time: FirstTimeOpt = None, on_fault: OnFaultOpt = None,
    max_refusals: MaxRefusalsOpt = None, cpu_limit: CpuLimitOpt = None, seed: SeedOpt = None, name: NameOpt = None,
    out: OutOpt = None, workers: WorkersOpt = None, address: AddressOpt = None, executor: ExecutorOpt = None,
    quiet: QuietOpt = False, resume: ResumeOpt = None, compact: CompactOpt = None, arena: ArenaOpt = None,
) -> None:
    """Does a variant reward skill? For each variant, on common deal sets: each rung of the ladder against
    copies of the one below, the beginners against the best bot and the clairvoyant one, the restricted bots
    against pairs, and every field's all-same control. Then `ellibir balance RUN` gives the skill section.
    Resumes with --resume like any run."""
    from harness.runs.study import prepare_study

    given = {k: v for k, v in locals().items() if k not in ("config", "resume", "ladder", "restricted", "prepare_study")}
    try:
        names = None if resume is not None else ladder_of(ladder)
    except InputError as e:
        fail(e)
    if resume is not None and ladder is not None:
        fail(InputError("--resume takes the ladder from the run's plan: leave --ladder out"))
    run_tournament("skill", config, resume, option_flags(bot=None, set_=given.pop("set_"), format_=None, **given),
                   planner=lambda settings: prepare_study(settings, names, restricted=restricted))
