"""What a finished game leaves behind: per-seat statistics and, for rated games, ratings.

``settle`` is the one game-end hook: every way a game ends (its last move, a resignation,
a clock, an abandon) calls it inside the transaction that stores the result, so the
statistics and rating updates are stored exactly when the result is, or not at all.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, insert, select

from taluva.engine.game import Game
from taluva.engine.moves import BUILD_KINDS, DOUBLE, EXPAND, TILE
from taluva.engine.outcome import Outcome, Reason
from taluva.engine.record import RECORD_FORMAT
from taluva.server.players.ratings import Rated, rate_game
from taluva.server.storage.models import Base, GameRow, MoveRow, SeatRow, SeatStatsRow

log = logging.getLogger("taluva.server")

_GAMES = Base.metadata.tables[GameRow.__tablename__]
_SEATS = Base.metadata.tables[SeatRow.__tablename__]
_MOVES = Base.metadata.tables[MoveRow.__tablename__]
_STATS = Base.metadata.tables[SeatStatsRow.__tablename__]

VICTORY_REASONS = frozenset({Reason.VICTORY.value})
"""Reasons that mean the winner placed every piece of two kinds."""
TILES_REASONS = frozenset({Reason.TILES.value, Reason.NO_PLACEMENT.value})
"""Reasons that mean the game ended with the tiles (none left, or none placeable)."""


@dataclass(frozen=True, slots=True)
class SeatStats:
    """What one seat did in a game: tiles placed, pieces built (huts as placed, destroyed
    ones included), huts lost to eruptions, and the highest level it built on."""

    tiles: int = 0
    huts: int = 0
    temples: int = 0
    towers: int = 0
    huts_lost: int = 0
    highest_level: int = 0


def replay_stats(game: Game) -> list[SeatStats]:
    """Each player's statistics in ``game`` (replayed from its record): pieces from its
    final position, tiles and levels by taking its moves back one by one, so the engine
    says who made each move (resignations are taken back with them)."""
    players = game.player_count
    tiles = [0] * players
    highest = [0] * players
    walk = game.copy()
    while walk.ply:
        move = walk.moves[-1]
        hexes = move.hexes if move.kind == EXPAND else (move.hex,)
        level = max(walk.level(h) for h in hexes)
        walk.pop()
        player = walk.to_move
        if move.kind in (TILE, DOUBLE):
            tiles[player] += 1
        elif move.kind in BUILD_KINDS:
            highest[player] = max(highest[player], level)
    return [
        SeatStats(
            tiles=tiles[p],
            huts=game.placed(p)["huts"],
            temples=game.placed(p)["temples"],
            towers=game.placed(p)["towers"],
            huts_lost=game.destroyed_huts(p),
            highest_level=highest[p],
        )
        for p in range(players)
    ]


def places_of(result: dict[str, Any], seats: int) -> list[int] | None:
    """Each seat's 1-based place in a stored result (seats sharing a place share its number),
    or None when the ranking does not place every seat (an abandoned game ranks no one).

    >>> places_of({"ranking": [[1], [0, 2]], "reason": "tiles"}, 3)
    [2, 1, 2]
    >>> places_of({"ranking": [], "reason": "abandoned"}, 2) is None
    True
    """
    ranking = tuple(tuple(int(p) for p in group) for group in result.get("ranking") or [])
    # places() reads the ranking only: the reason (any text here) plays no part in it
    places = Outcome(ranking, Reason.VICTORY).places()
    if sorted(places) != list(range(seats)):
        return None
    return [places[seat] for seat in range(seats)]


def rated_seats(seats: Sequence[Any]) -> list[Rated] | None:
    """Who each seat is for rating, if every seat is an account or an AI level; else None
    (a guest's seat makes the game unrated)."""
    out = [subject_of(seat) for seat in seats]
    return None if None in out else out  # type: ignore[return-value]


def subject_of(seat: Any) -> Rated | None:
    """Who a seat is for rating: its account, or its AI level; None for a guest or a free
    seat."""
    if seat.account_id is not None:
        return Rated(account_id=seat.account_id)
    if seat.kind == "ai" and seat.ai:
        return Rated(ai=seat.ai)
    return None


def _replay(connection: Connection, game_id: str, names: list[str]) -> Game | None:
    game = connection.execute(select(_GAMES).where(_GAMES.c.id == game_id)).one()._mapping
    moves = connection.scalars(
        select(_MOVES.c.text).where(_MOVES.c.game_id == game_id).order_by(_MOVES.c.ply)
    ).all()
    record = {
        "format": RECORD_FORMAT,
        "players": names,
        "options": game["options"],
        "deck": game["deck"],
        "doubles": game["doubles"],
        "moves": list(moves),
        "result": None,
    }
    if game.get("resignations"):  # players who resigned or ran out of time, once stored
        record["resignations"] = game["resignations"]
    try:
        return Game.from_record(record)
    except Exception:  # the result must still be stored: only its statistics are lost
        log.exception("game %s cannot be replayed: its statistics are left empty", game_id)
        return None


def _numbers(stats: SeatStats | None) -> dict[str, int | None]:
    """The statistics columns of a seat (all None when its game could not be replayed)."""
    names = ("tiles", "huts", "temples", "towers", "huts_lost", "highest_level")
    return {name: None if stats is None else getattr(stats, name) for name in names}


def settle(
    connection: Connection, game_id: str, result: dict[str, Any], game: Game | None = None
) -> None:
    """Store what game ``game_id`` leaves behind now that it ended with ``result``: each
    seat's place and statistics and, when the game was created rated (every seat then an
    account or an AI level), the new ratings. ``game`` is the game as it ended, if the
    caller holds it: the statistics are then taken from it instead of a game replayed from
    the stored moves.

    Runs inside the caller's transaction (``connection`` is in a ``begin()`` block, the
    game's moves and result already written); the caller commits or rolls back. Settling a
    game twice stores nothing the second time, and a result that ranks no one (an abandoned
    game) stores nothing at all.
    """
    if connection.execute(select(_STATS.c.seat).where(_STATS.c.game_id == game_id)).first():
        return
    seats = connection.execute(
        select(_SEATS.c.seat, _SEATS.c.kind, _SEATS.c.ai, _SEATS.c.name, _SEATS.c.account_id)
        .where(_SEATS.c.game_id == game_id)
        .order_by(_SEATS.c.seat)
    ).all()
    places = places_of(result, len(seats))
    if places is None:  # no one was ranked: no statistics, no rating
        return
    if game is None:
        game = _replay(connection, game_id, [seat.name for seat in seats])
    stats: list[SeatStats | None] = [None] * len(seats)
    if game is not None:
        stats = list(replay_stats(game))
    chosen = connection.scalar(select(_GAMES.c.rated).where(_GAMES.c.id == game_id))
    rated = rated_seats(seats) if chosen else None
    stamp = datetime.now(UTC)
    connection.execute(
        insert(_STATS),
        [
            {
                "game_id": game_id,
                "seat": seat.seat,
                "account_id": seat.account_id,
                "ai": seat.ai if seat.kind == "ai" else None,
                "place": place,
                "players": len(seats),
                "reason": str(result["reason"]),
                "rated": rated is not None,
                **_numbers(numbers),
                "finished_at": stamp,
            }
            for seat, place, numbers in zip(seats, places, stats, strict=True)
        ],
    )
    if rated is not None:
        rate_game(connection, game_id, rated, places, stamp)
