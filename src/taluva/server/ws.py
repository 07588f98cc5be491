"""The WebSocket of one game: typed JSON messages, seats by token, limits per connection.

A client sends ``hello`` with the seat tokens it holds (none for a spectator) and gets a
``welcome`` with the whole state; from then on it receives every ``move`` as it is stored.
A reconnecting client sends ``hello`` again and is back where it was. Each message is
checked for size, rate and shape; a bad one gets an ``error`` and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from taluva.server.config import Limits
from taluva.server.errors import ApiError
from taluva.server.limits import TokenBucket

if TYPE_CHECKING:
    from taluva.server.rooms import GameService, Room

log = logging.getLogger("taluva.server")

CLIENT_TYPES = ("hello", "move", "explain", "hint", "ping")
MAX_TOKENS = 5
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_SLOW = 4408

_background: set[asyncio.Task[None]] = set()


def error_message(code: str, message: str, ref: Any = None) -> dict[str, Any]:
    """An ``error`` message; ``ref`` echoes the ``ref`` of the message it answers."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        out["ref"] = ref
    return out


class Connection:
    """One client: the seats it proved it holds, its rate bucket and its outgoing queue."""

    def __init__(self, websocket: WebSocket, limits: Limits) -> None:
        self.websocket = websocket
        self.limits = limits
        self.seats: set[int] = set()
        self.bucket = TokenBucket(limits.ws_rate, limits.ws_burst)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.dropped = False
        self.hint_pending = False

    def send(self, text: str) -> None:
        """Queue a message; a client that falls too far behind is disconnected instead."""
        if self.dropped:
            return
        if self.queue.qsize() >= self.limits.send_queue:
            self.dropped = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(text)

    def send_json(self, message: dict[str, Any]) -> None:
        """Queue a message given as a dict."""
        self.send(json.dumps(message, separators=(",", ":")))

    async def writer(self) -> None:
        """Send queued messages in order until told to stop."""
        while True:
            text = await self.queue.get()
            if text is None:
                if self.dropped:
                    with contextlib.suppress(Exception):
                        await self.websocket.close(CLOSE_TOO_SLOW, "too slow to keep up")
                return
            await self.websocket.send_text(text)


async def serve_socket(
    websocket: WebSocket, game_id: str, service: GameService, limits: Limits
) -> None:
    """Run one client's connection to a game until it leaves."""
    await websocket.accept()
    try:
        room = await service.room(game_id)
    except ApiError as error:
        await websocket.send_text(json.dumps(error_message(error.code, error.message)))
        await websocket.close(CLOSE_NOT_FOUND)
        return
    connection = Connection(websocket, limits)
    writer = asyncio.get_running_loop().create_task(connection.writer())
    try:
        while not connection.dropped:
            try:
                text = await websocket.receive_text()
            except (WebSocketDisconnect, RuntimeError, KeyError):
                break
            await _handle(text, connection, room, service, limits)
    finally:
        room.subscribers.discard(connection)
        connection.queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=1.0)
        writer.cancel()


async def _handle(
    text: str, connection: Connection, room: Room, service: GameService, limits: Limits
) -> None:
    if len(text.encode("utf-8")) > limits.ws_message_bytes:
        connection.send_json(
            error_message("too-large", f"messages are limited to {limits.ws_message_bytes} bytes")
        )
        return
    if not connection.bucket.take():
        connection.send_json(error_message("rate-limited", "too many messages: slow down"))
        return
    try:
        message = json.loads(text)
    except ValueError:
        connection.send_json(error_message("bad-request", "a message is one JSON object"))
        return
    if not isinstance(message, dict):
        connection.send_json(error_message("bad-request", "a message is one JSON object"))
        return
    kind = message.get("type")
    ref = message.get("ref")
    if not isinstance(ref, (str, int)) or isinstance(ref, bool) or len(str(ref)) > 64:
        ref = None
    if kind not in CLIENT_TYPES:
        connection.send_json(
            error_message(
                "bad-request",
                f"unknown message type: expected one of {', '.join(CLIENT_TYPES)}",
                ref,
            )
        )
        return
    try:
        if kind == "hello":
            _hello(message, connection, room)
        elif kind == "ping":
            connection.send_json({"type": "pong", "ref": ref})
        elif kind not in ("explain",) and connection not in room.subscribers:
            raise ApiError(400, "bad-request", "send 'hello' first")
        elif kind == "move":
            reply = await service.submit(
                room, connection.seats, message.get("state"), message.get("move")
            )
            if ref is not None:
                connection.send_json({"type": "accepted", "ref": ref, "ply": reply["ply"]})
        elif kind == "explain":
            reply = service.explain(room, message.get("move"))
            reply["ref"] = ref
            connection.send_json(reply)
        elif kind == "hint":
            if connection.hint_pending:
                raise ApiError(429, "rate-limited", "a hint is already being computed")
            connection.hint_pending = True
            task = asyncio.get_running_loop().create_task(_hint(connection, room, service, ref))
            _background.add(task)
            task.add_done_callback(_background.discard)
    except ApiError as error:
        connection.send_json(error_message(error.code, error.message, ref))


def _hello(message: dict[str, Any], connection: Connection, room: Room) -> None:
    tokens = message.get("tokens", [])
    if not isinstance(tokens, list) or len(tokens) > MAX_TOKENS:
        raise ApiError(400, "bad-request", f"tokens must be a list of at most {MAX_TOKENS}")
    tokens = [token for token in tokens if isinstance(token, str) and len(token) <= 100]
    seats, unknown = room.seats_for(tokens)
    connection.seats = seats
    room.subscribers.add(connection)
    welcome: dict[str, Any] = {
        "type": "welcome",
        "seats": sorted(seats),
        "state": room.state(),
    }
    since = message.get("since")
    if type(since) is int and 0 <= since <= room.game.ply:
        welcome["missed"] = [str(move) for move in room.game.moves[since:]]
    if unknown:
        welcome["unknown_tokens"] = unknown
    connection.send_json(welcome)


async def _hint(connection: Connection, room: Room, service: GameService, ref: Any) -> None:
    """Compute a hint without holding up the connection's other messages."""
    try:
        reply = await service.hint(room, connection.seats)
        reply["ref"] = ref
        connection.send_json(reply)
    except ApiError as error:
        connection.send_json(error_message(error.code, error.message, ref))
    except Exception as error:
        log.exception("hint failed in game %s", room.id)
        connection.send_json(error_message("unavailable", f"no hint: {error}", ref))
    finally:
        connection.hint_pending = False
