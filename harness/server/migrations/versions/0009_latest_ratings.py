"""The latest rating of each version found without reading every snapshot: an index on the ratings'
version and id, which the leaderboard's query (``Server._latest_ratings``) searches once a version."""

from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    op.create_index("ratings_latest", "ratings", ["version_id", "id"])


def downgrade() -> None:
    op.drop_index("ratings_latest", table_name="ratings")
