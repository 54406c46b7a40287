"""What a bot folder may hold, checked the same way for a submission and for a folder named by path:
only folders and regular files (no symbolic links, FIFOs, sockets or devices), at most
``MAX_FILES`` files and ``MAX_BYTES`` bytes in all. Also the names the arena keeps for itself."""

from __future__ import annotations

import stat

MAX_BYTES = 64 << 20  # 64 MiB of files in one bot folder
MAX_FILES = 10_000
RESERVED_NAMES = frozenset({"ratings.jsonl"})  # files at the top of an arena, never a bot's name


def check_entries(entries, shown: str) -> None:
    """``entries``: (relative path, path, lstat) of everything in the folder ``shown``; raises
    ValueError (one line) for anything a bot folder may not hold."""
    total = files = 0
    for rel, _path, st in entries:
        if stat.S_ISLNK(st.st_mode):
            raise ValueError(f"{shown}/{rel} is a symbolic link: a bot folder holds only files and folders")
        if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
            raise ValueError(f"{shown}/{rel} is not a regular file: a bot folder holds only files and folders")
        if stat.S_ISREG(st.st_mode):
            files += 1
            total += st.st_size
        if files > MAX_FILES:
            raise ValueError(f"{shown} holds more than {MAX_FILES} files: a bot folder may hold at most {MAX_FILES}")
        if total > MAX_BYTES:
            raise ValueError(f"{shown} holds more than {MAX_BYTES >> 20} MiB of files: a bot folder may hold at most "
                             f"{MAX_BYTES >> 20} MiB")


def check_submittable(name: str, version: str) -> None:
    """A name that is not one of the arena's own files, a version that ``NAME@VERSION`` can name."""
    if name.lower() in RESERVED_NAMES:
        raise ValueError(f"the name {name!r} is reserved by the arena (its own file): give the bot another name")
    if "/" in version:
        raise ValueError(f"version {version!r} contains '/', which NAME@VERSION cannot name: "
                         f"give a version without '/'")
