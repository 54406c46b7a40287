"""``ellibir replay``: an event log or a run's match played again by the engine and shown turn by turn,
or written as a viewer file to step through in a browser (``--html``, harness/replay/viewer.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from engine.events import read_lines

from harness.match.log import read as read_annotated
from harness.match.show import MatchPrinter
from harness.replay.viewer import run_log_lines, write_viewer
from harness.runs.faultlog import read_stderr
from results.files import read_regular, read_regular_text

from .app import app, fail


@app.command()
def replay(
    log: Annotated[Path, typer.Argument(
        metavar="LOG|RUN_DIR", help="An event log written by play --log, or a run folder (with MATCH_ID).")],
    match_id: Annotated[Optional[str], typer.Argument(
        metavar="[MATCH_ID]", help="A match of the run in RUN_DIR (its id in run.json).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="Print only the final ranking.")] = False,
    html_file: Annotated[Optional[Path], typer.Option(
        "--html", metavar="FILE", help="Write the match's viewer instead: one self-contained HTML file to step "
                                       "through in a browser (prints its path).")] = None,
    trace: Annotated[Optional[Path], typer.Option(
        "--trace", metavar="FILE", help="With --html: a trace of the same match (play --trace FILE); the "
                                        "bots' stderr lines show beside their steps.")] = None,
) -> None:
    """Replay an event log, checking that the engine makes the same events, and show it turn by turn:
    a log file (replay LOG), or a match of a tournament or sweep (replay RUN_DIR MATCH_ID)."""
    if trace is not None and html_file is None:
        fail("--trace goes with --html: the viewer shows the trace's lines beside their steps")
    if html_file is not None:
        replay_html(log, match_id, html_file, fail, trace)
        return
    names = None
    if match_id is not None:
        from harness.runs.tournament import replay_match

        try:
            events, names = replay_match(log, match_id)
        except (ValueError, OSError) as e:
            fail(e)
    else:
        try:
            if log.is_dir():
                fail(f"{log} is a folder: replay RUN_DIR MATCH_ID shows a match of a run (ids in {log}/run.json)")
            events, _notes = read_annotated(read_regular_text(log, follow=True))
        except typer.Exit:
            raise
        except Exception as e:  # a damaged log can break anywhere in the engine: one line, exit 2
            fail(f"bad event log {log}: {e}")
    printer = MatchPrinter(Console(highlight=False), names, quiet)
    for e in events:
        printer(e)


def replay_html(log: Path, match_id: str | None, target: Path, fail, trace: Path | None = None) -> Path:
    """Write the viewer; any bad input goes to ``fail`` (one line, exit code 2). ``trace``: a trace
    file of the same match (``play --trace``), whose stderr lines and notes go beside their steps;
    a run's match brings the stderr the run kept."""
    names = stderr = None
    for given, what in ((log, "the log"), (trace, "--trace")):
        if given is not None and given.is_file() and given.resolve() == target.resolve():
            fail(f"--html {target} is {what}: the viewer would replace it; give another file")
    try:
        text = read_regular(trace, follow=True).decode("utf-8", "replace") if trace is not None else None
    except OSError as e:
        fail(f"cannot read the trace {trace}: {e.strerror or e}")
    try:
        if match_id is not None:
            lines, names = run_log_lines(log, match_id)
            stderr = read_stderr(log, match_id)
            title = f"{Path(log).name} \u00b7 match {match_id}"
        elif log.is_dir():
            fail(f"{log} is a folder: replay RUN_DIR MATCH_ID --html FILE writes a match of a run")
        else:
            lines = read_lines(read_regular_text(log, follow=True))
            title = f"match log {log.name}"
        write_viewer(lines, target, title, names, text, stderr)
    except typer.Exit:
        raise
    except Exception as e:  # noqa: BLE001  (a damaged log can break anywhere in the engine: one line, exit 2)
        fail(f"cannot write the viewer of {log}{' ' + match_id if match_id else ''}: {e}")
    typer.echo(str(target))
    return target
