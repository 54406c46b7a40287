"""``ellibir compact RUN``: merge a run's parts into few large files (results/compact.py), under the
run's lock. Registered on the main app by harness/cli/."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from results.numbers import many
from .app import app, fail


@app.command()
def compact(
    run: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A tournament or sweep run folder.")],
) -> None:
    """Merge a run's parts (a few matches each) into few large files, atomically: every finished
    match stays stored exactly once, and an interrupted compaction is finished or undone by the next
    compact or --resume. Safe to repeat; refuses a run in use, or with a damaged or copied part."""
    from harness.runs.runfolder import compact_run

    try:
        done = compact_run(run)
    except (ValueError, OSError) as e:
        fail(e)
    if done.recovered:
        typer.echo(f"{done.recovered}")
    if done.parts_after == done.parts_before:
        typer.echo(f"{run}: nothing to compact ({many(done.parts_after, 'part')}, {many(done.files_after, 'file')})")
    else:
        typer.echo(f"{run}: {many(done.parts_before, 'part')} into {done.parts_after} "
                   f"({many(done.files_before, 'file')} into {done.files_after})")
