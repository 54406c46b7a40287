"""A channel between bots that stays open (docs/security.md, "What remains"): the kernel's counters of
new objects. Inode numbers of pipes, sockets and ``/proc/PID`` files come from counters of the whole
machine (``get_next_ino``); two copies of ``tests/fairplay/inode_mailbox`` at one table, pinned to one
CPU, pass a card a turn through them. No namespace or seccomp rule closes it (``/proc`` lookups draw from
the same counter). The test says what a fix must achieve, and is expected to fail until one comes: a
sandbox that closes the channel makes it pass, and then ``strict`` asks for the mark to go."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.sandbox.bubblewrap import sandbox_available

ROOT = Path(__file__).resolve().parents[1]
BOT = Path(__file__).parent / "fairplay" / "inode_mailbox"


def mailbox_folder(where: Path) -> Path:
    folder = where / "inode_mailbox"
    shutil.copytree(BOT, folder)
    shutil.copy(ROOT / "bots" / "kits" / "python" / "main.py", folder / "kit.py")
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    where.chmod(0o755)
    return folder


def lines(stderr: str, word: str) -> list:
    return [line.split()[1] for line in stderr.splitlines() if line.startswith(word + " ")]


@pytest.mark.skipif(not sandbox_available(), reason="needs the bubblewrap sandbox (root)")
@pytest.mark.xfail(strict=True, reason="open: the kernel's inode counters are shared by every sandbox "
                                      "(docs/security.md, What remains)")
def test_two_copies_at_one_table_pass_no_card_through_the_kernel_s_inode_counter(tmp_path):
    from engine.game import make_rules
    from harness.match.run import MatchSpec, make_players, run_spec

    folder = str(mailbox_folder(tmp_path))
    rules = make_rules("ellibir", "standard", {"players": 2, "rounds": 1, "max_turns": 40, "max_void_rounds": 1})
    spec = MatchSpec("ellibir", rules, 7, (folder, folder))
    players = make_players(spec)
    result, _, faults = run_spec(spec, players=players)
    assert faults == [] and result.reason != "unfinished"
    said = [lines(p.stderr, "said") for p in players]
    heard = [lines(p.stderr, "heard") for p in players]
    assert min(len(s) for s in said) >= 5, said  # both spoke, turn after turn
    # seat 1 hears seat 0's n-th card at its n-th turn; seat 0 hears seat 1's n-th card at its (n+1)-th
    right = sum(a == b for a, b in zip(heard[1], said[0])) + sum(a == b for a, b in zip(heard[0][1:], said[1]))
    assert right <= (len(said[0]) + len(said[1])) // 4, (right, said, heard)
