"""The server's tables (SQLAlchemy Core). The schema itself is made by the Alembic migrations in
``migrations/``; these declarations must match them (tests/test_server_db.py compares the two)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger, Boolean, Column, Float, ForeignKey, Index, Integer, MetaData, String, Table, Text, UniqueConstraint, false,
    func, text,
)

metadata = MetaData()

users = Table(
    "users", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("password", String(200), nullable=False),  # argon2 hash
    Column("admin", Boolean, nullable=False, default=False),
    Column("created", Float, nullable=False),
    Column("case_twin", Boolean, nullable=False, server_default=false()),  # see folded_names
)

workers = Table(
    "workers", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("created", Float, nullable=False),
    Column("volunteer", Boolean, nullable=False, default=False, server_default=false()),  # its results are checked
    Column("flagged", Text, nullable=False, default="", server_default=""),  # why its results are not believed
)

tokens = Table(
    "tokens", metadata,
    Column("id", Integer, primary_key=True),
    Column("digest", String(64), nullable=False, unique=True),  # sha256 of the token; the token is never stored
    Column("user_id", Integer, ForeignKey("users.id"), nullable=True),
    Column("worker_id", Integer, ForeignKey("workers.id"), nullable=True),
    Column("created", Float, nullable=False),
    Column("revoked", Boolean, nullable=False, default=False),
    Column("expires", Float, nullable=True),  # a user's token: its end (a worker's lasts until revoked)
    Column("idle", Float, nullable=True),  # a browser session: its end unless it is used before
)

bots = Table(
    "bots", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("owner_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("created", Float, nullable=False),
    Column("case_twin", Boolean, nullable=False, server_default=false()),  # see folded_names
)


def folded_names(table: Table) -> Index:
    """No two names equal ignoring case (migration 0008), but for ``case_twin`` rows: a name that
    differed only in case from an older row's before that revision, kept as it was."""
    return Index(f"{table.name}_name_folded", func.lower(table.c.name), unique=True,
                 sqlite_where=text("NOT case_twin"), postgresql_where=text("NOT case_twin"))


folded_names(users)
folded_names(bots)

versions = Table(
    "versions", metadata,
    Column("id", Integer, primary_key=True),
    Column("bot_id", Integer, ForeignKey("bots.id"), nullable=False),
    Column("version", String(200), nullable=False),
    Column("hash", String(64), nullable=False),
    Column("status", String(16), nullable=False),  # pending, failed, ready, disabled, withdrawn
    Column("log", Text, nullable=False, default=""),  # the check's report (the owner's alone)
    Column("created", Float, nullable=False),
    Column("kept", BigInteger, nullable=True),  # bytes it keeps on disk (storage.footprint); NULL: not yet measured
    Column("deleted", Float, nullable=True),  # when its owner deleted it (withdraw.py); NULL: not deleted
    UniqueConstraint("bot_id", "version"),
)

runs = Table(
    "runs", metadata,
    Column("id", Integer, primary_key=True),
    Column("version_id", Integer, ForeignKey("versions.id"), nullable=False),
    Column("folder", String(500), nullable=False, unique=True),
    Column("planned", Integer, nullable=False),
    Column("stored", Integer, nullable=False, default=0),
    Column("done", Boolean, nullable=False, default=False),
    Column("created", Float, nullable=False),
)

jobs = Table(
    "jobs", metadata,
    Column("id", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),  # check or play
    Column("version_id", Integer, ForeignKey("versions.id"), nullable=False),
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=True),
    Column("task", String(40), nullable=False, default=""),  # a play job's part name
    Column("matches", Text, nullable=False, default="[]"),  # a play job's match ids (JSON)
    Column("state", String(16), nullable=False),  # queued, leased, done, cancelled, failed
    Column("lease", String(64), nullable=True),  # sha256 of the current lease's secret
    Column("worker_id", Integer, ForeignKey("workers.id"), nullable=True),
    Column("expires", Float, nullable=True),
    Column("leases", Integer, nullable=False, default=0),
    Column("created", Float, nullable=False),
    Column("failures", Integer, nullable=False, default=0, server_default="0"),  # leases run out, or given back
    Column("reason", Text, nullable=False, default="", server_default=""),  # the last failure's
    Column("volunteer_id", Integer, ForeignKey("workers.id", name="jobs_volunteer"), nullable=True),  # results aside
    Index("jobs_state", "state", "id"),
)

results = Table(
    "results", metadata,
    Column("id", Integer, primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("match_id", String(100), nullable=False),
    Column("job_id", Integer, ForeignKey("jobs.id"), nullable=False),
    Column("worker_id", Integer, ForeignKey("workers.id"), nullable=False),
    Column("received", Float, nullable=False),
    UniqueConstraint("run_id", "match_id"),
)

ratings = Table(
    "ratings", metadata,
    Column("id", Integer, primary_key=True),
    Column("version_id", Integer, ForeignKey("versions.id"), nullable=False),
    Column("ladder", String(200), nullable=False),
    Column("rating", Float, nullable=False),
    Column("lo", Float, nullable=True),
    Column("hi", Float, nullable=True),
    Column("games", Integer, nullable=False),
    Column("date", Float, nullable=False),
    Index("ratings_latest", "version_id", "id"),  # a version's latest snapshot (migration 0009)
)

flags = Table(
    "flags", metadata,
    Column("name", String(32), primary_key=True),  # "paused": the queue leases nothing while it is "1"
    Column("value", Text, nullable=False),
)
