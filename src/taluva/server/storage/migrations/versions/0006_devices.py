"""The browsers each account has signed in from (``players.accounts.AccountStore``).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``devices``."""
    op.create_table(
        "devices",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_devices_account_id", "devices", ["account_id"])


def downgrade() -> None:
    """Drop ``devices``."""
    op.drop_index("ix_devices_account_id", table_name="devices")
    op.drop_table("devices")
