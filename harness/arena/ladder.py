"""One ladder per game, table size and rules: every run of the arena rated together on one scale
(``ellibir ladder``, and the ratings ``bot list`` shows).

Which runs: every run folder the arena's rating record names (a completed tournament with a
submitted bot records itself there, harness/arena/registry.py), plus any given with ``--run``. Which
ladder a match belongs to: its game, its number of players and its rules. Matches under the game's
standard rules (the ``standard`` preset; the number of rounds may differ) form the ladder
``standard``; matches under other rules form ladders named by the fields that differ
(``threshold=71``). A sweep's variants thus land on their own ladders.

The scale: the ratings of ``results.ratings`` (Plackett–Luce with seat effects, the Elo scale,
θ·400/ln 10) on the one convention of ``results.scales``: the game's reference bot
(``builtin:greedy`` for Ellibir, ``builtin:cautious`` for Einundfünfzig) is 1500 on a ladder where
it played, else the mean of the ladder's rated bots is 1500. The ladder's ``scale`` (its header) says
which, and its ``anchor`` is the bot at 1500 (None: the mean). A ladder without the reference bot
is rated all the same, as ``ellibir ratings`` rates such runs: its numbers are differences from
its own field's mean and do not compare with another ladder's.

Labels: bots keep their run labels (``name@version``, ``builtin:NAME``); a bot folder (not
submitted) whose ``name@version`` also names other content in another run gets ``+HASH`` (8 hex
digits of its content hash), so different code never merges under one name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from bots import reference_bot
from results.files import read_regular_text
from results.runs import Runs
from results.store import RunStore

IGNORED = ("rounds", "players")  # fields that do not make another ladder (rounds: the length of a match)


class LadderError(ValueError):
    """No run to rate, or a run that cannot be read: one line."""


@dataclass
class LadderRuns(Runs):
    """Runs restricted to some variants of each run, with some bots renamed (a ladder's matches)."""

    keep: dict = field(default_factory=dict)  # run folder -> variant ids
    rename: dict = field(default_factory=dict)  # run folder -> {run label: ladder label}

    def scan(self, table: str) -> pl.LazyFrame:
        frames = []
        for d, name in zip(self.dirs, self.names):
            frame = RunStore(d).scan(table).filter(pl.col("variant").is_in(sorted(self.keep[d])))
            if table == "matches" and self.rename.get(d):
                frame = frame.with_columns(pl.col("bot").replace(self.rename[d]))
            frames.append(frame.with_columns(pl.lit(name).alias("run")))
        pooled = frames[0] if len(frames) == 1 else pl.concat(frames, how="diagonal_relaxed")
        return pooled.filter(pl.col("game") == self.game)


def ladder_name(game: str, players: int, rules: dict) -> str:
    """``standard``, or the fields in which ``rules`` (normalised) differ from the standard preset."""
    from engine.game import make_rules

    standard = make_rules(game, "standard", {"players": players}).normalised()
    differ = [f"{k}={json.dumps(v)}" for k, v in sorted(rules.items())
              if k not in IGNORED and standard.get(k) != v]
    return ", ".join(differ) or "standard"


def arena_runs(arena) -> list:
    """The run folders the arena's rating record names that still hold a run."""
    from .registry import RATINGS

    try:
        lines = read_regular_text(arena.root / RATINGS).splitlines()
    except (FileNotFoundError, NotADirectoryError):
        return []
    except (OSError, UnicodeDecodeError) as e:
        raise LadderError(f"cannot read {arena.root / RATINGS}: {e}") from None
    found = []
    for line in lines:
        try:
            run_dir = Path(json.loads(line)["run_dir"])
        except (ValueError, KeyError, TypeError):
            continue
        if (run_dir / "run.json").is_file() and run_dir not in found:
            found.append(run_dir)
    return found


def _read_plan(run_dir: Path) -> dict:
    try:
        plan = json.loads(read_regular_text(run_dir / "run.json"))
    except (OSError, ValueError) as e:
        raise LadderError(f"{run_dir / 'run.json'}: unreadable ({e})") from None
    if isinstance(plan, dict) and plan.get("kind") == "skill":  # its clairvoyant bot is for analysis only
        raise LadderError(f"{run_dir} is a skill study: its tables hold a bot for analysis only (the clairvoyant), "
                          f"which never goes on a ladder; analyse it with ellibir balance")
    if isinstance(plan, dict) and _names_analysis_bot(plan):  # a development tool's run (benchmarks/ceiling_elo.py)
        raise LadderError(f"{run_dir} holds a bot for analysis only (the clairvoyant), which never goes on a ladder; "
                          f"analyse it with ellibir ratings")
    return plan


def _check_run(run_dir: Path, plan) -> None:
    """The checks of every analysis (results/integrity.py): the plan's shape, each part read whole, the
    stored match ids against the plan; a run that fails one is named on one line, not rated."""
    from results.integrity import IntegrityError, check_parts, check_plan, id_problems

    try:
        check_plan(plan, run_dir / "run.json")
        store = RunStore(run_dir)
        check_parts(store)
        problems = id_problems(store, plan)
    except IntegrityError as e:
        raise LadderError(str(e)) from None
    if problems:
        raise LadderError(f"{run_dir}: {'; '.join(problems)}: repair the run before it goes on a ladder")


def _names_analysis_bot(plan: dict) -> bool:
    from bots import UnknownBot, analysis_only

    try:
        return any(isinstance(b, dict) and b.get("kind") == "builtin"
                   and analysis_only(str(b.get("label", "")).removeprefix("builtin:"), str(plan.get("game", "ellibir")))
                   for b in plan.get("bots") or [])
    except UnknownBot:  # a game without built-in bots
        return False


def group(run_dirs) -> dict:
    """(game, players, ladder name) -> {run folder: variant ids}, and the bot renames, from the plans."""
    ladders: dict = {}
    plans = {}
    for d in dict.fromkeys(Path(d).resolve() for d in run_dirs):
        if not d.is_dir():
            raise LadderError(f"{d}: no such run folder")
        if not (d / "run.json").is_file():  # the arena's runs have theirs: a --run given that is no run
            raise LadderError(f"{d}: not a run folder (no run.json)")
        if not RunStore(d).parts("matches"):
            continue
        plan = _read_plan(d)
        _check_run(d, plan)
        plans[d] = plan
        for v in plan.get("variants", []):
            key = (plan["game"], plan["players"], ladder_name(plan["game"], plan["players"], v["rules"]))
            ladders.setdefault(key, {}).setdefault(d, set()).add(v["id"])
    return ladders, _renames(plans)


def _renames(plans: dict) -> dict:
    """Bot folders whose label names different content in different runs: ``label+HASH`` there."""
    hashes: dict = {}
    for plan in plans.values():
        for b in plan.get("bots", []):
            hashes.setdefault(b["label"], set()).add(b.get("hash", ""))
    out: dict = {}
    for d, plan in plans.items():
        for b in plan.get("bots", []):
            if b.get("kind") == "folder" and len(hashes[b["label"]]) > 1 and "+" not in b["label"]:
                out.setdefault(d, {})[b["label"]] = f"{b['label']}+{b.get('hash', '')[:8]}"
    return out


def ladders(run_dirs) -> list:
    """Every ladder of ``run_dirs``: a dict each with game, players, name, anchor (the bot at 1500, or
    None for the mean), reference, scale (who is 1500, in words), runs, matches, and bots (bot, rating,
    lo, hi, games, faults), best first; or ``problem`` when it cannot be rated."""
    from results.ratings import ratings

    grouped, renames = group(run_dirs)
    out = []
    for (game, players, name), keep in sorted(grouped.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] != "standard", kv[0][2])):
        reference = f"builtin:{reference_bot(game)}"
        dirs = sorted(keep)
        entry = {"game": game, "players": players, "name": name, "anchor": None, "reference": reference,
                 "runs": [str(d) for d in dirs]}
        runs = LadderRuns(game, dirs, keep=keep, rename={d: renames.get(d, {}) for d in dirs})
        try:
            report = ratings(runs, reference=reference)
        except ValueError as e:
            entry["problem"] = " ".join(str(e).split())
            out.append(entry)
            continue
        entry.update({"anchor": report["anchor"], "scale": report["scale"], "matches": report["matches"],
                      "bots": [{k: b.get(k) for k in ("bot", "rating", "lo", "hi", "games", "faults")}
                               for b in report["bots"]]})
        out.append(entry)
    return out


def ladder_title(entry: dict) -> str:
    return f"{entry['game']}, {entry['players']} players, {entry['name']} rules"


__all__ = ["LadderError", "LadderRuns", "ladder_name", "arena_runs", "group", "ladders", "ladder_title"]
