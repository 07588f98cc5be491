"""Languages: each account's chosen language (``accounts.language``, a code of
``taluva.lang.LANGUAGES``), in which its pages, mails and notifications speak; null: the
browser's own choice (its cookie or ``Accept-Language``), and English for mails.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision: str | None = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``accounts.language``, null for every account (none has chosen yet)."""
    op.add_column("accounts", sa.Column("language", sa.String(16), nullable=True))


def downgrade() -> None:
    """Drop ``accounts.language``."""
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("language")
