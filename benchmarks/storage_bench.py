"""Run storage at scale (issue 18): compaction's bytes and files, and the store's bookkeeping per part.

``compaction_figures``: a real round robin of greedy, pairs and random (4 players, 2 rounds, duplicate
deals) is played in this process and stored as the driver stores it, in parts of ``MAX_BATCH`` (48)
matches; then ``results.compact.compact`` merges the parts. Bytes per round-seat row are the bytes
of both Parquet tables (matches and rounds) over the rows of ``rounds``; part files per 1,000
matches count the files of ``matches``, ``rounds`` and ``logs`` (the figure of issue 18); the run
folder's own files (run.json, schema.json, the lock) are counted apart. The CPU time of what
``ellibir ratings`` does (opening the run with its checks, the fit) is taken on a copy of the run as
parts and on the compacted run, interleaved.

``bookkeeping_figures``: what the store does per part it writes, besides the data: refusing a
finished task or a stored match, and recording the new part's ids. Two synthetic run folders hold
1,000 and 100,000 parts: one empty placeholder per part file in each table folder, and the store's
index as a driver holds it after writing those parts (16 ids each). Real one-match parts (rows of a
played match under fresh ids) are then written into each, alternately, and the CPU time of each
``write_part`` is taken; the figure is the ratio of the medians. For contrast, the bookkeeping that
was done per write before (list and sort a table folder, union every part's ids) is timed on both.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from results.compact import compact
from results.store import RunStore

BOTS = ["builtin:greedy", "builtin:pairs", "builtin:random"]
PART_FILES = ("matches", "rounds", "logs")


def _plan(out: Path, deal_sets: int, rounds: int = 2, seed: int = 1) -> dict:
    from harness.runs import tournament as t

    config = t.make_config("tournament", {"bots": BOTS, "players": 4, "deal_sets": deal_sets, "rounds": rounds,
                                          "seed": seed, "out": str(out), "duplicate": True})
    plan, _ = t.prepare(config)
    return plan


def _store_run(run_dir: Path, plan: dict, size: int) -> None:
    from harness.runs import plan as planning
    from harness.runs import tournament as t
    from harness.runs.distributed import play_batch

    run_dir.mkdir(parents=True)
    planning.write_plan(run_dir, plan)
    (run_dir / ".lock").touch()
    store, done, rules, job = RunStore(run_dir), set(), t._schema_rules(plan), t.job_of(plan)
    matches = plan["matches"]
    for n, i in enumerate(range(0, len(matches), size)):
        t.write(store, f"a1-{n:05d}", rules, play_batch(job, matches[i:i + size], {}), done)


def _measure(run_dir: Path) -> dict:
    import polars as pl

    store = RunStore(run_dir)
    parquet = sum(p.stat().st_size for table in ("matches", "rounds") for p in store.parts(table))
    rows = store.scan("rounds").select(pl.len()).collect().item()
    matches = len(store.done_match_ids())
    part_files = sum(len(list((run_dir / t).iterdir())) for t in PART_FILES)
    all_files = sum(len(files) for _, _, files in os.walk(run_dir))
    return {"bytes_per_row": parquet / rows, "part_files_per_1000": 1000 * part_files / matches,
            "files": all_files, "rows": rows, "matches": matches}


def compaction_figures(deal_sets: int = 84) -> dict:
    """Before and after compaction (84 deal sets: 1,008 matches, 21 parts of 48)."""
    from harness.runs.tournament import MAX_BATCH

    with tempfile.TemporaryDirectory(prefix="ellibir-storage-") as tmp:
        run_dir, parts_dir = Path(tmp) / "run", Path(tmp) / "parts"
        _store_run(run_dir, _plan(run_dir, deal_sets), MAX_BATCH)
        shutil.copytree(run_dir, parts_dir)
        before = _measure(run_dir)
        t0 = time.perf_counter()
        compact(RunStore(run_dir))
        seconds = time.perf_counter() - t0
        after = _measure(run_dir)
        analysis = _analysis_seconds(parts_dir, run_dir)
    return {"before": before, "after": after, "compact_s": seconds, **analysis,
            "bytes_ratio": after["bytes_per_row"] / before["bytes_per_row"]}


def _analysis_seconds(parts_dir: Path, compacted_dir: Path, repeat: int = 5) -> dict:
    """CPU seconds of ``ellibir ratings``'s work (open_runs with its checks, then the fit) on the run
    as parts and compacted: the best of ``repeat``, interleaved."""
    from results.ratings import ratings
    from results.runs import open_runs

    best = {"parts": float("inf"), "compacted": float("inf")}
    for _ in range(repeat):
        for name, folder in (("parts", parts_dir), ("compacted", compacted_dir)):
            t0 = time.process_time()
            ratings(open_runs([folder]))
            best[name] = min(best[name], time.process_time() - t0)
    return {"ratings_parts_s": best["parts"], "ratings_compacted_s": best["compacted"]}


# Bookkeeping -----------------------------------------------------------------------------------------

def _one_match(tmp: Path):
    from harness.runs import tournament as t
    from harness.runs.distributed import play_batch

    plan = _plan(tmp / "x", 1)
    return t._schema_rules(plan), play_batch(t.job_of(plan), plan["matches"][:1], {})[0]


def _synthetic(run_dir: Path, parts: int) -> RunStore:
    for table, suffix in (("matches", ".parquet"), ("rounds", ".parquet"), ("logs", ".jsonl.gz")):
        folder = run_dir / table
        folder.mkdir(parents=True)
        for n in range(parts):
            os.close(os.open(folder / f"a1-{n:06d}{suffix}", os.O_CREAT | os.O_WRONLY, 0o644))
    store = RunStore(run_dir)
    store._order, store._where = {}, {}  # the index as the driver holds it after writing those parts
    for n in range(parts):
        store._record(f"a1-{n:06d}", [f"s{n}-{k}" for k in range(16)])
    return store


def _write_one(store: RunStore, rules, result, key: str) -> float:
    rows = [dict(r, match_id=key) for r in result.matches]
    rounds = [dict(r, match_id=key) for r in result.rounds]
    t0 = time.process_time()
    store.write_part(f"a2-{key}", rules, rows, rounds, {key: result.log})
    return time.process_time() - t0


def _old_bookkeeping(store: RunStore) -> float:
    """What every write did before: list and sort the matches folder, union every part's ids."""
    t0 = time.process_time()
    folder = store.root / "matches"
    listed = sorted(p for p in folder.iterdir() if p.name.endswith(".parquet") and not p.name.startswith((".", "_")))
    ids: set = set()
    for task in store._order.values():
        ids |= frozenset(task)
    assert len(listed) >= len(store._order)
    return time.process_time() - t0


def bookkeeping_figures(small: int = 1_000, large: int = 100_000, writes: int = 150) -> dict:
    with tempfile.TemporaryDirectory(prefix="ellibir-bookkeeping-") as tmp:
        tmp = Path(tmp)
        rules, result = _one_match(tmp)
        stores = {small: _synthetic(tmp / "small", small), large: _synthetic(tmp / "large", large)}
        times = {small: [], large: []}
        for n in range(writes):  # interleaved, so that the machine's load falls on both alike
            for size, store in stores.items():
                times[size].append(_write_one(store, rules, result, f"w{n:05d}"))
        old = {size: min(_old_bookkeeping(store) for _ in range(3)) for size, store in stores.items()}
    per = {size: statistics.median(ts) for size, ts in times.items()}
    return {"small_ms": 1000 * per[small], "large_ms": 1000 * per[large], "ratio": per[large] / per[small],
            "old_small_ms": 1000 * old[small], "old_large_ms": 1000 * old[large], "small": small, "large": large}


def storage_rows():
    """The rows of ``make bench``."""
    c = compaction_figures()
    b, a = c["before"], c["after"]
    yield f"storage: bytes per round-seat row, parts of 16 ({b['matches']:,} matches)", f"{b['bytes_per_row']:.1f}", \
        "baseline"
    yield "storage: the same after compaction", f"{a['bytes_per_row']:.1f}", "≤ 10"
    yield "storage: part files per 1,000 matches, parts of 16", f"{b['part_files_per_1000']:.0f}", "baseline"
    yield "storage: the same after compaction", f"{a['part_files_per_1000']:.1f}", "≤ 5"
    yield "storage: files in the run folder, before / after", f"{b['files']} / {a['files']}", ""
    yield "storage: compaction time, s (wall)", f"{c['compact_s']:.2f}", ""
    yield "storage: ellibir ratings's work on the parts, s (CPU)", f"{c['ratings_parts_s']:.2f}", "baseline"
    yield "storage: the same on the compacted run, s", f"{c['ratings_compacted_s']:.2f}", ""
    yield "storage: compacted / parts", f"{c['ratings_compacted_s'] / c['ratings_parts_s']:.2f}", ""
    k = bookkeeping_figures()
    yield "store: write of a one-match part at 1,000 parts, ms (CPU, median)", f"{k['small_ms']:.2f}", ""
    yield "store: the same at 100,000 parts, ms", f"{k['large_ms']:.2f}", ""
    yield "store: per-part cost at 100,000 / at 1,000 parts", f"{k['ratio']:.2f}", "≤ 1.5"
    yield "store: the old per-write listing and union at 1,000 / 100,000 parts, ms", \
        f"{k['old_small_ms']:.1f} / {k['old_large_ms']:.0f}", "replaced"


if __name__ == "__main__":
    for row in storage_rows():
        print(" | ".join(row))
