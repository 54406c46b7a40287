"""The declared schema of a run's tables, its version, and validation of rows before they are written.

Two tables, each one row per (match or round) and seat:

``matches``: the common columns ``MATCH_COLUMNS``, then ``variant`` and one ``rule_<field>`` column
per field of the game's rules (``Rules.normalised()``; lists and dicts as JSON text).

``rounds``: the common columns ``ROUND_COMMON``, then the columns the game declares
(``GameSpec.round_columns`` in ``engine/game.py``). Nothing here knows any game: a game's columns
come from its registered match class, its rules fields from its ``Rules`` object.

Every common column is non-null except ``fault_reason``; the game's own columns may hold null.
The version ``SCHEMA_VERSION`` goes into every Parquet file's metadata (``results.schema_version``)
and into the run's ``schema.json``. A run keeps the version it was started with: ``--resume`` of an
older run writes its rows in that version (``fit_rows``), and readers bring older tables up to the
current columns (results/migrate.py).

Versions:

1. the first.
2. ``matches`` gains ``PLAY_COLUMNS``: what the seat's own bot did (its stand-in's decisions left
   out), in figures that pool across matches by sums and extremes: decisions, refused decisions,
   the sum and the longest of its decision times, the lowest bank it had left, and a histogram of
   its decision times in the fixed bins ``TIME_BINS``. ``rounds`` gains ``bot`` (the seat's bot, as
   in ``matches``) and ``stand_in`` (the reference bot played the seat for some or all of the
   round, after a fault).
"""

from __future__ import annotations

import dataclasses
import json

import pyarrow as pa

from engine.game import ROUND_TYPES, get_game

SCHEMA_VERSION = 2
READ_VERSIONS = (1, 2)  # the versions this code reads (and resumes, writing in that version)
TABLES = ("matches", "rounds")

# Parquet key-value metadata keys.
META_VERSION = b"results.schema_version"
META_TABLE = b"results.table"
META_GAME = b"results.game"
META_TASK = b"results.task"

ARROW_TYPES = {
    "bool": pa.bool_(),
    "int16": pa.int16(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "float64": pa.float64(),
    "string": pa.string(),
}
assert set(ARROW_TYPES) == set(ROUND_TYPES)

_INT_RANGE = {"int16": 2**15, "int32": 2**31, "int64": 2**63}

# (name, type, nullable)
MATCH_COLUMNS = (
    ("game", "string", False),
    ("run", "string", False),
    ("match_id", "string", False),
    ("deal_set", "int64", False),
    ("seat", "int16", False),
    ("bot", "string", False),
    ("bot_version", "string", False),
    ("bot_hash", "string", False),
    ("total", "int32", False),
    ("rank", "int16", False),
    ("termination", "string", False),  # the match's end reason, or the seat's fault kind
    ("faults", "int32", False),
    ("fault_reason", "string", True),
    ("variant", "string", False),
)

# Decision times are counted in these bins: bin k holds the times t with TIME_BINS[k-1] <= t < TIME_BINS[k]
# (seconds; the first bin starts at 0, the last, ``time_ge_10s``, has no end).
TIME_BINS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)


def _seconds(edge: float) -> str:
    return f"{edge * 1000:g}ms" if edge < 1 else f"{edge:g}s"


TIME_BIN_COLUMNS = tuple(f"time_lt_{_seconds(e)}" for e in TIME_BINS) + (f"time_ge_{_seconds(TIME_BINS[-1])}",)

PLAY_COLUMNS = (  # version 2: the seat's own bot, before any stand-in took over
    ("decisions", "int32", False),
    ("refusals", "int32", False),  # its decisions the engine refused
    ("time_sum", "float64", False),  # seconds, all its decisions
    ("time_max", "float64", True),  # null: no decision
    ("bank_left", "float64", True),  # the least bank it had left (seconds); null: no clock (a built-in bot)
    *[(name, "int32", False) for name in TIME_BIN_COLUMNS],
)

# The play columns that depend on the machine's speed, not on the deals and the decisions: two runs of
# one plan agree on every other column.
TIMING_COLUMNS = ("time_sum", "time_max", "bank_left", *TIME_BIN_COLUMNS)

ROUND_COMMON = (
    ("game", "string", False),
    ("run", "string", False),
    ("match_id", "string", False),
    ("deal_set", "int64", False),
    ("variant", "string", False),
    ("round_index", "int32", False),  # void rounds counted
    ("round_number", "int32", False),  # 0 for a void round
    ("seat", "int16", False),
    ("bot", "string", False),  # version 2
    ("dealer", "int16", False),
    ("position", "int16", False),  # 1 = first player after the dealer ... n = the dealer
    ("score", "int32", False),
    ("won", "bool", False),
    ("turns", "int32", False),
    ("void", "bool", False),
    ("stand_in", "bool", False),  # version 2: the reference bot played the seat for some of the round
)

ADDED = {  # the columns each version added, by table
    2: {"matches": {name for name, _, _ in PLAY_COLUMNS}, "rounds": {"bot", "stand_in"}},
}


class SchemaError(ValueError):
    """Rows that do not fit the declared schema, or a schema that does not fit the run."""


# Building --------------------------------------------------------------------------------------


def rule_value(value):
    """A rules value as stored in a ``rule_<field>`` column: scalars as they are, the rest as JSON."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _rule_type(rules, name: str, value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if value is None and dataclasses.is_dataclass(rules):
        declared = {f.name: f.type for f in dataclasses.fields(rules)}.get(name)
        return {"bool": "bool", bool: "bool", "int": "int64", int: "int64",
                "float": "float64", float: "float64"}.get(declared, "string")
    return "string"


def rule_columns(rules) -> list[tuple[str, str, bool]]:
    """``rule_<field>`` columns of a rules object (anything with ``normalised()``)."""
    return [(f"rule_{name}", _rule_type(rules, name, value), True) for name, value in rules.normalised().items()]


def game_round_columns(game: str) -> list[tuple[str, str, bool]]:
    """The columns ``game`` declares for its rounds (``GameSpec.round_columns``), checked."""
    declared = get_game(game).round_columns or {}
    out = []
    common = {name for name, _, _ in ROUND_COMMON}
    for name, kind in declared.items():
        if kind not in ARROW_TYPES:
            raise SchemaError(f"{game}: round column {name!r} has type {kind!r} (allowed: {', '.join(ARROW_TYPES)})")
        if name in common:
            raise SchemaError(f"{game}: round column {name!r} clashes with a common column")
        out.append((name, kind, True))
    return out


def added_after(version: int, table: str) -> set:
    """The columns of ``table`` that versions after ``version`` added."""
    return {name for v, tables in ADDED.items() if v > version for name in tables[table]}


def common_columns(table: str, version: int = SCHEMA_VERSION) -> list[tuple[str, str, bool]]:
    """The columns every run of ``version`` has in ``table``, whatever its game."""
    cols = list(MATCH_COLUMNS) + list(PLAY_COLUMNS) if table == "matches" else list(ROUND_COMMON)
    later = added_after(version, table)
    return [c for c in cols if c[0] not in later]


def columns(table: str, rules, version: int = SCHEMA_VERSION) -> list[tuple[str, str, bool]]:
    """The declared columns (name, type name, nullable) of ``table`` for the game and rules of ``rules``,
    in schema ``version``."""
    if version not in READ_VERSIONS:
        raise SchemaError(f"schema version {version!r} is not one this code knows ({', '.join(map(str, READ_VERSIONS))})")
    if table == "matches":
        cols = common_columns(table, version) + rule_columns(rules)
    elif table == "rounds":
        cols = common_columns(table, version) + game_round_columns(rules.game)
    else:
        raise SchemaError(f"unknown table {table!r} (tables: {', '.join(TABLES)})")
    names = [c[0] for c in cols]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise SchemaError(f"{table}: repeated columns {dup}")
    return cols


def arrow_schema(cols, table: str = "", game: str = "", version: int = SCHEMA_VERSION) -> pa.Schema:
    meta = {META_VERSION: str(version).encode()}
    if table:
        meta[META_TABLE] = table.encode()
    if game:
        meta[META_GAME] = game.encode()
    return pa.schema([pa.field(n, ARROW_TYPES[t], nullable=null) for n, t, null in cols], metadata=meta)


def schemas(rules, version: int = SCHEMA_VERSION) -> dict[str, pa.Schema]:
    """The Arrow schemas of both tables for ``rules`` (its ``game`` names the game)."""
    return {t: arrow_schema(columns(t, rules, version), t, rules.game, version) for t in TABLES}


def describe(rules, version: int = SCHEMA_VERSION) -> dict:
    """The run's ``schema.json`` document."""
    return {
        "schema_version": version,
        "game": rules.game,
        "tables": {t: [{"name": n, "type": k, "nullable": null} for n, k, null in columns(t, rules, version)]
                   for t in TABLES},
    }


def version_of(doc: dict) -> int:
    """The schema version of a ``schema.json`` document, one this code reads (else SchemaError)."""
    version = doc.get("schema_version")
    if isinstance(version, bool) or version not in READ_VERSIONS:
        raise SchemaError(f"schema.json has schema version {version!r}; this code reads versions "
                          f"{', '.join(map(str, READ_VERSIONS))}")
    return version


def from_description(doc: dict) -> dict[str, pa.Schema]:
    """Arrow schemas back from a ``schema.json`` document (of any version in ``READ_VERSIONS``)."""
    version = version_of(doc)
    return {t: arrow_schema([(c["name"], c["type"], c["nullable"]) for c in doc["tables"][t]], t, doc["game"],
                            version)
            for t in TABLES}


def fit_rows(table: str, rows: list[dict], version: int) -> list[dict]:
    """Rows made by this code, for a run of an older schema ``version``: the later columns left out."""
    later = added_after(version, table)
    if not later:
        return rows
    return [{k: v for k, v in row.items() if k not in later} for row in rows]


# Validation ------------------------------------------------------------------------------------


def _check_value(kind: str, value) -> str | None:
    """Why ``value`` does not fit ``kind``, or None."""
    if kind == "bool":
        return None if isinstance(value, bool) else "expected true or false"
    if kind in _INT_RANGE:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected a whole number ({kind})"
        bound = _INT_RANGE[kind]
        return None if -bound <= value < bound else f"out of range for {kind}"
    if kind == "float64":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "expected a number (float64)"
        return None if not isinstance(value, int) or abs(value) <= 2**53 else "too large for float64"
    if kind == "string":
        return None if isinstance(value, str) else "expected a string"
    return f"unknown type {kind}"


def validate_rows(table: str, schema: pa.Schema, rows: list[dict]) -> None:
    """Raise ``SchemaError`` unless every row has exactly the schema's columns, with fitting values."""
    if not isinstance(rows, list):
        raise SchemaError(f"{table}: expected a list of rows (dicts), got {type(rows).__name__}")
    kinds = {}
    for f in schema:
        kind = next(k for k, t in ARROW_TYPES.items() if t == f.type)
        kinds[f.name] = (kind, f.nullable)
    expected = set(kinds)
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise SchemaError(f"{table} row {i}: expected a dict, got {type(row).__name__}")
        keys = set(row)
        if keys != expected:
            parts = []
            if expected - keys:
                parts.append(f"missing columns {sorted(expected - keys)}")
            if keys - expected:
                parts.append(f"unknown columns {sorted(keys - expected)}")
            raise SchemaError(f"{table} row {i}: " + "; ".join(parts))
        for name, (kind, nullable) in kinds.items():
            value = row[name]
            if value is None:
                if nullable:
                    continue
                raise SchemaError(f"{table} row {i}: column {name!r} ({kind}) may not be null")
            why = _check_value(kind, value)
            if why:
                raise SchemaError(f"{table} row {i}: column {name!r}: {why}, got {type(value).__name__} {value!r}")


def to_arrow(table: str, schema: pa.Schema, rows: list[dict]) -> pa.Table:
    """Validated rows as an Arrow table of exactly ``schema`` (metadata included)."""
    validate_rows(table, schema, rows)
    return pa.Table.from_pylist(rows, schema=schema)


__all__ = [
    "SCHEMA_VERSION", "READ_VERSIONS", "TABLES", "MATCH_COLUMNS", "PLAY_COLUMNS", "ROUND_COMMON", "TIME_BINS",
    "TIME_BIN_COLUMNS", "TIMING_COLUMNS", "ARROW_TYPES", "SchemaError", "added_after", "columns", "common_columns", "rule_columns",
    "game_round_columns", "rule_value", "arrow_schema", "schemas", "describe", "fit_rows", "from_description",
    "validate_rows", "to_arrow", "version_of",
]
