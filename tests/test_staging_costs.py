"""What a bot folder can make the harness spend before its bot runs. Staging compiles the folder's
Python files as root, outside any sandbox (harness/sandbox/staging.py): a folder may hold 64 MiB, and
CPython's compiler takes about 430 MB per MiB of short statements (a 16 MiB file of ``a=1``: 6.9 GB
and 42 s here), so a bot of one big file could take the node's memory. Files past the caps are left
to the bot, which compiles them on its own clock and memory when it imports them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from harness.players.botproc import BotProcess
from harness.sandbox.bubblewrap import capabilities, sandbox_available
COMPILE_FILE_MOST = 1 << 20  # harness/sandbox/staging.py

REPO = Path(__file__).resolve().parents[1]
ECHO = Path(__file__).parent / "hostile" / "echo" / "bot.py"

# Stages a folder in a process of its own and says how much memory its children (the compiler) took.
STAGE = """import json, resource, sys
from pathlib import Path
from harness.sandbox.staging import staged
copy = staged(Path(sys.argv[1]))
print(json.dumps({"bytecode": sorted(p.name.split(".")[0] for p in copy.glob("__pycache__/*.pyc")),
                  "child_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


@pytest.fixture
def bomb():
    """A well-behaved bot (the echo bot) that carries a 2.5 MiB module of short statements."""
    out = Path(tempfile.mkdtemp(prefix="ellibir-compile-bomb-"))
    out.chmod(0o755)
    shutil.copy(ECHO, out / "bot.py")
    (out / "bot.toml").write_text(f'name = "compile-bomb"\nversion = "{out.name}"\ncommand = ["python3", "bot.py"]\n')
    (out / "big.py").write_text("a=1\n" * (5 << 18))  # 2.5 MiB: more than 1 GB to compile
    for path in out.iterdir():
        path.chmod(0o644)
    yield out
    shutil.rmtree(out, ignore_errors=True)


@pytest.mark.skipif(not sandbox_available(), reason=f"bubblewrap cannot sandbox bots here: {capabilities()['problem']}")
def test_a_huge_module_in_a_bot_folder_costs_the_harness_no_gigabytes_and_the_bot_still_runs(bomb):
    assert (bomb / "big.py").stat().st_size > COMPILE_FILE_MOST
    run = subprocess.run([sys.executable, "-c", STAGE, str(bomb)], cwd=REPO, capture_output=True, text=True,
                         timeout=300, check=True)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["child_rss_kb"] < 300_000, f"compiling the folder took {report['child_rss_kb'] // 1024} MB"
    assert report["bytecode"] == ["bot"]  # the bot's own small module still has its bytecode
    with BotProcess(bomb, ["python3", "bot.py"], sandbox=True) as bot:
        bot.send({"type": "ping"})
        assert bot.receive(30.0)["echo"] == {"type": "ping"}


def _deep(top: Path, depth: int) -> None:
    where = top
    for _ in range(depth):
        where = where / "d"
        where.mkdir(mode=0o755)
    (where / "x").write_text("x" * 100_000)
    (where / "x").chmod(0o644)


def _left_over(folder: Path) -> list:
    """Half-made copies of ``folder`` left in the stage folder (``.bot-<digest>.PID.TID``)."""
    import hashlib

    from harness.sandbox.staging import BOT, STAGE_DIR, STAGE_FORMAT, _digest

    name = BOT + hashlib.sha256(f"{_digest(folder)}\0{STAGE_FORMAT}".encode()).hexdigest()[:32]
    return [p.name for p in STAGE_DIR.iterdir() if p.name.startswith(f".{name}.")]


@pytest.mark.skipif(not sandbox_available(), reason=f"bubblewrap cannot sandbox bots here: {capabilities()['problem']}")
def test_a_folder_nested_too_deep_is_refused_in_one_line_and_a_failed_copy_is_not_left_in_memory():
    """600 folders deep: os.walk goes through, copytree's recursion does not. Such a copy failed midway
    was left on the tmpfs (up to 64 MiB of memory each, for two days), one per process that tried."""
    top = Path(tempfile.mkdtemp(prefix="ellibir-deep-"))
    try:
        top.chmod(0o755)
        bot = top / "bot"
        bot.mkdir(mode=0o755)
        shutil.copy(ECHO, bot / "bot.py")
        (bot / "bot.toml").write_text(f'name = "deep"\nversion = "{top.name}"\ncommand = ["python3", "bot.py"]\n')
        for path in bot.iterdir():
            path.chmod(0o644)
        _deep(bot, 600)
        done = subprocess.run([sys.executable, "-m", "harness", "bot", "check", str(bot)], cwd=REPO,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 2 and "nested more than 100 folders deep" in done.stderr, done.stderr[-2000:]
        # the sandbox itself, reached without the folder's check: the copy fails, and goes
        process = BotProcess(bot, ["python3", "bot.py"], sandbox=True)
        with pytest.raises(RecursionError):
            process.start()
        process.close()
        assert _left_over(bot) == []
    finally:
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.skipif(not sandbox_available(), reason=f"bubblewrap cannot sandbox bots here: {capabilities()['problem']}")
def test_what_a_process_remembers_of_a_staged_folder_is_small_whatever_its_files():
    """A worker stages every version it plays, for days, and remembered each by its list of files (a
    megabyte for a folder of 10,000): now by a hash of it."""
    from harness.sandbox import staging

    top = Path(tempfile.mkdtemp(prefix="ellibir-many-files-"))
    try:
        top.chmod(0o755)
        shutil.copy(ECHO, top / "bot.py")
        (top / "bot.toml").write_text(f'name = "many-files"\nversion = "{top.name}"\ncommand = ["python3", "bot.py"]\n')
        (top / "data").mkdir(mode=0o755)
        for i in range(300):  # the old list of these took 23 kB, a folder of 10,000 a megabyte
            (top / "data" / f"a-rather-long-name-for-a-data-file-{i:05}.txt").write_text("x")
        for path in [*top.iterdir(), *(top / "data").iterdir()]:
            if path.is_file():
                path.chmod(0o644)
        with BotProcess(top, ["python3", "bot.py"], sandbox=True) as bot:
            bot.send({"type": "ping"})
            assert bot.receive(30.0)["echo"] == {"type": "ping"}
        mine = [key for key in staging._STAMPS if key[0] == str(top.resolve())]
        assert len(mine) == 1
        assert sum(sys.getsizeof(part) for part in mine[0]) < 1000
        assert len(staging._STAMPS) <= staging.STAMPS_KEPT
    finally:
        shutil.rmtree(top, ignore_errors=True)
