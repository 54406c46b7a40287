"""Hostile bots in real matches, in the real sandbox: each turns hostile mid-match, is contained and
recorded, the rest of the match completes, and afterwards no process of it is left.

The bot is the Python starter kit with a wrapper (tests/hostile_match/bot.py) that misbehaves at its
Nth decision request. Probing bots report what they saw on stderr and go on playing.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
from pathlib import Path

import pytest

from harness.protocol.messages import TimeControl
from harness.sandbox.bubblewrap import sandbox_available
from harness.sandbox.slots import FIRST_UID, SLOT_COUNT, SLOT_DIR, processes_of

from test_subprocess_bots import ROOT, play

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="the sandbox (bubblewrap, root) is not available here")
CLOCK = TimeControl(move=5.0, bank=60.0, first=30.0)  # no load makes a bot that plays on time out
TIGHT = TimeControl(move=0.5, bank=1.0, first=5.0)  # for the bots meant to time out: an early timeout is the same fault
AT = 4  # the request at which the bot turns hostile: mid-way through its first round


def hostile_bot(tmp_path: Path, behaviour: str, arg: str = "") -> Path:
    folder = tmp_path / behaviour
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "hostile_match" / "bot.py", folder / "bot.py")
    shutil.copy(ROOT / "bots" / "kits" / "python" / "main.py", folder / "kit.py")
    command = ["python3", "bot.py", behaviour, str(AT)] + ([arg] if arg else [])
    (folder / "bot.toml").write_text(f'name = "hostile-{behaviour}"\nversion = "1"\ncommand = {command!r}\n'.replace("'", '"'))
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def no_bot_process_left(player) -> None:
    """No process runs under the uid slot the bot had (its sandbox's only identity). The slot's lock is
    taken first, as a harness takes it (waiting while another test's bot holds the slot, freed at the
    end of this match): no new bot can then run under the uid, and any process of it is a leftover."""
    uid = player.proc.uid
    assert FIRST_UID <= uid < FIRST_UID + SLOT_COUNT
    fd = os.open(SLOT_DIR / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert processes_of(uid) == [], f"bot processes outlived the match under uid {uid}"
    finally:
        os.close(fd)


def probes(player) -> list[str]:
    return [line for line in player.stderr.splitlines() if line.startswith("probe:")]


FAULTING = {
    "spin": "timeout",
    "sleep": "timeout",
    "crash": "crash",
    "flood_stdout": "line_too_long",
    "fork_bomb": "timeout",
    "memory_hog": "crash",
}


@pytest.mark.parametrize("behaviour", sorted(FAULTING))
def test_a_bot_turning_hostile_mid_match_is_recorded_and_the_match_completes(behaviour, tmp_path):
    bot = hostile_bot(tmp_path, behaviour)
    clock = TIGHT if FAULTING[behaviour] == "timeout" else CLOCK
    result, events, faults, players = play([bot, "builtin:greedy", "builtin:random"], seed=2, time=clock)
    assert [(f.seat, f.kind) for f in faults] == [(0, FAULTING[behaviour])], faults
    assert result.reason in ("complete", "void_rounds") and result.ranks[0] == 3
    assert any(e.get("e") == "round_end" for e in events)
    if behaviour == "memory_hog":
        assert "memory" in faults[0].reason
    if behaviour == "crash":
        assert "crashing mid-match" in faults[0].stderr
    no_bot_process_left(players[0])


def test_a_stderr_flood_is_capped_and_the_bot_plays_on(tmp_path):
    bot = hostile_bot(tmp_path, "flood_stderr")
    result, _events, faults, players = play([bot, "builtin:greedy"], seed=2, time=CLOCK)
    assert faults == [] and result.reason == "complete"
    assert 0 < len(players[0].stderr) <= 64_000
    no_bot_process_left(players[0])


def test_network_connection_from_the_bot_fails(tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()  # unsandboxed, it works
        listener.accept()[0].close()
        bot = hostile_bot(tmp_path, "network", str(port))
        result, _events, faults, players = play([bot, "builtin:greedy"], seed=2, time=CLOCK)
        assert faults == [] and result.reason == "complete"
        assert probes(players[0]) == ["probe: connect: failed: PermissionError"]
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        listener.close()
    no_bot_process_left(players[0])


def test_reading_outside_its_own_folder_fails(tmp_path):
    import os

    other_bot = ROOT / "tests" / "hostile" / "echo" / "bot.py"
    paths = ["/etc/passwd", str(ROOT / "README.md"), str(other_bot), f"/proc/{os.getpid()}/environ",
             f"/proc/{os.getpid()}/cmdline"]
    bot = hostile_bot(tmp_path, "snoop", ",".join(paths))
    result, _events, faults, players = play([bot, "builtin:greedy"], seed=2, time=CLOCK)
    assert faults == [] and result.reason == "complete"
    seen = probes(players[0])
    assert len(seen) == len(paths) and all(": failed: " in line for line in seen), seen
    no_bot_process_left(players[0])


def test_writing_outside_its_own_tmp_fails(tmp_path):
    paths = ["/bot/x", "/etc/x", "/x", "/var/tmp/x", "/dev/shm/x", "/tmp/ok"]
    bot = hostile_bot(tmp_path, "write", ",".join(paths))
    result, _events, faults, players = play([bot, "builtin:greedy"], seed=2, time=CLOCK)
    assert faults == [] and result.reason == "complete"
    seen = probes(players[0])
    assert [line.split(": failed: ")[0] for line in seen[:-1]] == [f"probe: write {p}" for p in paths[:-1]], seen
    assert seen[-1] == "probe: write /tmp/ok: succeeded"  # its own /tmp works
    assert not (tmp_path / "write" / "x").exists()
    no_bot_process_left(players[0])


def test_a_double_forked_child_dies_with_the_match(tmp_path):
    bot = hostile_bot(tmp_path, "daemon")
    result, _events, faults, players = play([bot, "builtin:greedy"], seed=2, time=CLOCK)
    assert faults == [] and result.reason == "complete"
    assert probes(players[0]) == ["probe: daemon: forked"]
    no_bot_process_left(players[0])
