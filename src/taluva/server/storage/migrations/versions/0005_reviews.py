"""The review of each finished game, once computed (``taluva.server.games.reviews``).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``reviews``."""
    op.create_table(
        "reviews",
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("iterations", sa.Integer(), nullable=False),
        sa.Column("review", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    """Drop ``reviews``."""
    op.drop_table("reviews")
