"""Checking a run folder's own files before anything reads them for analysis or resumes them.

Three checks, each raising ``IntegrityError`` with one line that names the file:

- ``check_plan(plan, path)``: ``run.json`` has the shape the harness and the analysis rely on (a
  hand-edited plan is refused here rather than failing later with a KeyError);
- ``check_parts(store)``: every finished Parquet part reads whole, its page checksums verified (a
  damaged data page behind an intact footer is found here, not in the middle of a query; parts
  written before page checksums were found only when the damage breaks decoding);
- ``id_problems(store, plan)``: the stored match ids against the plan: matches stored twice (a
  copied part), matches without their rounds (a missing rounds part), matches the plan does not hold.
  It returns one line per kind of problem, with counts; the caller refuses or warns.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from .store import read_part

PLAN_VERSION = 1  # the plan version the harness writes (harness/runs/plan.py PLAN_VERSION)
MAX_PLANNED = 1_000_000  # the largest plan the harness writes (harness/runs/plan.py MAX_MATCHES)
FORMATS = ("round-robin", "gauntlet")
BOT_KINDS = ("builtin", "folder", "submitted")
SPRT_NUMBERS = ("elo0", "elo1", "alpha", "beta")
OPTION_TYPES = {"move_time": (int, float), "bank": (int, float), "first_time": (int, float), "on_fault": str,
                "max_refusals": int}


class IntegrityError(ValueError):
    """A run file that is damaged or does not agree with the run's plan; the message is one line."""


def _one_line(text) -> str:
    return " ".join(str(text).split())[:160]


# run.json -----------------------------------------------------------------------------------------

def _need(ok: bool, path, what: str) -> None:
    if not ok:
        raise IntegrityError(f"{path}: {what}: the run plan was edited or damaged; restore it (or plan the run anew)")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_plan(plan, path) -> None:
    """Refuse a ``run.json`` (already parsed) that lacks what runs and analyses read from it."""
    _need(isinstance(plan, dict), path, "not a JSON object")
    _need(plan.get("plan_version") == PLAN_VERSION, path, f"not a run plan of version {PLAN_VERSION}")
    for key, kind in (("name", str), ("game", str), ("kind", str), ("format", str), ("bots", list),
                      ("variants", list), ("options", dict), ("matches", list), ("deal_seeds", list)):
        _need(isinstance(plan.get(key), kind), path, f"{key!r} is missing or not a {kind.__name__}")
    for key in ("seed", "players", "deal_sets"):
        _need(_is_int(plan.get(key)), path, f"{key!r} is missing or not a whole number")
    _need(isinstance(plan.get("duplicate", True), bool), path, "'duplicate' is not true or false")
    _need(plan["kind"] in ("tournament", "sweep", "skill"), path, f"unknown kind {plan['kind']!r}")
    _need(plan["format"] in FORMATS, path, f"unknown format {plan['format']!r}")
    _need(2 <= plan["players"] <= 4, path, f"players must be 2 to 4, not {plan['players']}")
    _need(len(plan["matches"]) <= MAX_PLANNED, path, f"more than {MAX_PLANNED} matches")
    labels = _check_bots(plan["bots"], path)
    variants = _check_variants(plan, path)
    for key, kind in OPTION_TYPES.items():
        value = plan["options"].get(key)
        ok = isinstance(value, str) if kind is str else _is_int(value) if kind is int else _is_number(value)
        _need(ok, path, f"options.{key} is missing or of the wrong type")
    _check_matches(plan, labels, variants, path)
    link = plan.get("replicates")
    _need(link is None or isinstance(link, dict) and isinstance(link.get("run"), str)
          and isinstance(link.get("dir"), str) and _is_int(link.get("seed")), path,
          "'replicates' does not name the first run (its name, folder and seed)")
    if plan.get("sprt") is not None:
        t = plan["sprt"]
        ok = isinstance(t, dict) and t.get("bot") in labels and isinstance(t.get("vs"), list)
        ok = ok and all(v in labels for v in t["vs"]) and all(_is_number(t.get(k)) for k in SPRT_NUMBERS)
        _need(ok, path, "'sprt' does not name the plan's bots and the test's four numbers")


def _check_bots(bots: list, path) -> set:
    _need(bool(bots), path, "no bots")
    labels = set()
    for b in bots:
        _need(isinstance(b, dict) and isinstance(b.get("label"), str) and b.get("kind") in BOT_KINDS,
              path, "a bot without a label or a known kind")
        _need(b["label"].isprintable() and len(b["label"]) <= 200, path,
              "a bot label with control characters, or longer than 200 characters")
        _need(b["label"] not in labels, path, f"bot {b['label']!r} is listed twice")
        for key in ("name", "version", "hash"):
            _need(isinstance(b.get(key), str), path, f"bot {b['label']!r}: {key!r} is missing")
        if b["kind"] != "builtin":
            _need(isinstance(b.get("folder"), str) and bool(b["folder"]), path, f"bot {b['label']!r}: no folder")
        labels.add(b["label"])
    return labels


def _check_variants(plan: dict, path) -> set:
    from engine.game import rules_from_dict

    _need(bool(plan["variants"]), path, "no variants")
    ids = set()
    for v in plan["variants"]:
        _need(isinstance(v, dict) and isinstance(v.get("id"), str) and isinstance(v.get("rules"), dict)
              and isinstance(v.get("fields", {}), dict), path, "a variant without an id or rules")
        _need(v["id"] not in ids, path, f"variant {v['id']!r} is listed twice")
        try:
            rules_from_dict(plan["game"], v["rules"])
        except Exception as e:  # noqa: BLE001  (any damage in the rules: one line)
            raise IntegrityError(f"{path}: variant {v['id']!r}: its rules do not load ({_one_line(e)})") from None
        _need(v["rules"].get("players", plan["players"]) == plan["players"], path,
              f"variant {v['id']!r}: its rules are for {v['rules'].get('players')} players, the plan's matches "
              f"for {plan['players']}")
        ids.add(v["id"])
    return ids


def _check_matches(plan: dict, labels: set, variants: set, path) -> None:
    seen = set()
    for m in plan["matches"]:
        _need(isinstance(m, dict) and isinstance(m.get("id"), str), path, "a match without an id")
        where = f"match {m['id']!r}"
        _need(m["id"] not in seen, path, f"{where} is planned twice")
        seen.add(m["id"])
        _need(m.get("variant") in variants, path, f"{where}: unknown variant")
        for key in ("deal_set", "deal_seed", "table", "rotation"):
            _need(_is_int(m.get(key)) and m[key] >= 0, path, f"{where}: {key!r} is missing or not a whole number")
        seating = m.get("seating")
        _need(isinstance(seating, list) and len(seating) == plan["players"] and all(s in labels for s in seating),
              path, f"{where}: its seating is not {plan['players']} of the plan's bots")


# Parquet parts --------------------------------------------------------------------------------------

def check_parts(store) -> None:
    """Read every finished part of ``matches`` and ``rounds`` whole; the first unreadable one is named."""
    for table in ("matches", "rounds"):
        for part in store.parts(table):
            check_part(part)


def check_part(part: Path) -> None:
    try:
        pq.read_schema(part)
    except Exception as e:  # noqa: BLE001
        raise IntegrityError(f"{part}: not a readable Parquet file ({_one_line(e)[:120]})") from None
    try:
        read_part(part, verify=True)  # parts written with page checksums
        pl.read_parquet(part)  # and the reader the analysis uses
    except Exception as e:  # noqa: BLE001  (polars raises several kinds for a damaged page)
        raise IntegrityError(f"{part}: damaged Parquet data ({_one_line(e)[:120]}); remove the part and "
                             f"finish the run with --resume to play its matches again") from None


def check_log_part(path: Path) -> None:
    """A part's event logs (``logs/TASK.jsonl.gz``) decompress whole, every line a JSON object's: a
    damaged file is named before compaction merges it (and takes its name away)."""
    import gzip
    import zlib

    from .files import open_regular

    try:
        with open_regular(path) as raw, gzip.GzipFile(fileobj=raw, mode="rb") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip(b"\n")
                if not (line.startswith(b"{") and line.endswith(b"}")):
                    raise ValueError(f"line {n} is not a JSON object")
    except (OSError, EOFError, zlib.error, ValueError) as e:
        raise IntegrityError(f"{path}: damaged event log ({_one_line(e)[:120]})") from None


# Output paths ---------------------------------------------------------------------------------------

RUN_FILES = ("run.json", "schema.json", "sprt.json", ".lock", ".compact.json")  # a run folder's own files
RUN_TABLES = ("matches", "rounds", "logs")


def is_run_folder(folder: Path) -> bool:
    return (folder / "run.json").is_file() or (folder / "schema.json").is_file()


def check_output(path, what: str = "the output") -> None:
    """Refuse to write ``what`` to ``path`` when it is one of a run folder's own files (``run.json``,
    ``schema.json``, ``sprt.json``, the lock) or anything in its ``matches``, ``rounds`` or ``logs``."""
    path = Path(path)
    target = path.resolve()  # through symbolic links: the file that would be written
    for p in (path.absolute(), target):
        parent = p.parent
        if p.name in RUN_FILES and is_run_folder(parent):
            raise IntegrityError(f"refusing to write {what} to {path}: it is a file of the run in {parent}; "
                                 f"give another file")
        for folder in p.parents:
            if folder.name in RUN_TABLES and is_run_folder(folder.parent):
                raise IntegrityError(f"refusing to write {what} to {path}: it is inside the run folder "
                                     f"{folder.parent}'s {folder.name}; give a file outside it")


# Match ids against the plan ---------------------------------------------------------------------------

def _ids(part: Path) -> list:
    try:
        return read_part(part, ["match_id"]).column("match_id").to_pylist()
    except Exception as e:  # noqa: BLE001
        raise IntegrityError(f"{part}: damaged Parquet data ({_one_line(e)[:120]})") from None


def id_problems(store, plan: dict) -> list[str]:
    """What is wrong with the match ids stored in ``store`` (a results.store.RunStore) against
    ``plan`` (``{}`` when the run has no plan: then only the stored parts are compared with each
    other). One line per kind of problem, with counts and a few examples; empty when all is well."""
    by_part = {}
    for part in store.parts("matches"):
        by_part[part] = set(_ids(part))
    count = Counter(i for ids in by_part.values() for i in ids)
    stored = set(count)
    problems = []
    twice = sorted(i for i, n in count.items() if n > 1)
    if twice:
        problems.append(f"{len(twice)} matches are stored in more than one part (e.g. {_few(twice)})")
    with_rounds = set()
    for part in store.parts("rounds"):
        with_rounds |= set(_ids(part))
    no_rounds = sorted(stored - with_rounds)
    if no_rounds:
        problems.append(f"{len(no_rounds)} matches have no rounds stored (e.g. {_few(no_rounds)}; "
                        f"a rounds part is missing)")
    stray = sorted(with_rounds - stored)
    if stray:
        problems.append(f"{len(stray)} matches have rounds but no match rows (e.g. {_few(stray)})")
    if isinstance(plan.get("matches"), list):  # a plan written by the harness (check_plan has checked it)
        planned = {m.get("id") for m in plan["matches"] if isinstance(m, dict)}
        unplanned = sorted(stored - planned)
        if unplanned:
            problems.append(f"{len(unplanned)} stored matches are not in the plan (e.g. {_few(unplanned)})")
    return problems


def _few(ids: list) -> str:
    return ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "")


__all__ = ["IntegrityError", "check_log_part", "check_output", "check_part", "check_parts", "check_plan", "id_problems"]
