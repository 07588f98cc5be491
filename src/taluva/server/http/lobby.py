"""The lobby's routes: what a new game may be, the lists of games, creating and joining one."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request

import taluva
from taluva.ai.levels import LEVELS
from taluva.engine.options import (
    EXPANSIONS,
    HOUSE_RULES,
    PLAYER_COUNTS,
    TILES_PER_PLAYER_CHOICES,
)
from taluva.engine.wording import T, Tn
from taluva.render import style
from taluva.server.games import clocks
from taluva.server.games.lifecycle import ABORT_TURNS
from taluva.server.games.setups import seeks_config
from taluva.server.games.view import summary_view
from taluva.server.http.deps import LIMITED, RoomDep, SiteDep, address_of, take_or_refuse
from taluva.server.http.language import languages_json
from taluva.server.http.messages import CreateGameRequest, JoinRequest
from taluva.server.http.site import Site
from taluva.server.players.accounts import account_of, named_for
from taluva.server.players.ratings import PROVISIONAL_GAMES, RATING_BASE
from taluva.server.storage.store import STATUSES

router = APIRouter()


def drawing_rules() -> dict[str, Any]:
    """The colours and level rule of ``taluva.render`` (the client draws the same way)."""
    result: dict[str, Any] = style.drawing_rules()
    return result


def level_title(number: int) -> str:
    """How the lobby names an AI level: its title, and where it thinks when that is not one
    core."""
    level = LEVELS[number]
    if level.agent == "parallel":
        return T("{title}, on every core", title=level.title)
    return level.title


def lobby_config(site: Site) -> dict[str, Any]:
    """What the lobby can offer (levels, player counts, options, clocks), the limits a client
    must keep to, and the drawing rules."""
    limits = site.settings.limits
    return {
        "version": taluva.__version__,
        "languages": languages_json(),
        "levels": list(LEVELS),
        "level_titles": [level_title(level) for level in LEVELS],
        "player_counts": list(PLAYER_COUNTS),
        "tiles_per_player": list(TILES_PER_PLAYER_CHOICES),
        "expansions": list(EXPANSIONS),
        "house_rules": list(HOUSE_RULES),
        "hint_level": site.settings.hint_level,
        "idle_after": site.settings.idle_after,
        "claim_after": site.settings.claim_after,
        "abort_turns": ABORT_TURNS,
        "rating_base": RATING_BASE,
        "provisional_games": PROVISIONAL_GAMES,
        "mail": site.post.on,
        "limits": {
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
        "style": drawing_rules(),
        "clocks": [dict(preset) for preset in clocks.PRESETS],
        "seeks": seeks_config(),
    }


@router.get("/api/config", summary="What the lobby can offer, and the drawing rules")
async def config(site: SiteDep) -> dict[str, Any]:
    if not site.config:
        site.config.update(lobby_config(site))
    return site.config


@router.get("/api/games", summary="List open, live or finished games")
async def list_games(
    site: SiteDep,
    status: Annotated[Literal["open", "live", "finished"], Query()] = "open",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    assert status in STATUSES
    service = site.service
    games = await service.db(service.store.list_games, status, limit)
    return {"games": await service.summaries(games)}


@router.post(
    "/api/games",
    status_code=201,
    dependencies=LIMITED,
    summary="Create a game; the response holds the tokens of the seats you took",
)
async def create_game(body: CreateGameRequest, request: Request, site: SiteDep) -> dict[str, Any]:
    per_minute = site.settings.limits.games_per_minute
    take_or_refuse(
        site.new_games,
        address_of(request),
        Tn(
            "this address may create {n} game a minute",
            "this address may create {n} games a minute",
            round(per_minute) if per_minute == round(per_minute) else 2,
            n=f"{per_minute:g}",
        ),
    )
    account = await account_of(request)
    room, tokens = await site.service.create_game(
        named_for(body.model_dump(), account),
        account_id=None if account is None else account.id,
    )
    return {"game": summary_view(room.meta), "tokens": tokens, "host_token": room.take_host_token()}


@router.get("/api/games/{game_id}", summary="A game's lobby entry and current state")
async def get_game(room: RoomDep, site: SiteDep) -> dict[str, Any]:
    [summary] = await site.service.summaries([room.meta])
    return {"game": summary, "state": room.state()}


@router.post(
    "/api/games/{game_id}/seats/{seat}",
    dependencies=LIMITED,
    summary="Take a free seat; the response holds its token",
)
async def join(
    game_id: str, seat: int, body: JoinRequest, request: Request, site: SiteDep
) -> dict[str, Any]:
    return await site.service.join(game_id, seat, body.name, await account_of(request))
