"""The ``ellibir`` command: typed options -> a config -> one library call. Bad input: one line, exit 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from engine.deal import deals_from_json
from engine.events import read_lines, replay as replay_events, to_lines
from engine.rules import make_rules, parse_assignment

from .match import MatchSpec, run_spec, summary
from .players import MAX_REFUSALS, make_player
from .show import MatchPrinter

app = typer.Typer(
    name="ellibir",
    help="Ellibir (51), the Turkish rummy game: play matches between bots and replay event logs.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


class InputError(ValueError):
    """Bad command-line input."""


def fail(message) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def play_spec(bots: list, preset: str, sets: list, rounds, seed: int, deal, max_refusals: int) -> MatchSpec:
    """Check the options of ``play`` and turn them into a MatchSpec; raises ValueError (or OSError)."""
    if not 2 <= len(bots) <= 4:
        raise InputError(f"give 2 to 4 players, one --bot each; got {len(bots)}")
    if max_refusals < 0:
        raise InputError(f"--max-refusals must be 0 or more, got {max_refusals}")
    for name in bots:
        make_player(name)
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
    return MatchSpec("ellibir", rules, seed, tuple(bots), deals, max_refusals)


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
        help="A player, builtin:NAME with NAME one of random, greedy, pairs. Give 2 to 4, one per seat "
             "in seat order; their number is the number of players.")],
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
    quiet: Annotated[bool, typer.Option("--quiet", help="Print only the final ranking.")] = False,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print one JSON document: rules, variant id, seed, bots, rounds, totals, ranks, faults.")] = False,
    log: Annotated[Optional[Path], typer.Option(metavar="FILE", help="Write the event log (JSON lines) to FILE.")]
    = None,
) -> None:
    """Play one match between bots and show it turn by turn."""
    try:
        spec = play_spec(bot, preset, set_ or [], rounds, seed, deal, max_refusals)
        check_log_path(log)
    except (ValueError, OSError) as e:
        fail(e)
    console = Console(highlight=False)
    printer = None if json_out else MatchPrinter(console, spec.bots, quiet)
    result, events, faults = run_spec(spec, on_event=printer)
    if log is not None:
        log.write_text(to_lines(events), encoding="utf-8")
    if json_out:
        typer.echo(json.dumps(summary(spec, result, faults), indent=2, ensure_ascii=False))
        return
    for f in faults:
        console.print(f"fault: seat {f.seat} {f.player}: {f.kind}: {f.reason}", markup=False)
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
