"""A bot folder's files. What it may hold, checked the same way for a submission and for a folder named
by path: only folders and regular files (no symbolic links, FIFOs, sockets or devices), at most
``MAX_FILES`` files and ``MAX_BYTES`` bytes in all, folders at most ``MAX_DEPTH`` deep; the names the
arena keeps for itself. Its content hash, which names a bot's version everywhere. Its files packed as
tar.gz bytes for the trip to a worker node, and unpacked there.

The content hash (``content_hash``) is the sha256 over the folder's regular files in the order of
their relative paths (``/``-separated, compared as UTF-8 bytes): for each, the path, whether it is
executable, its size and its bytes. ``__pycache__`` and ``.git`` are ignored, at any depth; nothing
else is.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
from pathlib import Path

MAX_BYTES = 64 << 20  # 64 MiB of files in one bot folder
MAX_FILES = 10_000
MAX_DEPTH = 100  # folders within folders: staging copies a folder by recursion, which stops near 500
RESERVED_NAMES = frozenset({"ratings.jsonl"})  # files at the top of an arena, never a bot's name
IGNORED = frozenset({"__pycache__", ".git"})  # left out of the content hash and of a packed folder


class ArenaError(ValueError):
    """Bad input for the arena (a bad folder, an unknown bot...): the message is one line."""


def check_entries(entries, shown: str) -> None:
    """``entries``: (relative path, path, lstat) of everything in the folder ``shown``; raises
    ValueError (one line) for anything a bot folder may not hold."""
    total = files = 0
    for rel, _path, st in entries:
        if stat.S_ISLNK(st.st_mode):
            raise ValueError(f"{shown}/{rel} is a symbolic link: a bot folder holds only files and folders")
        if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
            raise ValueError(f"{shown}/{rel} is not a regular file: a bot folder holds only files and folders")
        if stat.S_ISDIR(st.st_mode) and rel.count("/") >= MAX_DEPTH:
            raise ValueError(f"{shown}/{rel[:200]}... is nested more than {MAX_DEPTH} folders deep: a bot folder "
                             f"may nest at most {MAX_DEPTH}")
        if stat.S_ISREG(st.st_mode):
            files += 1
            total += st.st_size
        if files > MAX_FILES:
            raise ValueError(f"{shown} holds more than {MAX_FILES} files: a bot folder may hold at most {MAX_FILES}")
        if total > MAX_BYTES:
            raise ValueError(f"{shown} holds more than {MAX_BYTES >> 20} MiB of files: a bot folder may hold at most "
                             f"{MAX_BYTES >> 20} MiB")


def check_submittable(name: str) -> None:
    """A name that is not one of the arena's own files (the version was checked with the bot.toml:
    harness/players/manifest.py)."""
    if name.lower() in RESERVED_NAMES:
        raise ValueError(f"the name {name!r} is reserved by the arena (its own file): give the bot another name")


def _entries(folder: Path) -> list:
    """(relative path, path, lstat) of everything under ``folder`` but the ignored names, sorted by
    relative path; raises ArenaError (one line) when the folder cannot be read."""
    out, stack = [], [(folder, "")]
    try:
        while stack:
            directory, rel = stack.pop()
            with os.scandir(directory) as it:
                for entry in it:
                    if entry.name in IGNORED:
                        continue
                    path, st = Path(entry.path), entry.stat(follow_symlinks=False)
                    out.append((rel + entry.name, path, st))
                    if stat.S_ISDIR(st.st_mode):
                        stack.append((path, rel + entry.name + "/"))
    except OSError as e:
        raise ArenaError(f"cannot read {getattr(e, 'filename', None) or folder}: {e.strerror or e}") from None
    out.sort(key=lambda item: _bytes(item[0]))
    return out


def _bytes(rel: str) -> bytes:
    return rel.encode("utf-8", "surrogateescape")


def content_hash(folder) -> str:
    """The sha256 (hex) of a bot folder's content: regular files by relative path, their executable
    bit and their bytes; ``__pycache__`` and ``.git`` ignored. Symbolic links count by their target
    (they are not followed). Raises ArenaError for a folder that is missing or unreadable."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ArenaError(f"{folder} is not a folder")
    h = hashlib.sha256(b"ellibir bot content 1\0")
    try:
        for rel, path, st in _entries(folder):
            if stat.S_ISDIR(st.st_mode):
                continue
            if stat.S_ISLNK(st.st_mode):
                target = _bytes(os.readlink(path))
                h.update(b"L\0" + _bytes(rel) + b"\0" + str(len(target)).encode() + b"\0" + target)
            elif stat.S_ISREG(st.st_mode):
                kind = b"X" if st.st_mode & 0o111 else b"F"
                h.update(kind + b"\0" + _bytes(rel) + b"\0" + str(st.st_size).encode() + b"\0")
                with open(path, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
            else:
                h.update(b"S\0" + _bytes(rel) + b"\0")
    except OSError as e:
        raise ArenaError(f"cannot read {getattr(e, 'filename', None) or folder}: {e.strerror or e}") from None
    return h.hexdigest()


def pack_folder(folder) -> bytes:
    """The files of a bot folder as tar.gz bytes (``__pycache__`` and ``.git`` left out)."""
    folder = Path(folder)
    buffer = io.BytesIO()

    def keep(info: tarfile.TarInfo):
        if any(part in IGNORED for part in Path(info.name).parts):
            return None
        if not (info.isfile() or info.isdir() or info.issym()):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for entry in sorted(os.listdir(folder)):
            tar.add(folder / entry, arcname=entry, recursive=True, filter=keep)
    return buffer.getvalue()


def unpack_folder(data: bytes, into: Path) -> Path:
    """Unpack ``pack_folder`` bytes into the new folder ``into``: folders 0755, files 0644 (0755 when
    executable), so that the sandboxed bot (another uid) can read them."""
    into.mkdir(mode=0o755)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(into, filter="data")
    for root, dirs, files in os.walk(into):
        os.chmod(root, 0o755)
        for name in files:
            path = os.path.join(root, name)
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode):
                os.chmod(path, 0o755 if st.st_mode & 0o111 else 0o644)
    return into
