"""The author test bots (tests/author_bots/author.py) as runnable folders, made once per session."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "author_bots" / "author.py"
MODES = {"polite": [], "crash": [], "rule": [], "rule_once": [], "slow": ["2.0"], "noflush": [], "tmpfile": [],
         "misname": [],
         "crash_seat1": []}


def make_bot(parent: Path, mode: str, args=(), name: str | None = None, version: str = "1") -> Path:
    """A bot folder ``parent/NAME`` running author.py in ``mode``; readable by the sandbox's uids."""
    folder = parent / (name or mode)
    folder.mkdir(parents=True)
    shutil.copy(SOURCE, folder / "main.py")
    command = ", ".join(f'"{part}"' for part in ["python3", "main.py", mode, *args])
    (folder / "bot.toml").write_text(f'name = "author-{name or mode}"\nversion = "{version}"\ncommand = [{command}]\n')
    for p in [folder, *folder.iterdir()]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return folder


def materialise() -> dict:
    parent = Path(tempfile.mkdtemp(prefix="ellibir-author-bots-"))
    parent.chmod(0o755)
    atexit.register(shutil.rmtree, parent, True)
    return {mode: make_bot(parent, mode, args) for mode, args in MODES.items()}


AUTHOR_BOTS = materialise()
