"""The ``ellibir`` command: typed options -> a config -> one library call. Bad input: one line, exit 2."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from engine.deal import deals_from_json
from engine.events import read_lines, replay as replay_events, to_lines
from engine.rules import make_rules, parse_assignment

from .check import check_bot
from .manifest import load_manifest
from .match import MatchSpec, run_spec, summary
from .players import LINE_LIMIT, MAX_REFUSALS, ON_FAULT, parse_player_name
from .protocol import TimeControl
from .sandbox import SandboxError
from .show import MatchPrinter

app = typer.Typer(
    name="ellibir",
    help="Ellibir (51), the Turkish rummy game: play matches between bots and replay event logs.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
bot_app = typer.Typer(help="Bot programs: check a bot folder before it plays.", no_args_is_help=True,
                      pretty_exceptions_enable=False)
app.add_typer(bot_app, name="bot")


class InputError(ValueError):
    """Bad command-line input."""


def fail(message) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def play_spec(bots: list, preset: str, sets: list, rounds, seed: int, deal, max_refusals: int,
              on_fault: str = "forfeit", time_control: TimeControl = TimeControl(), line_limit: int = LINE_LIMIT) -> MatchSpec:
    """Check the options of ``play`` and turn them into a MatchSpec; raises ValueError (or OSError)."""
    if not 2 <= len(bots) <= 4:
        raise InputError(f"give 2 to 4 players, one --bot each; got {len(bots)}")
    if max_refusals < 0:
        raise InputError(f"--max-refusals must be 0 or more, got {max_refusals}")
    if on_fault not in ON_FAULT:
        raise InputError(f"--on-fault must be one of {', '.join(ON_FAULT)}, got {on_fault!r}")
    if line_limit < 1024:
        raise InputError(f"--line-limit must be at least 1024 bytes, got {line_limit}")
    folders = [name for name in bots if parse_player_name(name)[0] == "folder"]
    if folders:
        require_sandbox()
    overrides = dict(parse_assignment(text) for text in sets)
    if rounds is not None:
        if "rounds" in overrides:
            raise InputError("give the number of rounds once: --rounds or --set rounds=N, not both")
        overrides["rounds"] = rounds
    if "players" in overrides and overrides["players"] != str(len(bots)):
        raise InputError(f"--set players={overrides['players']} does not match the {len(bots)} --bot options")
    overrides["players"] = len(bots)
    rules = make_rules(preset, overrides)
    deals = read_deals(deal, rules) if deal else ()
    return MatchSpec("ellibir", rules, seed, tuple(bots), deals, max_refusals, on_fault, time_control, line_limit)


def require_sandbox() -> None:
    """Bot programs run only in the sandbox: say why it cannot run here."""
    from .sandbox import sandbox_available

    if not sandbox_available():
        from .sandbox import capabilities

        raise InputError(f"bot folders need the sandbox, which cannot run here: {capabilities().get('problem')}")


def time_control(move_time: float, bank: float, first_time: float) -> TimeControl:
    for option, value, least in (("--move-time", move_time, 0), ("--first-time", first_time, 0), ("--bank", bank, None)):
        ok = math.isfinite(value) and (value > 0 if least == 0 else value >= 0)
        if not ok:
            raise InputError(f"{option} must be a number of seconds {'above 0' if least == 0 else '0 or more'}, got {value}")
    return TimeControl(move_time, bank, first_time)


def read_deals(path: Path, rules) -> tuple:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return tuple(deals_from_json(data, rules))
    except (OSError, ValueError) as e:
        raise InputError(f"deal file {path}: {getattr(e, 'strerror', None) or e}") from None


def check_log_path(path) -> None:
    if path is not None and (path.is_dir() or not path.parent.is_dir()):
        raise InputError(f"cannot write the event log to {path}")


@app.command()
def play(
    bot: Annotated[list[str], typer.Option(
        "--bot", metavar="NAME",
        help="A player: builtin:NAME with NAME one of random, greedy, pairs, or the path of a bot folder "
             "(a program with a bot.toml, run in the sandbox). Give 2 to 4, one per seat in seat order; "
             "their number is the number of players.")],
    preset: Annotated[str, typer.Option(help="Rules preset: standard or tr-wiki.")] = "standard",
    set_: Annotated[Optional[list[str]], typer.Option(
        "--set", metavar="FIELD=VALUE",
        help="Override one rules field, e.g. --set threshold=71 --set pairs_openings='[[5,0]]'. Repeatable.")] = None,
    rounds: Annotated[Optional[int], typer.Option(
        help="Counted rounds in the match: short for --set rounds=N (give one or the other).")] = None,
    seed: Annotated[int, typer.Option(help="Deal seed: the same seed and bots give the same match.")] = 0,
    deal: Annotated[Optional[Path], typer.Option(
        metavar="FILE", help="Deal file (JSON, docs/deal-files.md) replacing the shuffle of the first rounds.")] = None,
    max_refusals: Annotated[int, typer.Option(
        help="Refusals a seat may have in one turn; one more is a fault, and the greedy bot plays the seat out.")]
    = MAX_REFUSALS,
    on_fault: Annotated[str, typer.Option(
        "--on-fault", metavar="forfeit|fallback",
        help="After a bot's fault (crash, timeout, protocol error, too many refusals...) the greedy bot plays "
             "its seat out. forfeit: the faulty bot ranks last; fallback: the totals decide its rank.")] = "forfeit",
    move_time: Annotated[float, typer.Option(
        "--move-time", metavar="SECONDS", help="Time for one decision of a bot program.")] = TimeControl.move,
    bank: Annotated[float, typer.Option(
        "--bank", metavar="SECONDS", help="Overtime per match a bot program may spend beyond its move times.")]
    = TimeControl.bank,
    first_time: Annotated[float, typer.Option(
        "--first-time", metavar="SECONDS",
        help="Time for a bot program's handshake and for its first decision (start-up included).")] = TimeControl.first,
    line_limit: Annotated[int, typer.Option(
        "--line-limit", metavar="BYTES", help="Longest line a bot program may send; a longer one is a fault.")]
    = LINE_LIMIT,
    quiet: Annotated[bool, typer.Option("--quiet", help="Print only the final ranking.")] = False,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print one JSON document: rules, variant id, seed, bots, rounds, totals, ranks, faults.")] = False,
    log: Annotated[Optional[Path], typer.Option(metavar="FILE", help="Write the event log (JSON lines) to FILE.")]
    = None,
) -> None:
    """Play one match between bots and show it turn by turn."""
    try:
        spec = play_spec(bot, preset, set_ or [], rounds, seed, deal, max_refusals, on_fault,
                         time_control(move_time, bank, first_time), line_limit)
        check_log_path(log)
    except (ValueError, OSError) as e:
        fail(e)
    console = Console(highlight=False)
    printer = None if json_out else MatchPrinter(console, spec.bots, quiet)
    try:
        result, events, faults = run_spec(spec, on_event=printer)
    except SandboxError as e:  # a bot folder the sandbox cannot use, or a machine that cannot sandbox
        fail(e)
    if log is not None:
        log.write_text(to_lines(events), encoding="utf-8")
    if json_out:
        typer.echo(json.dumps(summary(spec, result, faults), indent=2, ensure_ascii=False))
        return
    for f in faults:
        console.print(f"fault: seat {f.seat} {f.player}: {f.kind}: {f.reason}", markup=False)
        if f.stderr:
            console.print("  stderr (tail):\n" + "\n".join("    " + line for line in f.stderr.rstrip().splitlines()),
                          markup=False)
    if result.reason == "unfinished":
        console.print("the match could not be finished: a seat stalled", markup=False)


@app.command()
def replay(
    log: Annotated[Path, typer.Argument(metavar="LOG", help="An event log written by play --log.")],
    quiet: Annotated[bool, typer.Option("--quiet", help="Print only the final ranking.")] = False,
) -> None:
    """Replay an event log, checking that the engine makes the same events, and show it turn by turn."""
    try:
        match = replay_events(read_lines(log.read_text(encoding="utf-8")))
    except Exception as e:  # a damaged log can break anywhere in the engine: one line, exit 2
        fail(f"bad event log {log}: {e}")
    printer = MatchPrinter(Console(highlight=False), None, quiet)
    for e in match.events:
        printer(e)


@bot_app.command("check")
def bot_check(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="A bot folder (with a bot.toml).")],
    matches: Annotated[int, typer.Option(help="Short matches to play against the reference bot.")] = 3,
    move_time: Annotated[float, typer.Option(
        "--move-time", metavar="SECONDS", help="Time for one decision.")] = TimeControl.move,
    bank: Annotated[float, typer.Option("--bank", metavar="SECONDS", help="Overtime per match.")] = TimeControl.bank,
    first_time: Annotated[float, typer.Option(
        "--first-time", metavar="SECONDS", help="Time for the handshake and the first decision.")] = TimeControl.first,
) -> None:
    """Check a bot folder: its manifest, the handshake, and short matches (1 round, 2 players) against
    the greedy reference bot, in the sandbox. Exit code 0: pass, 1: fail, 2: bad input."""
    try:
        if matches < 1:
            raise InputError(f"--matches must be 1 or more, got {matches}")
        clock = time_control(move_time, bank, first_time)
        load_manifest(path)
        require_sandbox()
        report = check_bot(path, matches=matches, time_control=clock)
    except (ValueError, OSError, SandboxError) as e:
        fail(e)
    typer.echo(report.text)
    raise typer.Exit(0 if report.passed else 1)


def main() -> None:
    """The console entry point: usage errors are one line too, with exit code 2."""
    try:
        code = app(prog_name="ellibir", standalone_mode=False)
    except typer.Abort:
        typer.echo("interrupted", err=True)
        code = 130
    except Exception as e:  # typer's usage errors (bad option, bad value) carry exit code 2
        if getattr(e, "exit_code", None) != 2 or not hasattr(e, "format_message"):
            raise
        typer.echo(f"error: {e.format_message()}", err=True)
        code = 2
    sys.exit(code or 0)
