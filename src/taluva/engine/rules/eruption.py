"""Volcanic eruption: placing a tile on top of the island (docs/rules.md, "Volcanic
eruption").

All of the rule is here: which placements on top are legal (``eruption_ok``, fast; and
``eruption_problem``, in words), what the covering may not do (``may_cover``), and what an
eruption does to the buildings below it (``erupt``).
"""

from __future__ import annotations

from collections.abc import Iterable

from taluva.engine.hexes import DELTAS, format_hex
from taluva.engine.pieces import HUT_KIND, TEMPLE_KIND
from taluva.engine.position import Position
from taluva.engine.refusals import refusal
from taluva.engine.rules.settlements import split
from taluva.engine.tiles import NEXT_DELTAS, TERRAIN_WORDS, VOLCANO
from taluva.engine.wording import Text


def may_cover(s: Position, hexes: tuple[int, ...]) -> bool:
    """Whether a tile on ``hexes`` covers only huts, and not every building of any settlement."""
    building = s.building
    for hex_ in hexes:
        piece = building.get(hex_)
        if piece is not None and (piece & 3 != HUT_KIND or s.settlement[hex_].issubset(hexes)):
            return False
    return True


def eruption_ok(s: Position, code: int) -> bool:
    """Whether a three-hex tile may erupt at ``code`` (``volcano * 8 + k``): on a volcano,
    three hexes at one height, at least two tiles below, and ``may_cover``."""
    volcano = code >> 3
    level = s.level
    if s.terrain.get(volcano) != VOLCANO:
        return False
    k = code & 7
    a = volcano + DELTAS[k]
    b = volcano + NEXT_DELTAS[k]
    height = level[volcano]
    if level.get(a) != height or level.get(b) != height:
        return False
    tile_at = s.tile_at
    top = tile_at[volcano]
    if tile_at[a] == top and tile_at[b] == top:
        return False
    building = s.building
    if a not in building and b not in building:
        return True
    return may_cover(s, (a, b))


def eruption_problem(
    s: Position, hexes: tuple[int, ...], terrains: tuple[int, ...], heights: list[int]
) -> Text | None:
    """Why a tile (three hexes, or two) may not go on top of these land hexes, or None."""
    level = s.level
    if 0 in heights:
        sea = format_hex(hexes[heights.index(0)])
        land = next(h for h in hexes if level.get(h, 0))
        return refusal("eruption-overhang", sea=sea, land=format_hex(land), level=level[land])
    if len(set(heights)) > 1:
        low, high = min(heights), max(heights)
        return refusal(
            "eruption-uneven",
            low_hex=format_hex(hexes[heights.index(low)]),
            low=low,
            high_hex=format_hex(hexes[heights.index(high)]),
            high=high,
        )
    volcanoes = [h for h, kind in zip(hexes, terrains, strict=True) if kind == VOLCANO]
    if not volcanoes:
        return refusal("no-volcano-on-top")
    if not any(s.terrain[h] == VOLCANO for h in volcanoes):
        below = volcanoes[0]
        return refusal(
            "eruption-not-on-volcano",
            terrain=TERRAIN_WORDS[s.terrain[below]],
            hex=format_hex(below),
        )
    if len({s.tile_at[h] for h in hexes}) == 1:
        return refusal("eruption-same-tile")
    building = s.building
    for hex_ in hexes:
        piece = building.get(hex_)
        if piece is not None and piece & 3 != HUT_KIND:
            code = "eruption-covers-temple" if piece & 3 == TEMPLE_KIND else "eruption-covers-tower"
            return refusal(code, hex=format_hex(hex_))
    for hex_ in hexes:
        if hex_ in building and s.settlement[hex_].issubset(hexes):
            return refusal("eruption-destroys-settlement", hex=format_hex(hex_))
    return None


def erupt(s: Position, new: Position, hexes: tuple[int, ...], height: int) -> Iterable[int]:
    """Destroy the huts a tile covers (they leave the game and count as placed), splitting the
    settlements they belonged to; return the hexes whose eruptions may have changed."""
    covered = [h for h in hexes if h in s.building]
    if not covered:
        return hexes
    building = new.building = s.building.copy()
    own = list(s.own)
    destroyed = list(s.destroyed)
    for hex_ in covered:
        owner = building.pop(hex_) >> 2
        destroyed[owner] += height
        own[owner] = own[owner] - {hex_}
    groups = split(s, new, covered)
    new.own = tuple(own)
    new.destroyed = tuple(destroyed)
    return set(hexes).union(*groups)
