"""What a finished game leaves behind: per-seat statistics and, for rated games, ratings.

``settle`` is the one game-end hook: every way a game ends (its last move, a resignation,
a clock, an abandon) calls it inside the transaction that stores the result, so the
statistics and rating updates are stored exactly when the result is, or not at all.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection


def settle(connection: Connection, game_id: str, result: dict[str, Any]) -> None:
    """Store what game ``game_id`` leaves behind now that it ended with ``result``.

    Runs inside the caller's transaction (``connection`` is in a ``begin()`` block); the
    caller commits or rolls back. Not yet filled in: stores nothing.
    """
    del connection, game_id, result
