"""Clocks, resignations and the host of each game (who may cancel it before it starts).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the clock, resignation and host columns to games, and the clock to moves."""
    op.add_column("games", sa.Column("clock", sa.JSON(), nullable=True))
    op.add_column("games", sa.Column("resignations", sa.JSON(), nullable=True))
    op.add_column("games", sa.Column("host_hash", sa.String(64), nullable=True))
    op.add_column("games", sa.Column("host_account", sa.Integer(), nullable=True))
    op.add_column("moves", sa.Column("clock", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Drop the columns again."""
    with op.batch_alter_table("moves") as moves:
        moves.drop_column("clock")
    with op.batch_alter_table("games") as games:
        games.drop_column("host_account")
        games.drop_column("host_hash")
        games.drop_column("resignations")
        games.drop_column("clock")
