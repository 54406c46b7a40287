"""A bot folder's manifest, ``bot.toml``: read and checked, with one-line errors.

::

    name = "my-bot"                 # letters, digits, '.', '_' or '-'; at most 64 characters
    version = "1.0.0"               # 1 to 64 printable characters; not a path ('/', '\\', a leading '.') nor '+'
    command = ["python3", "main.py"] # run in the bot's folder (its working directory)
    notes = "optional free text"
    uses_engine = false             # true: the harness makes its ``engine`` and ``bots`` packages
                                    # importable inside the sandbox (under /ellibir)
    games = ["ellibir"]             # the games the bot plays (default: ellibir only)
    fresh_process = false           # true: a new process for every match, even under protocol 2
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from results.files import read_regular_text

MANIFEST = "bot.toml"
MAX_MANIFEST = 64 << 10  # bytes
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
FIELDS = ("name", "version", "command", "notes", "uses_engine", "games", "fresh_process")


class ManifestError(ValueError):
    """A bot folder or manifest that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Manifest:
    folder: Path
    name: str
    version: str
    command: tuple
    notes: str = ""
    uses_engine: bool = False
    games: tuple = ("ellibir",)
    fresh_process: bool = False  # never serve a second match with one process (docs/protocol.md)

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}"


def _one_line(text) -> str:
    return " ".join(str(text).split())


def load_manifest(folder) -> Manifest:
    """The manifest of the bot in ``folder``; raises ManifestError with a one-line message."""
    folder = Path(folder)
    if not folder.exists():
        raise ManifestError(f"bot folder {folder} does not exist")
    if not folder.is_dir():
        raise ManifestError(f"{folder} is not a folder (a bot is a folder with a {MANIFEST})")
    path = folder / MANIFEST
    if not os.path.lexists(path):
        raise ManifestError(f"no {MANIFEST} in {folder}")
    where = f"{path}"
    try:  # a regular file of the folder, never through a link (read as root, before the folder's checks)
        data = tomllib.loads(read_regular_text(path, MAX_MANIFEST))
    except UnicodeDecodeError:
        raise ManifestError(f"{where}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"{where}: invalid TOML: {_one_line(e)}") from None
    except RecursionError:
        raise ManifestError(f"{where}: invalid TOML: nested too deep") from None
    except OSError as e:
        raise ManifestError(f"{where}: {e.strerror or e}") from None
    except ValueError as e:  # larger than MAX_MANIFEST
        raise ManifestError(str(e)) from None
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ManifestError(f"{where}: unknown field {unknown[0]!r} (fields: {', '.join(FIELDS)})")
    for required in ("name", "version", "command"):
        if required not in data:
            raise ManifestError(f"{where}: missing field {required!r}")
    name = data["name"]
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ManifestError(f"{where}: name must be 1 to 64 letters, digits, '.', '_' or '-' "
                            f"(starting with a letter or digit), got {_one_line(repr(name))}")
    problem = version_problem(data["version"])
    if problem:
        raise ManifestError(f"{where}: {problem}")
    version = data["version"]
    command = data["command"]
    if not isinstance(command, list) or not command:
        raise ManifestError(f"{where}: command must be a non-empty list of strings, e.g. [\"python3\", \"main.py\"]")
    if not all(isinstance(part, str) and part and "\0" not in part for part in command):
        raise ManifestError(f"{where}: every part of command must be a non-empty string")
    notes = data.get("notes", "")
    if not isinstance(notes, str):
        raise ManifestError(f"{where}: notes must be a string")
    uses_engine = data.get("uses_engine", False)
    if not isinstance(uses_engine, bool):
        raise ManifestError(f"{where}: uses_engine must be true or false")
    fresh = data.get("fresh_process", False)
    if not isinstance(fresh, bool):
        raise ManifestError(f"{where}: fresh_process must be true or false")
    games = _games(data.get("games", ["ellibir"]), where)
    return Manifest(folder.resolve(), name, version.strip(), tuple(command), notes, uses_engine, games, fresh)


def version_problem(version) -> str:
    """Why ``version`` cannot be a bot's version ("" when it can). A version is a label: ``NAME@VERSION``
    names a submitted bot (a spec with '/' or a leading '.' is read as a path), the arena keeps it as a
    folder's name, a label's ``+`` marks the content hash added to tell two bots of one label apart, and
    ``,`` separates the labels of a list."""
    shown = _one_line(repr(version))[:80]
    if not isinstance(version, str) or not version.strip() or len(version) > 64 or not version.isprintable():
        return (f"version must be a non-empty string of at most 64 printable characters (no control characters), "
                f"got {shown}")
    version = version.strip()
    if "/" in version or "\\" in version or version.startswith("."):
        return f"version {shown} looks like a path ('/', '\\' or a leading '.'), which NAME@VERSION cannot name"
    if "+" in version:
        return f"version {shown} contains '+', which marks a content hash in a bot's label (name@version+HASH)"
    if "," in version:
        return f"version {shown} contains ',', which separates the bots of a list (--bots, --ladder)"
    return ""


def _games(value, where: str) -> tuple:
    from engine.game import game_names

    known = game_names()
    if not isinstance(value, list) or not value or not all(isinstance(g, str) for g in value):
        raise ManifestError(f"{where}: games must be a non-empty list of game names (known: {', '.join(known)})")
    for game in value:
        if game not in known:
            raise ManifestError(f"{where}: unknown game {game!r} in games (known: {', '.join(known)})")
    return tuple(dict.fromkeys(value))


def require_game(manifest: Manifest, game: str) -> None:
    """Raise ManifestError unless the bot declares that it plays ``game``."""
    if game not in manifest.games:
        raise ManifestError(f"bot {manifest.name} {manifest.version} plays {', '.join(manifest.games)} "
                            f"(games in its {MANIFEST}), not {game}")


__all__ = ["MANIFEST", "Manifest", "ManifestError", "load_manifest", "require_game", "version_problem"]
