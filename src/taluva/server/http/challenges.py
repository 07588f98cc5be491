"""Challenges between players: send one, answer it, cancel it
(``taluva.server.games.challenges``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from pydantic import Field

from taluva.engine.wording import T
from taluva.server.games.challenges import Challenges
from taluva.server.games.setups import Setup
from taluva.server.http.deps import LIMITED, SiteDep, signed_in
from taluva.server.http.messages import ClockRequest, Option, Strict

router = APIRouter(tags=["finding a game"])

ChallengeId = Annotated[int, Path(ge=1, le=2**31 - 1)]


class ChallengeRequest(Strict):
    """A challenge to one player to a two-player game."""

    to: int = Field(description="the account id of the player challenged")
    rated: bool | None = Field(default=None, description="left out: rated when it has a clock")
    clock: ClockRequest | None = Field(
        default=None, description="one of GET /api/config's clocks; none when left out"
    )
    tiles_per_player: int = Field(default=12, description="12, 18 or 24")
    expansions: list[Option] = Field(default_factory=list, max_length=16)
    house_rules: list[Option] = Field(default_factory=list, max_length=16)


@router.post(
    "/api/challenges",
    status_code=201,
    dependencies=LIMITED,
    summary="Challenge a player to a two-player game (signed in)",
)
async def send(body: ChallengeRequest, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to challenge a player"))
    fields = body.model_dump()
    if fields.get("clock") is not None:
        fields["clock"] = {k: v for k, v in fields["clock"].items() if v is not None}
    challenge = await Challenges(site.service).send(account, fields)
    game = Setup.from_json(challenge["setup"]).words()
    site.notices.challenged(challenge["to"]["id"], account.name, game, challenge["id"])
    return {"challenge": challenge}


@router.get("/api/challenges/{challenge_id}", summary="A challenge, to its sender or addressee")
async def show(challenge_id: ChallengeId, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to see your challenges"))
    return {"challenge": await Challenges(site.service).show(account, challenge_id)}


@router.post(
    "/api/challenges/{challenge_id}/accept",
    dependencies=LIMITED,
    summary="Accept a challenge addressed to you: its game starts with both players seated",
)
async def accept(challenge_id: ChallengeId, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to accept a challenge"))
    return {"challenge": await Challenges(site.service).accept(account, challenge_id)}


@router.post(
    "/api/challenges/{challenge_id}/decline",
    dependencies=LIMITED,
    summary="Decline a challenge addressed to you",
)
async def decline(challenge_id: ChallengeId, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to decline a challenge"))
    return {"challenge": await Challenges(site.service).decline(account, challenge_id)}


@router.delete(
    "/api/challenges/{challenge_id}",
    dependencies=LIMITED,
    summary="Cancel a challenge you sent, while it is unanswered",
)
async def cancel(challenge_id: ChallengeId, request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to cancel a challenge"))
    return {"challenge": await Challenges(site.service).cancel(account, challenge_id)}
