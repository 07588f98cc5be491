"""A game's routes: playing a move, resigning, claiming the win, cancelling, the replay,
explanations, hints and the record. Every one names its game in the path; seats are proven by
bearer tokens."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from taluva.server.games.room import MOVE_TEXT_CHARS
from taluva.server.http.deps import LIMITED, Authorization, RoomDep, SiteDep, bearer, seats_of
from taluva.server.http.messages import ClaimRequest, MoveRequest, ResignRequest
from taluva.server.players.accounts import account_of

router = APIRouter()


@router.post(
    "/api/games/{game_id}/moves",
    dependencies=LIMITED,
    summary="Play a move (seat token in the Authorization header)",
)
async def play(
    room: RoomDep, body: MoveRequest, site: SiteDep, authorization: Authorization = None
) -> dict[str, Any]:
    seats = seats_of(room, authorization)
    message = await site.service.submit(room, seats, body.state, body.move)
    return {"ply": message["ply"], "move": message["move"], "state": message["state"]}


@router.post(
    "/api/games/{game_id}/resign",
    dependencies=LIMITED,
    summary="Resign (seat token in the Authorization header); the game goes on without you",
)
async def resign(
    room: RoomDep,
    site: SiteDep,
    body: ResignRequest | None = None,
    authorization: Authorization = None,
) -> dict[str, Any]:
    seats = seats_of(room, authorization)
    seat = None if body is None else body.seat
    return _left(await site.service.lifecycle.resign(room, seats, seat))


@router.post(
    "/api/games/{game_id}/claim",
    dependencies=LIMITED,
    summary="Claim the win against a player gone on their turn (seat token): they are out",
)
async def claim(
    room: RoomDep,
    site: SiteDep,
    body: ClaimRequest | None = None,
    authorization: Authorization = None,
) -> dict[str, Any]:
    seats = seats_of(room, authorization)
    seat = None if body is None else body.seat
    return _left(await site.service.lifecycle.claim(room, seats, seat))


def _left(message: dict[str, Any]) -> dict[str, Any]:
    """The answer to a resignation or a claim: the ``out`` message, less its type."""
    return {"seat": message["seat"], "reason": message["reason"], "state": message["state"]}


@router.post(
    "/api/games/{game_id}/abort",
    dependencies=LIMITED,
    summary="Abort a game in its first turns: no result, no rating change (seat token)",
)
async def abort(
    room: RoomDep, site: SiteDep, authorization: Authorization = None
) -> dict[str, Any]:
    message = await site.service.lifecycle.abort(room, seats_of(room, authorization))
    return {"state": message["state"]}


@router.post(
    "/api/games/{game_id}/cancel",
    dependencies=LIMITED,
    summary="Cancel a game that has not started (host token in the Authorization header)",
)
async def cancel(
    room: RoomDep, request: Request, site: SiteDep, authorization: Authorization = None
) -> dict[str, Any]:
    account = await account_of(request)
    message = await site.service.lifecycle.cancel(room, bearer(authorization), account)
    return {"state": message["state"]}


@router.get("/api/games/{game_id}/state", summary="The state after the first PLY moves")
async def state_at(room: RoomDep, ply: Annotated[int, Query(ge=0)]) -> dict[str, Any]:
    return room.state_at(ply)


@router.get("/api/games/{game_id}/explain", summary="Is this move legal now, and if not why")
async def explain(
    room: RoomDep, move: Annotated[str, Query(max_length=MOVE_TEXT_CHARS)]
) -> dict[str, Any]:
    return room.explain(move)


@router.post(
    "/api/games/{game_id}/hint",
    dependencies=LIMITED,
    summary="The AI's suggestion for the player to move (seat token required)",
)
async def hint(room: RoomDep, site: SiteDep, authorization: Authorization = None) -> dict[str, Any]:
    return await site.service.hint(room, seats_of(room, authorization))


@router.get("/api/games/{game_id}/record", summary="Download the game record (JSON)")
async def record(room: RoomDep) -> Response:
    text = json.dumps(room.public_record(), indent=1) + "\n"
    return Response(
        text,
        media_type="application/json",
        headers={"content-disposition": f'attachment; filename="taluva-{room.id}.json"'},
    )
