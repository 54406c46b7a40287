"""Compaction: a run's many small parts merged into few large ones, atomically.

A run writes one part (three files, and a fourth with the bots' stderr when they wrote any) per
task of a few matches; at scale the Parquet footers
outweigh the data and the folders fill with files. ``compact(store)`` merges the finished parts,
in name order, into groups of at most ``MAX_MATCHES`` matches, each group into one new part
``a{N}-c{K}`` (N: a fresh attempt number, so no later task takes a name that was used before).

One group, step by step (each step is a name a test can stop at, ``hook(step)``):

1. ``journal``: ``.compact.json`` names the target and its sources (written whole, then renamed).
2. ``written``: the target's files are written under hidden temporary names and fsynced: logs,
   rounds, matches, and stderr when a source has a stderr file (their whole lines, as every reader
   takes them: ``store.stderr_lines``).
3. ``logs``, ``rounds``, ``stderr``, ``matches``: they are moved into place, matches last. Once the
   target's matches file is in place the sources are hidden from every reader (results/store.py),
   who check first that it holds their matches.
4. ``sources``: the target's matches file read back holds exactly the sources' matches; then each source's matches, rounds, logs and stderr files are removed, in that order.
5. ``cleared``: the journal is removed.

``recover(store)`` finishes or undoes a compaction that stopped: with the target's matches file in
place it removes what is left of the sources, once it has checked that the target holds every match
of each of them (``RunStore.check_journal``: a stale or crafted journal is refused, never believed);
without, it removes the target's other files. Either way the
journal goes last, and hidden temporary files are removed. A stop at any step therefore leaves the
run with each finished match stored exactly once, as readers see it and after recovery. Both
compaction and recovery must run under the run lock (harness/runs/runlock.py); ``--resume`` and
``ellibir compact`` recover first.

Before merging, every source is read whole with its page checksums, and its event logs decompressed
whole (results/integrity.py), and the stored match ids are checked (none stored twice, none without rounds): compaction never merges a
damaged or inconsistent run, and changes nothing then. The merged files keep page checksums.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .files import open_regular
from .integrity import IntegrityError, check_log_part, check_part, id_problems
from .schema import META_TASK
from .store import JOURNAL, META_MEMBERS, RunStore, read_part, _fsync_dir, _fsync_file, _place, log_members, stderr_lines

MAX_MATCHES = 50_000  # matches per compacted part
ROW_GROUP = 256 * 1024  # rows per Parquet row group in a compacted file
STEPS = ("journal", "written", "logs", "rounds", "stderr", "matches", "sources", "cleared")
FILES = ("matches", "rounds", "logs", "stderr")  # a part's files, in the order they are removed


class CompactError(ValueError):
    """A run that cannot be compacted (damaged or inconsistent parts); the message is one line."""


@dataclass
class Compaction:
    parts_before: int  # finished parts before
    parts_after: int
    files_before: int  # files in the run folder (all of them) before
    files_after: int
    recovered: str = ""  # what recovery did first ("" when there was nothing to recover)


def _no_hook(step: str) -> None:
    pass


def count_files(root: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(root))


def compact(store: RunStore, max_matches: int = MAX_MATCHES, hook=_no_hook) -> Compaction:
    """Recover, check, then merge the run's finished parts (see the module's docstring)."""
    recovered = recover(store)
    files_before = count_files(store.root)
    _check(store)
    parts = before = store.part_ids()
    try:
        while groups := plan_groups(parts, max_matches):  # until none is left: compacting again changes nothing
            attempt = store.next_attempt()
            for k, group in enumerate(groups):
                _merge(store, f"a{attempt}-c{k:05d}", group, parts, hook)
            store.forget()
            parts = store.part_ids()
    except OSError as e:  # a full disk, say: the group under way is undone, the parts stay as they were
        recover(store)
        raise CompactError(f"cannot compact {store.root}: {e.strerror or e}; the parts are unchanged") from None
    store.forget()
    return Compaction(len(before), len(store.part_ids()), files_before, count_files(store.root), recovered)


def plan_groups(parts: dict[str, list], max_matches: int) -> list[list[str]]:
    """Consecutive parts (by name) in groups of at most ``max_matches`` matches; only groups of two
    or more parts are kept. ``compact`` plans again after merging until no group is left, so that
    compacting a compacted run changes nothing."""
    groups, current, size = [], [], 0
    for task in sorted(parts):
        n = len(parts[task])
        if current and size + n > max_matches:
            groups.append(current)
            current, size = [], 0
        current.append(task)
        size += n
    groups.append(current)
    return [g for g in groups if len(g) > 1]


def _check(store: RunStore) -> None:
    try:
        for table in ("matches", "rounds"):
            for part in store.parts(table):
                check_part(part)
        for part in store.parts("logs"):  # listed: anything but a regular file there is refused
            check_log_part(part)
        store.parts("stderr")
        problems = id_problems(store, {})
    except IntegrityError as e:
        raise CompactError(f"{e}; nothing was compacted") from None
    if problems:
        raise CompactError(f"{store.root}: {problems[0]}: repair the run before compacting; nothing was compacted")


# One group ------------------------------------------------------------------------------------------

def _write_journal(store: RunStore, target: str, sources: list[str]) -> None:
    tmp = store.root / f".compact.{uuid.uuid4().hex}.tmp"
    tmp.write_text(json.dumps({"target": target, "sources": sources}) + "\n")
    _fsync_file(tmp)
    os.replace(tmp, store.root / JOURNAL)
    _fsync_dir(store.root)


def _merge(store: RunStore, target: str, sources: list[str], parts: dict[str, list], hook) -> None:
    _write_journal(store, target, sources)
    hook("journal")
    final = {t: store.path(t, target) for t in ("logs", "rounds", "stderr", "matches")}
    tmp = {t: final[t].parent / f".{target}.{t}.{uuid.uuid4().hex}.tmp" for t in final}
    members = _merge_logs(store, sources, parts, tmp["logs"])
    extra = {META_TASK: target.encode(), META_MEMBERS: json.dumps(members, separators=(",", ":")).encode()}
    for table in ("rounds", "matches"):
        _merge_table(store, table, sources, tmp[table], extra if table == "matches" else {META_TASK: target.encode()})
    if not _merge_stderr(store, sources, tmp["stderr"]):
        del final["stderr"]
    for t in final:
        _fsync_file(tmp[t])
    hook("written")
    for t in ("logs", "rounds", "stderr", "matches"):  # the sources are hidden once matches is in place
        if t in final:
            _place(tmp[t], final[t])
            _fsync_dir(final[t].parent)
        hook(t)
    store.check_journal({"target": target, "sources": sources})  # the target holds exactly the sources' matches
    _remove_sources(store, sources, hook)
    (store.root / JOURNAL).unlink()
    _fsync_dir(store.root)
    hook("cleared")


def _merge_logs(store: RunStore, sources: list[str], parts: dict[str, list], out: Path) -> list:
    """Concatenate the sources' gzip logs (each stays whole: its members are valid gzip members of the
    merged file); returns the merged file's members as [byte offset, first match position]."""
    members, offset, position = [], 0, 0
    out.parent.mkdir(exist_ok=True)  # a run whose logs folder is gone: its matches are merged without logs
    with open(out, "xb") as merged:
        for task in sources:
            path = store.path("logs", task)
            if path.exists():
                for at, first in log_members(store.path("matches", task)):
                    members.append([offset + at, position + first])
                with open_regular(path) as f:
                    shutil.copyfileobj(f, merged)
                offset += path.stat().st_size
            position += len(parts[task])
    return members or [[0, 0]]


def _merge_stderr(store: RunStore, sources: list[str], out: Path) -> bool:
    """The sources' stderr files, their whole lines one after the other in one gzip file; False (and no
    file) when no source has one."""
    paths = [p for p in (store.path("stderr", task) for task in sources) if p.exists()]
    if not paths:
        return False
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "xb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as gz:
        for path in paths:
            for line in stderr_lines(path):
                gz.write(line)
    return True


def _merge_table(store: RunStore, table: str, sources: list[str], out: Path, extra: dict) -> None:
    schema = store.schema(table)
    meta = dict(schema.metadata or {})
    meta.update(extra)
    schema = schema.with_metadata(meta)
    pending, rows = [], 0
    with pq.ParquetWriter(out, schema, compression="zstd", write_page_checksum=True) as writer:
        for task in sources:
            part = read_part(store.path(table, task)).select(schema.names).cast(schema)
            pending.append(part)
            rows += part.num_rows
            if rows >= ROW_GROUP:
                writer.write_table(pa.concat_tables(pending), row_group_size=ROW_GROUP)
                pending, rows = [], 0
        if pending:
            writer.write_table(pa.concat_tables(pending), row_group_size=ROW_GROUP)


def _remove_sources(store: RunStore, sources: list[str], hook) -> None:
    for task in sources:
        for t in FILES:  # matches first: what is left is never a finished part
            store.path(t, task).unlink(missing_ok=True)
        hook("sources")
    for t in FILES:
        _fsync_dir(store.root / t)


# Recovery -------------------------------------------------------------------------------------------

def recover(store: RunStore) -> str:
    """Finish or undo a compaction that stopped (see the module's docstring); returns what was done."""
    doc = store.journal()  # its shape checked: valid task ids, the target not among the sources
    done = ""
    if doc is not None:
        target, sources = doc["target"], doc["sources"]
        if os.path.lexists(store.path("matches", target)):
            store.check_journal(doc)  # the target holds every match of the sources left, or nothing is removed
            _remove_sources(store, sources, _no_hook)
            done = f"finished an interrupted compaction into {target}"
        else:
            for t in ("logs", "rounds", "stderr"):
                store.path(t, target).unlink(missing_ok=True)
            done = f"undid an interrupted compaction into {target}"
        (store.root / JOURNAL).unlink()
        _fsync_dir(store.root)
    for folder in [store.root] + [store.root / t for t in FILES]:
        if folder.is_dir():
            for p in folder.iterdir():
                if p.name.startswith(".") and p.name.endswith(".tmp"):
                    p.unlink(missing_ok=True)
    store.forget()
    return done


__all__ = ["MAX_MATCHES", "STEPS", "Compaction", "CompactError", "compact", "count_files", "plan_groups", "recover"]
