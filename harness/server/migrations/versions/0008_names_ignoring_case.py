"""Names compared ignoring case: no user's or bot's name may equal another's but for case (``Greedy``
beside ``greedy`` let one user pass for another on the leaderboard). Each of the two tables gets a
unique index on ``lower(name)``, which holds for every row but those marked ``case_twin``.

A database made before may hold such twins already. They stay as they are, marked: a bot's name is in
its runs' files and ratings, and a user renamed could no longer log in. In each set of names equal
but for case, the oldest row (the lowest id) keeps the name's place in the index and the later ones
are marked; a new name equal to any of them ignoring case is refused.

SQLite cannot reflect an index on an expression: a later migration that rebuilds ``users`` or
``bots`` (a batch "move and copy") must create these indexes again."""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    for table in ("users", "bots"):
        with op.batch_alter_table(table) as batch:  # a default as text: SQLite adds the column in place
            batch.add_column(sa.Column("case_twin", sa.Boolean, nullable=False, server_default="0"))
        op.execute(sa.text(f"UPDATE {table} SET case_twin = TRUE WHERE EXISTS (SELECT 1 FROM {table} AS older "
                           f"WHERE lower(older.name) = lower({table}.name) AND older.id < {table}.id)"))
    for table in ("users", "bots"):  # after both batches: a batch reflects the tables, and warns of these
        op.create_index(f"{table}_name_folded", table, [sa.text("lower(name)")], unique=True,
                        sqlite_where=sa.text("NOT case_twin"), postgresql_where=sa.text("NOT case_twin"))


def downgrade() -> None:
    for table in ("bots", "users"):
        op.drop_index(f"{table}_name_folded", table_name=table)
    for table in ("bots", "users"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("case_twin")
