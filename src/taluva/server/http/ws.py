"""The WebSocket of one game: typed JSON messages, seats by token, limits per connection.

A client sends ``hello`` with the seat tokens it holds (none for a spectator) and gets a
``welcome`` with the whole state; from then on it receives every ``move`` as it is stored.
A reconnecting client sends ``hello`` again and is back where it was. Each message is
checked for size, rate, nesting and shape (``taluva.server.http.messages``); a bad one gets an
``error`` and changes nothing. Every message gets one answer. One address may hold
``ws_per_address`` sockets open at once; a socket over that is told and closed.

Each socket speaks the language chosen when it connected (``http.language``: the query's
``lang``, the account's setting, the cookie, ``Accept-Language``): every message it is sent,
its own answers and the game's broadcasts alike, says its Texts in that language.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

from fastapi import APIRouter
from pydantic import ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from taluva.engine.wording import N_, T, Text
from taluva.lang import say
from taluva.server.config import Limits
from taluva.server.errors import ApiError, error_message
from taluva.server.games.chat import Chat
from taluva.server.games.rematch import Rematches
from taluva.server.games.room import Room
from taluva.server.games.service import GameService
from taluva.server.games.words import reason_of
from taluva.server.http.errors import database_down, failed
from taluva.server.http.language import scope_language
from taluva.server.http.messages import (
    CLIENT_MESSAGES,
    MAX_REF_CHARS,
    Abort,
    Cancel,
    Chances,
    ChatSay,
    Claim,
    Explain,
    Hello,
    Hint,
    Move,
    Ping,
    Resign,
    Strict,
    describe,
    parse_json,
    valid_ref,
)
from taluva.server.http.site import Site
from taluva.server.limits import ConnectionCounter, TokenBucket
from taluva.server.players.accounts import Account, account_of
from taluva.server.storage import outage
from taluva.server.wire import in_language, to_json_in

log = logging.getLogger("taluva.server")

CLIENT_TYPES = tuple(CLIENT_MESSAGES)
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_SLOW = 4408
CLOSE_TOO_MANY = 4429
CLOSE_RESTARTING = 1012
"""The server is stopping (WebSocket's "service restart"): reconnect, to another process."""
CLOSE_TRY_LATER = 1013
"""The database cannot be reached (WebSocket's "try again later")."""
"""The server is stopping (WebSocket's "service restart"): reconnect, to another process."""

_background: set[asyncio.Task[None]] = set()


class Connection:
    """One client: the seats it proved it holds, its rate bucket and its outgoing queue."""

    def __init__(self, websocket: WebSocket, limits: Limits, lang: str = "en") -> None:
        self.websocket = websocket
        self.limits = limits
        self.lang = lang
        """The language this socket speaks, chosen when it connected."""
        self.seats: set[int] = set()
        self.bucket = TokenBucket(limits.ws_rate, limits.ws_burst)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.dropped = False
        self.pending: set[str] = set()  # kinds of AI answers being computed ("hint", ...)
        self.account: Account | None = None
        """The account signed in on this socket: it holds that account's seats."""

    def send(self, text: str) -> None:
        """Queue a message written by ``wire.to_json`` (a broadcast, written once for every
        socket of one language), in this socket's language; a client that falls too far
        behind is disconnected instead."""
        if self.dropped:
            return
        if self.queue.qsize() >= self.limits.send_queue:
            self.dropped = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(in_language(text, self.lang))

    def send_json(self, message: dict[str, Any]) -> None:
        """Queue a message given as a dict, its Texts said in this socket's language."""
        self.send(to_json_in(message, self.lang))

    async def writer(self) -> None:
        """Send queued messages in order until told to stop."""
        while True:
            text = await self.queue.get()
            if text is None:
                if self.dropped:
                    with contextlib.suppress(Exception):
                        reason = close_reason(T("too slow to keep up: reconnect"), self.lang)
                        await self.websocket.close(CLOSE_TOO_SLOW, reason)
                return
            await self.websocket.send_text(text)


def close_reason(words: str, lang: str) -> str:
    """``words`` said in ``lang`` as a close frame's reason, which holds at most 123 bytes of
    UTF-8: cut to 120 bytes, never inside a character."""
    return say(words, lang).encode("utf-8")[:120].decode("utf-8", "ignore")


async def refuse_socket(websocket: WebSocket, error: ApiError, close_code: int) -> None:
    """Accept a socket only to send why it is refused, then close it with a reason (in the
    socket's language)."""
    lang = scope_language(websocket)
    await websocket.accept()
    with contextlib.suppress(Exception):
        await websocket.send_text(to_json_in(error.message_for_socket(), lang))
        await websocket.close(close_code, close_reason(error.message, lang))


async def serve_socket(
    websocket: WebSocket,
    game_id: str,
    service: GameService,
    limits: Limits,
    sockets: ConnectionCounter,
    chat: Chat,
    rematches: Rematches,
) -> None:
    """Run one client's connection to a game until it leaves."""
    address = websocket.client.host if websocket.client else "unknown"
    if not sockets.open(address):
        error = ApiError(
            429,
            "too-many-connections",
            T(
                "this address holds {limit} open WebSockets already",
                limit=limits.ws_per_address,
            ),
        )
        await refuse_socket(websocket, error, CLOSE_TOO_MANY)
        return
    try:
        try:
            room = await service.room(game_id)
        except ApiError as error:
            await refuse_socket(websocket, error, CLOSE_NOT_FOUND)
            return
        except Exception as error:
            if not outage.unreachable(error):
                raise
            await refuse_socket(websocket, database_down(), CLOSE_TRY_LATER)
            return
        await websocket.accept()
        service.metrics.sockets.inc()
        try:
            await _serve(websocket, room, service, limits, chat, rematches)
        finally:
            service.metrics.sockets.dec()
    finally:
        sockets.close(address)


async def _serve(
    websocket: WebSocket,
    room: Room,
    service: GameService,
    limits: Limits,
    chat: Chat,
    rematches: Rematches,
) -> None:
    connection = Connection(websocket, limits, scope_language(websocket))
    connection.account = await account_of(websocket)
    writer = asyncio.get_running_loop().create_task(connection.writer())
    try:
        while not connection.dropped:
            try:
                frame = await websocket.receive()
            except (WebSocketDisconnect, RuntimeError):
                break
            if frame["type"] == "websocket.disconnect":
                break
            await _handle(frame.get("text"), connection, room, service, limits, chat, rematches)
    finally:
        room.unwatch(connection)
        connection.queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=1.0)
        writer.cancel()


class _Refused(Exception):
    """A message refused before it is read: the error, and the ``ref`` its answer echoes."""

    def __init__(self, error: ApiError, ref: Any = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.ref = ref


def _read(text: str, limits: Limits) -> tuple[Strict, Any]:
    """The checked fields and the ``ref`` of a client message; _Refused if it is not one."""
    try:
        message = parse_json(text, limits.ws_message_bytes, limits.json_depth, "message")
    except ApiError as unreadable:
        raise _Refused(unreadable) from None
    if not isinstance(message, dict):
        raise _Refused(ApiError(400, "bad-request", T("a message is one JSON object")))
    ref = message.pop("ref", None)
    if ref is not None and not valid_ref(ref):
        raise _Refused(
            ApiError(
                400,
                "bad-request",
                T(
                    "ref must be a string or a whole number of at most {limit} characters",
                    limit=MAX_REF_CHARS,
                ),
            )
        )
    kind = message.pop("type", None)
    model = CLIENT_MESSAGES.get(kind) if isinstance(kind, str) else None
    if model is None:
        expected = ", ".join(CLIENT_TYPES)
        unknown = ApiError(
            400,
            "bad-request",
            T("unknown message type: expected one of {types}", types=expected),
        )
        raise _Refused(unknown, ref)
    try:
        return model.model_validate(message), ref
    except ValidationError as invalid:
        raise _Refused(ApiError(400, "bad-request", describe(invalid.errors())), ref) from None


async def _handle(
    text: str | None,
    connection: Connection,
    room: Room,
    service: GameService,
    limits: Limits,
    chat: Chat,
    rematches: Rematches,
) -> None:
    """Answer one frame (``text`` None for a binary frame, which is refused)."""
    if not connection.bucket.take():
        connection.send_json(error_message("rate-limited", T("too many messages: slow down")))
        return
    if text is None:
        connection.send_json(error_message("bad-request", T("messages are JSON in text frames")))
        return
    try:
        fields, ref = _read(text, limits)
    except _Refused as refused:
        connection.send_json(refused.error.message_for_socket(refused.ref))
        return
    try:
        await _dispatch(fields, ref, connection, room, service, chat, rematches)
    except ApiError as error:
        connection.send_json(error.message_for_socket(ref))
    except Exception as error:
        if outage.unreachable(error):  # logged once by the store, not once per message
            connection.send_json(database_down().message_for_socket(ref))
            return
        log.exception("a %s message in game %s failed", type(fields).__name__, room.id)
        connection.send_json(failed().message_for_socket(ref))


async def _dispatch(
    fields: Strict,
    ref: Any,
    connection: Connection,
    room: Room,
    service: GameService,
    chat: Chat,
    rematches: Rematches,
) -> None:
    if isinstance(fields, Hello):
        # The chat's lock is held from reading its last messages to subscribing, and
        # nothing awaits after the rematch is looked up: no message or offer falls between.
        async with chat.hold(room):
            history = await chat.recent(room)
            await rematches.load(room)
            welcome = _hello(fields, connection, room)
            welcome["chat"] = history
            offer = rematches.offer(room)
            if offer is not None:
                welcome["rematch"] = offer
            connection.send_json(welcome)
    elif isinstance(fields, Ping):
        connection.send_json({"type": "pong", "ref": ref})
    elif isinstance(fields, Explain):
        reply = room.explain(fields.move)
        reply["ref"] = ref
        connection.send_json(reply)
    elif connection not in room.subscribers:
        raise ApiError(400, "bad-request", T("send {hello} first", hello="'hello'"))
    elif isinstance(fields, Move):
        reply = await service.submit(room, connection.seats, fields.state, fields.move)
        if ref is not None:
            connection.send_json({"type": "accepted", "ref": ref, "ply": reply["ply"]})
    elif isinstance(fields, ChatSay):
        said = await chat.say(room, connection.seats, fields.text, fields.seat)
        if ref is not None:
            connection.send_json({"type": "accepted", "ref": ref, "chat": said["id"]})
    elif isinstance(fields, Resign):
        out = await service.lifecycle.resign(room, connection.seats, fields.seat)
        if ref is not None:
            connection.send_json({"type": "accepted", "ref": ref, "seat": out["seat"]})
    elif isinstance(fields, Claim):
        out = await service.lifecycle.claim(room, connection.seats, fields.seat)
        if ref is not None:
            connection.send_json({"type": "accepted", "ref": ref, "seat": out["seat"]})
    elif isinstance(fields, Abort):
        await service.lifecycle.abort(room, connection.seats)
        if ref is not None:
            connection.send_json({"type": "accepted", "ref": ref})
    elif isinstance(fields, Cancel):
        await service.lifecycle.cancel(room, fields.host_token, connection.account)
        if ref is not None:
            connection.send_json({"type": "accepted", "ref": ref})
    elif isinstance(fields, Hint):
        work = service.hint(room, connection.seats)
        busy, failed_words = T("a hint is already being computed"), N_("no hint: {error}")
        _answer_later(connection, room, work, ref, "hint", busy, failed_words)
    elif isinstance(fields, Chances):
        work = service.chances.answer(room, fields.state)
        busy = T("win chances are already being computed")
        failed_words = N_("no win chances: {error}")
        _answer_later(connection, room, work, ref, "chances", busy, failed_words)


def _hello(hello: Hello, connection: Connection, room: Room) -> dict[str, Any]:
    """Subscribe the connection with the seats its tokens prove (the others hear if that
    changes who is away); return its welcome."""
    seats, unknown = room.seats_for(hello.tokens)
    seats |= room.seats_of_account(connection.account)
    connection.seats = seats
    room.watch(connection, seats)
    welcome: dict[str, Any] = {
        "type": "welcome",
        "seats": sorted(seats),
        "state": room.state(),
    }
    since = hello.since
    if since is not None and since <= room.game.ply:
        welcome["missed"] = [str(move) for move in room.game.moves[since:]]
    if unknown:
        welcome["unknown_tokens"] = unknown
    return welcome


def _answer_later(
    connection: Connection,
    room: Room,
    work: Coroutine[Any, Any, dict[str, Any]],
    ref: Any,
    kind: str,
    busy: Text,
    failed: str,
) -> None:
    """Compute an AI answer (a hint, win chances) without holding up the connection's other
    messages: one of each kind at a time per connection, the reply or error carrying ``ref``
    when the request had one (``busy``: the refusal of a second one; ``failed``: the template
    of the words of a failure, its ``{error}`` the failure's own words)."""
    if kind in connection.pending:
        work.close()
        raise ApiError(429, "rate-limited", busy)
    connection.pending.add(kind)

    async def answer() -> None:
        try:
            reply = await work
            if ref is not None:
                reply["ref"] = ref
            connection.send_json(reply)
        except ApiError as error:
            connection.send_json(error.message_for_socket(ref))
        except Exception as error:
            log.exception("%s failed in game %s", kind, room.id)
            words = T(failed, error=reason_of(error))
            connection.send_json(error_message("unavailable", words, ref))
        finally:
            connection.pending.discard(kind)

    task = asyncio.get_running_loop().create_task(answer())
    _background.add(task)
    task.add_done_callback(_background.discard)


router = APIRouter()


@router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: str) -> None:
    site: Site = websocket.app.state.site
    if site.stopping:
        error = ApiError(503, "unavailable", T("this server is stopping: reconnect"))
        await refuse_socket(websocket, error, CLOSE_RESTARTING)
        return
    limits = site.settings.limits
    service = site.service
    await serve_socket(websocket, game_id, service, limits, site.sockets, site.chat, site.rematches)


@router.websocket("/{path:path}")
async def no_socket(websocket: WebSocket, path: str) -> None:
    where = "/" + path[:100]
    error = ApiError(404, "not-found", T("there is no WebSocket at {path}", path=where))
    await refuse_socket(websocket, error, CLOSE_NOT_FOUND)
