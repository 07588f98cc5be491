"""Alembic revisions, oldest first: never edit one that has shipped; add a new one."""
