"""``ellibir faults RUN`` (every fault of a run, harness/runs/faultlog.py) and ``ellibir rerun RUN MATCH_ID``
(a planned match played again exactly, harness/runs/rerun.py). Registered on the main app by harness/cli/."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from harness.players.trace import terminal_safe

from .app import (
    ShowStderrOpt, TraceOpt, app, check_keep_tmp, check_log_and_trace, check_outside_bots, echo_json, fail, open_traces,
)
from .play import play_and_show


@app.command()
def faults(
    run: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A tournament or sweep run folder.")],
    json_out: Annotated[bool, typer.Option("--json", help="Print a JSON list, one object per fault.")] = False,
) -> None:
    """List every fault of a run: match id, seat, bot, kind, reason, the decision it happened at, the
    reference bot that took the seat over, the tail of the bot's stderr, and the command that plays
    the match again with its trace."""
    from harness.runs.faultlog import list_faults
    from harness.runs.tournament import load_run

    try:
        found = list_faults(run, load_run(run))
    except (ValueError, OSError) as e:
        fail(e)
    if json_out:
        echo_json(found)
        return
    if not found:
        typer.echo(f"no faults in {run}")
        return
    for f in found:  # what the bots wrote, their stderr and what a fault's reason quotes, shown escaped
        taken = f" ({f['taken_over_by']} played the seat from decision {f['decision']} on)" if f["taken_over_by"] else ""
        typer.echo(terminal_safe(f"{f['match_id']}  seat {f['seat']}  {f['bot']}  {f['kind']}: {f['reason']}{taken}"))
        if f["stderr_tail"]:
            typer.echo("  stderr (tail):")
            for line in f["stderr_tail"].rstrip().splitlines():
                typer.echo(terminal_safe("    " + line))
        typer.echo(terminal_safe(f"  again, traced: {f['rerun']}   (with a fixed bot: add --bot {f['seat']}=FOLDER)"))
    typer.echo(f"{len(found)} faults")


@app.command()
def rerun(
    run: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A tournament or sweep run folder.")],
    match_id: Annotated[str, typer.Argument(metavar="MATCH_ID", help="A match of the run (its id in run.json).")],
    bot: Annotated[Optional[list[str]], typer.Option(
        "--bot", metavar="SEAT=FOLDER", help="Put another bot folder (a fixed version) in SEAT. Repeatable.")] = None,
    trace: TraceOpt = None,
    show_stderr: ShowStderrOpt = False,
    keep_tmp: Annotated[Optional[Path], typer.Option(
        "--keep-tmp", metavar="DIR", help="Bot programs get DIR/seat-N as their /tmp, kept after the match.")] = None,
    log: Annotated[Optional[Path], typer.Option(metavar="FILE", help="Write the annotated match log to FILE.")]
    = None,
    quiet: Annotated[bool, typer.Option(
        "--quiet", help="Print only the final ranking and whether the decisions match the stored match.")] = False,
) -> None:
    """Play a planned match of a run again exactly (deal, seats, rules, clocks, the bots' own seeds), show
    it, and compare it with the stored match: the same decisions, or the first that differs. The way to
    debug a tournament loss: --trace - shows every line the bots exchanged; --bot SEAT=FOLDER puts the
    fixed bot in its seat."""
    from harness.arena.registry import Arena
    from .app import require_sandbox
    from harness.runs.rerun import first_difference, parse_replacements, prepare_rerun

    try:
        from harness.runs.tournament import load_run

        players = load_run(run)["players"]
        replaced = parse_replacements(bot, players)
        again = prepare_rerun(run, match_id, replaced)
        if any(not name.startswith("builtin:") for name in again.spec.bots):
            require_sandbox()
        check_log_and_trace(log, trace)
        check_outside_bots(again.spec.bots, log=log, trace=trace, keep_tmp=keep_tmp)
        if keep_tmp is not None:
            check_keep_tmp(keep_tmp)
        taps = open_traces(trace, show_stderr)  # last: it creates the trace file
    except (ValueError, OSError) as e:
        fail(e)
    for w in again.warnings:
        typer.echo(f"warning: {w}", err=True)
    labels = {seat: label for seat, label in enumerate(again.labels) if seat not in replaced}
    events = play_and_show(again.spec, Arena(None), taps, keep_tmp, log, False, quiet, labels=labels)
    if again.stored is None:
        from results.store import RunStore

        if RunStore(run).holder(match_id) is None:
            typer.echo(f"match {match_id} was not played in {run} yet: nothing to compare with")
        else:
            typer.echo(f"match {match_id} is stored in {run} without its event log: nothing to compare with")
        return
    diff = first_difference(again.stored, events)
    if diff is None:
        typer.echo(f"the same decisions as the stored match {match_id}")
    else:
        typer.echo(f"the same as the stored match {match_id} up to decision {diff['index']}: seat {diff['seat']} "
                   f"played {diff['stored'] or 'nothing'} then, {diff['again'] or 'nothing'} now")
