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
