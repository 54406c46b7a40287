"""A run folder before a run or a resume plays in it: its lock held (harness/runlock.py), a new
folder left without a trace when the run never began, no run inside a bot's own folder, and the
stored parts checked (results/integrity.py) before a resume counts them as done."""

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


def check_stored(store) -> None:
    """Before a run is resumed: every stored part reads whole, and no match is stored twice."""
    from results.integrity import check_parts, id_problems

    try:
        check_parts(store)
        twice = [p for p in id_problems(store, {}) if "more than one part" in p]
    except ValueError as e:
        raise RunFolderError(str(e)) from None
    if twice:
        raise RunFolderError(f"{store.root}: {twice[0]}: remove the copied part before resuming")
