"""The ``ellibir report`` command (results/report.py). Registered on the main app by harness/cli/."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import app, fail
from .balance import parse_margins
from .common import AllowInconsistentOpt, open_checked, reference_label


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
    compare: Annotated[Optional[list[str]], typer.Option(
        "--compare", metavar="A:B", help="A comparison to make, variants named by their differing fields, e.g. "
                                         "threshold=71:threshold=101. Repeatable; these are the confirmatory family "
                                         "(as in balance).")] = None,
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", metavar="VARIANT", help="Compare each variant with this one (e.g. threshold=51).")] = None,
    margin: Annotated[Optional[list[str]], typer.Option(
        metavar="M|METRIC=M", help="Equivalence margin fixed in advance, as in balance: M for every rate metric (a "
                                   "fraction, e.g. 0.02), METRIC=M for one (e.g. turns=2). Repeatable.")] = None,
    exploratory: Annotated[bool, typer.Option(
        "--exploratory", help="Adjust the primary family by Benjamini–Hochberg instead of Holm.")] = False,
    anchor: Annotated[Optional[str], typer.Option(
        metavar="NAME", help="Fix this bot at 1500 (default: the game's reference bot where it played, else the "
                             "mean of the rated bots).")] = None,
    allow_inconsistent: AllowInconsistentOpt = False,
) -> None:
    """Write one self-contained HTML report of the runs: the summary in words, the leaderboards with intervals
    (one per table size and rules), the pairwise expected scores, seat advantage, round lengths, the balance
    tables and comparisons, the matches with their viewers, and how the runs were made. The file is written
    whole (a temporary file, then renamed); its path is printed."""
    from results.report import check_target, write_report

    if html is None:
        fail("give the report's file with --html FILE")
    try:
        if compare and baseline:
            raise ValueError("give --compare or --baseline, not both")
        margins = parse_margins(margin)
        target = check_target(html)
        runs = open_checked(run_dirs, game, allow_inconsistent)
        bots = runs.matches.select("bot").unique().collect()["bot"].to_list()
        if anchor is not None and anchor not in bots:
            raise ValueError(f"unknown anchor {anchor!r}: not a bot of these runs ({', '.join(sorted(bots))})")
        from harness.replay.viewer import report_viewers

        written = write_report(runs, target, title, include_incomplete, lambda: report_viewers(runs, target), compare=compare,
                               baseline=baseline, margin=margins, exploratory=exploratory, anchor=anchor,
                               reference=reference_label(runs.game))
    except (ValueError, OSError) as e:  # OSError: a path the system refuses (a name too long)
        fail(e)
    typer.echo(str(written))
