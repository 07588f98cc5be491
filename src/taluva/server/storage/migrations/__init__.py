"""Alembic migrations of the server's database, shipped in the package and applied at start."""
