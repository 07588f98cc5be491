"""Alembic environment: runs the revisions on the connection the server hands over."""

from __future__ import annotations

from alembic import context

from taluva.server.storage.models import Base


def run_migrations() -> None:
    """Upgrade through the connection in ``config.attributes['connection']``."""
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=Base.metadata)
    with context.begin_transaction():
        context.run_migrations()


if getattr(context, "config", None) is not None:  # only when Alembic runs this file
    run_migrations()
