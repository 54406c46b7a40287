"""Volunteer workers: a worker is a volunteer or trusted; a volunteer whose results disagreed with
another worker's is flagged (the reason). A job a volunteer has played waits, its results aside,
for a second worker's (``volunteer_id``)."""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.add_column(sa.Column("volunteer", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("flagged", sa.Text, nullable=False, server_default=""))
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("volunteer_id", sa.Integer, nullable=True))
        batch.create_foreign_key("jobs_volunteer", "workers", ["volunteer_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_constraint("jobs_volunteer", type_="foreignkey")
        batch.drop_column("volunteer_id")
    with op.batch_alter_table("workers") as batch:
        batch.drop_column("flagged")
        batch.drop_column("volunteer")
