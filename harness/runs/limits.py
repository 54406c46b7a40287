"""The range of every number an option takes, and the largest sizes the command line accepts, checked
before anything of that size is built.

``RANGES`` is the one declaration of the options' ranges: the commands check their values against it
(``check``), their ``--help`` says each range from it (``says``), an edited ``run.json`` is checked
against it before a task starts, and docs/tournaments.md lists it (a test compares the two). The
rules fields' ranges are declared with the rules (``engine/rules.py`` ``RANGES``) and the built-in bots'
parameters with the bots (``PARAMS``). The plan's own cap on matches is ``harness.runs.plan.MAX_MATCHES``;
``check_plan_size`` refuses a plan above it from the options alone, before a table, a variant or a deal
seed is made.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from results.files import read_regular

from .plan import MAX_MATCHES, PlanError

MAX_DEAL_SETS = 1_000_000
MAX_BOTS = 64  # bots in one run
MAX_VARIANTS = 1_000  # variants of one sweep (the product of the --vary lists)
MAX_WORKERS = 1_024
MAX_BOOTSTRAP = 100_000  # ratings --bootstrap refits
MAX_CHECK_MATCHES = 1_000  # bot check --matches
MAX_PENALTY_LIMIT = 1_000_000  # bot check --penalty-limit (points)
MAX_LINE_LIMIT = 64 << 20  # play --line-limit, bytes
MAX_DEAL_FILE = 1 << 20  # play --deal FILE, bytes
MAX_JSON_DEPTH = 32  # nesting of lists and objects in a JSON input file
MAX_CONFIG_FILE = 1 << 20  # --config FILE, bytes
MAX_SEED = 2**128 - 1
MAX_GAMES = 10_000_000  # train value --games: self-play matches


@dataclass(frozen=True)
class Range:
    """The values an option takes: ``least`` to ``most``, both included (``above``: ``least`` excluded)."""

    least: float
    most: float
    unit: str = ""  # "seconds", "bytes"
    above: bool = False

    def text(self) -> str:
        most = "2^128 - 1" if self.most == MAX_SEED else f"{self.most:,}"
        unit = f" {self.unit}" if self.unit else ""
        if self.above:
            return f"above {self.least:,} and at most {most}{unit}"
        return f"{self.least:,} to {most}{unit}"

    def holds(self, value) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if isinstance(value, float) and not math.isfinite(value):
            return False
        return (value > self.least if self.above else value >= self.least) and value <= self.most


RANGES = {
    "--deal-sets": Range(1, MAX_DEAL_SETS),
    "--workers": Range(1, MAX_WORKERS),
    "--seed": Range(0, MAX_SEED),
    "--move-time": Range(0, 60, "seconds", above=True),
    "--first-time": Range(0, 600, "seconds", above=True),
    "--bank": Range(0, 3600, "seconds"),
    "--cpu-limit": Range(1, 86_400, "seconds"),
    "--max-refusals": Range(0, 100),
    "--line-limit": Range(1024, MAX_LINE_LIMIT, "bytes"),
    "--matches": Range(1, MAX_CHECK_MATCHES),
    "--penalty-limit": Range(0, MAX_PENALTY_LIMIT, "points"),
    "--bootstrap": Range(0, MAX_BOOTSTRAP),
    "--games": Range(1, MAX_GAMES),
    "--noise": Range(0, 1),
}  # the SPRT's --elo0, --elo1, --alpha and --beta are checked by results/sprt.py (check_parameters)


def ranges_table() -> str:
    """The Markdown table of ``RANGES`` that docs/tournaments.md holds (a test keeps the two equal)."""
    rows = ["| option | range |", "|---|---|"]
    for option, r in RANGES.items():
        rows.append(f"| `{option}` | {r.text()} |")
    return "\n".join(rows) + "\n"


def says(option: str) -> str:
    """The range of ``option`` in words, for its ``--help``."""
    return RANGES[option].text()


def check(option: str, value, where: str = "") -> None:
    """Refuse a value of ``option`` outside its range (``where``: the file it came from, if any)."""
    if value is None or RANGES[option].holds(value):
        return
    shown = value if not isinstance(value, int) or abs(value) < 10**40 else f"a number of {len(str(abs(value)))} digits"
    name = option if not where else f"{where}: {option.removeprefix('--').replace('-', '_')}"
    raise PlanError(f"{name} must be {RANGES[option].text()}, got {shown!r}"[:300])


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
    try:  # a regular file (a FIFO would block, a device never end), read no further than the cap
        data = read_regular(path, max_bytes, follow=True)
    except OSError as e:
        raise ValueError(f"{what} {path}: {e.strerror or e}") from None
    except ValueError:
        raise ValueError(f"{what} {path}: larger than {max_bytes} bytes") from None
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
