"""How a game ends other than by its last move, and the timers that enforce its clock.

A player resigns, or their clock runs out (the server's own timer, re-armed from the stored
clock after a restart), or the others claim the win against them when they have been gone on
their turn for ``Settings.claim_after`` (``games.presence``), and is out as the engine rules
(``Game.resign``); the host cancels a game that has not started; a game with no move for
``Settings.abandon_after`` seconds is abandoned. Each change is stored in one transaction
which, when the game ends, also calls the game-end hook ``standings.settle``; only then is it
applied in memory and broadcast.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import math
import secrets
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from sqlalchemy import update

from taluva.engine.errors import IllegalMove
from taluva.engine.outcome import Reason
from taluva.engine.wording import T, Tn
from taluva.server.config import Settings
from taluva.server.errors import ApiError
from taluva.server.games import clocks
from taluva.server.games.registry import Rooms
from taluva.server.games.room import Room
from taluva.server.games.words import reason_of
from taluva.server.players.accounts import Account
from taluva.server.players.standings import settle
from taluva.server.storage.database import Database
from taluva.server.storage.models import Base, GameRow
from taluva.server.storage.outage import unreachable
from taluva.server.storage.store import (
    CANCELLED,
    FINISHED,
    LIVE,
    OPEN,
    Store,
    StoredGame,
    now,
    token_digest,
    utc,
)

log = logging.getLogger("taluva.server")

ABANDONED: Final = "abandoned"
"""The ``reason`` of the result of a game nobody moved in for the abandon limit (unrated)."""
ABORTED: Final = "aborted"
"""The ``reason`` of the result of a game a player called off in its first turns (no result,
no rating change)."""
ABORT_TURNS: Final = 2
"""The turns (a tile and a build each) at the start of a game during which any of its
players may abort it."""
CANCELLED_REASON: Final = "cancelled"
"""The ``reason`` of the result of a game its host cancelled before it started."""
DUE_SECONDS: Final = 1.0
"""How often a process asks the database for the games whose clock is about to run out (the
ones it does not hold), and lets go of its idle games."""
DUE_LEAD_MS: Final = 2000
"""How far ahead of a clock's end its game is loaded, so that its timer rings on time."""
NEVER: Final = datetime(1970, 1, 1, tzinfo=UTC)
"""An ``idle_since`` that no game matches: the deadlines alone are asked for."""
DEADLINE_RETRY: Final = 1.0
"""Seconds before a clock that ran out is applied again when applying it failed (the
database down): the clock keeps running through the outage without a busy retry."""

_GAMES = Base.metadata.tables[GameRow.__tablename__]


def store_change(
    store: Store,
    game_id: str,
    statuses: tuple[str, ...],
    values: dict[str, Any],
    ended: dict[str, Any] | None,
    ply: int | None = None,
) -> bool:
    """Write ``values`` to a game still in one of ``statuses`` (and, if ``ply`` is given,
    still at that ply) and, if it ended with result ``ended``, call ``standings.settle`` in
    the same transaction; False if the game moved on first (nothing written). The ply
    matters with several server processes: a clock read from a copy of the game that has
    not yet heard of a move stored elsewhere must not time that move's player out."""
    if "clock" in values:
        running = values.get("status", LIVE) == LIVE
        values = {**values, "deadline": clocks.deadline(values["clock"]) if running else None}
    where = [_GAMES.c.id == game_id, _GAMES.c.status.in_(statuses)]
    if ply is not None:
        where.append(_GAMES.c.ply == ply)
    with store.engine.begin() as connection:
        changed = connection.execute(update(_GAMES).where(*where).values(**values))
        if changed.rowcount != 1:
            return False
        if ended is not None:
            settle(connection, game_id, ended)
    return True


class Lifecycle:
    """Resign, time out, cancel and abandon the games of one process's ``Rooms``."""

    def __init__(self, settings: Settings, database: Database, rooms: Rooms) -> None:
        self.settings = settings
        self.database = database
        self.rooms = rooms
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing = False
        self.watch_ahead = 0.0
        """Seconds before a clock runs out from which its game is held (loaded, and kept
        while idle): what looks at the held games' clocks ahead of time (the notices'
        warning that a turn-based clock runs out soon) sees it."""
        rooms.pins.append(self._ending_soon)

    # ------------------------------------------------------------------ creation and start

    def prepare(self, meta: StoredGame, clock: Any, account_id: int | None) -> str:
        """Give a new game its host and its clock (``clock``: the lobby's field); return
        the host token, sent once to the creator. ApiError 422 for a bad clock."""
        if clock is not None and not isinstance(clock, dict):
            raise ApiError(
                422,
                "bad-request",
                T("clock must be an object such as {example}", example="{'kind': 'none'}"),
            )
        timed = [seat.kind == "human" for seat in meta.seats]
        if clock is not None:
            clock = {key: value for key, value in clock.items() if value is not None}
        meta.clock = clocks.new_clock(clock, timed)
        if meta.clock is not None and meta.status == LIVE:
            meta.clock = clocks.run(meta.clock, 0, clocks.now_ms())
        token = secrets.token_urlsafe(24)
        meta.host_hash = token_digest(token)
        meta.host_account = account_id
        return token

    async def started(self, room: Room) -> None:
        """The game just went live (its last seat was taken): start the first clock."""
        if room.meta.clock is None or room.meta.clock["running"] is not None:
            return
        clock = clocks.run(room.meta.clock, room.game.to_move, clocks.now_ms())
        await self._store_change(room.id, (LIVE,), {"clock": clock}, None)
        room.set_clock(clock)
        self.rooms.changed(room)

    async def start(self) -> None:
        """End the games whose clock ran out or that were abandoned while the server was
        down (each loaded for it), and from now on load the games whose clock is about to
        run out, check for abandoned games, and let go of idle ones."""
        await self.attend()
        await self.sweep()
        self._spawn(self._attend_forever())
        self._spawn(self._sweep_forever())

    async def resume(self, room: Room) -> None:
        """A room was read from the database: end its turn if its clock ran out, start a
        clock a crash left stopped, and arm its timer (one of ``Rooms.settle``)."""
        if room.meta.status != LIVE or self._closing:
            return
        try:
            async with room.lock:
                if room.meta.status == LIVE and not await self.expire_due(room):
                    await self.started(room)
        except Exception as error:
            log.error(
                "the clock of game %s cannot be resumed (%s)",
                room.id,
                error,
                exc_info=not unreachable(error),
            )
        self.arm(room)

    def disarm(self, room: Room) -> None:
        """A room was let go: its timer goes (the database's deadline query finds it again)."""
        timer = self._timers.pop(room.id, None)
        if timer is not None:
            timer.cancel()

    async def attend(self) -> int:
        """Load the games the database says have a clock running out within
        ``DUE_LEAD_MS`` (or ``watch_ahead``) and that this process does not hold (their
        timers are armed on loading), then let go of the idle ones; return how many were
        loaded."""
        store = self.database.store
        before = clocks.now_ms() + self._ahead_ms()
        loaded = await self._load_all(await self.database.run(store.due_games, before, NEVER))
        self.rooms.unload_idle()
        return loaded

    def _ahead_ms(self) -> int:
        """How long before a clock's end its game is loaded and kept, in milliseconds."""
        return max(DUE_LEAD_MS, round(self.watch_ahead * 1000))

    def _ending_soon(self, room: Room) -> bool:
        """Whether a room's clock runs out within ``watch_ahead`` (it stays held)."""
        end = clocks.deadline(room.meta.clock)
        return end is not None and end - clocks.now_ms() <= self._ahead_ms()

    async def _load_all(self, game_ids: list[str]) -> int:
        """Load each of these games this process does not hold yet; return how many."""
        count = 0
        for game_id in game_ids:
            if self.rooms.get(game_id) is not None:
                continue
            try:
                await self.rooms.load(game_id)
                count += 1
            except ApiError:
                continue  # gone meanwhile, or an id this server cannot load
        return count

    async def _attend_forever(self) -> None:
        while True:
            await asyncio.sleep(DUE_SECONDS)
            try:
                await self.attend()
            except Exception as error:
                log.error(
                    "the check for clocks running out failed (%s)",
                    error,
                    exc_info=not unreachable(error),
                )

    async def stop(self) -> None:
        """Cancel every timer and the periodic check."""
        self._closing = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ------------------------------------------------------------------ clocks

    def clock_after_move(self, room: Room, seat: int, next_to_move: int | None) -> Any:
        """The clock after ``seat``'s move (``next_to_move`` None once the game is over)."""
        if room.meta.clock is None:
            return None
        return clocks.after_move(room.meta.clock, seat, next_to_move, clocks.now_ms())

    def arm(self, room: Room) -> None:
        """(Re)set the timer of a room to its running clock's deadline, if one runs."""
        old = self._timers.pop(room.id, None)
        if old is not None:
            old.cancel()
        end = clocks.deadline(room.meta.clock)
        if end is None or self._closing or room.meta.status != LIVE or not self.rooms.holds(room):
            return
        delay = max(0.0, (end - clocks.now_ms()) / 1000) + 0.005
        self._timers[room.id] = asyncio.get_running_loop().call_later(delay, self._ring, room)

    def _ring(self, room: Room) -> None:
        self._timers.pop(room.id, None)
        self._spawn(self._on_deadline(room))

    async def _on_deadline(self, room: Room) -> None:
        try:
            async with room.lock:
                await self.expire_due(room)
        except Exception as error:
            # The database is down, most likely: ring again in a while, not at once.
            log.error(
                "the clock of game %s failed (%s): trying again",
                room.id,
                error,
                exc_info=not unreachable(error),
            )
            if not self._closing and room.id not in self._timers:
                loop = asyncio.get_running_loop()
                self._timers[room.id] = loop.call_later(DEADLINE_RETRY, self._ring, room)
            return
        self.rooms.changed(room)

    async def expire_due(self, room: Room) -> bool:
        """With the room's lock held: if the running clock has run out, its player is out
        (``timeout``); return whether that happened."""
        end = clocks.deadline(room.meta.clock)
        if end is None or room.meta.status != LIVE or clocks.now_ms() < end:
            return False
        assert room.meta.clock is not None
        await self._leave(room, room.meta.clock["running"], Reason.TIMEOUT)
        return True

    # ------------------------------------------------------------------ resigning

    async def resign(self, room: Room, seats: set[int], seat: int | None) -> dict[str, Any]:
        """A player holding ``seats`` resigns ``seat`` (by default their only seat, or the
        seat to move among theirs); return the ``out`` message broadcast to everyone."""
        if not seats:
            raise ApiError(403, "forbidden", T("resigning needs the token of a seat of this game"))
        if seat is None:
            if len(seats) == 1:
                seat = next(iter(seats))
            elif room.game.to_move in seats:
                seat = room.game.to_move
            else:
                held = ", ".join(map(str, sorted(seats)))
                raise ApiError(
                    422, "bad-request", T("name the seat to resign: you hold {held}", held=held)
                )
        elif seat not in seats:
            raise ApiError(403, "forbidden", T("seat {seat} is not one of yours", seat=seat))
        async with room.lock:
            if room.meta.status == OPEN:
                raise ApiError(
                    409, "waiting", T("the game has not started: its host may cancel it")
                )
            await self.expire_due(room)
            if room.meta.status != LIVE or room.game.is_over:
                raise ApiError(409, "over", T("the game is over"))
            return await self._leave(room, seat, Reason.RESIGNED)

    # ------------------------------------------------------------------ claiming

    async def claim(self, room: Room, seats: set[int], seat: int | None) -> dict[str, Any]:
        """A player holding ``seats`` claims the win against ``seat`` (by default the seat to
        move), gone on their turn for the claim time: that player is out, with the reason
        ``left``, so with two players the claimer wins. Return the ``out`` message broadcast
        to everyone."""
        if not seats:
            raise ApiError(403, "forbidden", T("claiming needs the token of a seat of this game"))
        async with room.lock:
            if room.meta.status == OPEN:
                raise ApiError(
                    409, "waiting", T("the game has not started: its host may cancel it")
                )
            await self.expire_due(room)
            game = room.game
            if room.meta.status != LIVE or game.is_over:
                raise ApiError(409, "over", T("the game is over"))
            count = len(room.meta.seats)
            if seat is not None and not 0 <= seat < count:
                raise ApiError(
                    422,
                    "bad-request",
                    T("seat must be a seat of this game, from 0 to {last}", last=count - 1),
                )
            target = game.to_move if seat is None else seat
            still = seats - set(game.eliminated)
            if not still:
                raise ApiError(409, "out", T("you are out of the game"))
            if not still & room.present():
                raise ApiError(
                    403,
                    "forbidden",
                    T(
                        "a claim comes from a player at the table: connect to the game first "
                        "(its page, or a WebSocket that said hello with your token)"
                    ),
                )
            if target in seats:
                raise ApiError(
                    409,
                    "not-gone",
                    T("seat {seat} is yours: resign it if you mean to leave", seat=target),
                )
            wait = room.claim_wait(target)
            if isinstance(wait, str):
                code = "out" if target in game.eliminated else "not-gone"
                raise ApiError(409, code, wait)
            if wait > 0:
                seconds = math.ceil(wait / 1000)
                name = room.meta.seats[target].name
                raise ApiError(
                    409,
                    "not-gone",
                    Tn(
                        "{name} has not been gone long enough: a claim is allowed in "
                        "{seconds} second",
                        "{name} has not been gone long enough: a claim is allowed in "
                        "{seconds} seconds",
                        seconds,
                        name=name,
                        seconds=seconds,
                    ),
                    retry_after=wait / 1000,
                )
            return await self._leave(room, target, Reason.LEFT, claimed=True)

    async def _leave(
        self, room: Room, seat: int, reason: Reason, *, claimed: bool = False
    ) -> dict[str, Any]:
        """With the lock held: store, apply and broadcast ``seat`` leaving the game (by a
        claim of the others when ``claimed``)."""
        trial = room.game.copy()
        try:
            trial.resign(seat, reason)
        except IllegalMove as error:
            raise ApiError(409, "out", reason_of(error)) from None
        over = trial.is_over
        meta = room.meta
        clock = meta.clock
        if clock is not None:
            clock = clocks.after_leaving(
                clock, seat, None if over else trial.to_move, clocks.now_ms()
            )
        result = None if trial.result is None else trial.result.to_json()
        status = FINISHED if over else LIVE
        resignations = [entry.to_json() for entry in trial.resignations]
        stamp = now()
        values = {
            "status": status,
            "result": result,
            "resignations": resignations,
            "clock": clock,
            "updated_at": stamp,
        }
        if not await self._store_change(room.id, (LIVE,), values, result, room.game.ply):
            raise ApiError(409, "stale", T("the game moved on first: try again"))
        room.commit(trial, status=status, result=result, clock=clock, stamp=stamp)
        message = {"type": "out", "seat": seat, "reason": reason.value, "state": room.state()}
        if claimed:
            message["claimed"] = True
        room.broadcast(message)
        self.rooms.changed(room)
        return message

    # ------------------------------------------------------------------ abort

    async def abort(self, room: Room, seats: set[int]) -> dict[str, Any]:
        """A player holding one of ``seats`` calls the game off in its first ``ABORT_TURNS``
        turns: it ends with no result and changes no rating."""
        if not seats:
            raise ApiError(403, "forbidden", T("aborting needs the token of a seat of this game"))
        async with room.lock:
            await self.expire_due(room)
            if room.meta.status != LIVE or room.game.is_over:
                raise ApiError(409, "over", T("the game is over"))
            if room.game.ply >= 2 * ABORT_TURNS:
                raise ApiError(
                    409,
                    "too-late",
                    Tn(
                        "a game may be aborted in its first {turns} turn only: resign instead",
                        "a game may be aborted in its first {turns} turns only: resign instead",
                        ABORT_TURNS,
                        turns=ABORT_TURNS,
                    ),
                )
            if not await self._end_unranked(room, ABORTED, (LIVE,), room.game.ply):
                raise ApiError(409, "stale", T("the game moved on first: try again"))
        return {"type": "state", "state": room.state()}

    # ------------------------------------------------------------------ cancel and abandon

    async def cancel(
        self, room: Room, token: str | None, account: Account | None
    ) -> dict[str, Any]:
        """The host (the host token, or the account that created the game) calls off a game
        that has not started: it leaves the lobby for good."""
        meta = room.meta
        by_token = (
            token is not None
            and meta.host_hash is not None
            and hmac.compare_digest(token_digest(token), meta.host_hash)
        )
        by_account = account is not None and meta.host_account == account.id
        if not by_token and not by_account:
            if token is None:
                raise ApiError(
                    401,
                    "no-token",
                    T("send the host token as {header}", header="'Authorization: Bearer TOKEN'"),
                )
            raise ApiError(403, "not-host", T("only the host, who created the game, may cancel it"))
        async with room.lock:
            if meta.status == CANCELLED:
                raise ApiError(409, "over", T("the game is cancelled already"))
            if meta.status != OPEN:
                raise ApiError(
                    409, "started", T("the game has started: a player may resign instead")
                )
            result = {"ranking": [], "reason": CANCELLED_REASON}
            stamp = now()
            values = {"status": CANCELLED, "result": result, "updated_at": stamp}
            if not await self._store_change(room.id, (OPEN,), values, None):
                raise ApiError(
                    409, "started", T("the game has started: a player may resign instead")
                )
            self._end_in_memory(room, CANCELLED, result, stamp)
        return {"type": "state", "state": room.state()}

    async def sweep(self) -> int:
        """Abandon every open or live game with no move for the abandon limit (the database
        names those this process does not hold, which are loaded for it); return how many."""
        limit = self.settings.abandon_after
        store = self.database.store
        idle = await self.database.run(store.due_games, -1, now() - timedelta(seconds=limit))
        await self._load_all(idle)
        cutoff = now().timestamp() - limit
        count = 0
        for room in list(self.rooms.live.values()):
            if room.meta.status not in (OPEN, LIVE):
                continue
            if utc(room.meta.updated_at).timestamp() > cutoff:
                continue
            try:
                async with room.lock:
                    if (
                        room.meta.status in (OPEN, LIVE)
                        and utc(room.meta.updated_at).timestamp() <= cutoff
                    ):
                        await self._abandon(room)
                        count += 1
            except Exception:
                log.exception("game %s cannot be abandoned", room.id)
        return count

    async def _abandon(self, room: Room) -> None:
        if await self._end_unranked(room, ABANDONED, (OPEN, LIVE)):
            log.info(
                "game %s abandoned: no move for %g seconds", room.id, self.settings.abandon_after
            )

    async def _end_unranked(
        self, room: Room, reason: str, statuses: tuple[str, ...], ply: int | None = None
    ) -> bool:
        """With the lock held: finish a game in one of ``statuses`` (at ``ply``, if given)
        with no ranking, its clock stopped, for ``reason``; False if it moved on first."""
        result = {"ranking": [], "reason": reason}
        stamp = now()
        clock = room.meta.clock
        if clock is not None:
            clock = clocks.stopped(clock, clocks.now_ms())
        values = {"status": FINISHED, "result": result, "clock": clock, "updated_at": stamp}
        if not await self._store_change(room.id, statuses, values, result, ply):
            return False
        room.set_clock(clock)
        self._end_in_memory(room, FINISHED, result, stamp)
        return True

    def _end_in_memory(
        self, room: Room, status: str, result: dict[str, Any], stamp: datetime
    ) -> None:
        room.end(status, result, stamp)
        room.broadcast({"type": "state", "state": room.state()})
        self.rooms.changed(room)

    async def _sweep_forever(self) -> None:
        limit = self.settings.abandon_after
        every = max(0.05, min(limit / 4, 600.0))
        while True:
            await asyncio.sleep(every)
            try:
                await self.sweep()
            except Exception:
                log.exception("the check for abandoned games failed")

    async def _store_change(
        self,
        game_id: str,
        statuses: tuple[str, ...],
        values: dict[str, Any],
        ended: dict[str, Any] | None,
        ply: int | None = None,
    ) -> bool:
        store = self.database.store
        return await self.database.run(store_change, store, game_id, statuses, values, ended, ply)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
