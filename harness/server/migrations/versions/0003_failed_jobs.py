"""A job's failures (its lease ran out, or its worker gave it back) and the last one's reason: a job
that fails Settings.tries times is ``failed`` and leased no more."""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("failures", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("reason", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("reason")
        batch.drop_column("failures")
