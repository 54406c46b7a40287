"""Opening one or more run folders for analysis: their plans and their tables, pooled as lazy frames.

Every analysis command (ratings, sprt, balance, report) starts here, so the checks are made once:
the folders exist and hold readable results, and the pooled runs are of one game (or ``game`` picks
one). A folder given twice counts once. The ``run`` column of the pooled tables names the folder a
row comes from (its name, or its path when two folders share a name), so two runs that were given
the same name never mix their matches or deal sets.

A run may be compacted (results/compact.py), or left half-compacted by a compaction that stopped:
the store lists only finished parts and hides the parts a compaction in place replaces, so every
match is read once either way.

Whole deal sets (``partial_deal_sets``): a run that was interrupted, or is still being played,
holds deal sets of which only some planned matches are stored. Their missing seat rotations would
tilt whatever is computed from them, so every analysis (ratings, balance, the SPRT, the report)
leaves them out by one rule: a (run, deal set) counts when every match its plan holds for the
variants analysed is stored. A run without a plan has no partial deal set.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from .files import read_regular_text
from .integrity import IntegrityError, check_parts, check_plan, id_problems
from .store import RunStore


class RunError(ValueError):
    """A run folder that cannot be analysed (missing, empty, or of another game)."""


@dataclass
class Runs:
    game: str
    dirs: list[Path]
    plans: list[dict] = field(default_factory=list)  # each run's run.json ({} when absent)
    warnings: list[str] = field(default_factory=list)  # stored ids that disagree with a plan, when allowed
    once: frozenset = frozenset()  # runs with matches stored in more than one part: each read once

    @property
    def names(self) -> list[str]:
        """One label per run: the folder's name, or its path when another folder has the same name."""
        counts = Counter(d.name for d in self.dirs)
        return [d.name if counts[d.name] == 1 else str(d) for d in self.dirs]

    def scan(self, table: str) -> pl.LazyFrame:
        """``table`` ("matches" or "rounds") of every run, pooled, restricted to the game; ``run``
        holds the run's label (``names``)."""
        frames = [_once(RunStore(d).scan(table), table) if d in self.once else RunStore(d).scan(table)
                  for d in self.dirs]
        frames = [f.with_columns(pl.lit(name).alias("run")) for f, name in zip(frames, self.names)]
        pooled = frames[0] if len(frames) == 1 else pl.concat(frames, how="diagonal_relaxed")
        return pooled.filter(pl.col("game") == self.game)

    @property
    def matches(self) -> pl.LazyFrame:
        return self.scan("matches")

    @property
    def rounds(self) -> pl.LazyFrame:
        return self.scan("rounds")


KEYS = {"matches": ("match_id", "seat"), "rounds": ("match_id", "round_index", "seat")}


def _once(frame: pl.LazyFrame, table: str) -> pl.LazyFrame:
    """Each stored row once: a match copied into a second part is one match, not a table of twice the seats."""
    return frame.unique(subset=list(KEYS[table]), keep="first", maintain_order=True)


UNIT = ["run", "deal_set"]


def partial_deal_sets(runs: Runs) -> pl.DataFrame:
    """The (run, deal set) of ``runs`` that hold some, but not all, of their planned matches (of the
    variants stored in that run): columns run, deal_set, planned, stored."""
    planned = [{"run": name, "variant": m.get("variant"), "deal_set": m.get("deal_set")}
               for name, plan in zip(runs.names, runs.plans) for m in (plan or {}).get("matches") or []]
    empty = pl.DataFrame(schema={"run": pl.String, "deal_set": pl.Int64, "planned": pl.UInt32, "stored": pl.UInt32})
    if not planned:
        return empty
    stored = (runs.matches.group_by("run", "variant", "deal_set").agg(pl.col("match_id").n_unique().alias("stored"))
              .collect())
    present = stored.select("run", "variant").unique()
    plan = (pl.DataFrame(planned).cast({"deal_set": stored.schema["deal_set"]})
            .group_by("run", "variant", "deal_set").agg(pl.len().alias("planned"))
            .join(present, on=["run", "variant"], how="semi"))
    per_set = (plan.join(stored, on=["run", "variant", "deal_set"], how="left")
               .with_columns(pl.col("stored").fill_null(0))
               .group_by(UNIT).agg(pl.col("planned").sum().cast(pl.UInt32), pl.col("stored").sum().cast(pl.UInt32)))
    return per_set.filter((pl.col("stored") > 0) & (pl.col("stored") < pl.col("planned"))).sort(UNIT)


def whole(frame: pl.LazyFrame, partial: pl.DataFrame) -> pl.LazyFrame:
    """``frame`` (with run and deal_set columns) without the rows of the ``partial`` deal sets."""
    if partial.height == 0:
        return frame
    keys = partial.select(UNIT).lazy().with_columns(pl.col("deal_set").cast(frame.collect_schema()["deal_set"]))
    return frame.join(keys, on=UNIT, how="anti")


def partial_note(partial: pl.DataFrame) -> str | None:
    """One line for the warnings, or None: how many deal sets and matches were left out."""
    if partial.height == 0:
        return None
    matches = int(partial["stored"].sum())
    return (f"{partial.height} deal set{'s' if partial.height != 1 else ''} not played whole ({matches} "
            f"match{'es' if matches != 1 else ''}) left out: an interrupted run ends them with --resume")


def _game_of(path: Path, store: RunStore, plan: dict) -> str:
    doc = store.declared()
    if doc is not None:
        return doc["game"]
    if not store.parts("matches"):
        raise RunError(f"{path}: no results yet (no finished parts in {path / 'matches'})")
    return plan.get("game", "")


def _check_parts(path: Path, store: RunStore) -> None:
    """Every finished part reads whole (a damaged file is named, not a traceback)."""
    try:
        check_parts(store)
    except IntegrityError as e:
        raise RunError(str(e)) from None


def open_runs(run_dirs, game: str | None = None, allow_inconsistent: bool = False) -> Runs:
    """The runs in ``run_dirs`` (at least one), checked; ``game`` selects one game when they differ.

    Stored match ids that disagree with a run's plan (results/integrity.py ``id_problems``) raise
    RunError, or with ``allow_inconsistent`` become ``Runs.warnings`` and the rows are read as stored,
    a match stored in more than one part read once."""
    dirs = list(dict.fromkeys(Path(d).resolve() for d in run_dirs))
    if not dirs:
        raise RunError("give at least one run folder")
    plans, games, warnings, once = [], {}, [], set()
    for path in dirs:
        try:
            found = path.is_dir()
        except OSError as e:  # a path the system refuses (a name too long)
            raise RunError(f"{path}: {e.strerror or e}") from None
        if not found:
            raise RunError(f"{path}: no such run folder")
        store = RunStore(path)
        try:
            plan = json.loads(read_regular_text(path / "run.json"))
        except FileNotFoundError:
            plan = {}
        except (OSError, ValueError) as e:
            raise RunError(f"{path / 'run.json'}: unreadable ({' '.join(str(e).split())[:120]})") from None
        if not isinstance(plan, dict):
            raise RunError(f"{path / 'run.json'}: not a run plan (not a JSON object)")
        if plan.keys() & {"plan_version", "matches", "bots"}:  # written by the harness: it must still have a plan's shape
            try:
                check_plan(plan, path / "run.json")
            except IntegrityError as e:
                raise RunError(str(e)) from None
        if not store.parts("matches"):
            what = "no results yet" if plan else "not a run folder (no run.json) and no results"
            raise RunError(f"{path}: {what} (no finished parts in {path / 'matches'})")
        _check_parts(path, store)
        problems = id_problems(store, plan)
        if problems and not allow_inconsistent:
            raise RunError(f"{path}: {'; '.join(problems)}: repair the run, or analyse it as stored "
                           f"with --allow-inconsistent")
        twice = [p for p in problems if "in more than one part" in p]
        if twice:
            once.add(path)
        warnings += [f"{path}: {p}" + ("; each is read once" if p in twice else "") for p in problems]
        games[path] = _game_of(path, store, plan)
        plans.append(plan)
    found = sorted(set(games.values()))
    if game is None:
        if len(found) > 1:
            raise RunError(f"the runs are of several games ({', '.join(found)}): choose one with --game")
        game = found[0]
    keep = [i for i, d in enumerate(dirs) if games[d] == game]
    if not keep:
        raise RunError(f"no run of game {game!r} among the runs given (they are of: {', '.join(found)})")
    return Runs(game, [dirs[i] for i in keep], [plans[i] for i in keep], warnings, frozenset(once))


__all__ = ["Runs", "RunError", "UNIT", "open_runs", "partial_deal_sets", "partial_note", "whole"]
