"""The ``ellibir report`` command (results/report.py). Registered on the main app by harness/cli/."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import app, fail
from .common import AllowInconsistentOpt, open_checked


@app.command()
def report(
    run_dirs: Annotated[list[Path], typer.Argument(
        metavar="RUN_DIR...", help="Run folders (runs/NAME); several are pooled.", show_default=False)],
    html: Annotated[Optional[Path], typer.Option(
        "--html", metavar="FILE", help="Write the report to FILE: one HTML page that needs no network.")] = None,
    game: Annotated[Optional[str], typer.Option(
        "--game", metavar="NAME", help="The game to report on, when the runs hold several.")] = None,
    title: Annotated[Optional[str], typer.Option(
        "--title", metavar="TEXT", help="The page's title (default: the runs' names).")] = None,
    include_incomplete: Annotated[bool, typer.Option(
        "--include-incomplete", help="Rate matches that ended early or by a fault too (they are always counted).")]
    = False,
    allow_inconsistent: AllowInconsistentOpt = False,
) -> None:
    """Write one self-contained HTML report of the runs: the leaderboard with intervals, the pairwise
    expected scores, seat advantage, round lengths, the balance tables, and how the runs were made.
    The file is written whole (a temporary file, then renamed); its path is printed."""
    from results.report import check_target, write_report

    if html is None:
        fail("give the report's file with --html FILE")
    try:
        target = check_target(html)
        runs = open_checked(run_dirs, game, allow_inconsistent)
        from harness.replay.viewer import report_viewers

        written = write_report(runs, target, title, include_incomplete, report_viewers(runs, target))
    except ValueError as e:
        fail(e)
    typer.echo(str(written))
