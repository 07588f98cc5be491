"""Notices: the keys of the notices given (a mail or push message about a game, each given at
most once by whichever server process writes its key first, ``taluva.server.http.notices``)
and the inline picture of a queued mail (the board of a "your move" mail).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision: str | None = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``notices``; add ``mail_queue.picture``."""
    op.create_table(
        "notices",
        sa.Column("key", sa.String(120), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.add_column("mail_queue", sa.Column("picture", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    """Drop ``mail_queue.picture`` and ``notices``."""
    op.drop_column("mail_queue", "picture")
    op.drop_table("notices")
