"""The largest sizes the command line accepts, checked before anything of that size is built.

Each cap is stated in the option's ``--help``. The plan's own cap on matches is
``harness.runs.plan.MAX_MATCHES``; ``check_plan_size`` refuses a plan above it from the options alone,
before a table, a variant or a deal seed is made.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from .plan import MAX_MATCHES, PlanError

MAX_DEAL_SETS = 1_000_000
MAX_BOTS = 64  # bots in one run
MAX_VARIANTS = 1_000  # variants of one sweep (the product of the --vary lists)
MAX_WORKERS = 1_024
MAX_BOOTSTRAP = 100_000  # ratings --bootstrap refits
MAX_CHECK_MATCHES = 1_000  # bot check --matches
MAX_LINE_LIMIT = 64 << 20  # play --line-limit, bytes
MAX_DEAL_FILE = 1 << 20  # play --deal FILE, bytes
MAX_JSON_DEPTH = 32  # nesting of lists and objects in a JSON input file


def check_at_most(option: str, value: int, cap: int) -> None:
    if value > cap:
        raise PlanError(f"{option} must be at most {cap}, got {value}")


def table_count(form: str, bots: int, players: int) -> int:
    """How many tables ``harness.runs.plan.tables`` makes, computed without making them."""
    pool, seats = (bots, players) if form != "gauntlet" else (bots - 1, players - 1)
    if pool < 1 or seats < 1:
        return 0
    if pool >= seats:
        return math.comb(pool, seats)
    extra = seats - pool
    return math.comb(pool + extra - 1, extra)


def check_plan_size(form: str, bots: int, players: int, deal_sets: int, variants: int, duplicate: bool) -> None:
    """Refuse options whose plan would hold more than ``MAX_MATCHES`` matches (an upper bound: every
    table under every rotation), or more deal sets, bots or variants than their caps."""
    check_at_most("--deal-sets", deal_sets, MAX_DEAL_SETS)
    if bots > MAX_BOTS:
        raise PlanError(f"a run takes at most {MAX_BOTS} bots, got {bots}")
    if variants > MAX_VARIANTS:
        raise PlanError(f"a sweep takes at most {MAX_VARIANTS} variants, the --vary lists make {variants}")
    most = variants * deal_sets * table_count(form, bots, players) * (players if duplicate else 1)
    if most > MAX_MATCHES:
        raise PlanError(f"the plan would hold up to {most} matches, more than {MAX_MATCHES}: "
                        f"give fewer deal sets, bots or variants")


def check_run_size(form: str, bots: int, players: int, deal_sets: int, vary: dict, duplicate: bool,
                   workers: int | None) -> None:
    """``check_plan_size`` for a run's options (``vary``: field -> its list of values), and ``--workers``."""
    variants = math.prod(len(values) for values in vary.values()) if vary else 1
    check_plan_size(form, bots, players, deal_sets, variants, duplicate)
    if workers is not None:
        check_at_most("--workers", workers, MAX_WORKERS)


def read_json(path, what: str, max_bytes: int, max_depth: int = MAX_JSON_DEPTH):
    """A JSON input file, read only when it is at most ``max_bytes`` long and nested at most
    ``max_depth`` deep; ValueError (one line naming the file) otherwise."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise ValueError(f"{what} {path}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise ValueError(f"{what} {path}: larger than {max_bytes} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what} {path}: not UTF-8 text") from None
    depth = json_depth(text)
    if depth > max_depth:
        raise ValueError(f"{what} {path}: nested {depth} levels deep, more than {max_depth}")
    try:
        return json.loads(text)
    except ValueError as e:
        raise ValueError(f"{what} {path}: bad JSON: {e}") from None


def json_depth(text: str) -> int:
    """The deepest nesting of brackets and braces outside strings (counted on the text, without parsing)."""
    depth = most = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            most = max(most, depth)
        elif ch in "]}":
            depth -= 1
    return most
