"""The lobby's seeks: post one, take one, follow or cancel yours, list them
(``taluva.server.games.seeks``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response
from pydantic import Field

from taluva.engine.options import PLAYER_COUNTS
from taluva.engine.wording import T
from taluva.server.games.seeks import Seeks
from taluva.server.games.setups import RATING_RANGES
from taluva.server.http.deps import LIMITED, SiteDep, signed_in
from taluva.server.http.messages import ClockRequest, Option, Strict
from taluva.server.players.accounts import account_of

router = APIRouter(tags=["finding a game"])

SeekId = Annotated[int, Path(ge=1, le=2**31 - 1)]


class SeekRequest(Strict):
    """A game sought in the lobby (a quick pairing tile sends one of these too)."""

    players: int = Field(description=f"how many players: one of {list(PLAYER_COUNTS)}")
    rated: bool | None = Field(default=None, description="left out: rated when it has a clock")
    clock: ClockRequest | None = Field(
        default=None, description="one of GET /api/config's clocks; none when left out"
    )
    tiles_per_player: int = Field(default=12, description="12, or 18 or 24 with two players")
    expansions: list[Option] = Field(default_factory=list, max_length=16)
    house_rules: list[Option] = Field(default_factory=list, max_length=16)
    rating_range: int | None = Field(
        default=None,
        description=f"takers' ratings within this many points of yours: one of "
        f"{list(RATING_RANGES)}, or none",
    )


def _fields(body: Strict) -> dict[str, Any]:
    fields = body.model_dump()
    if fields.get("clock") is not None:
        fields["clock"] = {k: v for k, v in fields["clock"].items() if v is not None}
    return fields


@router.get("/api/seeks", summary="The open seeks, the oldest first")
async def list_seeks(request: Request, site: SiteDep) -> dict[str, Any]:
    return {"seeks": await Seeks(site.service).listing(await account_of(request))}


@router.post(
    "/api/seeks",
    dependencies=LIMITED,
    summary="Seek a game (signed in): join a seek of the same setup, or post a new one",
    responses={201: {"description": "A new seek was posted"}},
)
async def post_seek(
    body: SeekRequest, request: Request, response: Response, site: SiteDep
) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to seek a game"))
    seek, created = await Seeks(site.service).post(account, _fields(body))
    response.status_code = 201 if created else 200
    return {"seek": seek}


@router.get("/api/seeks/{seek_id}", summary="A seek: its players, and its game once started")
async def show_seek(seek_id: SeekId, request: Request, site: SiteDep) -> dict[str, Any]:
    return {"seek": await Seeks(site.service).show(seek_id, await account_of(request))}


@router.post(
    "/api/seeks/{seek_id}/take",
    dependencies=LIMITED,
    summary="Take a place in a seek (signed in); the game starts when it has its players",
)
async def take_seek(seek_id: SeekId, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to take a seek"))
    return {"seek": await Seeks(site.service).take(account, seek_id)}


@router.delete(
    "/api/seeks/{seek_id}",
    dependencies=LIMITED,
    summary="Cancel your seek, or leave one you took a place in",
)
async def cancel_seek(seek_id: SeekId, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to cancel a seek"))
    await Seeks(site.service).cancel(account, seek_id)
    return {"cancelled": seek_id}
