"""What every sandbox shares: the Python that runs Python bots, the ``PATH`` a bot gets, and the error
of a sandbox that cannot be set up."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


class SandboxError(RuntimeError):
    """The sandbox cannot be set up on this machine (an infrastructure failure, not a bot's)."""


def bot_interpreter() -> Path:
    """The folder of the Python that runs Python bots: this harness's base interpreter."""
    base = Path(sys.base_prefix).resolve() / "bin"
    if (base / "python3").exists():
        return base
    return Path(os.path.realpath(sys.executable)).parent


def bot_path() -> str:
    return f"{bot_interpreter()}:{SAFE_PATH}"


def uses_python(command: list[str]) -> bool:
    return Path(command[0]).name.startswith("python")
