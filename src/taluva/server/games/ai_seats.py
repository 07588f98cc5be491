"""The AI seats' turns: asked of this process's workers, or of the whole server's through Redis.

A room whose player to move is an AI seat gets one task at a time that asks for the move and
submits it like a person's; a move the engine refuses, or a worker that fails, is replaced by
a random legal move so a game never hangs on its AI. Games with only AI seats are admitted
against their creator's quota (``scheduling.check_ai_only_game``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from taluva.server.ai.queue import AiJob, AiResult
from taluva.server.ai.scheduling import Audience, SchedulerClosed, check_ai_only_game
from taluva.server.ai.workers import AiRunner, fallback_move, move_seed
from taluva.server.config import Settings
from taluva.server.errors import ApiError
from taluva.server.games.play import Moves
from taluva.server.games.registry import Rooms
from taluva.server.games.room import Room
from taluva.server.storage.database import Database
from taluva.server.storage.store import LIVE, StoredGame, StoredSeat

log = logging.getLogger("taluva.server")


class AiSeats:
    """Plays the turns of a service's AI seats, one task per room at a time."""

    def __init__(
        self,
        settings: Settings,
        database: Database,
        runner: AiRunner,
        rooms: Rooms,
        moves: Moves,
    ) -> None:
        self.settings = settings
        self.database = database
        self.runner = runner
        self.rooms = rooms
        self.moves = moves
        self.remote: Callable[[Room], None] | None = None
        """Queues a room's AI turn for the AI workers of the whole server, when several
        processes share them (``taluva.server.games.cluster.Cluster.ask_ai``)."""
        self.closing = False
        """Set when the server stops: no AI turn starts any more."""

    def to_move(self, room: Room) -> StoredSeat | None:
        """The AI seat to move in a live game, or None (a person's turn, or over)."""
        if room.meta.status != LIVE or room.game.is_over:
            return None
        seat = room.meta.seats[room.game.to_move]
        return seat if seat.kind == "ai" else None

    @staticmethod
    def audience(room: Room) -> Audience:
        """Who waits for this game's AI work: people, unless every seat is an AI."""
        if all(seat.kind == "ai" for seat in room.meta.seats):
            return Audience.AI_ONLY
        return Audience.PEOPLE

    async def admit_ai_only(self, meta: StoredGame, account_id: int | None) -> None:
        """Refuse a game with only AI seats that its creator may not have (see
        ``check_ai_only_game``): the account's unfinished ones are counted in the database."""
        settings = self.settings
        live = 0
        if account_id is not None and settings.ai_only_quota > 0:
            store = self.database.store
            live = await self.database.run(store.unfinished_ai_only_games, account_id)
        check_ai_only_game(
            [seat.kind for seat in meta.seats],
            account_id is not None,
            settings.ai_only_games,
            settings.ai_only_quota,
            live,
        )

    def schedule(self, room: Room) -> None:
        """Start the AI turns of a room if an AI seat is to move (once at a time)."""
        if self.closing or self.to_move(room) is None:
            return
        if self.remote is not None:  # the AI workers of the whole server play it
            self.remote(room)
            return
        if not room.thinking:
            room.think(self._play(room))

    async def stop(self) -> None:
        """Start no more AI turns and cancel those under way (played again after a restart)."""
        self.closing = True
        rooms = self.rooms.live.values()
        tasks = [room.ai_task for room in rooms if room.ai_task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _play(self, room: Room) -> None:
        while (seat := self.to_move(room)) is not None:
            ply = room.game.ply
            seed = move_seed(room.id, ply)
            try:
                text = await self.runner.choose(
                    room.record(),
                    seat.ai or "level:1",
                    seed,
                    game=room.id,
                    audience=self.audience(room),
                )
            except asyncio.CancelledError:
                raise
            except SchedulerClosed:
                return  # the server is stopping; the turn is played after a restart
            except Exception:
                log.exception(
                    "AI seat %d of game %s failed: a random move instead", seat.seat, room.id
                )
                text = fallback_move(room.game, seed)
            try:
                await self.moves.submit(room, {seat.seat}, ply, text)
            except ApiError as error:
                log.error("AI move %r in game %s refused: %s", text, room.id, error.message)
                if room.game.ply == ply:
                    await self.moves.submit(room, {seat.seat}, ply, fallback_move(room.game, seed))

    def job(self, room: Room) -> tuple[AiJob, bool] | None:
        """The AI turn a room waits for, and whether a person waits for it; None if none."""
        seat = self.to_move(room)
        if seat is None:
            return None
        ply = room.game.ply
        job = AiJob(
            room.id, ply, seat.seat, seat.ai or "level:1", move_seed(room.id, ply), room.record()
        )
        return job, self.audience(room) == Audience.PEOPLE

    async def play_result(self, room: Room, result: AiResult) -> None:
        """Play an AI worker's answer if its game still waits for it (a random legal move if
        the engine refuses it); an answer for a ply already played is dropped."""
        if room.game.ply < result.ply:
            async with room.lock:
                await self.rooms.resync(room)
        seat = self.to_move(room)
        if seat is None or seat.seat != result.seat or room.game.ply != result.ply:
            return
        try:
            await self.moves.submit(room, {seat.seat}, result.ply, result.move)
        except ApiError as error:
            if error.code == "stale":
                return
            log.error("AI move %r in game %s refused: %s", result.move, room.id, error.message)
            if room.game.ply == result.ply:
                fallback = fallback_move(room.game, move_seed(room.id, result.ply))
                await self.moves.submit(room, {seat.seat}, result.ply, fallback)
