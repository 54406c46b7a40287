"""The limits a bot program runs under, in words, from the constants the harness uses: the sandbox's
``Limits``, the CPU limit that follows the clock (``program.cpu_allowance``), the line and stderr caps.

``limits_table()`` is the table docs/protocol.md holds (a test keeps the two equal); ``limit_lines``
is what ``ellibir bot check`` prints.
"""

from __future__ import annotations

from harness.protocol.messages import TimeControl
from harness.sandbox.bubblewrap import Limits, java_options

from .base import LINE_LIMIT, STDERR_LIMIT
from .program import CPU_MARGIN


def _mb(value: int) -> str:
    return f"{value:,} MB"


def limit_rows(limits: Limits = Limits(), time: TimeControl = TimeControl()) -> list[tuple[str, str, str]]:
    """(what, how much, what happens past it) of every limit."""
    cpu = (f"`first` + `bank` + `move` per decision so far + {CPU_MARGIN:g} s "
           f"({time.first:g} + {time.bank:g} + {time.move:g} × decisions + {CPU_MARGIN:g} s with this clock); "
           "`--cpu-limit` sets a fixed one")
    return [
        ("memory, resident, all its processes (cgroup)", _mb(limits.memory_mb),
         "killed: a `crash` fault that says \"out of memory\""),
        ("address space, each process (RLIMIT_AS)", _mb(limits.address_space_mb),
         "allocations fail (Python: MemoryError; a JVM does not start)"),
        ("CPU time, all its processes, per match", cpu, "killed: a `crash` fault that names the limit"),
        ("cores, all its processes together (cgroup quota)", f"{limits.cores}", "slowed down, never killed"),
        ("tasks of its uid, threads included (RLIMIT_NPROC, pids cgroup)", f"{limits.processes}",
         "a new process or thread fails (EAGAIN)"),
        ("open files, each process (RLIMIT_NOFILE)", f"{limits.open_files}", "opening one more fails (EMFILE)"),
        ("size of a file it writes (RLIMIT_FSIZE)", _mb(limits.file_size_mb),
         "the write fails (\"File too large\"), or SIGXFSZ kills a program that does not ignore it"),
        ("its private `/tmp` (tmpfs)", _mb(limits.tmp_mb), "writing fails (ENOSPC)"),
        ("one line it sends (`line_limit` in `hello`)", f"{LINE_LIMIT:,} bytes", "a `line_too_long` fault"),
        ("its stderr kept per match", f"the last {STDERR_LIMIT // 1000} kB", "older lines are dropped"),
    ]


def limits_table() -> str:
    """The Markdown table of the limits (docs/protocol.md, "Limits")."""
    rows = ["| limit | value | past it |", "|---|---|---|"]
    rows += [f"| {what} | {value} | {past} |" for what, value, past in limit_rows()]
    rows.append("")
    rows.append(f"Every JVM is started with `JAVA_TOOL_OPTIONS={java_options(Limits())}`.")
    return "\n".join(rows) + "\n"


def limit_lines(time: TimeControl) -> list[str]:
    """The limits as ``bot check`` prints them, for the clock of the check."""
    def plain(text: str) -> str:
        return text.replace("`", "")

    return [f"  {plain(what)}: {plain(value)}" for what, value, _past in limit_rows(time=time)]


__all__ = ["limit_lines", "limit_rows", "limits_table"]
