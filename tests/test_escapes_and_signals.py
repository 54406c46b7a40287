"""What a bot wrote reaches a terminal escaped, and a stopped match ends cleanly (issue 26): OSC and CSI
sequences in a bot's stderr are shown as ``\\x1b`` by ``play --show-stderr``, ``faults``, traces and the
match printer; SIGTERM ends ``play`` with its frozen bot thawed and killed and its cgroups removed, and
the staged copy of a bot folder goes once no process uses it."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from cli_runs import descendants
from harness.cli.main import app
from harness.match.show import MatchPrinter
from harness.players.trace import Trace, json_safe, terminal_safe
from harness.sandbox.bubblewrap import sandbox_available
from harness.sandbox.staging import STAGE_DIR

ROOT = Path(__file__).resolve().parent.parent
MISBEHAVE = ROOT / "tests" / "protocol_bots" / "misbehave.py"
runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="the sandbox (bubblewrap, root) is not available")

# the window title (OSC 0), the clipboard (OSC 52), a link whose target is hidden (OSC 8), red (CSI as
# one C1 byte), and text reversed by a bidirectional override
HOSTILE = ("\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07"
           "\x9b31mred\u202eesrever")
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def no_raw_escapes(text: str) -> bool:
    return not any(c in text for c in RAW)


# The escaping itself --------------------------------------------------------------------------------------

def test_control_characters_are_written_out():
    shown = terminal_safe(HOSTILE + "\ttab\nnext")
    assert no_raw_escapes(shown)
    assert "\\x1b]0;pwned\\x07" in shown and "\\x1b]52;c;" in shown and "\\x9b31m" in shown and "\\u202e" in shown
    assert shown.endswith("\ttab\nnext")  # tabs and newlines stay
    assert json.loads(json_safe(json.dumps({"s": HOSTILE}, ensure_ascii=False))) == {"s": HOSTILE}
    assert no_raw_escapes(json_safe(json.dumps({"s": HOSTILE}, ensure_ascii=False)))


ACTED_ON = set(map(chr, [*range(0x20), *range(0x7F, 0xA0)])) - {"\t", "\n"} | set(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@given(st.text())
def test_nothing_a_terminal_acts_on_survives_and_other_text_is_unchanged(text):
    shown = terminal_safe(text)
    assert not ACTED_ON & set(shown)
    assert (shown == text) == (not ACTED_ON & set(text))


def test_traces_and_the_match_printer_escape_what_a_bot_wrote():
    out = io.StringIO()
    tap = Trace(out).tap(0, "evil@1")
    tap("!", HOSTILE.encode() + b"\n")
    tap("<", b'{"type":"decision"}' + HOSTILE.encode())
    assert no_raw_escapes(out.getvalue()) and out.getvalue().count("\\x1b]0;pwned") == 2
    console = Console(file=io.StringIO(), force_terminal=True, width=200)
    printer = MatchPrinter(console, ["evil@1", "builtin:greedy"])
    printer({"e": "harness_fault", "seat": 0, "bot": "evil@1", "kind": "protocol", "reason": f"bad JSON: {HOSTILE!s}",
             "decision": 3, "stderr": HOSTILE + "\nline two"})
    text = console.file.getvalue()  # rich's own colours (CSI with "[") are there; nothing the bot wrote is raw
    assert text.count("\\x1b]0;pwned\\x07") == 2 and "\\x1b]52;c;" in text and "line two" in text
    assert "\x1b]" not in text and "\x07" not in text and "\x9b" not in text and "\u202e" not in text


# A real bot program that writes escapes --------------------------------------------------------------------

def hostile_bot(where: Path, *mode: str) -> Path:
    """A bot folder whose program writes ``HOSTILE`` to its stderr, then plays as misbehave.py ``mode``
    (default: crash at its third request)."""
    mode = mode or ("crash",)
    folder = where / f"hostile-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    shutil.copy(MISBEHAVE, folder / "player.py")
    (folder / "main.py").write_text(
        f"# {folder.name}: content of its own, so that its staged copy is its own\n"
        "import sys\n"
        f"sys.stderr.write({HOSTILE!r} + '\\n')\n"
        "sys.stderr.flush()\n"
        f"sys.argv = ['player.py', *{list(mode)!r}]\n"
        "exec(compile(open('player.py').read(), 'player.py', 'exec'))\n")
    (folder / "bot.toml").write_text(f'name = "hostile"\nversion = "1"\ncommand = ["python3", "main.py"]\n')
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def cli(*args, timeout=120):
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    return subprocess.run([sys.executable, "-m", "harness", *map(str, args)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def staged_copies_of(folder: Path) -> list:
    """The staged copies (harness/sandbox/staging.py) of ``folder``, found by its unique main.py."""
    marker = (folder / "main.py").read_bytes()
    return [e for e in STAGE_DIR.iterdir() if (e / "main.py").is_file() and (e / "main.py").read_bytes() == marker]


@needs_sandbox
def test_play_show_stderr_and_the_fault_show_a_bot_s_escapes_escaped(tmp_path):
    bot = hostile_bot(tmp_path)
    done = cli("play", "--bot", bot, "--bot", "builtin:greedy", "--rounds", 1, "--seed", 4, "--show-stderr")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "\\x1b]0;pwned\\x07" in done.stderr and "\\x1b]52;c;" in done.stderr  # --show-stderr
    assert "fault" in done.stdout and "\\x1b]8;;http://evil.example/" in done.stdout  # the fault's stderr tail
    assert no_raw_escapes(done.stdout + done.stderr)
    assert not staged_copies_of(bot)  # no process uses the copy any more: removed


@needs_sandbox
def test_faults_show_a_bot_s_escapes_escaped(tmp_path):
    bot = hostile_bot(tmp_path)
    run = tmp_path / "run"
    done = cli("tournament", "run", "--executor", "local", "--bot", bot, "--bot", "builtin:greedy", "--players", 2,
               "--deal-sets", 1, "--rounds", 1, "--seed", 4, "--quiet", "--out", run)
    assert done.returncode == 0, done.stderr[-2000:]
    shown = runner.invoke(app, ["faults", str(run)])
    assert shown.exit_code == 0 and "\\x1b]0;pwned\\x07" in shown.stdout and no_raw_escapes(shown.stdout)
    as_json = runner.invoke(app, ["faults", str(run), "--json"])
    assert no_raw_escapes(as_json.stdout) and HOSTILE in json.loads(as_json.stdout)[0]["stderr_tail"]
    assert not staged_copies_of(bot)


# SIGTERM ----------------------------------------------------------------------------------------------------

def _freezer_states(pids) -> dict:
    """pid -> (its freezer cgroup, that cgroup's state), for the pids in a freezer cgroup of the harness's."""
    out = {}
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
                _, controllers, path = line.split(":", 2)
                if "freezer" in controllers.split(",") and "/ellibir-6" in path:
                    state = Path(f"/sys/fs/cgroup/freezer{path}/freezer.state").read_text().strip()
                    out[pid] = (path, state)
        except OSError:
            continue
    return out


def _running(pid: int) -> bool:
    """Alive and not a zombie (a zombie has died; its parent, bwrap's reaper, may not have reaped it yet)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@needs_sandbox
@pytest.mark.parametrize("command", ["play", "run"])
def test_sigterm_ends_a_match_with_its_frozen_bot_thawed_killed_and_its_cgroups_removed(tmp_path, command):
    slow = hostile_bot(tmp_path, "slow", "600")  # sleeps on its turn: the other bot waits frozen meanwhile
    polite = hostile_bot(tmp_path, "polite")
    args = (["play", "--bot", str(slow), "--bot", str(polite), "--seed", "1", "--quiet"] if command == "play" else
            ["tournament", "run", "--executor", "local", "--bot", str(slow), "--bot", str(polite), "--players", "2",
             "--deal-sets", "1", "--seed", "1", "--quiet", "--out", str(tmp_path / "run")])
    play = subprocess.Popen([sys.executable, "-m", "harness", *args, "--move-time", "60"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        frozen, deadline = {}, time.monotonic() + 300  # a bound on a hang, not a timing
        while not any(state == "FROZEN" for _, state in frozen.values()):  # waits for a bot to be frozen
            assert play.poll() is None and time.monotonic() < deadline, "no bot was frozen"
            frozen = _freezer_states(descendants({play.pid}) - {play.pid})
            time.sleep(0.05)
        play.send_signal(signal.SIGTERM)
        _, err = play.communicate(timeout=60)
    finally:
        if play.poll() is None:
            play.kill()
    assert play.returncode == (130 if command == "play" else 128 + signal.SIGTERM) and "interrupted" in err, err[-2000:]
    if command == "run":  # resumable: the plan is there, no part was half written
        assert (tmp_path / "run" / "run.json").is_file() and "--resume" in err
    assert not [pid for pid in frozen if _running(pid)]  # before: the frozen bot stayed, stopped, for ever
    for group in {path for path, _ in frozen.values()}:  # removed (or, made again since by another bot, without ours)
        procs = Path("/sys/fs/cgroup/freezer", group.lstrip("/"), "cgroup.procs")
        assert not procs.exists() or not set(procs.read_text().split()) & {str(p) for p in frozen}
    assert not staged_copies_of(slow) and not staged_copies_of(polite)
