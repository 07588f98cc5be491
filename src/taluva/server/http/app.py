"""The FastAPI application: the HTTP API, the WebSocket endpoint and the browser client.

Every route goes through ``GameService``; errors leave as ``{"error": {"code", "message"}}``
with a meaningful status. The OpenAPI description is at ``/docs`` and ``/openapi.json``;
``docs/server-api.md`` describes the messages in prose.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

import taluva
from taluva.ai.levels import LEVELS
from taluva.engine.options import EXPANSIONS, HOUSE_RULES, TILES_PER_PLAYER_CHOICES
from taluva.render import style
from taluva.server import web
from taluva.server.config import Settings
from taluva.server.errors import ApiError
from taluva.server.games import clocks
from taluva.server.games.chat import HISTORY, Chat
from taluva.server.games.rematch import Rematches
from taluva.server.games.reviews import Reviews
from taluva.server.games.room import MOVE_TEXT_CHARS, Room
from taluva.server.games.service import GameService
from taluva.server.games.view import summary_view
from taluva.server.http.accounts import install as install_account_routes
from taluva.server.http.guard import GuardMiddleware
from taluva.server.http.messages import (
    CreateGameRequest,
    JoinRequest,
    MoveRequest,
    ResignRequest,
    ReviewRequest,
    describe,
)
from taluva.server.http.ws import CLOSE_NOT_FOUND, refuse_socket, serve_socket
from taluva.server.limits import AddressLimiter, ConnectionCounter, TrustedProxies
from taluva.server.players.accounts import account_of, named_for
from taluva.server.storage.store import STATUSES

log = logging.getLogger("taluva.server")


# The codes of the HTTP errors Starlette raises itself (unknown path, wrong method).
HTTP_CODES = {404: "not-found", 405: "method-not-allowed", 413: "too-large"}


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
    new_games = AddressLimiter(limits.games_per_minute / 60, max(1, int(limits.games_per_minute)))
    sockets = ConnectionCounter(limits.ws_per_address)
    config_cache: dict[str, Any] = {}
    chat = Chat(service, limits)
    rematches = Rematches(service)
    service.seat_guards.append(rematches.keep_seat)
    reviews = Reviews(service)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await reviews.stop()
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
        return JSONResponse(error.body(), status_code=error.status, headers=error.headers())

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        refusal = ApiError(422, "bad-request", describe(error.errors()))
        return JSONResponse(refusal.body(), status_code=refusal.status)

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, error: HTTPException) -> JSONResponse:
        code = HTTP_CODES.get(error.status_code, "bad-request")
        message = {404: "there is nothing at this address", 405: "this method is not allowed"}
        refusal = ApiError(error.status_code, code, message.get(error.status_code, error.detail))
        return JSONResponse(refusal.body(), status_code=refusal.status, headers=error.headers)

    @app.exception_handler(Exception)
    async def internal_error(_request: Request, _error: Exception) -> JSONResponse:
        refusal = ApiError(500, "internal", "the server failed; the error is in its log")
        return JSONResponse(refusal.body(), status_code=refusal.status)

    def address_of(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    def rate_limited(request: Request) -> None:
        address = address_of(request)
        if not limiter.take(address):
            raise ApiError(
                429,
                "rate-limited",
                "too many requests: slow down",
                retry_after=limiter.retry_after(address),
            )

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
                    "json_depth": limits.json_depth,
                    "ws_per_address": limits.ws_per_address,
                    "games_per_minute": limits.games_per_minute,
                    "chat_chars": limits.chat_chars,
                    "chat_rate": limits.chat_rate,
                    "chat_burst": limits.chat_burst,
                },
                style=drawing_rules(),
                clocks=[dict(preset) for preset in clocks.PRESETS],
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
    async def create_game(body: CreateGameRequest, request: Request) -> dict[str, Any]:
        address = address_of(request)
        if not new_games.take(address):
            raise ApiError(
                429,
                "rate-limited",
                f"this address may create {limits.games_per_minute:g} games a minute: "
                "try again later",
                retry_after=new_games.retry_after(address),
            )
        account = await account_of(request)
        room, tokens = await service.create_game(
            named_for(body.model_dump(), account),
            account_id=None if account is None else account.id,
        )
        host_token, room.host_token = room.host_token, None
        return {"game": summary_view(room.meta), "tokens": tokens, "host_token": host_token}

    @app.get("/api/games/{game_id}", summary="A game's lobby entry and current state")
    async def get_game(room: RoomDep) -> dict[str, Any]:
        return {"game": summary_view(room.meta), "state": room.state()}

    @app.post(
        "/api/games/{game_id}/seats/{seat}",
        dependencies=limited,
        summary="Take a free seat; the response holds its token",
    )
    async def join(game_id: str, seat: int, body: JoinRequest, request: Request) -> dict[str, Any]:
        return await service.join(game_id, seat, body.name, await account_of(request))

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

    @app.post(
        "/api/games/{game_id}/resign",
        dependencies=limited,
        summary="Resign (seat token in the Authorization header); the game goes on without you",
    )
    async def resign(
        room: RoomDep,
        body: ResignRequest | None = None,
        authorization: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        seats = seat_of(room, authorization)
        message = await service.lifecycle.resign(room, seats, None if body is None else body.seat)
        return {"seat": message["seat"], "reason": message["reason"], "state": message["state"]}

    @app.post(
        "/api/games/{game_id}/cancel",
        dependencies=limited,
        summary="Cancel a game that has not started (host token in the Authorization header)",
    )
    async def cancel(
        room: RoomDep,
        request: Request,
        authorization: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        token = None
        if authorization and authorization.startswith("Bearer "):
            token = authorization[7:].strip()
        message = await service.lifecycle.cancel(room, token, await account_of(request))
        return {"state": message["state"]}

    @app.get("/api/games/{game_id}/state", summary="The state after the first PLY moves")
    async def state_at(room: RoomDep, ply: Annotated[int, Query(ge=0)]) -> dict[str, Any]:
        return room.state_at(ply)

    @app.get("/api/games/{game_id}/explain", summary="Is this move legal now, and if not why")
    async def explain(
        room: RoomDep, move: Annotated[str, Query(max_length=MOVE_TEXT_CHARS)]
    ) -> dict[str, Any]:
        return room.explain(move)

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
        text = json.dumps(room.public_record(), indent=1) + "\n"
        return Response(
            text,
            media_type="application/json",
            headers={"content-disposition": f'attachment; filename="taluva-{room.id}.json"'},
        )

    @app.get("/api/games/{game_id}/chat", summary="The last messages of a game's chat")
    async def chat_messages(
        room: RoomDep, limit: Annotated[int, Query(ge=1, le=HISTORY)] = HISTORY
    ) -> dict[str, Any]:
        return {"messages": await chat.recent(room, limit)}

    @app.post(
        "/api/games/{game_id}/rematch",
        dependencies=limited,
        summary="Offer a finished game's rematch, or take your old seats in it (seat token, "
        "or the signed-in account's seats)",
        responses={201: {"description": "A new rematch was offered"}},
    )
    async def rematch(
        room: RoomDep,
        request: Request,
        response: Response,
        authorization: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        if authorization is None:
            seats = room.seats_of_account(await account_of(request))
            if not seats:
                raise ApiError(
                    401,
                    "no-token",
                    "send the seat token as 'Authorization: Bearer TOKEN', or sign in with the "
                    "account that holds a seat of this game",
                )
        else:
            seats = seat_of(room, authorization)
        answer, created = await rematches.play_again(room, seats)
        response.status_code = 201 if created else 200
        return answer

    @app.get("/api/games/{game_id}/rematch", summary="The rematch offered after a finished game")
    async def rematch_offer(room: RoomDep) -> dict[str, Any]:
        await rematches.load(room)
        offer = rematches.offer(room)
        if offer is None:
            raise ApiError(404, "not-found", f"no rematch of game {room.id} was offered")
        return {"game": offer, "rematch_of": room.id}

    @app.post(
        "/api/games/{game_id}/review",
        dependencies=limited,
        summary="Ask for a finished game's review (computed in the background; anyone may)",
        responses={202: {"description": "The review is queued or running"}},
    )
    async def ask_review(
        room: RoomDep, response: Response, body: ReviewRequest | None = None
    ) -> dict[str, Any]:
        job = await reviews.ask(room)
        response.status_code = 200 if job.status == "done" else 202
        return job.view()

    @app.get("/api/games/{game_id}/review", summary="A finished game's review, or its progress")
    async def get_review(room: RoomDep) -> dict[str, Any]:
        job = await reviews.find(room)
        if job is None:
            raise ApiError(
                404,
                "not-found",
                f"nobody has asked for a review of game {room.id}: POST to ask for one",
            )
        return job.view()

    install_account_routes(app, service)

    @app.websocket("/ws/games/{game_id}")
    async def game_socket(websocket: WebSocket, game_id: str) -> None:
        await serve_socket(websocket, game_id, service, limits, sockets, chat, rematches)

    @app.websocket("/{path:path}")
    async def no_socket(websocket: WebSocket, path: str) -> None:
        error = ApiError(404, "not-found", f"there is no WebSocket at /{path[:100]}")
        await refuse_socket(websocket, error, CLOSE_NOT_FOUND)

    static = web.STATIC

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(static / "index.html", headers={"cache-control": "no-cache"})

    app.mount("/static", StaticFiles(directory=static), name="static")
    app.add_middleware(
        GuardMiddleware, limits=limits, proxies=TrustedProxies(settings.forwarded_allow_ips)
    )
    return app
