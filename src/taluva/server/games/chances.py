"""The win-chance bar of unrated games: every player's winning chance in the current position.

The chances are those of a game review (``taluva.ai.review.position_chances``: the same
seeded search, with ``Settings.win_chance_iterations`` iterations), computed on the AI
workers at the people's priority. They are refused in rated games (they would help a player
against a rating) and in games created without hints (the players chose to play without
the AI's help). One answer per position is kept for every watcher of the game, and a job
whose position was played past before a worker took it is skipped.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any, Final

from taluva.engine.wording import T
from taluva.server.ai.scheduling import Audience
from taluva.server.ai.workers import AiRunner
from taluva.server.errors import ApiError
from taluva.server.games.room import Room
from taluva.server.storage.store import LIVE, OPEN

KEPT_POSITIONS: Final = 256
"""Answers kept (the latest positions of the games being watched)."""

Position = tuple[str, int, int]
"""A game's position: its id, its ply and how many players have left it."""


def check_allowed(room: Room, state: int) -> None:
    """Refuse (ApiError) win chances for this game and state: rated, without hints, not
    live, or not at state ``state``."""
    meta, game = room.meta, room.game
    if meta.rated:
        raise ApiError(403, "rated", T("win chances are not shown in rated games"))
    if not meta.hints:
        raise ApiError(403, "hints-off", T("the game was created without hints: no win chances"))
    if meta.status == OPEN:
        raise ApiError(409, "waiting", T("the game starts when every seat is taken"))
    if meta.status != LIVE or game.is_over:
        raise ApiError(409, "over", T("the game has ended"))
    if state != game.ply:
        raise ApiError(
            409,
            "stale",
            T("state {state} is not the current one ({ply})", state=state, ply=game.ply),
        )


class WinChances:
    """Answers ``chances`` messages: checks, then one search per position on the AI workers."""

    def __init__(self, ai: AiRunner, iterations: int) -> None:
        if iterations < 1:
            raise ValueError(f"win-chance iterations must be 1 or more, not {iterations}")
        self.ai = ai
        self.iterations = iterations
        self._known: OrderedDict[Position, asyncio.Future[list[float] | None]] = OrderedDict()

    async def answer(self, room: Room, state: int) -> dict[str, Any]:
        """The ``chances`` message for state ``state`` of ``room``'s game, or ApiError."""
        check_allowed(room, state)
        position = (room.id, room.game.ply, len(room.game.resignations))
        known = self._known.get(position)
        if known is None or (known.done() and (known.cancelled() or known.exception())):
            known = asyncio.ensure_future(self._search(room, position))
            self._known[position] = known
            while len(self._known) > KEPT_POSITIONS:
                self._known.popitem(last=False)
        else:
            self._known.move_to_end(position)
        chances = await asyncio.shield(known)
        if chances is None:
            raise ApiError(409, "stale", T("the game moved on before its chances were computed"))
        return {"type": "chances", "ply": state, "chances": [round(c, 4) for c in chances]}

    async def _search(self, room: Room, position: Position) -> list[float] | None:
        def wanted() -> bool:
            game = room.game
            return (room.id, game.ply, len(game.resignations)) == position

        try:
            return await self.ai.chances(
                room.record(),
                self.iterations,
                game=room.id,
                audience=Audience.PEOPLE,
                wanted=wanted,
            )
        except BaseException:
            self._known.pop(position, None)  # a failure is not remembered: ask again
            raise
