"""The server's database: SQLite (WAL) by default, PostgreSQL by URL; the schema brought up to date
by the Alembic migrations of ``migrations/`` every time it is opened."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import SQLAlchemyError

MIGRATIONS = Path(__file__).with_name("migrations")


class DatabaseError(ValueError):
    """A database URL that cannot be used: one line."""


def sqlite_url(folder) -> str:
    return f"sqlite:///{Path(folder).absolute() / 'server.db'}"


def open_database(url: str) -> Engine:
    """An engine on ``url`` (``sqlite:///PATH`` or ``postgresql+psycopg://...``), migrated to the latest
    revision."""
    try:
        parsed = make_url(url)
    except Exception:  # noqa: BLE001  (SQLAlchemy's parse error names the whole URL, password included)
        raise DatabaseError("the database URL cannot be read: give sqlite:///PATH or postgresql+psycopg://...") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        engine = create_engine(parsed, connect_args={"timeout": 30, "check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
    elif backend == "postgresql":
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        engine = create_engine(parsed, pool_pre_ping=True)
    else:
        raise DatabaseError(f"database {backend!r} is not supported: give sqlite:///PATH or postgresql+psycopg://...")
    try:
        upgrade(engine)
    except SQLAlchemyError as e:
        engine.dispose()
        reason = " ".join(str(getattr(e, "orig", None) or e).split())[:300]
        raise DatabaseError(f"cannot open the database {parsed.render_as_string(hide_password=True)}: {reason}") from None
    return engine


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def upgrade(engine: Engine) -> None:
    """Run the migrations not yet applied (Alembic, in this process)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
