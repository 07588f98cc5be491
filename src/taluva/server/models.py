"""The server's tables (SQLAlchemy 2): games, their seats, and every accepted move.

A move row's primary key is ``(game_id, ply)``: two submissions for the same ply cannot both
be stored, whatever process sends them, so the database decides which one wins.
Seat tokens are stored only as SHA-256 digests.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of the server's tables."""


class GameRow(Base):
    """One game: its options and deck (hidden from clients until it ends), status and result."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    status: Mapped[str] = mapped_column(String(16), index=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    deck: Mapped[list[str]] = mapped_column(JSON)
    doubles: Mapped[list[str]] = mapped_column(JSON)
    hints: Mapped[bool] = mapped_column(default=True)
    ply: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class SeatRow(Base):
    """One seat of a game: a human (claimed once, by token) or an AI level."""

    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    ai: Mapped[str | None] = mapped_column(String(32), nullable=True)
    name: Mapped[str] = mapped_column(String(80))
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)


class MoveRow(Base):
    """One accepted move; the key ``(game_id, ply)`` lets exactly one submission per ply in."""

    __tablename__ = "moves"

    game_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
