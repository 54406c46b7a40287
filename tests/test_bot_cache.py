"""A node's cache of bot folders (harness/runs/nodecheck.py) does not grow without end: every version
of every bot a node played stayed in ``$TMPDIR/ellibir-bots-UID``, up to 64 MiB each, and an arena
takes ten uploads an hour from each user. A folder unused for two days goes when another is unpacked."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

from harness.arena.registry import content_hash
from harness.players.botfiles import pack_folder
from harness.players.botproc import BotProcess
from harness.runs import nodecheck
from harness.sandbox.bubblewrap import capabilities, sandbox_available

ECHO = Path(__file__).parent / "hostile" / "echo"


@pytest.mark.skipif(not sandbox_available(), reason=f"bubblewrap cannot sandbox bots here: {capabilities()['problem']}")
def test_a_cached_bot_folder_unused_for_days_goes_and_one_in_use_stays(tmp_path, monkeypatch):
    tmp_path.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the node's $TMPDIR, for this test alone
    root = nodecheck.cache_root()
    old = time.time() - 2 * 86400 - 3600  # nodecheck.CACHE_UNUSED_FOR, and an hour
    for name in ("0" * 64, ".dead0000.half"):  # an old version, a half-unpacked one of a killed worker
        (root / name / "bot").mkdir(parents=True)
        (root / name / "bot" / "big").write_bytes(b"x" * 4096)
        os.utime(root / name, (old, old))
    (root / ("1" * 64)).mkdir()  # another version, used an hour ago
    digest = content_hash(ECHO)
    folder = nodecheck.bot_folder("echo", digest, {"echo": pack_folder(ECHO)})
    assert sorted(os.listdir(root)) == sorted([digest, "1" * 64])
    with BotProcess(folder, ["python3", "bot.py"], sandbox=True) as bot:
        bot.send({"type": "ping"})
        assert bot.receive(30.0)["echo"] == {"type": "ping"}
    # unused for days in this process too: removed by another, it is unpacked again when needed
    os.utime(folder, (old, old))
    assert nodecheck.prune_cache(root) == [digest]
    assert nodecheck.bot_folder("echo", digest, {"echo": pack_folder(ECHO)}) == folder
    assert content_hash(folder) == digest
