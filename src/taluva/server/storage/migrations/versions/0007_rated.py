"""Rated or casual, chosen when a game is created; each rating change keeps the rating before
it; an account counts the failed sign-ins since its last sign-in.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``games.rated`` (set for the games that were rated before: every seat an account
    or an AI level), ``rating_changes.mu_before``/``sigma_before`` and
    ``accounts.failed_sign_ins``."""
    op.add_column(
        "games", sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.execute(
        "UPDATE games SET rated = NOT EXISTS (SELECT 1 FROM seats WHERE seats.game_id = "
        "games.id AND seats.account_id IS NULL AND (seats.kind <> 'ai' OR seats.ai IS NULL))"
    )
    op.add_column("rating_changes", sa.Column("mu_before", sa.Float(), nullable=True))
    op.add_column("rating_changes", sa.Column("sigma_before", sa.Float(), nullable=True))
    op.add_column(
        "accounts",
        sa.Column("failed_sign_ins", sa.Integer(), nullable=False, server_default="0"),
    )


def downgrade() -> None:
    """Drop the columns again."""
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("failed_sign_ins")
    with op.batch_alter_table("rating_changes") as batch:
        batch.drop_column("sigma_before")
        batch.drop_column("mu_before")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rated")
