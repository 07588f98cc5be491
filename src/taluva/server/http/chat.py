"""A game's chat over HTTP: its last messages (writing goes through the WebSocket)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from taluva.server.games.chat import HISTORY
from taluva.server.http.deps import RoomDep, SiteDep

router = APIRouter()


@router.get("/api/games/{game_id}/chat", summary="The last messages of a game's chat")
async def chat_messages(
    room: RoomDep, site: SiteDep, limit: Annotated[int, Query(ge=1, le=HISTORY)] = HISTORY
) -> dict[str, Any]:
    return {"messages": await site.chat.recent(room, limit)}
