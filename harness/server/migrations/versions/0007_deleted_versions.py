"""A version its owner deleted (``versions.deleted``: when; NULL while it is not): its files gone or
going, its bytes no longer counted, its status ``withdrawn`` (or ``disabled``, when the organiser had
disabled it first)."""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    with op.batch_alter_table("versions") as batch:
        batch.add_column(sa.Column("deleted", sa.Float, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("versions") as batch:
        batch.drop_column("deleted")
