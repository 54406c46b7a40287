"""The arena: the registry of submitted bots.

``ellibir bot submit PATH`` checks a bot folder (its manifest, then ``bot check`` in the sandbox) and
stores an immutable copy, identified by name, version and content hash. Tournaments and ``play``
name submitted bots as ``NAME`` (the latest version) or ``NAME@VERSION``.

Layout of an arena folder (default ``./arena``, or ``$ELLIBIR_ARENA``)::

    arena/
      NAME/
        VERSION/                  0555; VERSION is the version, %-escaped when it is not a plain name
          submission.json         0444: name, version, hash, date (UTC ISO), check (the check summary)
          bot/                    the stored copy: dirs 0555, files 0444 (0555 when executable)
      .staging-XXXX/              a submission being checked; renamed into place only when it passes
      ratings.jsonl               one line per rating of a submitted bot, appended when a tournament
                                  run that played it completes (``record_run_ratings``)

The content hash (``content_hash``) is the sha256 over the folder's regular files in the order of
their relative paths (``/``-separated, compared as UTF-8 bytes): for each, the path, whether it is
executable, its size and its bytes. ``__pycache__`` and ``.git`` are ignored, at any depth; nothing
else is. A stored copy holds only folders and regular files: a folder with symbolic links or
special files is refused.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from bots import UnknownBot, builtin_bots, check_field, parse_builtin, reference_bot

from results.files import NotRegularFile, is_real_folder, open_fd, read_regular_text

from harness.players.botfiles import ArenaError, _entries, check_entries, check_submittable, content_hash
from harness.players.make import NAMED
from harness.players.manifest import NAME, ManifestError, load_manifest, require_game
from harness.sandbox.bubblewrap import SandboxError

ENV = "ELLIBIR_ARENA"
DEFAULT_ROOT = "arena"
RECORD = "submission.json"
COPY = "bot"
STAGING = ".staging-"
FILE_MODE, EXEC_MODE, DIR_MODE = 0o444, 0o555, 0o555
CHECK_MATCHES = 3
CHECK_ROUNDS = 2  # a submission's check: two rounds at each table size, so a bot that breaks from the second
# round on is caught (``bot check`` plays full matches first)
MAX_RECORD = 1 << 20  # bytes of a submission's record
RATINGS = "ratings.jsonl"


class Rejected(ArenaError):
    """A submission the arena refuses: ``reasons`` holds one line per reason."""

    def __init__(self, reasons: list):
        self.reasons = [_one_line(r) for r in reasons] or ["rejected"]
        super().__init__("; ".join(self.reasons))


class CheckFailed(Rejected):
    """The bot failed ``bot check``: ``reasons`` are the failed steps, ``report`` the whole CheckReport."""

    def __init__(self, reasons: list, report=None):
        super().__init__(reasons)
        self.report = report


class VersionConflict(Rejected):
    """The same name and version is in the arena with other content."""


@dataclass(frozen=True)
class Submission:
    name: str
    version: str
    hash: str
    date: str  # UTC, ISO 8601
    folder: Path  # the stored, read-only copy
    check: dict

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"

    def to_json(self) -> dict:
        data = asdict(self)
        data["folder"] = str(self.folder)
        return data


def _one_line(text) -> str:
    return " ".join(str(text).split())


def check_bot_folder(folder, shown=None) -> list:
    """The entries of a bot folder, refused (ArenaError, one line) when it holds anything but files
    and folders, or more than the caps of harness/players/botfiles.py; the same check for submitted bots and
    bots named by path."""
    try:
        entries = _entries(Path(folder))
        check_entries(entries, str(shown if shown is not None else folder))
    except ValueError as e:
        raise ArenaError(str(e)) from None
    return entries


# Files --------------------------------------------------------------------------------------------


def _version_dir(version: str) -> str:
    """A folder name for a version: the version itself when it is a plain name, else %-escaped, or
    ``=`` and a hash when that is too long (quote never makes a name starting with ``=``)."""
    name = quote(version, safe="")
    if name.startswith("."):
        name = "%2E" + name[1:]
    if len(name) > 128:
        name = "=" + hashlib.sha256(version.encode("utf-8", "surrogateescape")).hexdigest()[:40]
    return name


def _make_writable(path: Path) -> None:
    for top, dirs, _files in os.walk(path):
        for d in dirs:
            p = os.path.join(top, d)
            if not os.path.islink(p):
                os.chmod(p, 0o755)
    if path.is_dir() and not path.is_symlink():
        os.chmod(path, 0o755)


def remove_tree(path) -> None:
    """Remove a folder, read-only ones included (a stored copy, a staging folder)."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return
    with contextlib.suppress(OSError):
        _make_writable(path)
    shutil.rmtree(path, ignore_errors=True)


def _copy(entries: list, dest: Path) -> None:
    """Copy the scanned ``entries`` into the new folder ``dest``, then make it read-only."""
    dest.mkdir(mode=0o755)
    dirs, files = [dest], []
    for rel, path, st in entries:
        target = dest / rel
        if stat.S_ISDIR(st.st_mode):
            target.mkdir(mode=0o755)
            dirs.append(target)
        else:
            shutil.copyfile(path, target, follow_symlinks=False)
            files.append((target, EXEC_MODE if st.st_mode & 0o111 else FILE_MODE))
    for target, mode in files:
        os.chmod(target, mode)
    for directory in reversed(dirs):  # deepest first
        os.chmod(directory, DIR_MODE)


def _write_record(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.chmod(path, FILE_MODE)


def _version_key(version: str) -> list:
    """Version strings in natural order: numbers as numbers (1.10 after 1.9)."""
    return [(1, int(part), "") if part.isdigit() else (0, 0, part) for part in re.findall(r"\d+|\D+", version)]


def _date_key(date: str):
    try:
        value = datetime.fromisoformat(date.replace("Z", "+00:00"))
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    except ValueError:
        return datetime.min.replace(tzinfo=timezone.utc)


def _latest_key(s: Submission):
    return (_date_key(s.date), _version_key(s.version), s.version)


def project_version() -> str:
    try:
        from importlib.metadata import version

        return version("ellibir")
    except Exception:  # noqa: BLE001  (not installed: running from a checkout)
        return "0+unknown"


# The arena ----------------------------------------------------------------------------------------


class Arena:
    """A folder of submitted bots. ``root`` None: ``$ELLIBIR_ARENA``, or ``./arena``."""

    def __init__(self, root: Path | str | None = None):
        self.named = not (root is None or str(root) == "") or bool(os.environ.get(ENV))  # not the default
        if root is None or str(root) == "":
            root = os.environ.get(ENV) or DEFAULT_ROOT
        self.root = Path(root).expanduser().absolute()

    def __repr__(self) -> str:
        return f"Arena({str(self.root)!r})"

    # Reading ------------------------------------------------------------------------------------

    def _check_root(self) -> bool:
        """True when the arena folder exists; ArenaError when its path is taken by something else."""
        if self.root.is_dir():
            return True
        if self.root.exists():
            raise ArenaError(f"the arena {self.root} is not a folder")
        return False

    def check_exists(self) -> None:
        """ArenaError when an arena named by ``--arena`` or ``$ELLIBIR_ARENA`` is not there (a mistyped
        folder would list no bots and no runs). The default ``./arena`` may be missing: the first
        submit makes it, and until then it has no bots."""
        if not self._check_root() and self.named:
            raise ArenaError(f"no arena at {self.root}: no such folder (give an arena's folder; bot submit makes one)")

    def _read(self, entry: Path) -> Submission | None:
        if not all(is_real_folder(p) for p in (entry.parent, entry, entry / COPY)):
            return None  # a link in the arena would run (and stage, and bind for a bot) files from elsewhere
        try:
            data = json.loads(read_regular_text(entry / RECORD, MAX_RECORD))
            return Submission(str(data["name"]), str(data["version"]), str(data["hash"]), str(data["date"]),
                              entry / COPY, dict(data.get("check") or {}))
        except (OSError, ValueError, KeyError, TypeError):
            return None  # not a submission (or a damaged one): not listed

    def _versions(self, name: str) -> list:
        folder = self.root / name
        if not NAME.fullmatch(name) or not folder.is_dir():
            return []
        found = []
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith(".") or not entry.is_dir():
                continue
            s = self._read(entry)
            if s is not None and s.name == name:
                found.append(s)
        return found

    def _get(self, name: str, version: str) -> Submission | None:
        if not NAME.fullmatch(name):
            return None
        s = self._read(self.root / name / _version_dir(version))
        return s if s is not None and s.name == name and s.version == version else None

    def list(self) -> list:
        """Every submission, by name, then by date."""
        if not self._check_root():
            return []
        out = []
        for folder in sorted(self.root.iterdir()):
            if not folder.name.startswith(".") and folder.is_dir():
                out += sorted(self._versions(folder.name), key=_latest_key)
        return out

    def find(self, name: str, version: str | None = None) -> Submission:
        """The submission NAME at VERSION, or its latest (by submission date, then version string)."""
        self._check_root()
        if version is not None:
            s = self._get(name, version)
            if s is not None:
                return s
        versions = self._versions(name)
        if not versions:
            raise ArenaError(f"no bot {name!r} in the arena {self.root}")
        if version is None:
            return max(versions, key=_latest_key)
        known = ", ".join(s.version for s in sorted(versions, key=_latest_key))
        raise ArenaError(f"bot {name!r} has no version {version!r} in the arena {self.root} (versions: {known})")

    # Submitting ---------------------------------------------------------------------------------

    def submit(self, folder, matches: int = CHECK_MATCHES) -> Submission:
        """Check the bot in ``folder`` and store a read-only copy; returns its Submission (the one
        already stored when the same name, version and content are there).

        Raises ArenaError (one line) for bad input: no folder, a bad manifest, symbolic links, no
        sandbox; VersionConflict when the name and version are stored with other content;
        CheckFailed when ``bot check`` fails. Nothing is stored then."""
        return self.store(folder, matches)[0]

    def store(self, folder, matches: int = CHECK_MATCHES, checked=None) -> tuple:
        """``submit``, returning (Submission, stored): ``stored`` is False when it was there already.
        ``checked``: the passed report of ``check_submission`` on these files, made elsewhere (a worker
        of harness/server), which is then not run again here."""
        folder = Path(folder)
        try:
            manifest = load_manifest(folder)
        except ManifestError as e:
            raise ArenaError(str(e)) from None
        source = manifest.folder  # resolved
        self._check_root()
        root = self.root.resolve()
        if root == source or source in root.parents:
            raise ArenaError(f"the arena {self.root} is inside the bot folder {folder}: choose another --arena")
        entries = check_bot_folder(source, folder)
        name, version = manifest.name, manifest.version
        try:
            check_submittable(name)
        except ValueError as e:
            raise ArenaError(str(e)) from None

        stored = self._get(name, version)
        if stored is not None:  # decided before anything runs or is written
            return self._same_or_conflict(stored, content_hash(source))

        from harness.sandbox.bubblewrap import capabilities, sandbox_available

        if checked is None and not sandbox_available():
            raise ArenaError(f"submitted bots are checked in the sandbox, which cannot run here: "
                             f"{capabilities().get('problem')}")

        created = []  # folders this submission made, removed again if it fails
        staging = None
        try:
            created += _make_dirs(self.root)
            staging = Path(tempfile.mkdtemp(prefix=STAGING, dir=self.root))
            os.chmod(staging, 0o755)  # the sandbox runs the bot as another uid
            copy = staging / COPY
            try:
                _copy(entries, copy)
            except OSError as e:
                raise ArenaError(f"cannot copy {folder}: {e.strerror or e}"
                                 + (f" ({e.filename})" if getattr(e, "filename", None) else "")) from None
            digest = content_hash(copy)
            report = check_submission(copy, matches) if checked is None else checked
            date = datetime.now(timezone.utc).isoformat(timespec="microseconds")
            check = {"passed": True, "matches": matches, "rounds": CHECK_ROUNDS, "opponent": _opponents(copy),
                     "harness": project_version(), "lines": list(report.lines), "warnings": list(report.warnings)}
            _write_record(staging / RECORD, {"name": name, "version": version, "hash": digest, "date": date,
                                             "check": check})
            target = self.root / name / _version_dir(version)
            for _attempt in range(3):
                created += _make_dirs(target.parent)
                try:
                    os.rename(staging, target)
                    break
                except FileNotFoundError:
                    continue  # the name's folder went away (another submission failing): again
                except OSError as e:
                    stored = self._read(target)
                    if stored is None or stored.name != name or stored.version != version:
                        raise ArenaError(f"cannot store {name} {version} as {target}: {e.strerror or e}") from None
                    return self._same_or_conflict(stored, digest)  # submitted at the same time
            else:
                raise ArenaError(f"cannot store {name} {version} in {self.root}")
            staging = None
            os.chmod(target, DIR_MODE)
            return Submission(name, version, digest, date, target / COPY, check), True
        finally:
            if staging is not None:
                remove_tree(staging)
                for d in reversed(created):
                    with contextlib.suppress(OSError):
                        d.rmdir()  # only when empty

    @staticmethod
    def _same_or_conflict(stored: Submission, digest: str) -> tuple:
        if stored.hash == digest:
            return stored, False
        raise VersionConflict([
            f"{stored.name} {stored.version} is already in the arena with other content "
            f"(stored {stored.hash[:12]}, this folder {digest[:12]}): give the changed bot a new version"])


def check_submission(copy: Path, matches: int = CHECK_MATCHES):
    """``bot check`` in every game the bot declares (each against that game's field), ``CHECK_ROUNDS``
    rounds a match: the joined report, or CheckFailed."""
    from .check import check_bot  # check -> match -> players, which imports this module lazily

    try:
        games = load_manifest(copy).games
        reports = [check_bot(copy, matches=matches, rounds=CHECK_ROUNDS, game=game) for game in games]
    except (ManifestError, SandboxError) as e:
        raise ArenaError(str(e)) from None
    for report in reports:
        if not report.passed:
            raise CheckFailed(check_reasons(report), report)
    return _joined(reports, games)


def _opponents(folder: Path) -> str:
    """The bots a submission was checked against: each game's field (``bots.check_field``)."""
    return ", ".join(f"builtin:{b}" for g in load_manifest(folder).games for b in check_field(g))


def _joined(reports: list, games) -> object:
    """One report of the checks in several games: the lines of each, headed by its game when more than one."""
    if len(reports) == 1:
        return reports[0]
    first = reports[0]
    first.lines = [f"{game}: {line}" for game, report in zip(games, reports) for line in report.lines]
    first.warnings = [f"{game}: {w}" for game, report in zip(games, reports) for w in report.warnings]
    return first


# Ratings ------------------------------------------------------------------------------------------


def add_ratings(arena: Arena, records: list) -> None:
    """Append rating records (name, version, hash, rating, lo, hi, games, run, run_dir, date) to the
    arena's ``ratings.jsonl``, one JSON line each, in one write."""
    if not records:
        return
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
    try:  # a regular file of the arena: never appended to through a link
        fd = open_fd(arena.root / RATINGS, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    except OSError as e:
        raise ArenaError(f"cannot write {arena.root / RATINGS}: {e.strerror or e}") from None
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def latest_ratings(arena: Arena) -> dict:
    """(name, version, hash) -> the last rating record of that submission (damaged lines skipped)."""
    try:
        lines = read_regular_text(arena.root / RATINGS).splitlines()
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except NotRegularFile:
        if not (arena.root / RATINGS).is_dir() or (arena.root / RATINGS).is_symlink():
            raise ArenaError(f"{arena.root / RATINGS}: not a regular file (a link, a FIFO or a device): the arena's "
                             f"ratings record must be a file of its own; move it out of the arena") from None
        raise ArenaError(f"{arena.root / RATINGS} is a folder, not the arena's ratings record (a bot stored under "
                         f"that name by an older version): move it out of the arena") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ArenaError(f"cannot read {arena.root / RATINGS}: {getattr(e, 'strerror', None) or e}") from None
    out = {}
    for line in lines:
        try:
            r = json.loads(line)
            out[(str(r["name"]), str(r["version"]), str(r["hash"]))] = r
        except (ValueError, KeyError, TypeError):
            continue
    return out


def record_run_ratings(plan: dict, run_dir) -> str | None:
    """When a tournament run completes (or its SPRT decides): rate its bots (``results.ratings``, on the
    one convention: the game's reference bot at 1500 when it played, else the mean of the rated bots; the
    record's ``scale`` says which) and append the rating of each submitted bot to its arena's record.
    Returns None, or why nothing was recorded (one line)."""
    submitted = [b for b in plan.get("bots", []) if b.get("kind") == "submitted"]
    if plan.get("kind", "tournament") != "tournament" or not submitted:
        return None
    from results.ratings import ratings
    from results.runs import open_runs

    try:
        game = plan.get("game") or "ellibir"
        # the one convention (results/scales.py): the reference bot is 1500 where it played, else the mean
        report = ratings(open_runs([run_dir], game=game), reference=f"builtin:{reference_bot(game)}")
        rated = {b["bot"]: b for b in report["bots"] if b["rating"] is not None}
        date = datetime.now(timezone.utc).isoformat(timespec="microseconds")
        by_arena: dict = {}
        for bot in submitted:
            r = rated.get(bot["label"])
            if r is not None:
                record = {"name": bot["name"], "version": bot["version"], "hash": bot["hash"],
                          "rating": r["rating"], "lo": r["lo"], "hi": r["hi"], "games": r["games"],
                          "scale": report["scale"], "interval": report["interval"],
                          "run": plan.get("name"), "run_dir": str(Path(run_dir).resolve()), "date": date}
                by_arena.setdefault(Path(bot["folder"]).parents[2], []).append(record)  # ROOT/NAME/VERSION/bot
        for root, records in by_arena.items():
            add_ratings(Arena(root), records)
    except (ValueError, OSError) as e:
        return _one_line(e)
    return None


def _make_dirs(path: Path) -> list:
    """Make ``path`` and its missing parents (0755); returns the folders made, outermost first."""
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    made = []
    for d in reversed(missing):
        try:
            d.mkdir(mode=0o755)
        except FileExistsError:
            continue
        os.chmod(d, 0o755)  # whatever the umask
        made.append(d)
    return made


_OK = re.compile(r"(manifest: |handshake: ok in |match \d+ \(seat \d+ of \d+, seed -?\d+\): ok, )")


def check_reasons(report) -> list:
    """The failed steps of a CheckReport (its other lines say what passed)."""
    failures = getattr(report, "failures", None)
    reasons = failures if failures is not None else [line for line in report.lines if not _OK.match(line)]
    return reasons or ["bot check failed"]


# Naming bots --------------------------------------------------------------------------------------

_current: contextvars.ContextVar = contextvars.ContextVar("ellibir_arena", default=None)


@contextlib.contextmanager
def using_arena(arena):
    """Within the block, ``resolve_bot(name, None)`` (and so players named ``NAME``) uses ``arena``
    (an Arena, a folder, or None for the default)."""
    token = _current.set(arena if isinstance(arena, Arena) else Arena(arena))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def default_arena() -> Arena:
    """The arena of the enclosing ``using_arena``, else ``$ELLIBIR_ARENA`` or ``./arena``."""
    return _current.get() or Arena()


def _submitted_name(spec: str):
    name, sep, version = spec.partition("@")
    if NAME.fullmatch(name) and (not sep or version.strip()):
        return name, (version if sep else None)
    return None


def may_be_submitted(spec: str) -> bool:
    """Whether ``spec`` is read as a submitted bot: not builtin:, not a path, NAME or NAME@VERSION."""
    return (not spec.startswith("builtin:") and not Path(spec).exists() and "/" not in spec
            and not spec.startswith(".") and _submitted_name(spec) is not None)


def resolve_bot(spec: str, arena: Arena | None = None, game: str = "ellibir") -> dict:
    """What a bot name stands for: ``builtin:NAME`` (a built-in bot of ``game``), the path of a bot
    folder, or a submitted bot ``NAME`` (its latest version) or ``NAME@VERSION``. ``arena`` None:
    ``default_arena()``. Raises ArenaError (one line)."""
    spec = str(spec)
    if not spec.strip():  # Path("") is the current folder
        raise ArenaError(f"an empty bot name: {NAMED}")
    try:
        known = builtin_bots(game)
    except UnknownBot as e:
        raise ArenaError(str(e)) from None
    kind, sep, builtin = spec.partition(":")
    if sep and kind == "builtin":
        if builtin.split(":")[0] not in known:
            raise ArenaError(f"unknown bot {spec!r} for {game} (built-in: {', '.join(known)})")
        try:  # a name with parameters (builtin:mc:worlds=64) is a bot of its own
            parse_builtin(builtin, game)
        except UnknownBot as e:
            raise ArenaError(f"{spec}: {e}") from None
        return {"kind": "builtin", "label": spec, "name": builtin, "version": project_version(), "hash": ""}
    path = Path(spec)
    if path.is_dir():
        try:
            manifest = load_manifest(path)
            require_game(manifest, game)
        except ManifestError as e:
            raise ArenaError(str(e)) from None
        check_bot_folder(manifest.folder, spec)
        return {"kind": "folder", "label": f"{manifest.name}@{manifest.version}", "folder": path,
                "name": manifest.name, "version": manifest.version, "hash": content_hash(path)}
    named = None if path.exists() or spec.startswith(".") else _submitted_name(spec)
    if named is not None:
        arena = arena or default_arena()
        try:
            s = arena.find(*named)
        except ArenaError:
            if named[1] is not None and arena._versions(named[0]):
                raise  # the bot is there, the version is not: the error says which versions are
            raise ArenaError(f"unknown bot {spec!r}: not builtin:NAME, a bot folder, or a submitted bot "
                             f"(built-in: {', '.join(known)}; arena {arena.root})") from None
        try:
            require_game(load_manifest(s.folder), game)
        except ManifestError as e:
            raise ArenaError(str(e)) from None
        return {"kind": "submitted", "label": s.label, "folder": s.folder, "name": s.name, "version": s.version,
                "hash": s.hash}
    raise ArenaError(f"unknown bot {spec!r}: not builtin:NAME, a bot folder, or a submitted bot "
                     f"(built-in: {', '.join(known)})")


def resolver(arena: Arena | None = None):
    """The arena as a resolver of players' names (harness/players/make.py): a submitted ``NAME`` or
    ``NAME@VERSION`` -> its stored folder. ``arena`` None: ``default_arena()`` when a name is resolved."""
    return lambda name, game: resolve_bot(name, arena, game)["folder"]


def short_label(label: str) -> str:
    """A bot's label as tables show it: built-in bots without their ``builtin:`` prefix."""
    return label.removeprefix("builtin:")


def pin_bots(names, arena: Arena | None = None) -> list:
    """``names`` with each submitted bot (``NAME``, ``NAME@VERSION``) written ``NAME@VERSION`` of the
    version it stands for now, so that a match records exactly what played; others unchanged."""
    return [resolve_bot(n, arena)["label"] if may_be_submitted(n) else n for n in names]


__all__ = [
    "short_label", "ENV", "RATINGS", "Arena", "ArenaError", "CheckFailed", "Rejected", "Submission", "VersionConflict",
    "add_ratings", "check_bot_folder", "check_submission", "check_reasons", "content_hash", "default_arena", "latest_ratings",
    "may_be_submitted", "pin_bots", "record_run_ratings", "remove_tree", "resolve_bot", "resolver", "using_arena",
]
