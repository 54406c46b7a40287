"""The typer app every command is registered on, and what the commands share: one-line errors
(``fail``, exit code 2), the trace and ``--keep-tmp`` options, the sandbox check, clocks, deal files
and output paths. Command modules import this one; harness/cli/main.py imports them all."""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path
from typing import Annotated, Optional

import typer


from harness.protocol.messages import TimeControl
from harness.runs.limits import MAX_DEAL_FILE, check, read_json

from .commands import Commands


app = Commands(
    name="ellibir",
    help="Ellibir (51), the Turkish rummy game: play matches between bots and replay event logs.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


class InputError(ValueError):
    """Bad command-line input."""


def fail(message) -> None:
    from harness.players.trace import terminal_safe

    typer.echo(terminal_safe(f"error: {message}"), err=True)  # a message may quote what a bot or a file held
    raise typer.Exit(2)


def echo_json(value) -> None:
    """``value`` as indented JSON, with what a terminal would act on escaped (bots wrote some of it)."""
    import json

    from harness.players.trace import json_safe

    typer.echo(json_safe(json.dumps(value, indent=2, ensure_ascii=False)))


STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def stopped_cleanly(what: str = "the match"):
    """Bot programs running in the block end cleanly however this process is asked to stop: the first
    SIGINT, SIGTERM or SIGHUP raises KeyboardInterrupt (so the players are closed: a frozen bot thawed
    and killed, its cgroups removed, its uid given back) and further ones are ignored while that runs;
    then one line, and exit code 130."""
    def stop(signum, frame):
        for sig in STOPS:
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt

    before = {sig: signal.signal(sig, stop) for sig in STOPS}
    try:
        yield
    except KeyboardInterrupt:
        for sig in STOPS:
            signal.signal(sig, signal.SIG_IGN)
        typer.echo(f"interrupted: {what} was stopped, its bot programs ended", err=True)
        raise typer.Exit(130) from None
    finally:
        for sig, old in before.items():
            signal.signal(sig, old)




TraceOpt = Annotated[Optional[str], typer.Option(
    "--trace", metavar="FILE|-",
    help="Write every protocol line in both directions and every stderr line of the bot programs, with a "
         "timestamp, the seat and the bot, to FILE (- : the terminal's stderr).")]
ShowStderrOpt = Annotated[bool, typer.Option(
    "--show-stderr", help="Show the bot programs' stderr on the terminal (stderr) as it comes.")]


def open_traces(trace: Optional[str], show_stderr: bool):
    """The traces asked for: --trace FILE (or -) and --show-stderr (stderr lines only, to the terminal)."""
    from harness.players.trace import Trace, Taps

    traces = []
    if trace is not None:
        if trace != "-":
            check_log_path(Path(trace), "the trace")
        traces.append(Trace.open(trace))
    if show_stderr and trace != "-":
        traces.append(Trace.open("-", kinds="!#"))
    return Taps(traces)


def check_keep_tmp(path: Path) -> None:
    if path.is_symlink():
        raise InputError(f"--keep-tmp {path}: a link (give a folder itself: the bots' uids are given its folders)")
    if path.exists() and not path.is_dir():
        raise InputError(f"--keep-tmp {path}: not a folder")
    if path.is_dir() and any(path.iterdir()):
        raise InputError(f"--keep-tmp {path}: the folder is not empty (give a new or empty one)")
    path.mkdir(parents=True, exist_ok=True)


def require_sandbox() -> None:
    """Bot programs run only in the sandbox: say why it cannot run here."""
    from harness.sandbox.bubblewrap import sandbox_available

    if not sandbox_available():
        from harness.sandbox.bubblewrap import capabilities

        raise InputError(f"bot folders need the sandbox, which cannot run here: {capabilities().get('problem')}")


def time_control(move_time: float, bank: float, first_time: float) -> TimeControl:
    for option, value in (("--move-time", move_time), ("--first-time", first_time), ("--bank", bank)):
        check(option, value)
    return TimeControl(move_time, bank, first_time)


def read_deals(path: Path, rules, factory) -> tuple:
    data = read_json(path, "deal file", MAX_DEAL_FILE)  # bounded in size and depth before it is parsed
    try:
        return tuple(factory.deals_from_json(data, rules))
    except (ValueError, RecursionError) as e:
        raise InputError(f"deal file {path}: {e}") from None


def check_outside_bots(bots, **outputs) -> None:
    """No output file or folder (``--log``, ``--trace``, ``--keep-tmp``) inside a bot folder of the match:
    it would overwrite the bot's files, or change its content."""
    folders = [Path(b).resolve() for b in bots if not str(b).startswith("builtin:") and Path(b).is_dir()]
    for option, path in outputs.items():
        if path is None or str(path) == "-":
            continue
        target = Path(path).resolve()
        for folder in folders:
            if target == folder or folder in target.parents:
                raise InputError(f"--{option.replace('_', '-')} {path} is inside the bot folder {folder}: "
                                 f"give a path outside every bot's folder")


def check_log_and_trace(log, trace, deal=None) -> None:
    """--log FILE writable, and not the file of --trace (the log written at the end replaced the trace)
    nor the --deal file it was played from."""
    if log is not None and str(log) == "-":  # --trace - is the terminal; a log named - would be a file of that name
        raise InputError("--log - : the log goes to a file, not the terminal (--trace - shows the bots' lines there)")
    check_log_path(log)
    if log is not None and trace not in (None, "-") and Path(trace).resolve() == Path(log).resolve():
        raise InputError(f"--log and --trace name the same file ({log}): give each its own")
    if log is not None and deal is not None and Path(deal).resolve() == Path(log).resolve():
        raise InputError(f"--log {log} is the --deal file: the log would replace it; give another file")


def check_log_path(path, what: str = "the event log") -> None:
    if path is None:
        return
    if path.is_dir() or not path.parent.is_dir():
        raise InputError(f"cannot write {what} to {path}")
    from results.integrity import check_output

    check_output(path, what)
