"""One server process among several (``taluva serve --redis URL``, on one PostgreSQL).

Every process can serve every game, and holds those opened on it (``games.registry``); nginx
sends each game's requests to one process (``deploy/nginx``), so in the normal case one
process holds a game. The database stays the authority: of two moves for the same ply, from
any processes, only one is stored. What one process broadcasts goes on its game's channel
(``cluster.bus``): the other processes holding that game receive it and pass it on to their
own clients, after bringing their copy of the game up to date (applying the move, or reading
the game again); the others receive nothing. AI turns go to the
Redis job queue (``taluva.server.ai.queue``) that ``taluva ai-worker`` processes serve, and
their answers come back to whichever server process takes them, which plays them like any move.
Each process also tells the others which seats have a client connected to it
(``games.presence``): with every broadcast it relays, and every beat for the games where any
has, so that no process lets the others claim the win against a player connected elsewhere.

Nothing a game needs to go on lives only in Redis. Every second (and at once when Redis comes
back) each process reconciles the games it holds with the database (``_reconcile``): it reads
again a game that missed a change made elsewhere (behind the database at two looks in a row:
at one look, a broadcast may simply be on its way), asks again for every AI turn due (a live
game whose seat to move is an AI, as its stored moves say) that has no live job, among the
games it does not hold too every ``AI_RESCAN_SECONDS``, and ends the games whose clock ran out
while the database or Redis was down. An AI answer it cannot store is left unacknowledged,
and taken again once the database is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from taluva.engine.errors import IllegalMove
from taluva.server.ai.queue import RECLAIM_AFTER, AiJob, AiResult, ServerQueue
from taluva.server.cluster.bus import Bus
from taluva.server.errors import ApiError
from taluva.server.games import clocks
from taluva.server.games.ai_seats import AiSeats
from taluva.server.games.lifecycle import Lifecycle
from taluva.server.games.presence import BEATS_HEARD, beat_seconds
from taluva.server.games.registry import Rooms
from taluva.server.games.room import Room
from taluva.server.wire import relayed, to_json, with_meaning

log = logging.getLogger("taluva.server")

RESULT_WAIT_MS = 1000
HEAL_SECONDS = 1.0
"""How often a process reconciles its games with the database: a broadcast lost with a
process that died right after storing a change is made good within two of these, and an AI
turn due with no live job (lost with Redis's data, or never asked while Redis was down) in a
game this process holds is asked for."""
AI_RESCAN_SECONDS = 30.0
"""How often the reconciliation also looks at the live games with an AI seat that this
process does not hold (read without being kept), for an AI turn due with no live job: the
process that held the game may have stopped."""
QUIET_TYPES = frozenset({"chat", "rematch", "review"})
"""Broadcasts that change nothing a process keeps about the game: passed on as they are."""
PRESENCE = "presence"
"""A process's report of the seats present on it: each process tells its own clients who is
away as it sees it, rather than passing the other's view on."""
PRESENCE_BEAT = to_json({"type": PRESENCE})


class Cluster:
    """This process's links to the others: the broadcast bus and the AI job queue."""

    def __init__(
        self,
        rooms: Rooms,
        ai_seats: AiSeats,
        url: str,
        reclaim_after: float = RECLAIM_AFTER,
        lifecycle: Lifecycle | None = None,
    ) -> None:
        self.rooms = rooms
        self.ai_seats = ai_seats
        self.lifecycle = lifecycle
        """Ends the games whose clock ran out (None: the clocks' own timers alone)."""
        self.bus = Bus(url)
        self.queue = ServerQueue(url, reclaim_after)
        self._tasks: list[asyncio.Task[None]] = []
        self._asking: set[asyncio.Task[None]] = set()
        self._inboxes: dict[str, list[tuple[dict[str, Any], str]]] = {}
        """Per game, the other processes' messages not yet handled, in order."""
        self._handling: set[asyncio.Task[None]] = set()
        self._kept: dict[str, AiResult] = {}
        """AI answers (by their entry in Redis) this process took but could not store."""
        self._wake = asyncio.Event()
        """Set to reconcile at once rather than at the next second (Redis is back)."""
        self._failing: set[str] = set()
        """What the last reconciliation could not reach ("database", "redis"): each outage
        is logged once, and its end starts the checks that may have been missed."""
        self._rescanned: float | None = None
        """When the AI turns of the games not held here were last looked at (monotonic)."""

    async def start(self) -> None:
        """Connect to Redis and start taking broadcasts and AI answers."""
        await self.queue.start()
        await self.bus.start(self._deliver, self._resync_all)
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(self._take_results(), name="taluva-ai-results"))
        self._tasks.append(loop.create_task(self._reconcile_forever(), name="taluva-heal"))
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
        sync = with_meaning({**sync, "origin": self.bus.origin}, text)  # its Texts' meaning
        self.bus.publish(game_id, ply, sync, text)

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
        except Exception as error:
            # asked again by the reconciler once Redis answers
            log.error("cannot queue the AI turn of game %s ply %d: %s", job.game_id, job.ply, error)

    async def _deliver(self, game_id: str, ply: int, sync: dict[str, Any], text: str) -> None:
        """Queue another process's message for its game: the games are handled side by
        side, each one's messages in order."""
        if self.rooms.get(game_id) is None and not self.rooms.loading(game_id):
            return  # let go meanwhile; it is read afresh when someone opens it again
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
        if room is None and self.rooms.loading(game_id):
            # heard while the game was being read: the read may or may not hold the change
            with contextlib.suppress(ApiError):
                room = await self.rooms.load(game_id)
        if room is None:
            return
        text = relayed(text, sync)  # said in each socket's language, as here
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
                if kind == "move" and not self.rooms.apply_remote(room, message, sync):
                    # not this room's next move: one it has already (another process's
                    # broadcasts held through a Redis outage arrive late) or one after a move
                    # it missed. Its players get where the game stands (if that moved), never
                    # an older move than they have seen.
                    await self.rooms.resync(room)
                    self._hear(room, sync)
                    return
                if kind != "move":
                    await self.rooms.resync(room, tell=False)  # the message goes on below
        for subscriber in list(room.subscribers):
            subscriber.send(text)
        self._hear(room, sync)

    async def _resync_all(self) -> None:
        """Redis is back: messages and AI jobs may have been lost with it."""
        self._wake.set()
        for room in self.rooms:
            async with room.lock:
                await self.rooms.resync(room)

    async def _reconcile_forever(self) -> None:
        """Reconcile every second, and at once when woken."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), HEAL_SECONDS)
            self._wake.clear()
            await self.reconcile()

    async def reconcile(self) -> None:
        """Bring this process's games in line with the database: read again the games that
        changed elsewhere without their broadcast arriving, end those whose clock ran out,
        and ask for every AI turn due that has no live job. An outage (of the database or
        of Redis) is logged when it starts and when it ends; at its end the abandon check
        runs too, in case its turn fell in the outage."""
        failed: set[str] = set()
        for step in (self._heal, self._play_kept, self._expire_overdue, self._ask_due):
            if "database" in failed:
                break  # every step needs it: tried again at the next pass
            try:
                await step()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                kind = _outage(error)
                if kind not in self._failing | failed:
                    log.error("cannot reconcile the games: the %s failed (%s)", kind, error)
                failed.add(kind)
        back, self._failing = self._failing - failed, failed
        for kind in sorted(back):
            log.warning("reconciling the games again: the %s is back", kind)
        if "database" in back and self.lifecycle is not None:
            try:
                await self.lifecycle.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the check for abandoned games failed")

    async def _heal(self) -> None:
        """Read again every game this process holds that changed elsewhere without its
        broadcast arriving, and show its players where it stands."""
        for room in await self.rooms.stale():
            async with room.lock:
                await self.rooms.resync(room)  # which shows its players where it stands
            log.warning("game %s had missed a change made by another process", room.id)

    async def _play_kept(self) -> None:
        """Play the AI answers that could not be stored (the database was down) now that it
        answers again, rather than wait for them to be taken again from Redis."""
        for entry_id, result in list(self._kept.items()):
            if not await self._play(result):
                return
            self._kept.pop(entry_id, None)
            await self.queue.done(entry_id)

    async def _expire_overdue(self) -> None:
        """End the turn of every player whose clock ran out (its timer may have rung while
        the database was down)."""
        if self.lifecycle is None:
            return
        at = clocks.now_ms()
        for room in list(self.rooms.live.values()):
            end = clocks.deadline(room.meta.clock)
            if end is None or end > at:
                continue
            async with room.lock:
                await self.lifecycle.expire_due(room)

    async def _ask_due(self) -> None:
        """Ask for every AI turn the database says is due and no live job or answer holds
        (the script asks once, whichever processes ask): in the games this process holds,
        and every ``AI_RESCAN_SECONDS`` in the others too (each read, not kept)."""
        if self.ai_seats.closing:
            return
        store = self.rooms.database.store
        due = await self.rooms.database.run(store.live_ai_games)
        at = time.monotonic()
        rescan = self._rescanned is None or at - self._rescanned >= AI_RESCAN_SECONDS
        if rescan:
            self._rescanned = at
        for game_id, ply in due.items():
            room = self.rooms.get(game_id)
            if room is None:
                if not rescan:
                    continue
                try:
                    room = await self.rooms.peek(game_id)
                except ApiError:
                    continue
                if room is None or room.game.ply != ply:
                    continue  # gone, or moved on meanwhile: looked at again next time
            elif room.game.ply != ply:
                async with room.lock:
                    await self.rooms.resync(room)
            asked = self.ai_seats.job(room)
            if asked is None or asked[0].ply != ply:
                continue
            job, human = asked
            if await self.queue.ask(job, human):
                log.warning(
                    "game %s: the AI turn of ply %d had no live job: asked again", game_id, ply
                )

    async def _take_results(self) -> None:
        failing = False
        while True:
            try:
                taken = await self.queue.take(RESULT_WAIT_MS)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if not failing:
                    log.error("cannot take AI answers from Redis: %s", error)
                failing = True
                await asyncio.sleep(1.0)
                continue
            if failing:
                failing = False
                self._wake.set()
            for entry_id, result in taken:
                if result is not None and not await self._play(result):
                    # left pending in Redis (taken again after reclaim_after, by any
                    # process) and tried again here at each reconciliation
                    self._kept[entry_id] = result
                    continue
                self._kept.pop(entry_id, None)
                try:
                    await self.queue.done(entry_id)
                except Exception as error:
                    log.error("cannot acknowledge AI answer %s: %s", entry_id, error)

    async def _play(self, result: AiResult) -> bool:
        """Play an AI answer; False if it could not be stored (the database is down), to be
        tried again, True once it is played, stale or refused."""
        try:
            held = self.rooms.get(result.game_id) is not None
            room = await self.rooms.load(result.game_id)
            await self.ai_seats.play_result(room, result)
            if not held:
                self.rooms.idle_now(room)  # its players are on the process nginx picks
        except asyncio.CancelledError:
            raise
        except (ApiError, IllegalMove) as error:
            log.error("AI answer for game %s ply %d refused: %s", result.game_id, result.ply, error)
        except Exception as error:
            if _stored(error):
                log.error(
                    "AI answer for game %s ply %d kept for later: cannot store it now (%s)",
                    result.game_id,
                    result.ply,
                    str(error).strip().splitlines()[0] if str(error).strip() else error,
                )
                return False
            log.exception("AI answer for game %s ply %d failed", result.game_id, result.ply)
        return True


def _outage(error: BaseException) -> str:
    """What failed, for the log: Redis, the database, or (a fault of the code) the server."""
    from redis.exceptions import RedisError

    if isinstance(error, RedisError):
        return "redis"
    return "database" if _stored(error) else "server"


def _stored(error: BaseException) -> bool:
    """Whether ``error`` came from the database (down, or failing for now): what is worth
    trying again later."""
    return isinstance(error, (SQLAlchemyError, OSError))
