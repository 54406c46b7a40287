"""``ellibir ladder``: every run of the arena on one scale per game, table size and rules
(harness/arena/ladder.py). Registered on the main app by harness/cli/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness.arena.registry import ENV as ARENA_ENV, Arena
from harness.players.trace import terminal_safe
from results.numbers import fixed, many
from .app import app, fail


def arena_ladders(arena: Arena, extra=()) -> list:
    from harness.arena.ladder import arena_runs, ladders

    arena.check_exists()
    return ladders(list(arena_runs(arena)) + [Path(d) for d in extra])


def ladder_table(entry: dict) -> Table:
    from harness.arena.ladder import ladder_title

    table = Table(title=f"Ladder: {ladder_title(entry)}", caption=f"{entry['scale']}; {many(len(entry['runs']), 'run')}, "
                        f"{many(entry['matches']['rated'], 'match', 'matches')} rated")
    for column, justify in (("#", "right"), ("bot", "left"), ("rating", "right"), ("95% interval", "right"),
                            ("games", "right"), ("faults", "right")):
        table.add_column(column, justify=justify)
    for n, b in enumerate(entry["bots"], 1):
        rating = "—" if b["rating"] is None else fixed(b["rating"], 0)
        interval = "—" if b["lo"] is None else f"[{fixed(b['lo'], 0)}, {fixed(b['hi'], 0)}]"
        table.add_row(str(n), Text(terminal_safe(str(b["bot"]))), rating, interval, str(b["games"]), str(b["faults"]))
    return table


@app.command()
def ladder(
    arena: Annotated[Optional[Path], typer.Option(
        "--arena", metavar="DIR", help=f"The arena whose runs are rated (default: ${ARENA_ENV}, or ./arena).")] = None,
    run: Annotated[Optional[list[str]], typer.Option(
        "--run", metavar="RUN_DIR", help="Another run folder to rate with the arena's runs. Repeatable.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print a JSON list, one object per ladder.")] = False,
) -> None:
    """Rate every run of the arena together, one ladder per game, table size and rules (the standard rules
    first, others named by the fields that differ), with the game's reference bot (greedy; cautious for
    einundfuenfzig) at 1500 where it played, else the mean of the ladder's bots (each ladder's caption says
    which): every rating on a ladder is on one scale, with its 95% interval and the games behind it."""
    try:
        found = arena_ladders(Arena(arena), run or [])
    except (ValueError, OSError) as e:
        fail(e)
    if json_out:
        typer.echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    if not found:
        typer.echo("no runs to rate: a completed tournament with a submitted bot records itself in the arena "
                   "(or give --run RUN_DIR)")
        return
    console = Console(highlight=False)
    from harness.arena.ladder import ladder_title

    for entry in found:
        if "problem" in entry:
            typer.echo(f"{ladder_title(entry)}: not rated: {entry['problem']}")
        else:
            console.print(ladder_table(entry))
