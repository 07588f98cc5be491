"""Island geometry tables and the tile-placement rules: sea level and volcanic eruption.

Placements are coded as ints ``volcano * 8 + orientation`` so that sets of them are cheap;
the tables here list, for any hex, the placements whose footprint contains it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from taluva.engine.hexes import DELTAS, STRIDE, coords, format_hex
from taluva.engine.moves import DRAW, HUT, SHIP, TEMPLE, TILE, TOWER, Move
from taluva.engine.rules.settlements import components
from taluva.engine.tiles import TERRAIN_NAMES, VOLCANO

HUT_KIND: Final = 0
TEMPLE_KIND: Final = 1
TOWER_KIND: Final = 2
BUILDING_NAMES: Final = ("hut", "temple", "tower")

NEXT_DELTAS: Final = tuple(DELTAS[(k + 1) % 6] for k in range(6))
"""``D[k + 1]`` for each orientation ``k``: where terrain ``B`` of a tile lies."""


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

PAIRS_OVER: Final = tuple(
    row for k in range(6) for row in ((k, DELTAS[k]), (-DELTAS[k] * 8 + k, -DELTAS[k]))
)
"""12 rows ``(code offset, other hex offset)`` of the double-hex placements over a hex:
``code = h * 8 + offset`` with ``X`` on ``code >> 3`` and ``Y`` next to it in direction
``code & 7``."""

PAIR_OFFSETS_OVER: Final = tuple(row[0] for row in PAIRS_OVER)


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


class _DoubleMoves(dict[tuple[str, int], Move]):
    """Interned double-hex moves by (tile code, placement code), made on first use."""

    def __missing__(self, key: tuple[str, int]) -> Move:
        code, placement = key
        move = self[key] = Move.place_double(code, placement >> 3, placement & 7)
        return move


TILE_MOVES: Final = _TileMoves()
DOUBLE_MOVES: Final = _DoubleMoves()
DRAW_MOVE: Final = Move(DRAW)
HUT_MOVES: Final = _HexMoves(HUT)
TEMPLE_MOVES: Final = _HexMoves(TEMPLE)
TOWER_MOVES: Final = _HexMoves(TOWER)
SHIP_MOVES: Final = _HexMoves(SHIP)


def enclosed_sea(level: Mapping[int, int]) -> list[frozenset[int]]:
    """Lagoons: groups of sea hexes the island encloses completely, ordered by lowest hex.

    Sea reachable from the edge of a box one hex larger than the island is open sea; what
    remains inside the box is enclosed.
    """
    if not level:
        return []
    points = [coords(h) for h in level]
    q_low = min(q for q, _ in points) - 1
    q_high = max(q for q, _ in points) + 1
    r_low = min(r for _, r in points) - 1
    r_high = max(r for _, r in points) + 1
    inner = set()
    queue = []
    for q in range(q_low, q_high + 1):
        column = q * STRIDE
        edge = q in (q_low, q_high)
        for r in range(r_low, r_high + 1):
            hex_ = column + r
            if hex_ in level:
                continue
            if edge or r in (r_low, r_high):
                queue.append(hex_)
            else:
                inner.add(hex_)
    for hex_ in queue:
        for d in DELTAS:
            if hex_ + d in inner:
                inner.discard(hex_ + d)
                queue.append(hex_ + d)
    return components(inner)


def placement_problem(
    hexes: tuple[int, ...],
    terrains: tuple[int, ...],
    first: bool,
    level: Mapping[int, int],
    tile_at: Mapping[int, int],
    terrain: Mapping[int, int],
    building: Mapping[int, int],
    settlement: Mapping[int, frozenset[int]],
    blocked: frozenset[int],
) -> str | None:
    """Why a tile (three hexes, or two for a double-hex tile) may not go on these hexes, in
    words, or None if the island allows it: RULES.md, "sea level" and "Volcanic eruption"."""
    volcanoes = [h for h, kind in zip(hexes, terrains, strict=True) if kind == VOLCANO]
    if first:
        anchor = volcanoes[0] if volcanoes else None
        if anchor != 0 and (volcanoes or 0 not in hexes):
            return "the first tile of the game goes with its volcano on 0,0"
        return None
    heights = [level.get(h, 0) for h in hexes]
    if not any(heights):
        for hex_ in hexes:
            if hex_ in blocked:
                return f"{format_hex(hex_)} is in a lagoon that holds a ship: no tile may cover it"
        if not any(h + d in level for h in hexes for d in DELTAS):
            return "the tile does not touch the island: one of its hexes must share an edge with it"
        return None
    if 0 in heights:
        sea = format_hex(hexes[heights.index(0)])
        land = next(h for h in hexes if level.get(h, 0))
        return (
            f"the tile would overhang: {sea} is sea but {format_hex(land)} is at level "
            f"{level[land]}"
        )
    if len(set(heights)) > 1:
        low, high = min(heights), max(heights)
        return (
            f"the hexes below are not at one level: {format_hex(hexes[heights.index(low)])} is "
            f"at level {low}, {format_hex(hexes[heights.index(high)])} at level {high}"
        )
    if not volcanoes:
        return "a tile without a volcano only goes on sea level"
    if not any(terrain[h] == VOLCANO for h in volcanoes):
        below = volcanoes[0]
        return (
            f"the volcano would lie on {TERRAIN_NAMES[terrain[below]]} at {format_hex(below)}: "
            "an eruption must cover a volcano"
        )
    if len({tile_at[h] for h in hexes}) == 1:
        return "the tile would lie exactly on a single tile: turn it to cover at least two tiles"
    for hex_ in hexes:
        piece = building.get(hex_)
        if piece is not None and piece & 3 != HUT_KIND:
            return f"the tile would cover the {BUILDING_NAMES[piece & 3]} at {format_hex(hex_)}"
    for hex_ in hexes:
        if hex_ in building and settlement[hex_] <= set(hexes):
            return f"the tile would destroy every building of the settlement at {format_hex(hex_)}"
    return None
