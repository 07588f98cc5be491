"""A finished game's review: asking for it (computed in the background) and reading it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from taluva.engine.wording import T
from taluva.server.errors import ApiError
from taluva.server.http.deps import LIMITED, RoomDep, SiteDep
from taluva.server.http.messages import ReviewRequest

router = APIRouter()


@router.post(
    "/api/games/{game_id}/review",
    dependencies=LIMITED,
    summary="Ask for a finished game's review (computed in the background; anyone may)",
    responses={202: {"description": "The review is queued or running"}},
)
async def ask_review(
    room: RoomDep, response: Response, site: SiteDep, body: ReviewRequest | None = None
) -> dict[str, Any]:
    job = await site.reviews.ask(room)
    response.status_code = 200 if job.status == "done" else 202
    return job.view(room.game)


@router.get("/api/games/{game_id}/review", summary="A finished game's review, or its progress")
async def get_review(room: RoomDep, site: SiteDep) -> dict[str, Any]:
    job = await site.reviews.find(room)
    if job is None:
        raise ApiError(
            404,
            "not-found",
            T(
                "nobody has asked for a review of game {game}: {post} to ask for one",
                game=room.id,
                post="POST",
            ),
        )
    return job.view(room.game)
