"""The FastAPI application: the HTTP API, the WebSocket endpoint and the browser client.

Every route goes through ``GameService``; errors leave as ``{"error": {"code", "message"}}``
with a meaningful status. The OpenAPI description is at ``/docs`` and ``/openapi.json``;
``docs/server-api.md`` describes the messages in prose.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

import taluva
from taluva.ai.levels import LEVELS
from taluva.engine.options import EXPANSIONS, HOUSE_RULES, TILES_PER_PLAYER_CHOICES
from taluva.render import style
from taluva.server.config import Settings
from taluva.server.errors import ApiError
from taluva.server.limits import AddressLimiter
from taluva.server.rooms import GameService, Room
from taluva.server.store import STATUSES
from taluva.server.view import summary_view
from taluva.server.ws import serve_socket

log = logging.getLogger("taluva.server")

STATIC = Path(__file__).with_name("static")

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class GuardMiddleware:
    """Refuses HTTP bodies over the size limit (413) and adds the security headers."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await _too_large(send, self.max_body)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise ApiError(413, "too-large", f"request body over {self.max_body} bytes")
            return message

        strict = not scope["path"].startswith(("/docs", "/redoc"))

        async def secured_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                ]
                if strict:
                    extra.append((b"content-security-policy", CONTENT_SECURITY_POLICY.encode()))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, limited_receive, secured_send)


async def _too_large(send: Send, limit: int) -> None:
    body = json.dumps(ApiError(413, "too-large", f"request body over {limit} bytes").body())
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})


# ---------------------------------------------------------------------- request bodies


class SeatRequest(BaseModel):
    """One seat of a new game: a human (``take`` it yourself, or leave it free) or an AI."""

    kind: Literal["human", "ai"]
    name: str | None = Field(default=None, description="a human's name (up to 32 characters)")
    level: int | None = Field(default=None, description="an AI seat's level, 1 to 5")
    take: bool = Field(default=False, description="this client takes the seat (hot-seat: several)")


class CreateGameRequest(BaseModel):
    """A new game from the lobby."""

    name: str | None = Field(default=None, description="shown in the lobby (up to 60 characters)")
    seats: list[SeatRequest] = Field(min_length=2, max_length=5)
    tiles_per_player: int = Field(default=12, description="12, or 18 or 24 with two players")
    expansions: list[str] = Field(default_factory=list, description="see GET /api/config")
    house_rules: list[str] = Field(default_factory=list, description="adjacent_hut, all_tiles")
    hints: bool = Field(default=True, description="whether players may ask the AI for a hint")


class JoinRequest(BaseModel):
    """Taking a free seat."""

    name: str | None = None


class MoveRequest(BaseModel):
    """A move for the current state id (the number of moves played so far)."""

    state: int
    move: str = Field(description="move text, e.g. 'tile 0,0 3' (see docs/notation.md)")


# ---------------------------------------------------------------------- the app


async def room_of(game_id: str, request: Request) -> Room:
    """The game named in the path (404 if there is none)."""
    service: GameService = request.app.state.service
    return await service.room(game_id)


RoomDep = Annotated[Room, Depends(room_of)]


def drawing_rules() -> dict[str, Any]:
    """The colours and level rule of ``taluva.render`` (the client draws the same way)."""
    result: dict[str, Any] = style.drawing_rules()
    return result


def create_app(settings: Settings | None = None, service: GameService | None = None) -> FastAPI:
    """The whole server as an ASGI application (run it with uvicorn, or test it in-process)."""
    settings = settings or Settings()
    service = service or GameService(settings)
    limits = settings.limits
    limiter = AddressLimiter(limits.http_rate, limits.http_burst)
    config_cache: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(
        title="Taluva server",
        version=taluva.__version__,
        description="Lobby, games, moves and replays of Taluva. Real-time play goes through "
        "the WebSocket `/ws/games/{id}`, described in docs/server-api.md.",
        lifespan=lifespan,
    )
    app.state.service = service

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, error: ApiError) -> JSONResponse:
        return JSONResponse(error.body(), status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = []
        for item in error.errors()[:5]:
            where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
            problems.append(f"{where}: {item.get('msg', 'invalid')}" if where else item["msg"])
        message = "; ".join(problems) or "the request is not valid"
        return JSONResponse(ApiError(422, "bad-request", message).body(), status_code=422)

    def rate_limited(request: Request) -> None:
        address = request.client.host if request.client else "unknown"
        if not limiter.take(address):
            raise ApiError(429, "rate-limited", "too many requests: slow down")

    limited = [Depends(rate_limited)]

    def seat_of(room: Room, authorization: str | None) -> set[int]:
        if not authorization or not authorization.startswith("Bearer "):
            raise ApiError(401, "no-token", "send the seat token as 'Authorization: Bearer TOKEN'")
        seats, _unknown = room.seats_for([authorization[7:].strip()])
        if not seats:
            raise ApiError(403, "forbidden", "this token holds no seat of this game")
        return seats

    @app.get("/api/config", summary="What the lobby can offer, and the drawing rules")
    async def config() -> dict[str, Any]:
        if not config_cache:
            config_cache.update(
                version=taluva.__version__,
                levels=list(LEVELS),
                tiles_per_player=list(TILES_PER_PLAYER_CHOICES),
                expansions=list(EXPANSIONS),
                house_rules=list(HOUSE_RULES),
                hint_level=settings.hint_level,
                limits={
                    "ws_message_bytes": limits.ws_message_bytes,
                    "ws_rate": limits.ws_rate,
                    "ws_burst": limits.ws_burst,
                    "name_chars": limits.name_chars,
                    "game_name_chars": limits.game_name_chars,
                },
                style=drawing_rules(),
            )
        return config_cache

    @app.get("/api/games", summary="List open, live or finished games")
    async def list_games(
        status: Annotated[Literal["open", "live", "finished"], Query()] = "open",
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
    ) -> dict[str, Any]:
        assert status in STATUSES
        games = await service.db(service.store.list_games, status, limit)
        return {"games": [summary_view(game) for game in games]}

    @app.post(
        "/api/games",
        status_code=201,
        dependencies=limited,
        summary="Create a game; the response holds the tokens of the seats you took",
    )
    async def create_game(body: CreateGameRequest) -> dict[str, Any]:
        room, tokens = await service.create_game(body.model_dump())
        return {"game": summary_view(room.meta), "tokens": tokens}

    @app.get("/api/games/{game_id}", summary="A game's lobby entry and current state")
    async def get_game(room: RoomDep) -> dict[str, Any]:
        return {"game": summary_view(room.meta), "state": room.state()}

    @app.post(
        "/api/games/{game_id}/seats/{seat}",
        dependencies=limited,
        summary="Take a free seat; the response holds its token",
    )
    async def join(game_id: str, seat: int, body: JoinRequest) -> dict[str, Any]:
        return await service.join(game_id, seat, body.name)

    @app.post(
        "/api/games/{game_id}/moves",
        dependencies=limited,
        summary="Play a move (seat token in the Authorization header)",
    )
    async def play(
        room: RoomDep,
        body: MoveRequest,
        authorization: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        seats = seat_of(room, authorization)
        message = await service.submit(room, seats, body.state, body.move)
        return {"ply": message["ply"], "move": message["move"], "state": message["state"]}

    @app.get("/api/games/{game_id}/state", summary="The state after the first PLY moves")
    async def state_at(room: RoomDep, ply: Annotated[int, Query(ge=0)]) -> dict[str, Any]:
        return service.state_at(room, ply)

    @app.get("/api/games/{game_id}/explain", summary="Is this move legal now, and if not why")
    async def explain(room: RoomDep, move: Annotated[str, Query(max_length=200)]) -> dict[str, Any]:
        return service.explain(room, move)

    @app.post(
        "/api/games/{game_id}/hint",
        dependencies=limited,
        summary="The AI's suggestion for the player to move (seat token required)",
    )
    async def hint(
        room: RoomDep, authorization: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        return await service.hint(room, seat_of(room, authorization))

    @app.get("/api/games/{game_id}/record", summary="Download the game record (JSON)")
    async def record(room: RoomDep) -> Response:
        text = json.dumps(service.public_record(room), indent=1) + "\n"
        return Response(
            text,
            media_type="application/json",
            headers={"content-disposition": f'attachment; filename="taluva-{room.id}.json"'},
        )

    @app.websocket("/ws/games/{game_id}")
    async def game_socket(websocket: WebSocket, game_id: str) -> None:
        await serve_socket(websocket, game_id, service, limits)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(GuardMiddleware, max_body=limits.http_body_bytes)
    return app
