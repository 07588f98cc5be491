"""A finished game's rematch: offering it, taking one's old seats in it, and finding it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from taluva.engine.wording import T
from taluva.server.errors import ApiError
from taluva.server.http.deps import LIMITED, Authorization, RoomDep, SiteDep, seats_of
from taluva.server.players.accounts import account_of

router = APIRouter()


@router.post(
    "/api/games/{game_id}/rematch",
    dependencies=LIMITED,
    summary="Offer a finished game's rematch, or take your old seats in it (seat token, "
    "or the signed-in account's seats)",
    responses={201: {"description": "A new rematch was offered"}},
)
async def rematch(
    room: RoomDep,
    request: Request,
    response: Response,
    site: SiteDep,
    authorization: Authorization = None,
) -> dict[str, Any]:
    if authorization is None:
        seats = room.seats_of_account(await account_of(request))
        if not seats:
            raise ApiError(
                401,
                "no-token",
                T(
                    "send the seat token as {header}, or sign in with the account that holds "
                    "a seat of this game",
                    header="'Authorization: Bearer TOKEN'",
                ),
            )
    else:
        seats = seats_of(room, authorization)
    answer, created = await site.rematches.play_again(room, seats)
    if created:
        site.notices.rematch_offered(room, seats)
    response.status_code = 201 if created else 200
    return answer


@router.get("/api/games/{game_id}/rematch", summary="The rematch offered after a finished game")
async def rematch_offer(room: RoomDep, site: SiteDep) -> dict[str, Any]:
    await site.rematches.load(room)
    offer = site.rematches.offer(room)
    if offer is None:
        raise ApiError(404, "not-found", T("no rematch of game {game} was offered", game=room.id))
    return {"game": offer, "rematch_of": room.id}
