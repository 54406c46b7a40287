"""The first schema: accounts, tokens, workers, bots and versions, ladder runs, the queue, results
accepted once, rating snapshots."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    f, i, s, t, b = sa.Float, sa.Integer, sa.String, sa.Text, sa.Boolean
    key = lambda: sa.Column("id", i, primary_key=True)  # noqa: E731
    op.create_table("users", key(), sa.Column("name", s(64), nullable=False, unique=True),
                    sa.Column("password", s(200), nullable=False), sa.Column("admin", b, nullable=False),
                    sa.Column("created", f, nullable=False))
    op.create_table("workers", key(), sa.Column("name", s(64), nullable=False, unique=True),
                    sa.Column("created", f, nullable=False))
    op.create_table("tokens", key(), sa.Column("digest", s(64), nullable=False, unique=True),
                    sa.Column("user_id", i, sa.ForeignKey("users.id")),
                    sa.Column("worker_id", i, sa.ForeignKey("workers.id")),
                    sa.Column("created", f, nullable=False), sa.Column("revoked", b, nullable=False))
    op.create_table("bots", key(), sa.Column("name", s(64), nullable=False, unique=True),
                    sa.Column("owner_id", i, sa.ForeignKey("users.id"), nullable=False),
                    sa.Column("created", f, nullable=False))
    op.create_table("versions", key(), sa.Column("bot_id", i, sa.ForeignKey("bots.id"), nullable=False),
                    sa.Column("version", s(200), nullable=False), sa.Column("hash", s(64), nullable=False),
                    sa.Column("status", s(16), nullable=False), sa.Column("log", t, nullable=False),
                    sa.Column("created", f, nullable=False), sa.UniqueConstraint("bot_id", "version"))
    op.create_table("runs", key(), sa.Column("version_id", i, sa.ForeignKey("versions.id"), nullable=False),
                    sa.Column("folder", s(500), nullable=False, unique=True),
                    sa.Column("planned", i, nullable=False), sa.Column("stored", i, nullable=False),
                    sa.Column("done", b, nullable=False), sa.Column("created", f, nullable=False))
    op.create_table("jobs", key(), sa.Column("kind", s(8), nullable=False),
                    sa.Column("version_id", i, sa.ForeignKey("versions.id"), nullable=False),
                    sa.Column("run_id", i, sa.ForeignKey("runs.id")), sa.Column("task", s(40), nullable=False),
                    sa.Column("matches", t, nullable=False), sa.Column("state", s(16), nullable=False),
                    sa.Column("lease", s(64)), sa.Column("worker_id", i, sa.ForeignKey("workers.id")),
                    sa.Column("expires", f), sa.Column("leases", i, nullable=False),
                    sa.Column("created", f, nullable=False))
    op.create_index("jobs_state", "jobs", ["state", "id"])
    op.create_table("results", key(), sa.Column("run_id", i, sa.ForeignKey("runs.id"), nullable=False),
                    sa.Column("match_id", s(100), nullable=False),
                    sa.Column("job_id", i, sa.ForeignKey("jobs.id"), nullable=False),
                    sa.Column("worker_id", i, sa.ForeignKey("workers.id"), nullable=False),
                    sa.Column("received", f, nullable=False), sa.UniqueConstraint("run_id", "match_id"))
    op.create_table("ratings", key(), sa.Column("version_id", i, sa.ForeignKey("versions.id"), nullable=False),
                    sa.Column("ladder", s(200), nullable=False), sa.Column("rating", f, nullable=False),
                    sa.Column("lo", f), sa.Column("hi", f), sa.Column("games", i, nullable=False),
                    sa.Column("date", f, nullable=False))


def downgrade() -> None:
    for name in ("ratings", "results", "jobs", "runs", "versions", "bots", "tokens", "workers", "users"):
        op.drop_table(name)
