"""Island geometry tables and the tile-placement rules: sea level and volcanic eruption.

Placements are coded as ints ``volcano * 8 + orientation`` so that sets of them are cheap;
the tables here list, for any hex, the placements whose footprint contains it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from taluva.hexes import DELTAS, format_hex
from taluva.moves import HUT, SHIP, TEMPLE, TILE, TOWER, Move
from taluva.tiles import TERRAIN_NAMES, VOLCANO

HUT_KIND: Final = 0
TEMPLE_KIND: Final = 1
TOWER_KIND: Final = 2
BUILDING_NAMES: Final = ("hut", "temple", "tower")

NEXT_DELTAS: Final = tuple(DELTAS[(k + 1) % 6] for k in range(6))
"""``D[k + 1]`` for each orientation ``k``: where terrain ``B`` of a tile lies."""


def placement_code(volcano: int, orientation: int) -> int:
    """The int code of a regular tile placement."""
    return volcano * 8 + orientation


def _containing() -> tuple[tuple[int, int, int], ...]:
    """For a hex ``h``: (code offset, offset of the other two hexes) of every placement over h."""
    rows = []
    for k in range(6):
        a, b = DELTAS[k], NEXT_DELTAS[k]
        rows.append((k, a, b))  # h is the volcano
        rows.append((-a * 8 + k, -a, b - a))  # h is terrain A
        rows.append((-b * 8 + k, -b, a - b))  # h is terrain B
    return tuple(rows)


PLACEMENTS_OVER: Final = _containing()
"""18 rows ``(code offset, other hex offset, other hex offset)``: ``code = h * 8 + offset``."""

CODE_OFFSETS_OVER: Final = tuple(row[0] for row in PLACEMENTS_OVER)


class _TileMoves(dict[int, Move]):
    """Interned tile moves by placement code, made on first use."""

    def __missing__(self, code: int) -> Move:
        move = self[code] = Move(TILE, code >> 3, code & 7)
        return move


class _HexMoves(dict[int, Move]):
    """Interned single-hex builds of one kind by hex, made on first use."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def __missing__(self, hex_: int) -> Move:
        move = self[hex_] = Move(self.kind, hex_)
        return move


TILE_MOVES: Final = _TileMoves()
HUT_MOVES: Final = _HexMoves(HUT)
TEMPLE_MOVES: Final = _HexMoves(TEMPLE)
TOWER_MOVES: Final = _HexMoves(TOWER)
SHIP_MOVES: Final = _HexMoves(SHIP)


def eruption_problem(
    volcano: int,
    orientation: int,
    level: Mapping[int, int],
    terrain: Mapping[int, int],
    tile_at: Mapping[int, int],
    building: Mapping[int, int],
    settlement: Mapping[int, frozenset[int]],
) -> str | None:
    """Why a tile may not erupt here (None if it may): RULES.md, "Volcanic eruption"."""
    a, b = volcano + DELTAS[orientation], volcano + NEXT_DELTAS[orientation]
    height = level[volcano]
    if terrain[volcano] != VOLCANO:
        return (
            f"the volcano would lie on {TERRAIN_NAMES[terrain[volcano]]} at "
            f"{format_hex(volcano)}: an eruption must cover a volcano"
        )
    for hex_ in (a, b):
        if level.get(hex_, 0) != height:
            return (
                f"the hexes below are not at one level: {format_hex(volcano)} is at level "
                f"{height}, {format_hex(hex_)} at level {level.get(hex_, 0)}"
            )
    if tile_at[volcano] == tile_at[a] == tile_at[b]:
        return "the tile would lie exactly on a single tile: turn it to cover at least two tiles"
    for hex_ in (a, b):
        piece = building.get(hex_)
        if piece is not None and piece & 3 != HUT_KIND:
            return f"the tile would cover the {BUILDING_NAMES[piece & 3]} at {format_hex(hex_)}"
    for hex_ in (a, b):
        if hex_ in building and settlement[hex_] <= {a, b}:
            return (
                f"the tile would destroy every building of the settlement at {format_hex(hex_)}"
            )
    return None


def sea_placement_problem(
    hexes: tuple[int, ...], level: Mapping[int, int], blocked: frozenset[int]
) -> str | None:
    """Why a tile may not go on sea level here (None if it may): RULES.md, "sea level"."""
    for hex_ in hexes:
        if hex_ in blocked:
            return f"{format_hex(hex_)} is in a lagoon that holds a ship"
    if not any(hex_ + d in level for hex_ in hexes for d in DELTAS):
        return "the tile does not touch the island: one of its hexes must share an edge with it"
    return None
