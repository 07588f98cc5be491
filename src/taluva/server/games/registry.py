"""The rooms this process holds: the running games, the finished ones still kept, and who
hears of each change.

Loading a room reads its game from the database once, however many ask at the same time.
Every change a room takes is announced through ``changed`` to its listeners (the clock's
timers and the AI seats), which keeps those modules from calling back up into the service.
With several server processes, the registry also brings a room up to date with what another
process stored (``resync``, ``apply_remote``).
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from taluva.engine.errors import IllegalMove
from taluva.server.errors import not_found
from taluva.server.games.room import Relay, Room, rebuild
from taluva.server.storage.database import Database
from taluva.server.storage.store import LIVE, OPEN

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")

Listener = Callable[[Room], None]
"""Called with a room after it changed (with its lock held, when the change took one)."""


class Rooms:
    """The rooms of one server process, by game id."""

    def __init__(self, database: Database, finished_cache: int, claim_after: float) -> None:
        self.database = database
        self.finished_cache = finished_cache
        self.claim_after = claim_after
        """Seconds a person may be gone on their turn before the others may claim the win."""
        self.live: dict[str, Room] = {}
        """The open and live games."""
        self.finished: OrderedDict[str, Room] = OrderedDict()
        """Finished games kept in memory, the most recently used last."""
        self.listeners: list[Listener] = []
        self.relay: Relay | None = None
        """Passes each room's broadcasts on to the other processes (None when alone)."""
        self._loading: dict[str, asyncio.Lock] = {}

    def get(self, game_id: str) -> Room | None:
        """The room of a game if it is in memory."""
        return self.live.get(game_id) or self.finished.get(game_id)

    def __iter__(self) -> Iterator[Room]:
        return iter([*self.live.values(), *self.finished.values()])

    async def load(self, game_id: str) -> Room:
        """The room of a game, read from the database on first use; ApiError 404 if none."""
        if not GAME_ID.match(game_id):
            raise not_found(game_id)
        room = self.get(game_id)
        if room is not None:
            return room
        loading = self._loading.setdefault(game_id, asyncio.Lock())
        try:
            async with loading:
                room = self.get(game_id)
                if room is not None:
                    return room
                meta = await self.database.run(self.database.store.load_game, game_id)
                if meta is None:
                    raise not_found(game_id)
                moves, meta.moves = meta.moves, []
                room = Room(meta, rebuild(meta, moves))
                self.keep(room)
                return room
        finally:
            if not loading.locked() and self._loading.get(game_id) is loading:
                del self._loading[game_id]

    def keep(self, room: Room) -> None:
        """File a room among the running games or, once over, among the finished ones kept in
        memory (the oldest unwatched of those beyond ``finished_cache`` dropped)."""
        room.relay_through(self.relay)
        room.claims_after(self.claim_after)
        if room.meta.status in (OPEN, LIVE):
            self.live[room.id] = room
            return
        self.live.pop(room.id, None)
        self.finished[room.id] = room
        self.finished.move_to_end(room.id)
        while len(self.finished) > self.finished_cache:
            oldest = next(iter(self.finished))
            if self.finished[oldest].subscribers:
                self.finished.move_to_end(oldest)
                break
            del self.finished[oldest]

    def changed(self, room: Room) -> None:
        """A room took a change: file it by its status and tell every listener."""
        self.keep(room)
        for listener in self.listeners:
            listener(room)

    # ------------------------------------------------------------------ several processes

    async def resync(self, room: Room) -> None:
        """Read a room's game again after another process changed it (the caller holds the
        room's lock): the moves it lacks are applied, the rest is replaced."""
        meta = await self.database.run(self.database.store.load_game, room.id)
        if meta is None:
            return
        moves, meta.moves = meta.moves, []
        game = room.game
        same_players = [s.name for s in meta.seats] == [s.name for s in room.meta.seats]
        if same_players and len(moves) >= game.ply:
            if len(moves) > game.ply:
                game = game.copy()
                for text in moves[game.ply :]:
                    game.play(text)
        else:
            game = rebuild(meta, moves)
        room.reload(meta, game)
        self.changed(room)

    def apply_remote(self, room: Room, message: dict[str, Any], sync: dict[str, Any]) -> bool:
        """Apply a move another process stored, for this room's next ply, with the game's
        status and clock as that process keeps them (the caller holds the room's lock);
        False if it does not follow from this room's position (then ``resync``)."""
        game = room.game
        if message.get("ply") != game.ply or message.get("seat") != game.to_move:
            return False
        try:
            trial = room.trial(message["move"])
        except (IllegalMove, KeyError, TypeError):
            return False
        room.commit(
            trial,
            status=sync.get("status", room.meta.status),
            result=sync.get("result"),
            clock=sync.get("clock"),
            mover=game.to_move,
        )
        self.changed(room)
        return True

    async def stale(self) -> list[Room]:
        """The rooms in memory whose stored ply or status differs from their own."""
        rooms = list(self)
        store = self.database.store
        stored = await self.database.run(store.progress, [room.id for room in rooms])
        return [
            room
            for room in rooms
            if room.id in stored and stored[room.id] != (room.game.ply, room.meta.status)
        ]
