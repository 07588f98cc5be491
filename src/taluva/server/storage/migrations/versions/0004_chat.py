"""Chat messages of each game, and the rematch of each finished game.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``chat_messages`` and ``rematches``."""
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_chat_messages_game_id", "chat_messages", ["game_id"])
    op.create_table(
        "rematches",
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "rematch_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
            unique=True,
        ),
        sa.Column("offered_by", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    """Drop ``rematches`` and ``chat_messages``."""
    op.drop_table("rematches")
    op.drop_index("ix_chat_messages_game_id", "chat_messages")
    op.drop_table("chat_messages")
