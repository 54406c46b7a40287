"""What each version keeps on the server's disk (``versions.kept``, bytes: its upload while it waits
for its check, its arena copy once ready, nothing once failed), for the bound per user. NULL for a
version of a database made before: ``serve`` measures those as it starts (``Server.tidy``)."""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    with op.batch_alter_table("versions") as batch:
        batch.add_column(sa.Column("kept", sa.BigInteger, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("versions") as batch:
        batch.drop_column("kept")
