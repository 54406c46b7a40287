"""The declared schema of a run's tables, its version, and validation of rows before they are written.

Two tables, each one row per (match or round) and seat:

``matches``: the common columns ``MATCH_COLUMNS``, then ``variant`` and one ``rule_<field>`` column
per field of the game's rules (``Rules.normalised()``; lists and dicts as JSON text).

``rounds``: the common columns ``ROUND_COMMON``, then the columns the game declares
(``GameSpec.round_columns`` in ``engine/game.py``). Nothing here knows any game: a game's columns
come from its registered match class, its rules fields from its ``Rules`` object.

Every common column is non-null except ``fault_reason``; the game's own columns may hold null.
The version ``SCHEMA_VERSION`` goes into every Parquet file's metadata (``results.schema_version``)
and into the run's ``schema.json``.
"""

from __future__ import annotations

import dataclasses
import json

import pyarrow as pa

from engine.game import ROUND_TYPES, get_game

SCHEMA_VERSION = 1
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

ROUND_COMMON = (
    ("game", "string", False),
    ("run", "string", False),
    ("match_id", "string", False),
    ("deal_set", "int64", False),
    ("variant", "string", False),
    ("round_index", "int32", False),  # void rounds counted
    ("round_number", "int32", False),  # 0 for a void round
    ("seat", "int16", False),
    ("dealer", "int16", False),
    ("position", "int16", False),  # 1 = first player after the dealer ... n = the dealer
    ("score", "int32", False),
    ("won", "bool", False),
    ("turns", "int32", False),
    ("void", "bool", False),
)


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


def columns(table: str, rules) -> list[tuple[str, str, bool]]:
    """The declared columns (name, type name, nullable) of ``table`` for the game and rules of ``rules``."""
    if table == "matches":
        cols = list(MATCH_COLUMNS) + rule_columns(rules)
    elif table == "rounds":
        cols = list(ROUND_COMMON) + game_round_columns(rules.game)
    else:
        raise SchemaError(f"unknown table {table!r} (tables: {', '.join(TABLES)})")
    names = [c[0] for c in cols]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise SchemaError(f"{table}: repeated columns {dup}")
    return cols


def arrow_schema(cols, table: str = "", game: str = "") -> pa.Schema:
    meta = {META_VERSION: str(SCHEMA_VERSION).encode()}
    if table:
        meta[META_TABLE] = table.encode()
    if game:
        meta[META_GAME] = game.encode()
    return pa.schema([pa.field(n, ARROW_TYPES[t], nullable=null) for n, t, null in cols], metadata=meta)


def schemas(rules) -> dict[str, pa.Schema]:
    """The Arrow schemas of both tables for ``rules`` (its ``game`` names the game)."""
    return {t: arrow_schema(columns(t, rules), t, rules.game) for t in TABLES}


def describe(rules) -> dict:
    """The run's ``schema.json`` document."""
    return {
        "schema_version": SCHEMA_VERSION,
        "game": rules.game,
        "tables": {t: [{"name": n, "type": k, "nullable": null} for n, k, null in columns(t, rules)] for t in TABLES},
    }


def from_description(doc: dict) -> dict[str, pa.Schema]:
    """Arrow schemas back from a ``schema.json`` document."""
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise SchemaError(f"schema.json has schema version {doc.get('schema_version')!r}; "
                          f"this code reads version {SCHEMA_VERSION}")
    return {t: arrow_schema([(c["name"], c["type"], c["nullable"]) for c in doc["tables"][t]], t, doc["game"])
            for t in TABLES}


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
    "SCHEMA_VERSION", "TABLES", "MATCH_COLUMNS", "ROUND_COMMON", "ARROW_TYPES", "SchemaError",
    "columns", "rule_columns", "game_round_columns", "rule_value", "arrow_schema", "schemas", "describe",
    "from_description", "validate_rows", "to_arrow",
]
