"""Placing the drawn tile (docs/rules.md, "A turn" and "Placing a tile on sea level"): the first
tile on 0,0, a tile on sea level touching the island, or on top of it (``eruption``).

Placements are ints ``volcano * 8 + orientation``. The position keeps the legal ones as two
sets, brought up to date only around the hexes that changed since they were last read
(``sync_placements``); expansions may limit them (Game Board) or add their own (Double-Hex).
"""

from __future__ import annotations

import random
from itertools import chain
from typing import Final

from taluva.engine.hexes import DELTAS, ORIGIN
from taluva.engine.moves import TILE_MOVES, Move
from taluva.engine.position import Position, pending_hexes
from taluva.engine.refusals import refusal
from taluva.engine.rules.eruption import erupt, eruption_ok, eruption_problem
from taluva.engine.tiles import CODE_OFFSETS_OVER, PLACEMENTS_OVER, VOLCANO, footprint
from taluva.engine.wording import Text

FIRST_TILE_CODES: Final = tuple(ORIGIN * 8 + k for k in range(6))
"""The first tile of a game goes with its volcano on 0,0, in any orientation."""


def allowed(s: Position, code: int, hexes: tuple[int, ...]) -> bool:
    """The limits beyond the island's shape: no tile on a lagoon holding a ship (``blocked``),
    and whatever the expansions refuse (the Game Board's zone)."""
    for limit in s.setup.placement_limits:
        if not limit.allows_placement(s, code, hexes):
            return False
    blocked = s.blocked
    return not blocked or all(h not in blocked for h in hexes)


def sync_placements(s: Position) -> None:
    """Bring the placement sets up to date with the hexes changed since the last time."""
    level = s.level
    setup = s.setup
    if s.new_land is not None:
        new_land = pending_hexes(s.new_land)
        coast = {h + d for h in new_land for d in DELTAS} - level.keys()
        limited = bool(setup.placement_limits or s.blocked)
        sea = set(s.sea)
        discard = sea.discard
        for hex_ in new_land:
            base = hex_ * 8
            for offset in CODE_OFFSETS_OVER:
                discard(base + offset)
        add = sea.add
        for hex_ in coast:
            base = hex_ * 8
            for offset, other, third in PLACEMENTS_OVER:
                second, last = hex_ + other, hex_ + third
                code = base + offset
                if (
                    second not in level
                    and last not in level
                    and (not limited or allowed(s, code, (hex_, second, last)))
                ):
                    add(code)
        s.sea = sea
        for hook in setup.coast_hooks:
            hook.coast_changed(s, new_land, coast)
        s.new_land = None
    if s.dirty is not None:
        erupt_codes = set(s.erupt)
        terrain = s.terrain
        limits = setup.placement_limits
        for code in {h * 8 + o for h in pending_hexes(s.dirty) for o in CODE_OFFSETS_OVER}:
            if (
                terrain.get(code >> 3) == VOLCANO
                and eruption_ok(s, code)
                and (not limits or allowed(s, code, footprint(code >> 3, code & 7)))
            ):
                erupt_codes.add(code)
            else:
                erupt_codes.discard(code)
        s.erupt = erupt_codes
        s.dirty = None


def placements(s: Position) -> list[Move]:
    """Every legal placement of the drawn tile."""
    if s.tiles_placed == 0:
        return [TILE_MOVES[code] for code in FIRST_TILE_CODES]
    sync_placements(s)
    return [TILE_MOVES[code] for code in chain(s.sea, s.erupt)]


def is_placement(s: Position, code: int) -> bool:
    """Whether the drawn tile may go at ``code``."""
    if s.tiles_placed == 0:
        return code in FIRST_TILE_CODES
    sync_placements(s)
    return code in s.sea or code in s.erupt


def placement_problem(
    s: Position, hexes: tuple[int, ...], terrains: tuple[int, ...]
) -> Text | None:
    """Why a tile (three hexes, or two for a double-hex tile) may not go on these hexes, in
    words, or None if the island allows it."""
    for expansion in s.setup.expansions:
        problem = expansion.placement_problem(s, hexes)
        if problem is not None:
            return problem
    if s.tiles_placed == 0:
        volcanoes = [h for h, kind in zip(hexes, terrains, strict=True) if kind == VOLCANO]
        anchor = volcanoes[0] if volcanoes else None
        if anchor != ORIGIN and (volcanoes or ORIGIN not in hexes):
            return refusal("first-tile-origin")
        return None
    level = s.level
    heights = [level.get(h, 0) for h in hexes]
    if any(heights):
        return eruption_problem(s, hexes, terrains, heights)
    if not any(h + d in level for h in hexes for d in DELTAS):
        return refusal("not-touching")
    return None


def lay_tile(s: Position, new: Position, hexes: tuple[int, ...], terrains: tuple[int, ...]) -> None:
    """Lay a tile on sea level, or on top (an eruption, destroying the huts it covers)."""
    level = new.level = s.level.copy()
    terrain = new.terrain = s.terrain.copy()
    tile_at = new.tile_at = s.tile_at.copy()
    height = level.get(hexes[0], 0)
    index = s.tiles_placed
    fields = []
    for hex_, kind in zip(hexes, terrains, strict=True):
        level[hex_] = height + 1
        terrain[hex_] = kind
        tile_at[hex_] = index
        if kind != VOLCANO:
            fields.append(hex_)
    new.tiles_placed = index + 1
    new.tile = None
    new.free = s.free.union(fields)
    if len(fields) + 1 != len(hexes):
        new.free = new.free.difference(h for h in hexes if terrain[h] == VOLCANO)
    if height == 0:
        grow(s, new, hexes)
        new.new_land = (s.new_land, hexes)
        new.dirty = (s.dirty, hexes)
    else:
        new.dirty = (s.dirty, erupt(s, new, hexes, height))


def grow(s: Position, new: Position, hexes: tuple[int, ...]) -> None:
    """Append new land to the shared land list (copied first if another line of play, after
    an undo, has appended past this position)."""
    order = s.land_order
    if len(order) != s.land_count:
        order = order[: s.land_count]
    order.extend(hexes)
    new.land_order = order
    new.land_count = s.land_count + len(hexes)
    for hook in s.setup.land_hooks:
        hook.land_added(s, new, hexes)


def sample_placement(s: Position, rng: random.Random) -> Move | None:
    """A legal placement of the drawn tile found by trying random spots around random land
    hexes, or None when the position calls for the full list (not uniform: for playouts)."""
    if s.setup.placement_limits or s.blocked:
        return None
    if s.tiles_placed == 0:
        return TILE_MOVES[FIRST_TILE_CODES[int(rng.random() * 6)]]
    level = s.level
    land = s.land_order
    count = s.land_count
    random_ = rng.random
    for _ in range(64):
        hex_ = land[int(random_() * count)]
        if s.terrain[hex_] == VOLCANO and random_() < 0.5:
            code = hex_ * 8 + int(random_() * 6)
            if eruption_ok(s, code):
                return TILE_MOVES[code]
            continue
        hex_ += DELTAS[int(random_() * 6)]
        if hex_ in level:
            continue
        offset, other, third = PLACEMENTS_OVER[int(random_() * 18)]
        if hex_ + other not in level and hex_ + third not in level:
            return TILE_MOVES[hex_ * 8 + offset]
    return None
