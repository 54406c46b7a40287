"""A run folder before a run or a resume plays in it: its lock held (harness/runs/runlock.py), a new
folder left without a trace when the run never began, no run inside a bot's own folder, an
interrupted compaction recovered and the stored parts checked (results/integrity.py) before a
resume counts them as done; and compaction (results/compact.py) under the lock, by
``ellibir compact`` or at the end of every run that played and was not stopped (unless
``--no-compact``)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from .plan import PLAN_FILE
from .runlock import LOCK_FILE, RunLocked, run_lock


class RunFolderError(ValueError):
    """A run folder that cannot be used now; the message is one line."""


@contextlib.contextmanager
def locked(run_dir: Path, new: bool):
    """Hold the run folder's lock for the block (making the folder of a new run first). A new
    folder that holds only the lock when the block ends (the run never began) is removed."""
    made = new and not run_dir.exists()
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunFolderError(f"cannot write the run to {run_dir}: {e.strerror or e}") from None
    try:
        with run_lock(run_dir):
            yield
    except RunLocked as e:
        raise RunFolderError(str(e)) from None
    finally:
        if made and not (run_dir / PLAN_FILE).exists():
            remove_unused(run_dir)


def remove_unused(run_dir: Path) -> None:
    try:
        if [p.name for p in run_dir.iterdir()] == [LOCK_FILE]:
            (run_dir / LOCK_FILE).unlink()
            run_dir.rmdir()
    except OSError:
        pass


def check_outside_bots(run_dir: Path, bots: list) -> None:
    """A run folder inside a bot's own folder would change the bot's files (and its hash) as it is written."""
    target = run_dir.resolve()
    for bot in bots:
        if bot["kind"] != "builtin":
            folder = Path(bot["folder"]).resolve()
            if target == folder or folder in target.parents:
                raise RunFolderError(f"--out {run_dir} is inside the folder of bot {bot['label']} ({folder}): "
                                     f"choose a run folder outside every bot's folder")


def check_stored(store, plan: dict | None = None) -> None:
    """Before a run is resumed: its schema.json read, an interrupted compaction finished or undone, every
    stored part reads whole, and the stored match ids agree with each other and with ``plan`` (when
    given) as every analysis requires (results/integrity.py): a match stored twice, or without its
    rounds, is refused, never counted as done."""
    from results.compact import recover
    from results.integrity import check_parts, id_problems

    try:
        store.version  # noqa: B018  (a damaged schema.json: refused here, not after the run when its standings read it)
        recover(store)
        check_parts(store)
        store.parts("logs"), store.parts("stderr")  # listed: a file where a folder belongs is refused
        problems = id_problems(store, plan or {})
    except ValueError as e:
        raise RunFolderError(str(e)) from None
    if problems:
        raise RunFolderError(f"{store.root}: {problems[0]}: {repair(store, problems[0])}")


def repair(store, problem: str) -> str:
    """What to do about a problem of ``id_problems`` before resuming. The matches part is the record
    of what was played: removing one makes --resume play its matches again (the rounds and logs
    files of the same task are then never read)."""
    if "more than one part" in problem:
        return "remove the copied part before resuming"
    lost = [p for p in store.parts("matches") if not store.path("rounds", p.stem).exists()]
    if "no rounds stored" in problem and lost:
        rounds = store.path("rounds", lost[0].stem)
        if len(lost) == 1:
            return f"{rounds} is missing: restore it, or remove {lost[0]} and resume to play its matches again"
        return (f"{rounds} and {len(lost) - 1} more rounds parts are missing: restore them, or remove their matches "
                f"parts ({lost[0]}, ...) and resume to play their matches again")
    return "repair the run before resuming"


def compact_run(run_dir, hook=None):
    """``ellibir compact RUN``: the run folder's lock taken, an interrupted compaction recovered, the
    parts checked and merged (results/compact.py); returns its ``Compaction``."""
    from results.compact import CompactError, compact
    from results.store import RunStore, SchemaError

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunFolderError(f"{run_dir}: no such run folder")
    if not ((run_dir / PLAN_FILE).is_file() or (run_dir / "schema.json").is_file()):
        raise RunFolderError(f"{run_dir}: not a run folder (no run.json and no results)")
    try:
        with run_lock(run_dir):
            store = RunStore(run_dir)
            return compact(store, hook=hook) if hook else compact(store)
    except (RunLocked, CompactError, SchemaError) as e:
        raise RunFolderError(str(e)) from None


def compact_after_run(store) -> str:
    """At the end of a run (its lock held): its parts merged (a run of one part stays as it is).
    Returns a problem to show as a warning ("" when all went well): the parts stay usable either way."""
    from results.compact import CompactError, compact

    try:
        compact(store)
    except (CompactError, ValueError, OSError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else e
        return f"the run was not compacted ({why}); compact it later with: ellibir compact {store.root}"
    return ""
