"""Accounts, sessions, ratings and the statistics of finished games' seats.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the accounts, sessions, ratings and seat statistics; seats record an account."""
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("name_key", sa.String(320), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    op.create_index("ix_sessions_expires_at", "sessions", ["expires_at"])
    with op.batch_alter_table("seats") as seats:
        seats.add_column(sa.Column("account_id", sa.Integer(), nullable=True))
        seats.create_foreign_key("fk_seats_account_id", "accounts", ["account_id"], ["id"])
        seats.create_index("ix_seats_account_id", ["account_id"])
    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=True,
            unique=True,
        ),
        sa.Column("ai", sa.String(32), nullable=True, unique=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "rating_changes",
        sa.Column(
            "rating_id",
            sa.Integer(),
            sa.ForeignKey("ratings.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "seat_stats",
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("ai", sa.String(32), nullable=True),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("tiles", sa.Integer(), nullable=True),
        sa.Column("huts", sa.Integer(), nullable=True),
        sa.Column("temples", sa.Integer(), nullable=True),
        sa.Column("towers", sa.Integer(), nullable=True),
        sa.Column("huts_lost", sa.Integer(), nullable=True),
        sa.Column("highest_level", sa.Integer(), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_seat_stats_account_id", "seat_stats", ["account_id"])


def downgrade() -> None:
    """Drop them again, and the seats' account column."""
    op.drop_index("ix_seat_stats_account_id", "seat_stats")
    op.drop_table("seat_stats")
    op.drop_table("rating_changes")
    op.drop_table("ratings")
    with op.batch_alter_table("seats") as seats:
        seats.drop_index("ix_seats_account_id")
        seats.drop_constraint("fk_seats_account_id", type_="foreignkey")
        seats.drop_column("account_id")
    op.drop_index("ix_sessions_expires_at", "sessions")
    op.drop_index("ix_sessions_account_id", "sessions")
    op.drop_table("sessions")
    op.drop_table("accounts")
