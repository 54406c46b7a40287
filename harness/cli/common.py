"""What the analysis commands share: opening runs with their checks, and the option that lets a
run whose stored ids disagree with its plan be analysed anyway (with a warning)."""

from __future__ import annotations

from typing import Annotated

import typer

AllowInconsistentOpt = Annotated[bool, typer.Option(
    "--allow-inconsistent",
    help="Analyse runs whose stored matches disagree with their plan (a match stored twice, a missing rounds "
         "part, unplanned matches) as they are stored, with a warning, instead of refusing.")]


def open_checked(run_dirs, game=None, allow_inconsistent: bool = False):
    """``results.runs.open_runs`` with its warnings printed to standard error, one line each."""
    from results.runs import open_runs

    runs = open_runs(run_dirs, game, allow_inconsistent=allow_inconsistent)
    for line in runs.warnings:
        typer.echo(f"warning: {line}", err=True)
    return runs


def reference_label(game: str) -> str | None:
    """The game's reference bot as the runs label it (``builtin:NAME``): 1500 on each scale where it
    played (the one rating convention, results/scales.py); None for a game without built-in bots."""
    from bots import UnknownBot, reference_bot

    try:
        return f"builtin:{reference_bot(game)}"
    except UnknownBot:
        return None

