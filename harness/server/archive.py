"""A bot folder from an uploaded zip or tar (plain, gzip, bzip2 or xz), unpacked safely: only files
and folders (no links, hard links, devices or FIFOs), relative names that stay inside the folder,
at most ``MAX_FILES`` files, ``MAX_BYTES`` bytes unpacked (counted as written, not as declared) and
``MAX_DEPTH`` levels. One folder at the top that holds everything is taken as the bot folder.

A compressed tar is decompressed first into a scratch file next to the new folder, and only up to
``MAX_BYTES`` plus ``HEADERS`` bytes: tarfile reads a member's header data (a PAX or GNU long-name
header) whole into memory, and seeks past a member's data by decompressing it, so a few hundred
bytes of bzip2 declaring a header of gigabytes of zeros would take the server's memory and time."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import shutil
import stat
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from harness.arena.registry import remove_tree

from harness.players.botfiles import MAX_BYTES, MAX_FILES

MAX_DEPTH = 16
MAX_NAME = 255
CHUNK = 1 << 16
HEADERS = 32 << 20  # a tar's own bytes besides its files' (headers, padding): MAX_FILES of them fit
COMPRESSED = ((b"\x1f\x8b", gzip.open), (b"BZh", bz2.open), (b"\xfd7zXZ\x00", lzma.open))


class ArchiveError(ValueError):
    """An archive refused: one line."""


def unpack(data: bytes, dest: Path) -> Path:
    """Unpack ``data`` into the new folder ``dest``; returns the bot folder (``dest`` or its one
    sub-folder). Raises ArchiveError; ``dest`` may then hold part of the files (the caller removes it)."""
    with tempfile.TemporaryFile(dir=dest.parent) as scratch:  # a compressed tar, decompressed: gone on close
        members = _members(data, scratch)
        names = [name for name, _kind, _mode, _open in members]
        if not names:
            raise ArchiveError("the archive is empty")
        if len({n for n in names}) != len(names):
            raise ArchiveError("the archive names one path twice")
        dest.mkdir(mode=0o755)
        try:
            _write(members, dest)
        except ArchiveError:
            raise
        except Exception as e:  # noqa: BLE001  (any decoder's error on untrusted bytes: encrypted, corrupt, unknown method)
            raise ArchiveError(f"the archive cannot be unpacked: {_reason(e)}") from None
    tops = {name.parts[0] for name in names}
    if len(tops) == 1 and (dest / next(iter(tops))).is_dir() and not (dest / "bot.toml").exists():
        return dest / next(iter(tops))
    return dest


def _write(members: list, dest: Path) -> None:
    written = files = 0
    for name, kind, mode, opener in sorted(members, key=lambda m: len(m[0].parts)):
        target = dest.joinpath(*name.parts)
        if kind == "dir":
            target.mkdir(mode=0o755, parents=False, exist_ok=True)
            continue
        files += 1
        if files > MAX_FILES:
            raise ArchiveError(f"the archive holds more than {MAX_FILES} files")
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755 if mode & 0o111 else 0o644)
        with os.fdopen(fd, "wb") as out, opener() as source:
            while chunk := source.read(CHUNK):
                written += len(chunk)
                if written > MAX_BYTES:
                    raise ArchiveError(f"the archive unpacks to more than {MAX_BYTES >> 20} MiB")
                out.write(chunk)


def _members(data: bytes, scratch) -> list:
    """(relative name, "file" or "dir", mode, a function that opens the file's bytes) of every member;
    a compressed tar is decompressed into the empty file ``scratch``, which the members then read."""
    if zipfile.is_zipfile(io.BytesIO(data)):
        return _zip_members(data)
    opener = next((o for magic, o in COMPRESSED if data.startswith(magic)), None)
    if opener is None:
        try:
            return _tar_members(tarfile.open(fileobj=io.BytesIO(data), mode="r:"))
        except tarfile.ReadError:
            opener = lzma.open  # the .lzma format has no magic bytes
    try:
        _decompress(opener, data, scratch)
    except ArchiveError:
        raise
    except Exception as e:  # noqa: BLE001  (gzip, bz2 and lzma each have their own errors)
        if opener is lzma.open and not data.startswith(COMPRESSED[2][0]):
            raise ArchiveError("not a zip or tar archive") from None
        raise ArchiveError(f"the tar archive is damaged ({_reason(e)})") from None
    try:
        archive = tarfile.open(fileobj=scratch, mode="r:")
    except (tarfile.TarError, EOFError, OSError):
        raise ArchiveError("not a zip or tar archive") from None
    return _tar_members(archive)


def _decompress(opener, data: bytes, out) -> None:
    """The bytes ``opener`` decompresses from ``data`` written to the file ``out``, then rewound;
    refused past MAX_BYTES + HEADERS."""
    cap = MAX_BYTES + HEADERS
    with opener(io.BytesIO(data)) as source:
        size = 0
        while chunk := source.read(CHUNK):
            size += len(chunk)
            if size > cap:
                raise ArchiveError(f"the archive unpacks to more than {MAX_BYTES >> 20} MiB")
            out.write(chunk)
    out.seek(0)


def _tar_members(archive) -> list:
    out = []
    try:
        for info in archive:
            if len(out) > 2 * MAX_FILES:
                raise ArchiveError(f"the archive holds more than {MAX_FILES} files")
            name = _safe_name(info.name)
            if info.isdir():
                out.append((name, "dir", 0o755, None))
            elif info.isreg():
                out.append((name, "file", info.mode, lambda info=info: archive.extractfile(info)))
            else:
                what = "link" if info.issym() or info.islnk() else "special file"
                raise ArchiveError(f"{info.name!r} is a {what}: a bot archive holds only files and folders")
    except ArchiveError:
        raise
    except Exception as e:  # noqa: BLE001  (tarfile, gzip, bz2, lzma and zlib each have their own errors)
        raise ArchiveError(f"the tar archive is damaged ({_reason(e)})") from None
    return out


def _reason(e: Exception) -> str:
    return " ".join(f"{type(e).__name__}: {getattr(e, 'strerror', None) or e}".split())[:200]


def _zip_members(data: bytes) -> list:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except Exception as e:  # noqa: BLE001
        raise ArchiveError(f"the zip archive is damaged ({_reason(e)})") from None
    if len(infos) > 2 * MAX_FILES:
        raise ArchiveError(f"the archive holds more than {MAX_FILES} files")
    out = []
    for info in infos:
        name = _safe_name(info.filename)
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)
        if info.is_dir():
            out.append((name, "dir", 0o755, None))
        elif kind in (0, stat.S_IFREG):
            out.append((name, "file", mode, lambda info=info: archive.open(info)))
        else:
            what = "link" if kind == stat.S_IFLNK else "special file"
            raise ArchiveError(f"{info.filename!r} is a {what}: a bot archive holds only files and folders")
    return out


def _safe_name(raw: str) -> PurePosixPath:
    text = raw.rstrip("/")
    if not text or "\\" in text or "\0" in text or text.startswith("/"):
        raise ArchiveError(f"{raw!r}: an archive's names must be relative paths with '/'")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        raise ArchiveError(f"{raw!r} points outside the bot folder")
    if len(parts) > MAX_DEPTH:
        raise ArchiveError(f"{raw!r} is deeper than {MAX_DEPTH} folders")
    if any(len(p.encode("utf-8", "surrogateescape")) > MAX_NAME for p in parts):
        raise ArchiveError(f"{raw[:60]!r}...: a name longer than {MAX_NAME} bytes")
    return PurePosixPath(*parts)


def keep(folder: Path, kept: Path) -> None:
    """A copy of ``folder`` as ``kept/bot``, put in place whole (by its content hash: once)."""
    if kept.exists():
        return
    staging = Path(tempfile.mkdtemp(prefix=".part-", dir=kept.parent))
    try:
        shutil.copytree(folder, staging / "bot")
        staging.chmod(0o755)
        os.rename(staging, kept)
    except OSError:
        if not (kept / "bot").is_dir():
            raise
    finally:
        remove_tree(staging)
