"""Tokens expire: a user's token at ``expires`` (its absolute lifetime), a browser session also at
``idle`` (moved on while it is used). A worker's token has neither. Users' tokens made before this
revision get the default lifetime (30 days) from when they were made."""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("expires", sa.Float, nullable=True))
        batch.add_column(sa.Column("idle", sa.Float, nullable=True))
    op.execute(sa.text("UPDATE tokens SET expires = created + 2592000 WHERE user_id IS NOT NULL"))


def downgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.drop_column("idle")
        batch.drop_column("expires")
