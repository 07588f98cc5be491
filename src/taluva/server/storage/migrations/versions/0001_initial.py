"""Games, seats and moves.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the three tables."""
    op.create_table(
        "games",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("deck", sa.JSON(), nullable=False),
        sa.Column("doubles", sa.JSON(), nullable=False),
        sa.Column("hints", sa.Boolean(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_games_status", "games", ["status"])
    op.create_index("ix_games_updated_at", "games", ["updated_at"])
    op.create_table(
        "seats",
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("ai", sa.String(32), nullable=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
    )
    op.create_table(
        "moves",
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("ply", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    """Drop the three tables."""
    op.drop_table("moves")
    op.drop_table("seats")
    op.drop_index("ix_games_updated_at", "games")
    op.drop_index("ix_games_status", "games")
    op.drop_table("games")
