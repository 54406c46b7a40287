"""``ellibir replay ... --html FILE``: the viewer file of a log or of a run's match (harness/viewer.py)."""

from __future__ import annotations

from pathlib import Path

import typer

from engine.events import read_lines

from .faultlog import read_stderr
from .viewer import run_log_lines, write_viewer


def replay_html(log: Path, match_id: str | None, target: Path, fail, trace: Path | None = None) -> Path:
    """Write the viewer; any bad input goes to ``fail`` (one line, exit code 2). ``trace``: a trace
    file of the same match (``play --trace``), whose stderr lines and notes go beside their steps;
    a run's match brings the stderr the run kept."""
    names = stderr = None
    try:
        text = trace.read_text(encoding="utf-8", errors="replace") if trace is not None else None
        if match_id is not None:
            lines, names = run_log_lines(log, match_id)
            stderr = read_stderr(log, match_id)
            title = f"{Path(log).name} \u00b7 match {match_id}"
        elif log.is_dir():
            fail(f"{log} is a folder: replay RUN_DIR MATCH_ID --html FILE writes a match of a run")
        else:
            lines = read_lines(log.read_text(encoding="utf-8"))
            title = f"match log {log.name}"
        write_viewer(lines, target, title, names, text, stderr)
    except typer.Exit:
        raise
    except Exception as e:  # noqa: BLE001  (a damaged log can break anywhere in the engine: one line, exit 2)
        fail(f"cannot write the viewer of {log}{' ' + match_id if match_id else ''}: {e}")
    typer.echo(str(target))
    return target
