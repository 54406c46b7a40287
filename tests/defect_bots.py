"""The defect bots (tests/defect_bots/defect.py: the starter kit with one defect each) as bot folders."""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "defect_bots" / "defect.py"
KIT = HERE.parent / "bots" / "kits" / "python" / "main.py"


def defect_bot(parent: Path, mode: str, *args: str) -> Path:
    """A bot folder ``parent/MODE`` running defect.py in ``mode``; readable by the sandbox's uids."""
    folder = parent / mode
    folder.mkdir(parents=True)
    shutil.copy(SOURCE, folder / "main.py")
    shutil.copy(KIT, folder / "kit.py")
    command = ", ".join(f'"{part}"' for part in ["python3", "main.py", mode, *args])
    (folder / "bot.toml").write_text(f'name = "defect-{mode.replace("_", "-")}"\nversion = "1"\ncommand = [{command}]\n')
    for p in [parent, folder, *folder.iterdir()]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return folder
