"""The ``ellibir`` command: typed options -> a config -> one library call. Bad input: one line, exit 2.

Each command group lives in a module of its own, registered on ``app`` (harness/cli/app.py) when it is
imported here; the order of the imports is the order of ``ellibir --help``."""

from __future__ import annotations

import sys

import typer

from . import play, replay, tournament  # noqa: F401  (the match and tournament commands)
from .study import study_app
from . import balance, bots, compact, faults, ladder, ratings, report, rules, sprt  # noqa: F401  (the analysis commands)
from . import serve  # noqa: F401  (the arena server and its workers)
from .app import app
from .bot import bot_app
from .tournament import tournament_app
from .train import train_app

app.add_typer(bot_app, name="bot")
app.add_typer(tournament_app, name="tournament")
app.add_typer(study_app, name="study")
app.add_typer(train_app, name="train")


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
