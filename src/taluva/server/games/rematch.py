"""Rematches: after a game ends, any of its players offers a new game with the same seats.

The rematch has the same seats (the same AI levels in the same seats, every human seat under
its old player's name and, if it was an account's, the same account's), the same options (the
clock's rule included) and a new deck. The player who offers it takes their old seats at
once; each other human seat is kept for the player who held it in the finished game, who
takes it with the same request (one click on the finished game's page), and nobody else may
take it. A finished game has at most one rematch: offering again
answers with it. Everyone watching the finished game is told (``rematch`` messages).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from taluva.engine.wording import T
from taluva.server.errors import ApiError
from taluva.server.games import clocks
from taluva.server.games.room import Room
from taluva.server.games.service import GameService
from taluva.server.games.view import seat_level, summary_view
from taluva.server.players.accounts import Account
from taluva.server.storage.models import Base, RematchRow
from taluva.server.storage.store import FINISHED, StoredGame, now

_REMATCHES = Base.metadata.tables[RematchRow.__tablename__]


def clock_request(clock: dict[str, Any] | None) -> dict[str, Any] | None:
    """The lobby's ``clock`` field that makes a stored clock's rule (``taluva.server.games.clocks``)
    again, with full time for everyone; None for a game without a clock."""
    if clock is None:
        return None
    if clock["kind"] == clocks.TURN:
        return {"kind": clocks.TURN, "per_turn": clock["base_ms"] / 1000}
    return {
        "kind": clock["kind"],
        "base": clock["base_ms"] / 1000,
        "increment": clock["increment_ms"] / 1000,
    }


def rematch_request(meta: StoredGame, seats: set[int]) -> dict[str, Any]:
    """The new-game request of a finished game's rematch, taken by ``seats``."""
    options = meta.options
    request = {
        "name": meta.name,
        "seats": [
            {"kind": "ai", "level": seat_level(seat)}
            if seat.kind == "ai"
            else {"kind": "human", "name": seat.name, "take": seat.seat in seats}
            for seat in meta.seats
        ],
        "tiles_per_player": options.get("tiles_per_player", 12),
        "expansions": list(options.get("expansions") or []),
        "house_rules": list(options.get("house_rules") or []),
        "hints": meta.hints,
        "rated": meta.rated,
    }
    clock = clock_request(meta.clock)
    if clock is not None:
        request["clock"] = clock
    return request


# ---------------------------------------------------------------------- storage


def store_rematch(engine: Engine, game_id: str, rematch_id: str, offered_by: int) -> str:
    """Record ``rematch_id`` as the rematch of ``game_id``; return the rematch the database
    holds (another one, if another server process stored one first)."""
    try:
        with engine.begin() as connection:
            connection.execute(
                insert(_REMATCHES),
                {
                    "game_id": game_id,
                    "rematch_id": rematch_id,
                    "offered_by": offered_by,
                    "created_at": now(),
                },
            )
    except IntegrityError:
        stored = rematch_of(engine, game_id)
        if stored is None:
            raise
        return stored
    return rematch_id


def rematch_of(engine: Engine, game_id: str) -> str | None:
    """The id of the rematch of ``game_id``, if one was offered."""
    with engine.connect() as connection:
        found = connection.execute(
            select(_REMATCHES.c.rematch_id).where(_REMATCHES.c.game_id == game_id)
        ).scalar()
    return None if found is None else str(found)


def origin_of(engine: Engine, rematch_id: str) -> str | None:
    """The id of the game that ``rematch_id`` is the rematch of, if it is one."""
    with engine.connect() as connection:
        found = connection.execute(
            select(_REMATCHES.c.game_id).where(_REMATCHES.c.rematch_id == rematch_id)
        ).scalar()
    return None if found is None else str(found)


# ---------------------------------------------------------------------- the service


class Rematches:
    """Offers and takes the seats of rematches; keeps a rematch's seats for their players."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self._next: weakref.WeakKeyDictionary[Room, str] = weakref.WeakKeyDictionary()
        self._origin: weakref.WeakKeyDictionary[Room, str | None] = weakref.WeakKeyDictionary()
        self._claiming: set[tuple[str, int]] = set()
        self._lock = asyncio.Lock()

    async def load(self, room: Room) -> None:
        """Learn whether a finished game has a rematch, and hold that rematch in memory, so
        that ``offer`` can answer at once."""
        if room.meta.status != FINISHED:
            return
        rematch_id = self._next.get(room)
        if rematch_id is None:
            engine = self.service.store.engine
            rematch_id = await self.service.db(rematch_of, engine, room.id)
            if rematch_id is None:
                return
            self._next[room] = rematch_id
        await self.service.room(rematch_id)

    def offer(self, room: Room) -> dict[str, Any] | None:
        """The lobby summary of a loaded room's rematch, None if it has none."""
        rematch_id = self._next.get(room)
        if rematch_id is None:
            return None
        rematch = self.service.rooms.get(rematch_id) or self.service.finished.get(rematch_id)
        return None if rematch is None else summary_view(rematch.meta)

    async def play_again(self, room: Room, seats: set[int]) -> tuple[dict[str, Any], bool]:
        """Offer the rematch of ``room`` as ``seats``, or take those seats in the one offered;
        return the answer (``game``, ``tokens``, ``rematch_of``) and whether it is new.

        ApiError 409 ``not-finished`` while the game runs. Seats the caller holds already in
        the rematch are left as they are (no token is sent twice).
        """
        if room.meta.status != FINISHED:
            raise ApiError(409, "not-finished", T("a rematch can be offered once the game is over"))
        async with self._lock:
            await self.load(room)
            rematch_id = self._next.get(room)
            created = rematch_id is None
            if rematch_id is None:
                # create_game gives the account to the first seat taken, as when the game was
                # created: the account of the offerer's first old seat, if it had one
                rematch, tokens = await self.service.create_game(
                    rematch_request(room.meta, seats), room.meta.seats[min(seats)].account_id
                )
                engine = self.service.store.engine
                stored = await self.service.db(
                    store_rematch, engine, room.id, rematch.id, min(seats)
                )
                self._next[room] = stored
                self._origin[rematch] = room.id
                if stored != rematch.id:  # another server process offered one first
                    created = False
                    rematch = await self.service.room(stored)
                    tokens = await self._take(room, rematch, seats)
            else:
                rematch = await self.service.room(rematch_id)
                tokens = await self._take(room, rematch, seats)
        summary = summary_view(rematch.meta)
        room.broadcast({"type": "rematch", "game": summary})
        return {"game": summary, "tokens": tokens, "rematch_of": room.id}, created

    async def _take(self, room: Room, rematch: Room, seats: set[int]) -> list[dict[str, Any]]:
        """Give the caller its old seats of the rematch that are still free."""
        tokens = []
        for seat in sorted(seats):
            current = rematch.meta.seats[seat]
            if current.kind != "human" or current.taken:
                continue
            self._claiming.add((rematch.id, seat))
            try:
                old = room.meta.seats[seat]
                account = None if old.account_id is None else Account(old.account_id, old.name)
                tokens.append(await self.service.join(rematch.id, seat, old.name, account))
            finally:
                self._claiming.discard((rematch.id, seat))
        return tokens

    async def keep_seat(self, room: Room, seat: int) -> None:
        """A seat guard of ``GameService.join``: a free seat of a rematch is only for the
        player who held it in the finished game (ApiError 409 ``seat-reserved``)."""
        if (room.id, seat) in self._claiming or room.meta.seats[seat].taken:
            return
        if room not in self._origin:
            engine = self.service.store.engine
            self._origin[room] = await self.service.db(origin_of, engine, room.id)
        origin = self._origin[room]
        if origin is None:
            return
        raise ApiError(
            409,
            "seat-reserved",
            T(
                "seat {seat} of this rematch is kept for {name}, who played it in game "
                "{origin}: they take it from that game's page",
                seat=seat,
                name=room.meta.seats[seat].name,
                origin=origin,
            ),
        )
