"""One folder per tournament run: append-only Parquet parts named by task, and the event logs.

API decision: ``write_part(task_id, rules, matches, rounds, logs)`` takes the engine ``Rules``
object (the game is ``rules.game``; the ``rule_<field>`` columns and their types come from
``rules.normalised()``), instead of ``(game, rules_fields)``. The rules only give the schema: the
rows carry their own ``variant`` and ``rule_*`` values, so one part may hold several variants of
one game.

Layout of a run folder::

    schema.json                  the declared schema (version, game, columns of both tables)
    matches/<task_id>.parquet    one row per match and seat
    rounds/<task_id>.parquet     one row per round and seat
    logs/<task_id>.jsonl.gz      the event logs of the task's matches, for replay
    stderr/<task_id>.jsonl.gz    the bot programs' stderr tails of the task's matches, when any
                                 (one JSON line per match and seat, written by harness/runs/faultlog.py)
    .lock                        the lock of the process playing in the run (harness/runs/runlock.py)

A part is the three files of one task. Each file is written under a hidden temporary name in its
own folder (``.<task_id>.<table>.<random>.tmp``: no reader picks it up, since pyarrow skips names
starting with "." and a ``*.parquet`` glob does not match it), fsynced, then moved into place with
a hard link that refuses to replace an existing file; the folder is fsynced after. The matches
file goes last: a part is *finished* when its matches file exists, and a finished part is never
rewritten (``PartExistsError``). If writing fails, everything this call created is removed. Files
of a task without its matches file (only a hard kill between two moves leaves them) belong to no
finished part: ``parts``/``scan`` ignore them, and writing that task again replaces them.

A log file holds, for each match, a header line ``{"match_id": ID, "lines": N}`` followed by the
match's N event lines exactly as given (``engine.events.to_lines``); ``read_log(match_id)``
returns that text.

Rows are validated against the declared schema (``results/schema.py``) before anything is
written. One writer per task id; different tasks may write into one run at the same time, through
one ``RunStore`` (the run lock, harness/runs/runlock.py, keeps other processes out).

Bookkeeping is O(1) per part: a store lists and reads the finished parts' match ids once, on first
need, and then keeps them in memory, adding each part it writes. A part written by another
``RunStore`` object after that is not seen by this one.

Compaction (results/compact.py) merges finished parts into one new part named ``a{N}-c{K}`` and
then removes them. While it runs, ``.compact.json`` names the new part (``target``) and the parts it
replaces (``sources``): once the target's matches file is in place, the sources are hidden from
every reader, so no match is ever seen twice or lost, whatever step a crash stops at. ``parts`` reads
the journal after listing a folder, and hides the sources only when the target is in the listing: a
listing made while a compaction runs holds each match once (or names a source removed since). A compacted
logs file is the sources' gzip members one after the other; the matches file's metadata
(``results.log_members``) gives each member's byte offset and the position of its first match
among the part's match ids, so one match's log is read from its own member. A task's stderr file
belongs to its part like the other three (``parts("stderr")`` lists those of finished parts, the
sources of a compaction hidden the same way), and is merged by compaction too.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import stat
import uuid
import zlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .files import NOT_REGULAR, check_regular, is_real_folder, open_regular, read_regular_text
from .schema import (
    META_TASK, SCHEMA_VERSION, TABLES, SchemaError, arrow_schema, common_columns, describe, fit_rows,
    from_description, schemas, to_arrow, version_of,
)

_TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
_ATTEMPT = re.compile(r"\.?a(\d+)-")
JOURNAL = ".compact.json"  # a compaction under way: its target and sources (results/compact.py)
META_MEMBERS = b"results.log_members"  # [[byte offset, first match position], ...] of a compacted logs file
STALE = "a stale or edited record, not believed: remove it (no part was changed)"
MAX_JOURNAL = 64 << 20  # bytes of .compact.json or schema.json read at most
_SUFFIX = {"matches": ".parquet", "rounds": ".parquet", "logs": ".jsonl.gz", "stderr": ".jsonl.gz"}


class PartExistsError(FileExistsError):
    """A finished part of this task is already in the run: parts are never rewritten."""


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _place(tmp: Path, final: Path) -> None:
    """Move a complete ``tmp`` to ``final`` without ever replacing an existing ``final``."""
    try:
        os.link(tmp, final)
    except FileExistsError:
        raise PartExistsError(f"{final} already exists: a finished part is never rewritten") from None
    except OSError:  # a file system without hard links
        if final.exists():
            raise PartExistsError(f"{final} already exists: a finished part is never rewritten") from None
        os.rename(tmp, final)
        return
    os.unlink(tmp)


def _write_parquet(table: pa.Table, path: Path) -> None:
    # page checksums: a flipped byte in a data page is found on reading (results/integrity.py),
    # where without them most flips decode quietly into wrong values
    pq.write_table(table, path, compression="zstd", write_page_checksum=True)


def _write_logs(order: list[str], logs: dict[str, str], path: Path) -> None:
    with open(path, "xb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as gz:
        for match_id in order:
            if match_id not in logs:
                continue
            text = logs[match_id]
            header = json.dumps({"match_id": match_id, "lines": text.count("\n")}, separators=(",", ":"))
            gz.write((header + "\n").encode())
            gz.write(text.encode())



def read_part(path, columns: list[str] | None = None, verify: bool = False) -> pa.Table:
    """One Parquet file, whole or its ``columns``, read in this thread (``verify``: its page checksums
    checked). A file read alone this way costs a quarter of ``pq.read_table``, which sets up a dataset."""
    with pq.ParquetFile(path, page_checksum_verification=verify) as f:
        return f.read(columns=columns, use_threads=False)

class RunStore:
    """The results of one run, in the folder ``run_dir`` (created on the first write)."""

    def __init__(self, run_dir):
        self.root = Path(run_dir)
        self._order: dict[str, list] | None = None  # finished part's task id -> its match ids, in order
        self._where: dict[str, str] = {}  # match id -> the task id of the finished part holding it

    # Paths -------------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def schema_path(self) -> Path:
        return self.root / "schema.json"

    def path(self, table: str, task_id: str) -> Path:
        if table not in _SUFFIX:
            raise ValueError(f"unknown table {table!r} (known: {', '.join(_SUFFIX)})")
        return self.root / table / f"{task_id}{_SUFFIX[table]}"

    @staticmethod
    def _check_task_id(task_id: str) -> None:
        if not isinstance(task_id, str) or not _TASK_ID.fullmatch(task_id) or task_id.endswith(".tmp"):
            raise ValueError(f"task id {task_id!r}: use letters, digits, '.', '_' and '-', starting with a letter or digit")

    def _task_of(self, path: Path, table: str) -> str:
        return path.name[: -len(_SUFFIX[table])]

    def parts(self, table: str) -> list[Path]:
        """The finished part files of ``table`` ("matches", "rounds" or "logs"), sorted by name."""
        if table not in _SUFFIX:
            raise ValueError(f"unknown table {table!r} (known: {', '.join(_SUFFIX)})")
        folder = self.root / table
        if not folder.is_dir():
            if os.path.lexists(folder):  # a file there: no task could write its part, no reader find one
                raise SchemaError(f"{folder}: not a folder: the run's {table} are kept in a folder of that name")
            return []
        if not is_real_folder(folder):
            raise SchemaError(f"{folder}: a link, not a folder: a run's folders are its own")
        suffix = _SUFFIX[table]
        found = sorted(p for p in folder.iterdir() if p.name.endswith(suffix) and not p.name.startswith((".", "_")))
        for p in found:  # a FIFO would make every reader wait for ever; a link would read (or delete) elsewhere
            if not stat.S_ISREG(os.lstat(p).st_mode):
                raise SchemaError(f"{p}: {NOT_REGULAR}: remove it")
        # the journal is read after the listing, and the sources are hidden only when their target is
        # in it: a listing made while a compaction runs never holds a match twice or misses one (at
        # worst it names a source removed since, and reading that fails)
        doc = self.journal()
        if (doc is not None and any(self._task_of(p, table) == doc["target"] for p in found)
                and os.path.lexists(self.path("matches", doc["target"]))):
            self.check_journal(doc)  # never believed: the target must hold what it hides
            hidden = set(doc["sources"])
            found = [p for p in found if self._task_of(p, table) not in hidden]
        if table == "matches":
            return found
        return [p for p in found if self.path("matches", self._task_of(p, table)).exists()]

    def journal(self) -> dict | None:
        """The compaction under way (``{"target": TASK, "sources": [TASK, ...]}``), or None."""
        path = self.root / JOURNAL
        try:
            doc = json.loads(read_regular_text(path, MAX_JOURNAL))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise SchemaError(f"{path}: unreadable ({' '.join(str(e).split())[:100]})") from None
        ok = isinstance(doc, dict) and isinstance(doc.get("target"), str) and isinstance(doc.get("sources"), list)
        if not ok or not doc["sources"] or not all(isinstance(t, str) for t in doc["sources"]):
            raise SchemaError(f"{path}: not a compaction record")
        try:
            for task in [doc["target"], *doc["sources"]]:
                self._check_task_id(task)
        except ValueError as e:
            raise SchemaError(f"{path}: not a compaction record ({str(e)[:100]})") from None
        if doc["target"] in doc["sources"] or len(set(doc["sources"])) != len(doc["sources"]):
            raise SchemaError(f"{path}: a compaction record whose target is among its sources, or a source named "
                              f"twice: it was not written by a compaction; {STALE}")
        return doc

    def check_journal(self, doc: dict) -> None:
        """Refuse (SchemaError) a compaction record whose target's matches file does not hold every match
        of each source still stored, or, while every source is, holds other matches too. Checked before a
        reader hides a source and before recovery removes one: a stale or crafted record is never
        believed."""
        path = self.root / JOURNAL
        held = set(self._stored_ids(self.path("matches", doc["target"])))
        present, union = 0, set()
        for task in doc["sources"]:
            try:
                ids = set(self._stored_ids(self.path("matches", task)))
            except FileNotFoundError:
                continue  # removed already: the compaction was finishing
            present += 1
            union |= ids
            if not ids <= held:
                raise SchemaError(f"{path}: its target {doc['target']} lacks {len(ids - held)} of the {len(ids)} "
                                  f"matches of its source {task}; {STALE}")
        if present == len(doc["sources"]) and union != held:
            raise SchemaError(f"{path}: its target {doc['target']} holds {len(held - union)} matches that none of its "
                              f"sources holds; {STALE}")

    def _stored_ids(self, path: Path) -> list:
        """The match ids of one matches file (FileNotFoundError when it is gone)."""
        try:
            check_regular(path)
            return read_part(path, ["match_id"]).column(0).to_pylist()
        except FileNotFoundError:
            raise
        except (OSError, ValueError) as e:
            raise SchemaError(f"{path}: not a readable Parquet file ({' '.join(str(e).split())[:100]})") from None

    def next_attempt(self) -> int:
        """1 + the highest attempt number in the run's part names (``a{attempt}-...``), temporary files included."""
        found = [0]
        for table in _SUFFIX:
            folder = self.root / table
            if folder.is_dir():
                for p in folder.iterdir():
                    m = _ATTEMPT.match(p.name)
                    if m:
                        found.append(int(m.group(1)))
        return max(found) + 1

    # The schema --------------------------------------------------------------------------------

    def declared(self) -> dict | None:
        """The run's ``schema.json`` document, or None before the first part."""
        try:
            doc = json.loads(read_regular_text(self.schema_path, MAX_JOURNAL))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise SchemaError(f"{self.schema_path}: unreadable ({' '.join(str(e).split())[:100]})") from None
        if not isinstance(doc, dict) or "game" not in doc:
            raise SchemaError(f"{self.schema_path}: not a run's schema document")
        return doc

    @property
    def version(self) -> int:
        """The schema version the run was started with (this code's, before the first part)."""
        doc = self.declared()
        return SCHEMA_VERSION if doc is None else version_of(doc)

    def schema(self, table: str) -> pa.Schema:
        """The Arrow schema of ``table``: the declared one, or (before any part) its common columns."""
        if table not in TABLES:
            raise ValueError(f"unknown table {table!r} (tables: {', '.join(TABLES)})")
        doc = self.declared()
        if doc is not None:
            return from_description(doc)[table]
        return arrow_schema(common_columns(table), table)

    def _check_declared(self, rules) -> dict:
        doc = describe(rules, self.version)
        old = self.declared()
        if old is not None and old != doc:
            raise SchemaError(
                f"{self.schema_path}: this run was declared with schema version {old.get('schema_version')} "
                f"for game {old.get('game')!r} and other columns; refusing to mix schemas in one run"
            )
        return doc

    def declare(self, rules) -> dict:
        """Write the run's ``schema.json`` for ``rules`` (or check that it matches); returns the document."""
        doc = self._check_declared(rules)
        if self.declared() is None:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = self.root / f".schema.{uuid.uuid4().hex}.tmp"
            tmp.write_text(json.dumps(doc, indent=2) + "\n")
            try:
                _fsync_file(tmp)
                _place(tmp, self.schema_path)
                _fsync_dir(self.root)
            except PartExistsError:  # another writer declared it first: it must agree
                self._check_declared(rules)
            finally:
                tmp.unlink(missing_ok=True)
        return doc

    # Writing -----------------------------------------------------------------------------------

    def write_part(self, task_id: str, rules, matches: list[dict], rounds: list[dict], logs: dict[str, str]) -> None:
        """Write one task's rows and logs as a finished part, atomically.

        Raises ``PartExistsError`` when the task's part is finished already, ``SchemaError`` when
        rows do not fit the declared schema (nothing is written then), ``ValueError`` for rows that
        contradict each other (repeated or already stored match ids, logs of unknown matches).
        """
        self._check_task_id(task_id)
        final = {t: self.path(t, task_id) for t in ("logs", "rounds", "matches")}
        if final["matches"].exists():
            raise PartExistsError(f"{final['matches']} already exists: task {task_id!r} is finished")
        self._check_declared(rules)
        version = self.version  # an older run resumed keeps its version
        schema = schemas(rules, version)
        tables = {}
        for name, rows in (("matches", matches), ("rounds", rounds)):
            rows = fit_rows(name, rows, version)
            tables[name] = to_arrow(name, schema[name], rows)
            wrong = {r["game"] for r in rows} - {rules.game}
            if wrong:
                raise SchemaError(f"{name}: rows of game {sorted(wrong)} in a run of game {rules.game!r}")
            meta = dict(tables[name].schema.metadata or {})
            meta[META_TASK] = task_id.encode()
            tables[name] = tables[name].replace_schema_metadata(meta)
        order = list(dict.fromkeys(r["match_id"] for r in matches))
        self._check_consistent(task_id, order, matches, rounds, logs)

        self.declare(rules)
        for t in final:
            (self.root / t).mkdir(parents=True, exist_ok=True)
        for t in ("logs", "rounds"):  # leftovers of an interrupted write of this task: never finished
            final[t].unlink(missing_ok=True)
        tmp = {t: final[t].parent / f".{task_id}.{t}.{uuid.uuid4().hex}.tmp" for t in final}
        placed = []
        try:
            _write_logs(order, logs, tmp["logs"])
            _write_parquet(tables["rounds"], tmp["rounds"])
            _write_parquet(tables["matches"], tmp["matches"])
            for t in final:
                _fsync_file(tmp[t])
            for t in final:  # logs, rounds, then matches: the part is visible once matches is in place
                _place(tmp[t], final[t])
                placed.append(t)
                _fsync_dir(final[t].parent)
        except BaseException:
            for t in final:
                tmp[t].unlink(missing_ok=True)
            if "matches" not in placed:
                for t in placed:
                    final[t].unlink(missing_ok=True)
            raise
        self._record(task_id, order)

    def _check_consistent(self, task_id, order, matches, rounds, logs) -> None:
        seen = set()
        for r in matches:
            key = (r["match_id"], r["seat"])
            if key in seen:
                raise ValueError(f"task {task_id!r}: match {r['match_id']!r} seat {r['seat']} appears twice")
            seen.add(key)
        ids = set(order)
        stray = {r["match_id"] for r in rounds} - ids
        if stray:
            raise ValueError(f"task {task_id!r}: rounds of matches without match rows: {sorted(stray)[:5]}")
        if not isinstance(logs, dict):
            raise ValueError(f"task {task_id!r}: logs must map match ids to event log text")
        stray = set(logs) - ids
        if stray:
            raise ValueError(f"task {task_id!r}: logs of matches without match rows: {sorted(stray)[:5]}")
        for match_id, text in logs.items():
            if not isinstance(text, str) or not text.endswith("\n"):
                raise ValueError(f"task {task_id!r}: the log of {match_id!r} must be JSON-lines text ending in a newline")
        known = self._index_ids()
        again = [i for i in order if i in known]
        if again:
            raise ValueError(f"task {task_id!r}: matches already stored by another part: {sorted(again)[:5]}")

    # Reading -----------------------------------------------------------------------------------

    def _index_ids(self) -> dict[str, str]:
        """match id -> task id of every finished part; read from the files once, then kept up to date."""
        if self._order is None:
            order: dict[str, list] = {}
            for p in self.parts("matches"):
                try:
                    ids = read_part(p, ["match_id"]).column("match_id").to_pylist()
                except (OSError, ValueError, KeyError) as e:  # pyarrow's errors for a damaged file, or one without ids
                    raise SchemaError(f"{p}: not a readable Parquet file ({' '.join(str(e).split())[:100]})") from None
                order[self._task_of(p, "matches")] = list(dict.fromkeys(ids))
            self._where = {}
            for task, ids in order.items():
                for i in ids:
                    self._where[i] = task
            self._order = order
        return self._where

    def _record(self, task_id: str, order: list) -> None:
        if self._order is None:
            return  # not loaded yet: the first load reads this part with the others
        self._order[task_id] = list(order)
        for i in order:
            self._where[i] = task_id

    def forget(self) -> None:
        """Drop the ids kept in memory (after the parts changed under this store, as by a compaction)."""
        self._order, self._where = None, {}

    def part_ids(self) -> dict[str, list]:
        """Finished part's task id -> its match ids in order of first row."""
        self._index_ids()
        return dict(self._order)

    def holder(self, match_id: str) -> str | None:
        """The task id of the finished part that holds ``match_id`` (None when none does)."""
        return self._index_ids().get(match_id)

    def done_match_ids(self) -> set[str]:
        """The ids of the matches stored in finished parts."""
        return set(self._index_ids())

    def scan(self, table: str):
        """A lazy polars scan over the finished parts of ``table`` (an empty frame with the schema when
        none), with the current schema's columns: a run of an older version is brought up to date
        (results/migrate.py)."""
        from .migrate import upgrade

        if table not in TABLES:
            raise ValueError(f"unknown table {table!r} (tables: {', '.join(TABLES)})")
        version = self.version
        frame = self._scan_as_stored(table)
        if version == SCHEMA_VERSION:
            return frame
        return upgrade(table, frame, version, self._scan_as_stored("matches"))

    def _scan_as_stored(self, table: str):
        import polars as pl

        paths = self.parts(table)
        if not paths:
            return pl.from_arrow(self.schema(table).empty_table()).lazy()
        return pl.scan_parquet([str(p) for p in paths])

    def read_log(self, match_id: str) -> str:
        """The event log text (JSON lines) of a stored match; KeyError when it has none."""
        task = self._index_ids().get(match_id)
        if task is None:
            raise KeyError(f"no finished part holds match {match_id!r}")
        path = self.path("logs", task)
        if path.exists():
            try:
                offset = self._member_of(task, match_id)
                if offset and offset >= path.stat().st_size:
                    raise EOFError("the file ends before the match's log begins")
                text = _find_log(path, match_id, offset)
            except (OSError, EOFError, ValueError, KeyError, TypeError, zlib.error) as e:
                # a truncated or damaged file (EOFError must not escape: click reads it as Ctrl-D)
                why = " ".join(str(e).split())[:100] or type(e).__name__
                raise DamagedLogError(f"{path}: damaged event log ({why})") from None
            if text is not None:
                return text
        raise KeyError(f"no event log stored for match {match_id!r}")

    def _member_of(self, task: str, match_id: str) -> int:
        """The byte offset of the gzip member holding ``match_id``'s log (0 for a part as written)."""
        members = log_members(self.path("matches", task))
        position = self._order[task].index(match_id)
        offset = 0
        for at, first in members:
            if first > position:
                break
            offset = at
        return offset


def log_members(matches_part: Path) -> list:
    """[[byte offset, first match position], ...] of the part's logs file (one member at 0 unless compacted)."""
    meta = pq.read_schema(matches_part).metadata or {}
    if META_MEMBERS not in meta:
        return [[0, 0]]
    members = json.loads(meta[META_MEMBERS])
    if not isinstance(members, list) or not all(isinstance(m, list) and len(m) == 2 for m in members):
        raise ValueError(f"{matches_part}: bad {META_MEMBERS.decode()} metadata")
    return members


def iter_logs(root: Path):
    """(match id, log text) of every match log kept in the run folder ``root``, part by part (finished
    parts only, so a compaction's sources are not read twice); a damaged part is skipped from where it
    breaks."""
    for path in RunStore(root).parts("logs"):
        try:
            with open_regular(path) as raw, gzip.GzipFile(fileobj=raw, mode="rb") as f:
                while True:
                    header = f.readline()
                    if not header:
                        break
                    head = json.loads(header)
                    yield head["match_id"], b"".join(f.readline() for _ in range(int(head["lines"]))).decode()
        except (OSError, EOFError, ValueError, KeyError, TypeError, zlib.error):
            continue


def stderr_lines(path: Path):
    """The whole lines (bytes, each ending in a newline) of a stderr file (``stderr/TASK.jsonl.gz``), up
    to where a damaged file breaks: what every reader and compaction take of it."""
    try:
        with open_regular(path) as raw, gzip.GzipFile(fileobj=raw, mode="rb") as f:
            for line in f:
                if not line.endswith(b"\n"):
                    return
                yield line
    except (OSError, EOFError, zlib.error):
        return


def _find_log(path: Path, match_id: str, offset: int = 0) -> str | None:
    with open_regular(path) as raw:
        raw.seek(offset)
        with gzip.GzipFile(fileobj=raw, mode="rb") as f:
            return _scan_log(f, match_id)


def _scan_log(f, match_id: str) -> str | None:
    while True:
        header = f.readline()
        if not header:
            return None
        head = json.loads(header)
        lines = [f.readline() for _ in range(int(head["lines"]))]
        if lines and not lines[-1].endswith(b"\n"):
            raise EOFError("the file ends inside a match's log")
        if head["match_id"] == match_id:
            return b"".join(lines).decode()


class DamagedLogError(ValueError):
    """A log part that cannot be read: the message names the file."""


__all__ = ["RunStore", "DamagedLogError", "JOURNAL", "iter_logs", "log_members", "PartExistsError", "SchemaError",
           "SCHEMA_VERSION", "stderr_lines"]
