"""Flags the organiser sets (the queue paused)."""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table("flags", sa.Column("name", sa.String(32), primary_key=True),
                    sa.Column("value", sa.Text, nullable=False))


def downgrade() -> None:
    op.drop_table("flags")
