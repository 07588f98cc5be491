"""Puzzles: the puzzle ratings of accounts and of puzzles, and each rated attempt
(``taluva.server.players.puzzle_ratings``).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``puzzle_ratings`` and ``puzzle_attempts``."""
    op.create_table(
        "puzzle_ratings",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=True,
            unique=True,
        ),
        sa.Column("puzzle_id", sa.String(32), nullable=True, unique=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("puzzle_id", sa.String(32), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    for column in ("account_id", "puzzle_id"):
        op.create_index(f"ix_puzzle_attempts_{column}", "puzzle_attempts", [column])


def downgrade() -> None:
    """Drop ``puzzle_attempts`` and ``puzzle_ratings``."""
    for column in ("account_id", "puzzle_id"):
        op.drop_index(f"ix_puzzle_attempts_{column}", table_name="puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_ratings")
