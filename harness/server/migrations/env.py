"""Alembic's environment: the connection comes from harness/server/db.py (``upgrade``)."""

from alembic import context

from harness.server.tables import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
