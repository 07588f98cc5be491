"""The signed-in player's inbox: their move, challenges, rematch offers, seeks
(``taluva.server.games.inbox``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from taluva.engine.wording import T
from taluva.server.games.inbox import inbox
from taluva.server.http.deps import SiteDep, signed_in

router = APIRouter(tags=["finding a game"])


@router.get(
    "/api/my/inbox",
    summary="Your move, the challenges and rematches offered to you, your challenges' "
    "answers and your seeks (signed in)",
)
async def my_inbox(request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to see your inbox"))
    return await inbox(site.service, account)
