"""One server process among several (``taluva serve --redis URL``, on one PostgreSQL).

Every process can serve every game. The database stays the authority: of two moves for the
same ply, from any processes, only one is stored. What one process broadcasts, the others
receive through the ``Bus`` and pass on to their own clients, after bringing their copy of
the game up to date (applying the move, or reading the game again). AI turns go to the
Redis job queue (``taluva.server.ai.queue``) that ``taluva ai-worker`` processes serve, and
their answers come back to whichever server process takes them, which plays them like any move.
Each process also tells the others which seats have a client connected to it
(``games.presence``): with every broadcast it relays, and every beat for the games where any
has, so that no process lets the others claim the win against a player connected elsewhere.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from taluva.engine.errors import IllegalMove
from taluva.server.ai.queue import RECLAIM_AFTER, AiJob, AiResult, ServerQueue
from taluva.server.cluster.bus import Bus
from taluva.server.errors import ApiError
from taluva.server.games.ai_seats import AiSeats
from taluva.server.games.presence import BEATS_HEARD, beat_seconds
from taluva.server.games.registry import Rooms
from taluva.server.games.room import Room
from taluva.server.wire import to_json

log = logging.getLogger("taluva.server")

RESULT_WAIT_MS = 1000
HEAL_SECONDS = 1.0
"""How often a process compares its copies of the games with the database: a broadcast
lost with a process that died right after storing a change is made good within this."""
QUIET_TYPES = frozenset({"chat", "rematch", "review"})
"""Broadcasts that change nothing a process keeps about the game: passed on as they are."""
PRESENCE = "presence"
"""A process's report of the seats present on it: each process tells its own clients who is
away as it sees it, rather than passing the other's view on."""
PRESENCE_BEAT = to_json({"type": PRESENCE})


class Cluster:
    """This process's links to the others: the broadcast bus and the AI job queue."""

    def __init__(
        self, rooms: Rooms, ai_seats: AiSeats, url: str, reclaim_after: float = RECLAIM_AFTER
    ) -> None:
        self.rooms = rooms
        self.ai_seats = ai_seats
        self.bus = Bus(url)
        self.queue = ServerQueue(url, reclaim_after)
        self._tasks: list[asyncio.Task[None]] = []
        self._asking: set[asyncio.Task[None]] = set()
        self._inboxes: dict[str, list[tuple[dict[str, Any], str]]] = {}
        """Per game, the other processes' messages not yet handled, in order."""
        self._handling: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Connect to Redis and start taking broadcasts and AI answers."""
        await self.queue.start()
        await self.bus.start(self._deliver, self._resync_all)
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(self._take_results(), name="taluva-ai-results"))
        self._tasks.append(loop.create_task(self._heal(), name="taluva-heal"))
        self._tasks.append(loop.create_task(self._beat(), name="taluva-presence"))

    async def stop(self) -> None:
        """Stop taking, publish what is queued, disconnect."""
        for task in [*self._tasks, *self._asking, *self._handling]:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._asking, *self._handling, return_exceptions=True)
        self._tasks = []
        await self.bus.stop()
        await self.queue.close()

    def relay(self, game_id: str, ply: int, sync: dict[str, Any], text: str) -> None:
        """Pass one of this process's broadcasts on to the other processes."""
        self.bus.publish(game_id, ply, {**sync, "origin": self.bus.origin}, text)

    @property
    def beat(self) -> float:
        """Seconds between two reports of the seats present in this process."""
        return beat_seconds(self.rooms.claim_after)

    async def _beat(self) -> None:
        """Every beat, tell the others which seats have a client connected here, for each
        game where any has (a process that has just loaded the game learns of them), and
        forget what a process that stopped telling (it died) said."""
        while True:
            await asyncio.sleep(self.beat)
            for room in list(self.rooms.live.values()):
                room.expire_presence()
                if room.presence.here:
                    sync = {"here": sorted(room.presence.here), "origin": self.bus.origin}
                    self.bus.publish(room.id, room.game.ply, sync, PRESENCE_BEAT)

    def _hear(self, room: Room, sync: dict[str, Any]) -> None:
        """Take what another process said of the seats present on it, if it said (the room
        tells its watchers if that changes a claim)."""
        here, origin = sync.get("here"), sync.get("origin")
        if isinstance(origin, str) and isinstance(here, list):
            seats = [seat for seat in here if type(seat) is int]
            room.hear(origin, seats, round(self.beat * BEATS_HEARD * 1000))

    def ask_ai(self, room: Any) -> None:
        """Queue the AI turn the room waits for, if any (once per ply, whichever process
        asks)."""
        asked = self.ai_seats.job(room)
        if asked is None:
            return
        job, human = asked
        task = asyncio.get_running_loop().create_task(self._ask(job, human))
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)

    async def _ask(self, job: AiJob, human: bool) -> None:
        try:
            await self.queue.ask(job, human)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("cannot queue the AI turn of game %s ply %d", job.game_id, job.ply)

    async def _deliver(self, game_id: str, ply: int, sync: dict[str, Any], text: str) -> None:
        """Queue another process's message for its game: the games are handled side by
        side, each one's messages in order."""
        if self.rooms.get(game_id) is None:
            return  # nobody here watches it; it is read afresh when someone does
        inbox = self._inboxes.get(game_id)
        if inbox is not None:
            inbox.append((sync, text))
            return
        self._inboxes[game_id] = [(sync, text)]
        task = asyncio.get_running_loop().create_task(self._handle(game_id))
        self._handling.add(task)
        task.add_done_callback(self._handling.discard)

    async def _handle(self, game_id: str) -> None:
        inbox = self._inboxes[game_id]
        try:
            while inbox:
                sync, text = inbox.pop(0)
                await self._handle_one(game_id, sync, text)
        finally:
            del self._inboxes[game_id]

    async def _handle_one(self, game_id: str, sync: dict[str, Any], text: str) -> None:
        room = self.rooms.get(game_id)
        if room is None:
            return
        try:
            message = json.loads(text)
        except ValueError:
            return
        kind = message.get("type")
        if kind == PRESENCE:
            self._hear(room, sync)
            return
        if kind not in QUIET_TYPES:
            async with room.lock:
                # Bringing the room up to date tells its listeners, so this process asks
                # for the AI's turn too, as the one that made the change did; whichever asks
                # first wins, so the turn is asked for even if that process dies meanwhile.
                if kind != "move" or not self.rooms.apply_remote(room, message, sync):
                    await self.rooms.resync(room)
        for subscriber in list(room.subscribers):
            subscriber.send(text)
        self._hear(room, sync)

    async def _resync_all(self) -> None:
        for room in self.rooms:
            async with room.lock:
                await self.rooms.resync(room)

    async def _heal(self) -> None:
        """Now and then, read again every game this process holds that changed elsewhere
        without its broadcast arriving, and show its players where it stands."""
        while True:
            await asyncio.sleep(HEAL_SECONDS)
            try:
                stale = await self.rooms.stale()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.error("cannot compare the games with the database: %s", error)
                continue
            for room in stale:
                async with room.lock:
                    await self.rooms.resync(room)
                text = to_json({"type": "state", "state": room.state()})
                for subscriber in list(room.subscribers):
                    subscriber.send(text)
                log.warning("game %s had missed a change made by another process", room.id)

    async def _take_results(self) -> None:
        while True:
            try:
                taken = await self.queue.take(RESULT_WAIT_MS)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.error("cannot take AI answers from Redis: %s", error)
                await asyncio.sleep(1.0)
                continue
            for entry_id, result in taken:
                if result is not None:
                    await self._play(result)
                try:
                    await self.queue.done(entry_id)
                except Exception as error:
                    log.error("cannot acknowledge AI answer %s: %s", entry_id, error)

    async def _play(self, result: AiResult) -> None:
        try:
            room = await self.rooms.load(result.game_id)
            await self.ai_seats.play_result(room, result)
        except asyncio.CancelledError:
            raise
        except (ApiError, IllegalMove) as error:
            log.error("AI answer for game %s ply %d refused: %s", result.game_id, result.ply, error)
        except Exception:
            log.exception("AI answer for game %s ply %d failed", result.game_id, result.ply)
