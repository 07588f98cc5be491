"""Mail: an account's e-mail address (confirmed, and one waiting for its link) and the
kinds of mail it turned off, the queue of mails to send (``taluva.server.mail.queue``) and
the server's signing secret.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision: str | None = "0009"
branch_labels = None
depends_on = None

_ACCOUNT_COLUMNS = ("email", "email_key", "email_pending")


def upgrade() -> None:
    """Add the accounts' addresses; create ``mail_queue`` and ``server_secrets``."""
    # plain ADD COLUMN: a batch copy of ``accounts`` would drop the table its rows cascade from
    for column in _ACCOUNT_COLUMNS:
        op.add_column("accounts", sa.Column(column, sa.String(254), nullable=True))
    op.create_index("ix_accounts_email_key", "accounts", ["email_key"])
    op.add_column("accounts", sa.Column("mail_off", sa.JSON(), nullable=True))
    op.create_table(
        "mail_queue",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("to_address", sa.String(254), nullable=False),
        sa.Column("subject", sa.String(200), nullable=False),
        sa.Column("text_body", sa.Text(), nullable=False),
        sa.Column("html_body", sa.Text(), nullable=False),
        sa.Column("unsubscribe", sa.String(1000), nullable=True),
        sa.Column("once_key", sa.String(120), nullable=True, unique=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_try", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(300), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_mail_queue_due", "mail_queue", ["status", "next_try"])
    op.create_index("ix_mail_queue_account_id", "mail_queue", ["account_id"])
    op.create_index("ix_mail_queue_to_address", "mail_queue", ["to_address"])
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )


def downgrade() -> None:
    """Drop ``server_secrets`` and ``mail_queue``, and the accounts' addresses."""
    op.drop_table("server_secrets")
    for index in ("ix_mail_queue_to_address", "ix_mail_queue_account_id", "ix_mail_queue_due"):
        op.drop_index(index, table_name="mail_queue")
    op.drop_table("mail_queue")
    op.drop_column("accounts", "mail_off")
    op.drop_index("ix_accounts_email_key", table_name="accounts")
    for column in _ACCOUNT_COLUMNS:
        op.drop_column("accounts", column)
