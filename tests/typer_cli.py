"""The ``ellibir`` command run in this process (typer's test runner), and the check of a one-line error."""

from __future__ import annotations

from typer.testing import CliRunner

from harness.cli.main import app

runner = CliRunner()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line_error(result, words: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], result.stderr
