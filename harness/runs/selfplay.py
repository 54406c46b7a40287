"""A self-play data set for V, played through the executors like a tournament and resumable like one.

The data set's folder holds ``spec.json`` (the spec of ``bots.value.selfplay``, the number of games,
the games a part holds and the shipped weights the value bots played with) and one Parquet part per
batch of games, ``part-FIRST.parquet``, written whole under a temporary name and never rewritten. A
game is a pure function of (spec, its index), so ``play_data`` plays only the parts missing: run
again after an interruption, it finishes the data set, on any executor; a folder that holds another
spec is refused. The task body ``play_part`` runs in this process (local executor) or on Ray workers.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

SPEC = "spec.json"
CHUNK = 200  # games a part holds


class SelfPlayError(ValueError):
    """The data set cannot be played as asked; the message is one line."""


@dataclass(frozen=True)
class SelfPlayJob:
    """What every task of a data set shares: the spec (``SelfPlay.to_json``), and, as a tournament's
    ``jobs.Job`` has them, the project version a worker must run and the bots to unpack (none)."""

    spec: dict
    version: str = ""
    bots: dict = field(default_factory=dict)


def play_part(job: SelfPlayJob, games: list, packs: dict) -> dict:
    """The rows of games ``games[0]`` to ``games[0] + games[1] - 1``, as columns (name -> list)."""
    from bots.value.selfplay import SelfPlay, play_games

    from .nodecheck import check_node

    check_node(job)
    first, count = games
    return play_games(SelfPlay.of_json(job.spec), first, count)


def part_path(folder: Path, first: int) -> Path:
    return folder / f"part-{first:07d}.parquet"


def meta_of(spec, games: int, chunk: int) -> dict:
    from bots.value.model import SHIPPED

    return {"spec": spec.to_json(), "games": games, "chunk": chunk, "weights": dict(SHIPPED)}


def keep_spec(folder: Path, meta: dict) -> None:
    """Write ``spec.json``, or check that the folder's is this one."""
    folder.mkdir(parents=True, exist_ok=True)
    kept = folder / SPEC
    if kept.exists() or kept.is_symlink():
        from results.files import read_regular_text

        try:
            before = json.loads(read_regular_text(kept, 1 << 20))
        except (OSError, ValueError) as e:  # a FIFO or a device is refused, not read for ever
            why = getattr(e, "strerror", None) or "unreadable JSON"
            raise SelfPlayError(f"{kept}: not a data set's spec ({why})") from None
        if not isinstance(before, dict):
            raise SelfPlayError(f"{kept}: not a data set's spec (not a JSON object)")
        if before != meta:
            raise SelfPlayError(f"{folder} holds another data set ({', '.join(differences(before, meta))} "
                                f"differ): use another folder")
        return
    kept.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


def differences(before: dict, now: dict) -> list[str]:
    """The names of the spec's fields (or the data set's) that differ."""
    spec_a, spec_b = before.get("spec", {}), now.get("spec", {})
    names = [k for k in sorted(set(spec_a) | set(spec_b)) if spec_a.get(k) != spec_b.get(k)]
    return names + [k for k in sorted(set(before) | set(now)) if k != "spec" and before.get(k) != now.get(k)]


def missing(folder: Path, games: int, chunk: int) -> list[tuple[int, int]]:
    """The (first, count) batches whose part is not in ``folder`` yet."""
    return [(first, min(chunk, games - first)) for first in range(0, games, chunk)
            if not part_path(folder, first).exists()]


def write_part(folder: Path, first: int, columns: dict) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bots.value.selfplay import COLUMNS

    part = part_path(folder, first)
    tmp = part.with_name(part.name + ".tmp")
    pq.write_table(pa.table({k: columns[k] for k in COLUMNS}), tmp)
    tmp.rename(part)


def play_data(folder, spec, games: int, executor, chunk: int = CHUNK, progress=None) -> dict:
    """Play the parts of the data set missing in ``folder`` on ``executor`` (executors.make_executor
    with ``body=play_part``); ``progress(done, total)`` after each part, in games. Returns what was
    played: ``{"games", "played", "parts", "seconds"}``. A failed task raises SelfPlayError (the parts
    written stay: a second call resumes)."""
    from .plan import project_version
    from .jobs import Task

    folder = Path(folder)
    if games < 1 or chunk < 1:
        raise SelfPlayError("the number of games and the games per part must be at least 1")
    keep_spec(folder, meta_of(spec, games, chunk))
    todo = missing(folder, games, chunk)
    done = games - sum(count for _first, count in todo)
    started, played = time.monotonic(), 0
    if progress:
        progress(done, games)
    if todo:
        executor.open()
        try:
            executor.start(SelfPlayJob(spec.to_json(), project_version()), {})
            queue = list(todo)
            while queue or executor.running:
                while queue and not executor.full:
                    first, count = queue.pop(0)
                    executor.submit(Task(f"part-{first:07d}", (first, count)))
                for finished in executor.wait(1.0):
                    if finished.error:
                        executor.cancel()
                        raise SelfPlayError(f"games from {finished.task.matches[0]}: {finished.error}")
                    first, count = finished.task.matches
                    write_part(folder, first, finished.results)
                    done, played = done + count, played + count
                    if progress:
                        progress(done, games)
        finally:
            executor.close()
    return {"games": games, "played": played, "parts": len(list(folder.glob("part-*.parquet"))),
            "seconds": round(time.monotonic() - started, 1)}


def read_data(folder, partial: bool = False) -> tuple[dict, dict]:
    """The data set's ``spec.json`` and its rows as numpy columns, parts in order; ``partial``: the
    parts played so far of a self-play not finished (each part is whole once it is there)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bots.value.selfplay import COLUMNS

    folder = Path(folder)
    meta = json.loads((folder / SPEC).read_text())
    parts = sorted(folder.glob("part-*.parquet"))
    expected = len(range(0, meta["games"], meta["chunk"]))
    if len(parts) != expected and not (partial and parts):
        raise SelfPlayError(f"{folder}: {len(parts)} of {expected} parts played; play the rest first")
    table = pa.concat_tables([pq.read_table(p) for p in parts])
    return meta, {name: table.column(name).to_numpy() for name in COLUMNS}


__all__ = ["CHUNK", "SelfPlayError", "SelfPlayJob", "meta_of", "missing", "play_data", "play_part", "read_data"]
