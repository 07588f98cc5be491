"""The chat of each game: seated players write in it, everyone watching the game reads it.

A message is checked (a seat of the sender's, its text, the seat's rate), stored, and only
then broadcast to every client watching the game, like a move; a client that says hello
gets the last ``HISTORY`` messages in its welcome. Text is kept as written (normalized to
NFC, white space made single spaces): clients must show it as text, never as markup.
"""

from __future__ import annotations

import asyncio
import unicodedata
import weakref
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, insert, select

from taluva.engine.wording import T, Tn
from taluva.server.config import Limits
from taluva.server.errors import ApiError
from taluva.server.games.room import Room
from taluva.server.games.service import GameService
from taluva.server.limits import TokenBucket
from taluva.server.players.names import MAX_MARKS, graphemes, invisible_in
from taluva.server.storage.models import Base, ChatMessageRow
from taluva.server.storage.store import now, utc

HISTORY = 50
"""Messages a client receives when it says hello (and ``GET .../chat`` answers)."""

_MESSAGES = Base.metadata.tables[ChatMessageRow.__tablename__]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One stored message: its id (increasing within a game), seat, name, text and time."""

    id: int
    seat: int
    name: str
    text: str
    at: datetime

    def to_json(self) -> dict[str, Any]:
        """The message as clients receive it (in ``welcome.chat`` and ``chat`` broadcasts)."""
        return {
            "id": self.id,
            "seat": self.seat,
            "name": self.name,
            "text": self.text,
            "at": self.at.isoformat(),
        }


def clean_text(value: Any, limit: int) -> str:
    """A chat message's text, normalized, or ApiError 422 ``bad-request`` saying why not.

    Any printable text goes, emoji included; refused are empty text, more than ``limit``
    characters (counted as people see them), invisible or control characters (which could
    hide or reorder text) and more than ``MAX_MARKS`` marks stacked on one character.

    >>> clean_text("  gg   <b>wp</b> 👩🏽‍💻 ", 500)
    'gg <b>wp</b> 👩🏽\\u200d💻'
    """
    if not isinstance(value, str):
        raise ApiError(422, "bad-request", T("text must be text"))
    text = " ".join(unicodedata.normalize("NFC", value).split())
    if not text:
        raise ApiError(422, "bad-request", T("text is empty: write something"))
    clusters = graphemes(text)
    if len(clusters) > limit:
        raise ApiError(
            422,
            "bad-request",
            Tn(
                "text is longer than {limit} character",
                "text is longer than {limit} characters",
                limit,
                limit=limit,
            ),
        )
    for cluster in clusters:
        hidden = invisible_in(cluster)
        if hidden is not None:
            raise ApiError(
                422,
                "bad-request",
                T(
                    "text contains an invisible or control character ({character})",
                    character=f"U+{ord(hidden):04X}",
                ),
            )
        if sum(1 for char in cluster if unicodedata.combining(char)) > MAX_MARKS:
            raise ApiError(
                422,
                "bad-request",
                T("text stacks more than {marks} marks on one character", marks=MAX_MARKS),
            )
    return text


# ---------------------------------------------------------------------- storage


def store_message(engine: Engine, game_id: str, seat: int, name: str, text: str) -> ChatMessage:
    """Store one message of a game; return it with its new id."""
    stamp = now()
    with engine.begin() as connection:
        result = connection.execute(
            insert(_MESSAGES),
            {"game_id": game_id, "seat": seat, "name": name, "text": text, "created_at": stamp},
        )
        (message_id,) = result.inserted_primary_key or (0,)
    return ChatMessage(int(message_id), seat, name, text, stamp)


def recent_messages(engine: Engine, game_id: str, limit: int) -> list[ChatMessage]:
    """The last ``limit`` messages of a game, oldest first."""
    with engine.connect() as connection:
        rows = connection.execute(
            select(
                _MESSAGES.c.id,
                _MESSAGES.c.seat,
                _MESSAGES.c.name,
                _MESSAGES.c.text,
                _MESSAGES.c.created_at,
            )
            .where(_MESSAGES.c.game_id == game_id)
            .order_by(_MESSAGES.c.id.desc())
            .limit(limit)
        ).all()
    return [
        ChatMessage(row.id, row.seat, row.name, row.text, utc(row.created_at))
        for row in reversed(rows)
    ]


# ---------------------------------------------------------------------- the chat of each room


@dataclass(eq=False)
class _RoomChat:
    """What the server keeps of one game's chat: each seat's rate, and a lock that puts its
    messages and its new readers in one order."""

    buckets: dict[int, TokenBucket] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Chat:
    """The chats of every game the server holds in memory (each forgotten with its room).

    Messages are read from the database for each new reader, not kept in memory, so a
    reader sees the messages that any server process stored.
    """

    def __init__(self, service: GameService, limits: Limits) -> None:
        self.service = service
        self.limits = limits
        self._rooms: weakref.WeakKeyDictionary[Room, _RoomChat] = weakref.WeakKeyDictionary()

    def _of(self, room: Room) -> _RoomChat:
        chat = self._rooms.get(room)
        if chat is None:
            chat = self._rooms[room] = _RoomChat()
        return chat

    def hold(self, room: Room) -> asyncio.Lock:
        """The lock of a game's chat: a new reader holds it from reading the last messages
        until it receives broadcasts, so that no message falls between the two."""
        return self._of(room).lock

    async def recent(self, room: Room, limit: int = HISTORY) -> list[dict[str, Any]]:
        """The last ``limit`` messages of a game, oldest first, as clients receive them."""
        engine = self.service.store.engine
        stored = await self.service.db(recent_messages, engine, room.id, limit)
        return [message.to_json() for message in stored]

    def speaker(self, room: Room, seats: set[int], seat: int | None) -> int:
        """The seat a message is written as: ``seat`` if given (it must be one of ``seats``),
        else the seat to move if it is one of them, else the first of them."""
        if not seats:
            raise ApiError(
                403, "forbidden", T("only seated players may chat; spectators read the chat")
            )
        if seat is not None:
            if seat not in seats:
                raise ApiError(403, "forbidden", T("seat {seat} is not one of yours", seat=seat))
            return seat
        to_move = room.game.to_move
        return to_move if to_move in seats else min(seats)

    async def say(
        self, room: Room, seats: set[int], text: Any, seat: int | None = None
    ) -> dict[str, Any]:
        """Check, store and broadcast one message; return the broadcast ``chat`` message.

        Refused (ApiError, nothing stored) unless the sender holds a seat of the game, the
        text passes ``clean_text`` and that seat has not written more than ``chat_burst``
        messages in a burst, then ``chat_rate`` a second.
        """
        speaker = self.speaker(room, seats, seat)
        clean = clean_text(text, self.limits.chat_chars)
        chat = self._of(room)
        bucket = chat.buckets.get(speaker)
        if bucket is None:
            bucket = chat.buckets[speaker] = TokenBucket(
                self.limits.chat_rate, self.limits.chat_burst
            )
        if not bucket.take():
            raise ApiError(
                429,
                "rate-limited",
                Tn(
                    "a seat may send {burst} chat message at once, then one every {seconds} "
                    "seconds: wait a moment",
                    "a seat may send {burst} chat messages at once, then one every {seconds} "
                    "seconds: wait a moment",
                    self.limits.chat_burst,
                    burst=self.limits.chat_burst,
                    seconds=f"{1 / self.limits.chat_rate:g}",
                ),
                retry_after=bucket.retry_after(),
            )
        name = room.meta.seats[speaker].name
        engine = self.service.store.engine
        async with chat.lock:
            stored = await self.service.db(store_message, engine, room.id, speaker, name, clean)
            message = {"type": "chat", **stored.to_json()}
            room.broadcast(message)
        return message
