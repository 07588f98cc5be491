"""What a picture needs to know about a position: the position at a ply, the last turn's
hexes, and the expansions' pieces (ships, lagoons, the board zone)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from taluva.engine.expansions.board_zones import ZONES
from taluva.engine.moves import BUILD_KINDS, DOUBLE, DRAW, TILE, Move
from taluva.engine.tiles import double_footprint, footprint

if TYPE_CHECKING:
    from taluva.engine.game import Game


def position_at(game: Game, ply: int | None) -> Game:
    """A copy of ``game`` after its first ``ply`` moves (the current position if None).

    Raises ValueError naming the range when ``ply`` is outside 0..game.ply.
    """
    if ply is None:
        return game
    if not 0 <= ply <= game.ply:
        raise ValueError(f"ply {ply} is out of range: this game has plies 0 to {game.ply}")
    position = game.copy()
    for _ in range(game.ply - ply):
        position.pop()
    return position


def move_hexes(move: Move) -> tuple[int, ...]:
    """The hexes a move puts something on (none for ``draw``)."""
    if move.kind == TILE:
        return footprint(move.hex, move.orientation)
    if move.kind == DOUBLE:
        return double_footprint(move.hex, move.orientation)
    if move.kind == DRAW:
        return ()
    return move.hexes or (move.hex,)


def last_turn_moves(moves: Sequence[Move]) -> list[Move]:
    """The moves of the latest turn: the last move, and its tile move if it was a build."""
    if not moves:
        return []
    index = len(moves) - 1
    taken = [moves[index]]
    if moves[index].kind in BUILD_KINDS:
        index -= 1
        while index >= 0 and moves[index].kind not in BUILD_KINDS:
            taken.append(moves[index])
            index -= 1
    return taken


def last_turn_hexes(game: Game) -> frozenset[int]:
    """Hexes changed by the latest turn, for highlighting the last move."""
    return frozenset(h for move in last_turn_moves(game.moves) for h in move_hexes(move))


def ships_of(game: Game) -> dict[int, int]:
    """Ships on the board: the lowest hex of each lagoon holding one, to its owner."""
    return game.ships()


def lagoons_of(game: Game) -> list[frozenset[int]]:
    """Lagoons (sea the island encloses), found only in games with the Ships expansion."""
    return game.lagoons() if "ships" in game.expansions else []


def zone_polygon(game: Game) -> list[tuple[float, float]] | None:
    """Outline of the game's board zone in the plane of ``pixel_centre(h, 1)``, or None."""
    return None if game.zone is None else list(ZONES[game.zone].polygon)


def doubles_of(game: Game) -> tuple[str, ...]:
    """Face-up double-hex tiles still available (empty without the Double-Hex expansion)."""
    return game.doubles
