"""Tables of an older schema version brought up to the current one, lazily, as they are read.

A run keeps the schema version it was started with (results/schema.py), so every reader goes through
``RunStore.scan``, which calls ``upgrade`` for a run of an older version. What an old run never
recorded comes back as null, never as a made-up value:

- version 1 to 2, ``matches``: the play columns (decisions, refusals, times, bank, the time bins)
  are null;
- version 1 to 2, ``rounds``: ``bot`` is the seat's bot from the run's ``matches``; ``stand_in`` is
  true on every round of a seat that had a fault in the match (version 1 kept no round of the fault,
  so none of the match's rounds is credited to the bot alone).
"""

from __future__ import annotations

import polars as pl

from .schema import SCHEMA_VERSION, SchemaError, common_columns

POLARS_TYPES = {"bool": pl.Boolean, "int16": pl.Int16, "int32": pl.Int32, "int64": pl.Int64,
                "float64": pl.Float64, "string": pl.String}


def upgrade(table: str, frame: pl.LazyFrame, version: int, matches: pl.LazyFrame) -> pl.LazyFrame:
    """``frame`` (``table`` of a run stored in schema ``version``) with the current schema's columns;
    ``matches`` is the same run's matches table as stored."""
    if version > SCHEMA_VERSION:
        raise SchemaError(f"schema version {version} is newer than this code's ({SCHEMA_VERSION})")
    if version < 2:
        frame = _rounds_1_to_2(frame, matches) if table == "rounds" else _matches_1_to_2(frame)
    return _in_order(table, frame)


def _matches_1_to_2(frame: pl.LazyFrame) -> pl.LazyFrame:
    have = set(frame.collect_schema().names())
    return frame.with_columns([pl.lit(None, POLARS_TYPES[kind]).alias(name)
                               for name, kind, _ in common_columns("matches") if name not in have])


def _rounds_1_to_2(frame: pl.LazyFrame, matches: pl.LazyFrame) -> pl.LazyFrame:
    seats = (matches.select("match_id", pl.col("seat").cast(pl.Int16), "bot", (pl.col("faults") > 0).alias("stand_in"))
             .unique(subset=["match_id", "seat"], keep="first"))
    return frame.with_columns(pl.col("seat").cast(pl.Int16)).join(seats, on=["match_id", "seat"], how="left")


def _in_order(table: str, frame: pl.LazyFrame) -> pl.LazyFrame:
    """The common columns in the current schema's order, then the rest (rules or the game's) as stored."""
    names = frame.collect_schema().names()
    common = [name for name, _, _ in common_columns(table)]
    return frame.select(common + [n for n in names if n not in common])


__all__ = ["upgrade"]
