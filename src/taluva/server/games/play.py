"""A move from a seat: checked, stored, and only then taken by its room and broadcast.

Every move goes through ``Moves.submit``: a person's from the HTTP API or the WebSocket, an
AI seat's from ``taluva.server.games.ai_seats``. The database's key on ``(game, ply)`` makes
sure that of two submissions for the same ply, from any server process, exactly one is
stored; moves arriving while a write is under way are stored together (group commit).
"""

from __future__ import annotations

import time
from typing import Any

from taluva.engine.errors import IllegalMove
from taluva.engine.wording import T
from taluva.server.errors import ApiError
from taluva.server.games.lifecycle import Lifecycle
from taluva.server.games.registry import Rooms
from taluva.server.games.room import MOVE_TEXT_CHARS, Room
from taluva.server.games.words import reason_of
from taluva.server.metrics import Metrics
from taluva.server.storage.database import Database
from taluva.server.storage.store import FINISHED, LIVE, OPEN, NewMove, PlyTaken


class Moves:
    """Plays the moves of one process's rooms; ``shared`` when other server processes play
    the same games (a room may then be behind the database, and is read again first)."""

    def __init__(
        self,
        database: Database,
        rooms: Rooms,
        lifecycle: Lifecycle,
        *,
        shared: bool,
        metrics: Metrics,
    ) -> None:
        self.database = database
        self.rooms = rooms
        self.lifecycle = lifecycle
        self.shared = shared
        self.metrics = metrics
        """Counts each move accepted and its time to the broadcast."""

    async def submit(self, room: Room, seats: set[int], state: Any, text: Any) -> dict[str, Any]:
        """Check, store, apply and broadcast one move; return the broadcast message.

        Refused (ApiError, nothing changed) unless the game is live, ``state`` is the current
        state id (the number of moves played), the player to move holds one of ``seats`` and
        the engine finds the move legal.
        """
        arrived = time.perf_counter()
        if type(state) is not int:
            raise ApiError(400, "bad-request", T("state must be the state id (a whole number)"))
        if not isinstance(text, str) or not text.strip():
            raise ApiError(
                400,
                "bad-request",
                T("move must be move text such as {example}", example="'tile 0,0 3'"),
            )
        if len(text) > MOVE_TEXT_CHARS:
            raise ApiError(
                400, "bad-request", T("move text is longer than {limit}", limit=MOVE_TEXT_CHARS)
            )
        async with room.lock:
            if self.shared and (state != room.game.ply or room.meta.status == OPEN):
                await self.rooms.resync(room)  # another process may have moved on already
            await self.lifecycle.expire_due(room)
            game = room.game
            if room.meta.status == OPEN:
                raise ApiError(409, "waiting", T("the game starts when every seat is taken"))
            if game.is_over or room.meta.status != LIVE:
                raise ApiError(409, "over", T("the game is over"))
            if state != game.ply:
                raise ApiError(
                    409,
                    "stale",
                    T("state {state} is not the current state {ply}", state=state, ply=game.ply),
                )
            seat = game.to_move
            if seat not in seats:
                raise ApiError(
                    403,
                    "not-your-turn",
                    T(
                        "it is {name}'s turn (seat {seat})",
                        name=room.meta.seats[seat].name,
                        seat=seat,
                    ),
                )
            try:
                trial = room.trial(text)
            except IllegalMove as error:
                raise ApiError(422, "illegal", reason_of(error)) from None
            canonical = str(trial.moves[-1])
            status = FINISHED if trial.is_over else LIVE
            result = None if trial.result is None else trial.result.to_json()
            clock = self.lifecycle.clock_after_move(
                room, seat, None if trial.is_over else trial.to_move
            )
            final = trial if trial.is_over else None
            move = NewMove(room.id, game.ply, seat, canonical, status, result, clock, final=final)
            try:
                await self.database.store_move(move)
            except PlyTaken:
                raise ApiError(
                    409, "stale", T("another move for state {state} came first", state=state)
                ) from None
            room.commit(trial, status=status, result=result, clock=clock, mover=seat)
            message = {
                "type": "move",
                "ply": game.ply,
                "seat": seat,
                "move": canonical,
                "state": room.state(),
            }
            room.broadcast(message)
            self.metrics.move(room.meta.seats[seat].kind, arrived)
            self.rooms.changed(room)
        return message
