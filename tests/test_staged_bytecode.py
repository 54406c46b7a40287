"""Staged copies carry their bytecode (issue 17): compiled once by the bots' interpreter when a folder is
staged, so that a sandboxed Python bot importing the engine compiles nothing when it starts, and nothing
a bot controls makes the harness compile or write outside the copy."""

from __future__ import annotations

import importlib.util
import os
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest

from harness.players.botproc import BotProcess
from harness.players.program import engine_binds
from harness.sandbox.bubblewrap import bot_interpreter, capabilities, sandbox_available
from harness.sandbox.staging import staged

# Counts every module compiled from source (SourceLoader.source_to_code runs only then), imports the
# engine, the bots package and a module of its own folder, and says which files it had to compile.
REPORTER = """import importlib.machinery, json, sys
compiled = []
to_code = importlib.machinery.SourceFileLoader.source_to_code
def counting(self, data, path, *args, **kwargs):
    compiled.append(path)
    return to_code(self, data, path, *args, **kwargs)
importlib.machinery.SourceFileLoader.source_to_code = counting
sys.path.insert(0, "/ellibir")
import engine, bots, helper
import engine.einundfuenfzig, bots.einundfuenfzig
engine_files = [m.__file__ for name, m in sorted(sys.modules.items())
                if name.split(".")[0] in ("engine", "bots", "helper") and getattr(m, "__file__", None)]
for line in sys.stdin:
    print(json.dumps({"compiled": compiled, "imported": engine_files,
                      "dont_write": sys.dont_write_bytecode}), flush=True)
"""


def interpreter_magic() -> bytes:
    out = subprocess.run([str(bot_interpreter() / "python3"), "-I", "-c",
                          "import importlib.util, sys; sys.stdout.buffer.write(importlib.util.MAGIC_NUMBER)"],
                         capture_output=True, check=True)
    return out.stdout


def tag() -> str:
    return subprocess.run([str(bot_interpreter() / "python3"), "-I", "-c",
                           "import sys; print(sys.implementation.cache_tag)"],
                          capture_output=True, text=True, check=True).stdout.strip()


def cached(path: Path, cache_tag: str) -> Path:
    return path.parent / "__pycache__" / f"{path.stem}.{cache_tag}.pyc"


@pytest.fixture
def folder():
    out = Path(tempfile.mkdtemp(prefix="ellibir-bytecode-"))
    out.chmod(0o755)
    yield out
    shutil.rmtree(out, ignore_errors=True)


def test_a_staged_copy_holds_valid_bytecode_of_every_python_file(folder):
    (folder / "main.py").write_text("import helper\nprint(helper.X)\n")
    (folder / "helper.py").write_text("X = 51\n")
    (folder / "pkg").mkdir()
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "pkg" / "deep.py").write_text("def f():\n    return 'deep'\n")
    (folder / "broken.py").write_text("def (:\n")  # the bot meets this error itself
    copy = staged(folder)
    magic, cache_tag = interpreter_magic(), tag()
    sources = sorted(p for p in copy.rglob("*.py"))
    assert {p.relative_to(copy).as_posix() for p in sources} == {"main.py", "helper.py", "pkg/__init__.py",
                                                                  "pkg/deep.py", "broken.py"}
    for source in sources:
        pyc = cached(source, cache_tag)
        if source.name == "broken.py":
            assert not pyc.exists()
            continue
        data = pyc.read_bytes()
        flags, mtime, size = struct.unpack("<III", data[4:16])
        st = source.stat()
        assert data[:4] == magic and flags == 0  # timestamp-checked bytecode of the bots' interpreter
        assert (mtime, size) == (int(st.st_mtime) & 0xFFFFFFFF, st.st_size)
        assert pyc.stat().st_mode & 0o222 == 0  # read-only, like the rest of the copy
        assert str(folder).encode() not in data and b"ellibir-stage" not in data  # no host path inside
    assert staged(folder) == copy  # compiled once: the copy is found again, not made anew


def test_staging_follows_no_link_when_compiling(folder):
    outside = Path(tempfile.mkdtemp(prefix="ellibir-outside-"))
    try:
        (outside / "secret.py").write_text("PASSWORD = 'hunter2'\n")
        (folder / "main.py").write_text("print('hi')\n")
        (folder / "leak.py").symlink_to(outside / "secret.py")
        (folder / "sub").mkdir()
        (folder / "sub" / "mod.py").write_text("Y = 1\n")
        (folder / "sub" / "__pycache__").symlink_to(outside)
        (folder / "linked").symlink_to(outside)
        copy = staged(folder)
        cache_tag = tag()
        assert cached(copy / "main.py", cache_tag).exists()
        assert not cached(copy / "leak.py", cache_tag).exists()
        assert sorted(os.listdir(outside)) == ["secret.py"]  # nothing written through the linked __pycache__
        assert not any(b"hunter2" in p.read_bytes() for p in copy.rglob("*.pyc"))
    finally:
        shutil.rmtree(outside, ignore_errors=True)


@pytest.mark.skipif(not sandbox_available(), reason=f"bubblewrap cannot sandbox bots here: {capabilities()['problem']}")
def test_a_sandboxed_python_bot_importing_the_engine_compiles_nothing(folder):
    (folder / "main.py").write_text(REPORTER)
    (folder / "helper.py").write_text("HELPER = True\n")
    for path in folder.iterdir():
        path.chmod(0o644)
    with BotProcess(folder, ["python3", "main.py"], binds=engine_binds(), sandbox=True) as bot:
        bot.send({"type": "ping"})
        report = bot.receive(20.0)
    assert report["dont_write"] is False  # it would write bytecode if it could: it just has none to write
    imported = report["imported"]
    assert any(f.startswith("/ellibir/engine/") for f in imported)
    assert any(f.startswith("/ellibir/bots/") for f in imported)
    assert "/bot/helper.py" in imported
    assert report["compiled"] == []


def test_the_reporter_sees_compilation_where_there_is_no_bytecode(folder):
    """The check above can fail: run unsandboxed from a folder without bytecode, the same bot reports
    the module it compiled."""
    (folder / "main.py").write_text(REPORTER.replace('sys.path.insert(0, "/ellibir")', "").replace(
        "import engine, bots, helper\nimport engine.einundfuenfzig, bots.einundfuenfzig\n", "import helper\n"))
    (folder / "helper.py").write_text("HELPER = True\n")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([str(bot_interpreter() / "python3"), "-E", "-s", "main.py"], cwd=folder, input="x\n",
                         capture_output=True, text=True, env=env, check=True)
    assert str(folder / "helper.py") in out.stdout


def test_staged_copies_nobody_uses_are_removed_and_used_ones_kept(tmp_path):
    import os
    import time

    from harness.sandbox import bubblewrap as sandbox
    from harness.sandbox import staging

    sandbox._static_proc(sandbox.Limits())  # the fixed /proc files, which pruning must keep
    folders = []
    for name in ("old", "fresh"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bot.py").write_text(f"print({name!r})\n")
        folders.append(folder)
    old, fresh = (staging.staged(f) for f in folders)
    long_ago = time.time() - staging.UNUSED_FOR - 60
    os.utime(old, (long_ago, long_ago))
    os.utime(fresh, (long_ago, long_ago))
    assert staging.staged(folders[1]) == fresh  # asked for again: in use
    removed = staging.prune_unused()
    assert old in removed and not old.exists()
    assert fresh.is_dir() and (staging.STAGE_DIR / "proc").is_dir()
    assert staging.staged(folders[0]).is_dir()  # staged again when needed
