"""The server's tables (SQLAlchemy 2): games, their seats, and every accepted move.

A move row's primary key is ``(game_id, ply)``: two submissions for the same ply cannot both
be stored, whatever process sends them, so the database decides which one wins.
Seat tokens are stored only as SHA-256 digests.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
)
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
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    """Rated (chosen at creation; every seat then an account or an AI level) or casual."""
    ply: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The game's clock as of its last change (``taluva.server.games.clocks``); None: no clock."""
    deadline: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    """When the running seat's time runs out (milliseconds since the epoch), from ``clock``:
    what the servers query to end the games whose clock ran out without holding them."""
    resignations: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, nullable=True)
    """The record's ``resignations``: players who resigned or ran out of time."""
    host_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """SHA-256 digest of the host token of whoever created the game (it may cancel it)."""
    host_account: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The account that created the game, if signed in (it may cancel it too)."""


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
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id"), nullable=True, index=True
    )
    """The account that took this seat while signed in (None: a guest or an AI)."""


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
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The game's clock right after this move (None: the game has no clock)."""


class ChatMessageRow(Base):
    """One chat message of a game, written by a seated player; ``id`` orders a game's chat."""

    __tablename__ = "chat_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), index=True
    )
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(80))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RematchRow(Base):
    """The rematch of a finished game: one per game (the key), offered by one of its seats."""

    __tablename__ = "rematches"

    game_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    rematch_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), unique=True
    )
    offered_by: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AccountRow(Base):
    """A player's account: a unique public name (``name_key``, its case-folded form, is what
    must be unique) and the Argon2 hash of the password."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(80))
    name_key: Mapped[str] = mapped_column(String(320), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    failed_sign_ins: Mapped[int] = mapped_column(Integer, default=0)
    """Wrong passwords given for this name since its last sign-in (told at the next one)."""
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    """The confirmed e-mail address (shown to nobody else), where password resets go."""
    email_key: Mapped[str | None] = mapped_column(String(254), nullable=True, index=True)
    """``email`` case-folded, as a reset request finds it; several accounts may share one."""
    email_pending: Mapped[str | None] = mapped_column(String(254), nullable=True)
    """An address given but not yet confirmed by the link mailed to it."""
    mail_off: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    """The kinds of mail (``mail.queue.KINDS`` with a switch) the player turned off."""
    language: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """The language the player chose (a code of ``taluva.lang.LANGUAGES``): its pages, mails
    and notifications speak it; None: the browser's choice, and English for mails."""


class SessionRow(Base):
    """A signed-in browser: the SHA-256 digest of its cookie's token, until ``expires_at``."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class DeviceRow(Base):
    """A browser an account has signed in from: the SHA-256 digest of its device cookie's
    token. A known device signs in even while its name is locked by others' wrong tries."""

    __tablename__ = "devices"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingRow(Base):
    """The openskill rating of one account or one AI level (``ai`` such as ``level:3``)."""

    __tablename__ = "ratings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), nullable=True, unique=True
    )
    ai: Mapped[str | None] = mapped_column(String(32), nullable=True, unique=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingChangeRow(Base):
    """A rating after one rated game: the history a profile plots."""

    __tablename__ = "rating_changes"

    rating_id: Mapped[int] = mapped_column(
        ForeignKey("ratings.id", ondelete="CASCADE"), primary_key=True
    )
    game_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    mu_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    """The rating before this game (None for changes stored before it was kept)."""
    sigma_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SeatStatsRow(Base):
    """What one seat did in a finished game, computed once from its record when it ended
    (the counts are None if the record could not be replayed)."""

    __tablename__ = "seat_stats"

    game_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id"), nullable=True, index=True
    )
    ai: Mapped[str | None] = mapped_column(String(32), nullable=True)
    place: Mapped[int] = mapped_column(Integer)
    players: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(32))
    rated: Mapped[bool] = mapped_column(Boolean)
    tiles: Mapped[int | None] = mapped_column(Integer, nullable=True)
    huts: Mapped[int | None] = mapped_column(Integer, nullable=True)
    temples: Mapped[int | None] = mapped_column(Integer, nullable=True)
    towers: Mapped[int | None] = mapped_column(Integer, nullable=True)
    huts_lost: Mapped[int | None] = mapped_column(Integer, nullable=True)
    highest_level: Mapped[int | None] = mapped_column(Integer, nullable=True)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ReviewRow(Base):
    """The review of a finished game (``taluva review --json``'s document): one per game,
    computed once with ``iterations`` search iterations per position."""

    __tablename__ = "reviews"

    game_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    iterations: Mapped[int] = mapped_column(Integer)
    review: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SeekRow(Base):
    """A signed-in player's wish for a game, in the lobby (``games.seeks``): a seek posted
    (``host_id`` None) or a place another player took in one (``host_id`` its id). The group
    starts a game once it has as many players as the seek's ``setup`` asks for."""

    __tablename__ = "seeks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    host_id: Mapped[int | None] = mapped_column(
        ForeignKey("seeks.id", ondelete="CASCADE"), nullable=True, index=True
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    setup: Mapped[dict[str, Any]] = mapped_column(JSON)
    """Players, rated, clock and options of the game wished for."""
    setup_key: Mapped[str] = mapped_column(String(64), index=True)
    """SHA-256 of the setup's canonical JSON: equal setups match."""
    rating_range: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    game_id: Mapped[str | None] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    """When the player's browser last asked after it: a seek nobody asks after expires."""


class ChallengeRow(Base):
    """One player's challenge to another to a game of ``setup`` (``games.challenges``)."""

    __tablename__ = "challenges"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    from_account: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    to_account: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    setup: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16))
    game_id: Mapped[str | None] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class PuzzleRatingRow(Base):
    """The puzzle rating of one account or one puzzle (``players.puzzle_ratings``), with an
    account's current streak of puzzles solved in a row."""

    __tablename__ = "puzzle_ratings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), nullable=True, unique=True
    )
    puzzle_id: Mapped[str | None] = mapped_column(String(32), nullable=True, unique=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    streak: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PuzzleAttemptRow(Base):
    """One rated attempt of a signed-in player at a puzzle, and the player's rating after it."""

    __tablename__ = "puzzle_attempts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    puzzle_id: Mapped[str] = mapped_column(String(32), index=True)
    solved: Mapped[bool] = mapped_column(Boolean)
    mu_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class MailRow(Base):
    """One mail in the queue (``taluva.server.mail.queue``): queued until a server process
    claims it (``claimed_by`` until ``claimed_until``), then sent, or tried again at
    ``next_try``, or failed for good. A sent mail's bodies are emptied."""

    __tablename__ = "mail_queue"
    __table_args__ = (Index("ix_mail_queue_due", "status", "next_try"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(32))
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True, index=True
    )
    to_address: Mapped[str] = mapped_column(String(254), index=True)
    subject: Mapped[str] = mapped_column(String(200))
    text_body: Mapped[str] = mapped_column(Text)
    html_body: Mapped[str] = mapped_column(Text)
    unsubscribe: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    """The one-click unsubscribe address (RFC 8058) of a mail its player may turn off."""
    once_key: Mapped[str | None] = mapped_column(String(120), nullable=True, unique=True)
    """A mail that must go at most once (e.g. one "your move" per game and turn); None: any."""
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_try: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(300), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    picture: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    """A PNG the HTML body shows inline (the board of a "your move" mail); emptied once sent."""


class NoticeRow(Base):
    """A notice given (a mail or push message about a game or a challenge,
    ``taluva.server.http.notices``), by its key: whichever server process writes the key first
    gives the notice, so that each goes at most once."""

    __tablename__ = "notices"

    key: Mapped[str] = mapped_column(String(120), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ServerSecretRow(Base):
    """A random secret the server made at its first start, shared by all its processes: the
    key that signs the links in mails (``taluva.server.mail.links``), the VAPID key that signs
    web push messages (``taluva.server.push.keys``)."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class PushSubscriptionRow(Base):
    """A browser that subscribed an account to web push (``taluva.server.push``): where its
    push service takes messages (``endpoint``, one row each), the keys they are encrypted to,
    the device's label and the kinds of notice turned off on it."""

    __tablename__ = "push_subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    endpoint: Mapped[str] = mapped_column(String(1000), unique=True)
    p256dh: Mapped[str] = mapped_column(String(100))
    """The browser's P-256 public key, URL-safe base64 as the browser gave it."""
    auth: Mapped[str] = mapped_column(String(40))
    """The browser's authentication secret, URL-safe base64."""
    label: Mapped[str] = mapped_column(String(120))
    off: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    """The kinds of notice (``mail.queue.KINDS`` with a switch) turned off on this device."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
