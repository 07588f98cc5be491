"""Deadlines: each game's clock deadline as a column of its own, indexed, so that a server
process finds the games whose clock is about to run out with one query instead of holding
every game in memory (``Store.due_games``).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from taluva.server.storage.store import clock_deadline

revision = "0013"
down_revision: str | None = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``games.deadline`` and fill it in for the games being played."""
    op.add_column("games", sa.Column("deadline", sa.BigInteger(), nullable=True))
    op.create_index("ix_games_deadline", "games", ["deadline"])
    games = sa.table(
        "games",
        sa.column("id", sa.String),
        sa.column("status", sa.String),
        sa.column("clock", sa.JSON),
        sa.column("deadline", sa.BigInteger),
    )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(games.c.id, games.c.clock).where(games.c.status == "live")
    ).all()
    for game_id, clock in rows:
        end = clock_deadline(clock)
        if end is not None:
            connection.execute(sa.update(games).where(games.c.id == game_id).values(deadline=end))


def downgrade() -> None:
    """Drop ``games.deadline``."""
    op.drop_index("ix_games_deadline", table_name="games")
    op.drop_column("games", "deadline")
