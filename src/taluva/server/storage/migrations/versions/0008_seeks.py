"""Finding a game: the lobby's seeks and the challenges between players
(``taluva.server.games.seeks``, ``taluva.server.games.challenges``).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``seeks`` and ``challenges``."""
    op.create_table(
        "seeks",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "host_id", sa.Integer(), sa.ForeignKey("seeks.id", ondelete="CASCADE"), nullable=True
        ),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("setup", sa.JSON(), nullable=False),
        sa.Column("setup_key", sa.String(64), nullable=False),
        sa.Column("rating_range", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column(
            "game_id", sa.String(16), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )
    for column in ("host_id", "account_id", "setup_key", "status", "seen_at"):
        op.create_index(f"ix_seeks_{column}", "seeks", [column])
    op.create_table(
        "challenges",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "from_account",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "to_account",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("setup", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column(
            "game_id", sa.String(16), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
    )
    for column in ("from_account", "to_account"):
        op.create_index(f"ix_challenges_{column}", "challenges", [column])


def downgrade() -> None:
    """Drop ``challenges`` and ``seeks``."""
    for column in ("from_account", "to_account"):
        op.drop_index(f"ix_challenges_{column}", table_name="challenges")
    op.drop_table("challenges")
    for column in ("host_id", "account_id", "setup_key", "status", "seen_at"):
        op.drop_index(f"ix_seeks_{column}", table_name="seeks")
    op.drop_table("seeks")
