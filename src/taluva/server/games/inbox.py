"""A signed-in player's inbox, which the header of every page shows: the games where it is
their move, the challenges to them, the rematches other players offer them, the answers to
the challenges they sent and their seeks (``GET /api/my/inbox``).

A rematch is offered to a player when another player of a finished game they held a seat of
(under their account) offered it and their old seat in it is still free (``games.rematch``).
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import Engine, and_, select
from sqlalchemy.orm import aliased

from taluva.server.errors import ApiError
from taluva.server.games.challenges import Challenges
from taluva.server.games.seeks import Seeks
from taluva.server.games.service import GameService
from taluva.server.players.accounts import Account
from taluva.server.storage.models import Base, GameRow, RematchRow, SeatRow
from taluva.server.storage.store import LIVE, OPEN

_GAMES = Base.metadata.tables[GameRow.__tablename__]
_SEATS = Base.metadata.tables[SeatRow.__tablename__]
_REMATCHES = Base.metadata.tables[RematchRow.__tablename__]

INBOX_GAMES: Final = 100
"""The most live games of one player the inbox looks through for their move."""


def live_games_of(engine: Engine, account_id: int) -> list[str]:
    """The live games in which ``account_id`` holds a seat, the most recently active first."""
    with engine.connect() as connection:
        return list(
            connection.scalars(
                select(_GAMES.c.id)
                .where(
                    _GAMES.c.status == LIVE,
                    _GAMES.c.id.in_(
                        select(_SEATS.c.game_id).where(_SEATS.c.account_id == account_id)
                    ),
                )
                .order_by(_GAMES.c.updated_at.desc(), _GAMES.c.id)
                .limit(INBOX_GAMES)
            ).all()
        )


def rematch_offers(engine: Engine, account_id: int) -> list[dict[str, Any]]:
    """The rematches offered to ``account_id`` by another player and not taken yet: each
    ``{"game", "rematch_of", "name", "by": {"id", "name"}}``, the newest first."""
    old = aliased(_SEATS)
    new = aliased(_SEATS)
    offerer = aliased(_SEATS)
    with engine.connect() as connection:
        rows = connection.execute(
            select(
                _REMATCHES.c.game_id,
                _REMATCHES.c.rematch_id,
                _GAMES.c.name,
                offerer.c.name.label("by_name"),
                offerer.c.account_id.label("by_id"),
            )
            .join(old, and_(old.c.game_id == _REMATCHES.c.game_id, old.c.account_id == account_id))
            .join(_GAMES, and_(_GAMES.c.id == _REMATCHES.c.rematch_id, _GAMES.c.status == OPEN))
            .join(
                new,
                and_(
                    new.c.game_id == _REMATCHES.c.rematch_id,
                    new.c.seat == old.c.seat,
                    new.c.kind == "human",
                    new.c.token_hash.is_(None),
                ),
            )
            .join(
                offerer,
                and_(
                    offerer.c.game_id == _REMATCHES.c.game_id,
                    offerer.c.seat == _REMATCHES.c.offered_by,
                ),
            )
            .where(_REMATCHES.c.offered_by != old.c.seat)
            .order_by(_REMATCHES.c.created_at.desc(), _REMATCHES.c.game_id)
        ).all()
    offers: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.by_id == account_id:  # hot-seat: the account offered it from another seat
            continue
        offers.setdefault(
            row.rematch_id,
            {
                "game": row.rematch_id,
                "rematch_of": row.game_id,
                "name": row.name,
                "by": {"id": row.by_id, "name": row.by_name},
            },
        )
    return list(offers.values())


async def your_move(service: GameService, account: Account) -> list[dict[str, Any]]:
    """The lobby entries of the live games where it is ``account``'s move, each with the
    ``seat`` to move."""
    games = []
    for game_id in await service.db(live_games_of, service.store.engine, account.id):
        try:
            room = await service.room(game_id)
        except ApiError:
            continue
        if room.meta.status != LIVE or room.game.is_over:
            continue
        seat = room.game.to_move
        if seat in room.seats_of_account(account):
            games.append((room.meta, seat))
    entries = await service.summaries(meta for meta, _seat in games)
    for entry, (_meta, seat) in zip(entries, games, strict=True):
        entry["seat"] = seat
    return entries


async def inbox(service: GameService, account: Account) -> dict[str, Any]:
    """What ``GET /api/my/inbox`` answers (docs/server-api.md, "Finding a game")."""
    games = await your_move(service, account)
    received, sent = await Challenges(service).mine(account)
    offers = await service.db(rematch_offers, service.store.engine, account.id)
    seeks = await Seeks(service).mine(account)
    return {
        "your_move": {"count": len(games), "games": games},
        "challenges": received,
        "sent": sent,
        "rematches": offers,
        "seeks": seeks,
    }
