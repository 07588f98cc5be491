"""The lobby's seeks: post one, take one, follow or cancel yours, list them
(``taluva.server.games.seeks``)."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Path, Request, Response
from pydantic import Field

from taluva.engine.options import PLAYER_COUNTS
from taluva.engine.wording import N_, T
from taluva.server.errors import ApiError
from taluva.server.games.seeks import Seeks
from taluva.server.games.setups import RATING_RANGES
from taluva.server.http.deps import LIMITED, SiteDep
from taluva.server.http.messages import ClockRequest, Option, Strict
from taluva.server.players.accounts import Account, account_of

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


SIGN_IN_TO: Final = {
    what: T(sentence)
    for what, sentence in (
        ("challenge a player", N_("sign in to challenge a player")),
        ("see your challenges", N_("sign in to see your challenges")),
        ("accept a challenge", N_("sign in to accept a challenge")),
        ("decline a challenge", N_("sign in to decline a challenge")),
        ("cancel a challenge", N_("sign in to cancel a challenge")),
        ("seek a game", N_("sign in to seek a game")),
        ("take a seek", N_("sign in to take a seek")),
        ("cancel a seek", N_("sign in to cancel a seek")),
        ("see your inbox", N_("sign in to see your inbox")),
        ("turn notifications on", N_("sign in to turn notifications on")),
        ("see your devices", N_("sign in to see your devices")),
        ("change your notifications", N_("sign in to change your notifications")),
    )
}
"""The whole sentence of each refusal to a signed-out request, by what it asked to do."""


async def signed_in(request: Request, what: str) -> Account:
    """The signed-in account of the request; ApiError 401 ``signed-out`` saying ``what``
    needs one (a sentence of ``SIGN_IN_TO``, else "sign in to" and ``what``)."""
    account = await account_of(request)
    if account is None:
        words = SIGN_IN_TO.get(what) or T("sign in to {what}", what=what)
        raise ApiError(401, "signed-out", words)
    return account


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
    account = await signed_in(request, "seek a game")
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
    account = await signed_in(request, "take a seek")
    return {"seek": await Seeks(site.service).take(account, seek_id)}


@router.delete(
    "/api/seeks/{seek_id}",
    dependencies=LIMITED,
    summary="Cancel your seek, or leave one you took a place in",
)
async def cancel_seek(seek_id: SeekId, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, "cancel a seek")
    await Seeks(site.service).cancel(account, seek_id)
    return {"cancelled": seek_id}
