"""What a picture needs to know about a position beyond the core engine API.

The expansions (ships, lagoons, board zones) are read through ``getattr`` so that drawing
works with any engine that plays the base game; a missing feature simply draws nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from taluva.moves import Move
from taluva.tiles import TERRAIN_LETTERS, double_footprint, footprint

if TYPE_CHECKING:
    from taluva.game import Game

BUILD_KINDS = frozenset({"hut", "expand", "temple", "tower", "ship"})


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
        position.undo()
    return position


def move_hexes(move: Move) -> tuple[int, ...]:
    """The hexes a move puts something on (none for ``draw``)."""
    if move.kind == "tile":
        return footprint(move.hex, move.orientation)
    if move.kind == "double":
        return double_footprint(move.hex, move.orientation)
    if move.kind == "draw":
        return ()
    return move.hexes or (move.hex,)


def double_terrains(code: str) -> tuple[int, ...]:
    """Terrains of a double-hex tile's two hexes, in footprint order (``VL`` -> volcano, lake)."""
    return tuple(TERRAIN_LETTERS.index(letter) for letter in code)


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
    """Ships on the board, hex to player (empty when the engine has no Ships expansion)."""
    ships = getattr(game, "ships", None)
    if ships is None:
        return {}
    found: Any = ships()
    return {int(h): int(p) for h, p in dict(found).items()}


def lagoons_of(game: Game) -> list[frozenset[int]]:
    """Lagoons (sea enclosed by the island), empty when the engine does not compute them."""
    lagoons = getattr(game, "lagoons", None)
    if lagoons is None:
        return []
    return [frozenset(group) for group in lagoons()]


def zone_polygon(game: Game) -> list[tuple[float, float]] | None:
    """Outline of the game's board zone in the plane of ``pixel_centre(h, 1)``, or None."""
    name = getattr(game, "zone", None)
    if not name:
        return None
    try:
        from taluva import zones  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        return None
    zone = zones.ZONES.get(name)
    if zone is None:
        return None
    return [(float(x), float(y)) for x, y in zone.polygon]


def inside_polygon(point: tuple[float, float], polygon: Sequence[tuple[float, float]]) -> bool:
    """Whether a point lies inside a polygon (even-odd rule).

    >>> inside_polygon((0.5, 0.5), [(0, 0), (1, 0), (1, 1), (0, 1)])
    True
    """
    x, y = point
    inside = False
    count = len(polygon)
    for i in range(count):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % count]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def doubles_of(game: Game) -> tuple[str, ...]:
    """Face-up double-hex tiles still available (empty without the Double-Hex expansion)."""
    return tuple(getattr(game, "doubles", ()) or ())
