"""The rooms this process holds: the games someone opened or the server must act on, and who
hears of each change.

A game is read from the database when first asked for (a page, a socket, a move, an AI
answer, a clock or an abandon limit found due by ``Store.due_games``), once however many ask
at the same time, and let go when idle (``unload_idle``): no socket, no AI turn or lock under
way, nothing used for ``unload_after`` seconds. So a process holds the games in play on it,
never every game stored. Every change a room takes is announced through ``changed`` to its
listeners (the clock's timers and the AI seats), which keeps those modules from calling back
up into the service. With several server processes, the registry also follows each held
game's broadcasts (``follow``), and brings a room up to date with what another process stored
(``resync``, ``apply_remote``, ``stale``).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from taluva.engine.errors import IllegalMove
from taluva.server.errors import not_found
from taluva.server.games.room import Relay, Room, rebuild
from taluva.server.storage.database import Database
from taluva.server.storage.store import LIVE, OPEN
from taluva.server.wire import to_json

log = logging.getLogger("taluva.server")

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")
UNLOAD_AFTER = 300.0
"""Seconds a held game goes unused (no request, no change, no socket) before it is let go."""
FOLLOW_WAIT = 2.0
"""Seconds a load waits for the subscription to its game's broadcasts before reading it
anyway (Redis slow or gone: the reconciliation then catches what the room missed)."""

Listener = Callable[[Room], None]
"""Called with a room after it changed (with its lock held, when the change took one)."""
Follow = Callable[[str], Awaitable[None]]
"""Subscribes to a game's broadcasts from the other processes: the subscription is asked for
when called, and the awaitable is done once it holds."""
Unfollow = Callable[[str], None]
"""Ends the subscription to a game's broadcasts."""


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
        self.follow: Follow | None = None
        """Subscribes to a held game's broadcasts from the other processes (None when alone)."""
        self.unfollow: Unfollow | None = None
        self.settle: list[Callable[[Room], Awaitable[None]]] = []
        """Run on each room read from the database before anyone gets it: a clock that ran
        out meanwhile is applied, its timer armed."""
        self.loaded: list[Listener] = []
        """Told of each room read from the database, once settled: its AI's turn."""
        self.unloaded: list[Listener] = []
        """Told of each room let go: its timer is cancelled."""
        self.unload_after = UNLOAD_AFTER
        self.pins: list[Callable[[Room], bool]] = []
        """Each says whether a room must stay held for it (a clock about to run out)."""
        self._loading: dict[str, asyncio.Lock] = {}
        self._used: dict[str, float] = {}
        """When each held room was last used (``time.monotonic``)."""
        self._followed: set[str] = set()
        self._suspects: dict[str, tuple[int, str]] = {}
        """Rooms that were behind the database at the last look, with their ply and status
        then: behind again at the next look without having moved, they missed a change."""

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
            self._used[game_id] = time.monotonic()
            return room
        loading = self._loading.setdefault(game_id, asyncio.Lock())
        try:
            async with loading:
                room = self.get(game_id)
                if room is not None:
                    return room
                await self._follow(game_id)
                try:
                    meta = await self.database.run(self.database.store.load_game, game_id)
                except BaseException:
                    self._unfollow(game_id)
                    raise
                if meta is None:
                    self._unfollow(game_id)
                    raise not_found(game_id)
                moves, meta.moves = meta.moves, []
                room = Room(meta, rebuild(meta, moves))
                self.keep(room)
                for settle in self.settle:
                    await settle(room)
                for listener in self.loaded:
                    listener(room)
                return room
        finally:
            if not loading.locked() and self._loading.get(game_id) is loading:
                del self._loading[game_id]

    def loading(self, game_id: str) -> bool:
        """Whether a game is being read from the database for this process right now."""
        return game_id in self._loading

    async def peek(self, game_id: str) -> Room | None:
        """A game as stored, not held (for a look at whose turn it is); None if none."""
        held = self.get(game_id)
        if held is not None:
            return held
        meta = await self.database.run(self.database.store.load_game, game_id)
        if meta is None:
            return None
        moves, meta.moves = meta.moves, []
        return Room(meta, rebuild(meta, moves))

    def holds(self, room: Room) -> bool:
        """Whether this room is the one held for its game (not one let go since)."""
        return self.get(room.id) is room

    def keep(self, room: Room) -> None:
        """File a room among the running games or, once over, among the finished ones kept in
        memory (the oldest unwatched of those beyond ``finished_cache`` dropped)."""
        room.relay_through(self.relay)
        room.claims_after(self.claim_after)
        self._used[room.id] = time.monotonic()
        if room.id not in self._followed and self.follow is not None:
            self._followed.add(room.id)
            self.follow(room.id)  # a game created here: nobody else changed it yet
        if room.meta.status in (OPEN, LIVE):
            self.live[room.id] = room
            return
        self.live.pop(room.id, None)
        self.finished[room.id] = room
        self.finished.move_to_end(room.id)
        while len(self.finished) > self.finished_cache:
            oldest = self.finished[next(iter(self.finished))]
            if oldest.subscribers:
                self.finished.move_to_end(oldest.id)
                break
            self.drop(oldest)

    def drop(self, room: Room) -> None:
        """Let a room go: it is read from the database again when next asked for."""
        if self.live.get(room.id) is room:
            del self.live[room.id]
        elif self.finished.get(room.id) is room:
            del self.finished[room.id]
        else:
            return
        self._used.pop(room.id, None)
        self._suspects.pop(room.id, None)
        self._unfollow(room.id)
        for listener in self.unloaded:
            listener(room)

    def idle_now(self, room: Room) -> None:
        """Count a room as unused since long ago: the next ``unload_idle`` lets it go unless
        something holds it by then (a game created here whose players nginx sends to
        another process)."""
        self._used[room.id] = time.monotonic() - self.unload_after

    def unload_idle(self) -> int:
        """Let go every room unused for ``unload_after`` seconds with nothing under way in
        memory (no socket, no lock held, no AI turn due or running, no host token still to
        send); return how many. A room with a socket counts as used."""
        at = time.monotonic()
        count = 0
        for room in list(self):
            if _busy(room) or any(pin(room) for pin in self.pins):
                self._used[room.id] = at
            elif at - self._used.get(room.id, at) >= self.unload_after:
                self.drop(room)
                count += 1
        if count:
            log.info("let go %d idle games (%d held)", count, len(self.live) + len(self.finished))
        return count

    async def _follow(self, game_id: str) -> None:
        """Subscribe to a game's broadcasts before reading it, so that none falls between."""
        if self.follow is None or game_id in self._followed:
            return
        self._followed.add(game_id)
        try:
            await asyncio.wait_for(self.follow(game_id), FOLLOW_WAIT)
        except TimeoutError:
            log.warning("game %s read before its broadcasts were followed", game_id)

    def _unfollow(self, game_id: str) -> None:
        if game_id in self._followed:
            self._followed.discard(game_id)
            if self.unfollow is not None:
                self.unfollow(game_id)

    def changed(self, room: Room) -> None:
        """A room took a change: file it by its status and tell every listener."""
        self.keep(room)
        for listener in self.listeners:
            listener(room)

    # ------------------------------------------------------------------ several processes

    async def resync(self, room: Room, *, tell: bool = True) -> None:
        """Read a room's game again after another process changed it (the caller holds the
        room's lock): the moves it lacks are applied, the rest is replaced. If that moved the
        room on, its watchers get the new state (unless ``tell`` is False: the caller passes
        on the other process's own message), or they would wait for a change they missed."""
        before = (room.game.ply, room.meta.status)
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
        if tell and (room.game.ply, room.meta.status) != before:
            text = to_json({"type": "state", "state": room.state()})
            for subscriber in list(room.subscribers):
                subscriber.send(text)

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
        """The rooms in memory that missed a change stored elsewhere: behind the database at
        this look and at the one before, without having moved in between. One look is not
        enough: between another process storing a move and its broadcast arriving here, the
        database is ahead of every room that is not missing anything."""
        rooms = list(self)
        if not rooms:
            self._suspects = {}
            return []
        store = self.database.store
        stored = await self.database.run(store.progress, [room.id for room in rooms])
        suspects: dict[str, tuple[int, str]] = {}
        missed = []
        for room in rooms:
            mine = (room.game.ply, room.meta.status)
            if room.id not in stored or stored[room.id] == mine:
                continue
            if self._suspects.get(room.id) == mine:
                missed.append(room)
            else:
                suspects[room.id] = mine
        self._suspects = suspects
        return missed


def _busy(room: Room) -> bool:
    """Whether a room has something under way that only this process's memory holds."""
    if room.subscribers or room.lock.locked() or room.thinking or room.host_token is not None:
        return True
    game = room.game
    if room.meta.status != LIVE or game.is_over:
        return False
    return room.meta.seats[game.to_move].kind == "ai"
