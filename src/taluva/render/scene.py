"""A picture of a position as a list of plain shapes, which the SVG writer outputs (and
resvg rasterizes that SVG into the PNG, so both are the same picture).

Keeping the drawing decisions (where each hex, building and outline goes, in which colour)
in one place gives the web client one reference for the drawing rules of
``taluva.render.style``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from taluva.engine.hexes import DELTAS, format_hex, pixel_centre
from taluva.engine.pieces import Piece
from taluva.engine.tiles import TERRAIN_NAMES, VOLCANO
from taluva.engine.wording import T, Text
from taluva.render import style
from taluva.render.position import (
    lagoons_of,
    last_turn_hexes,
    ships_of,
    zone_polygon,
)

if TYPE_CHECKING:
    from taluva.engine.game import Game

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Shape:
    """A polygon (``closed``) or polyline: optional fill, optional stroke of ``width``."""

    points: tuple[Point, ...]
    fill: str | None = None
    stroke: str | None = None
    width: float = 0.0
    closed: bool = True
    dash: float = 0.0


@dataclass(frozen=True, slots=True)
class Label:
    """Text centred vertically on ``y``; ``anchor`` says whether ``x`` is its middle or start."""

    x: float
    y: float
    text: str
    size: float
    fill: str
    bold: bool = False
    anchor: str = "middle"


@dataclass(slots=True)
class Group:
    """Shapes that belong together (one hex), with attributes naming them in the SVG."""

    attrs: dict[str, str]
    items: list[Shape | Label] = field(default_factory=list)


Item = Shape | Label | Group


@dataclass(slots=True)
class Scene:
    """A whole picture: its size in pixels, background colour and items in painting order."""

    width: float
    height: float
    background: str
    items: list[Item]
    title: str = ""
    size: float = 1.0
    """Hex radius in pixels."""
    offset: Point = (0.0, 0.0)
    """Where the picture puts the plane's origin: hex 0,0 is drawn centred here."""

    def centre_of(self, hex_: int) -> Point:
        """Pixel position of a hex's centre in this picture."""
        x, y = pixel_centre(hex_, self.size)
        return x + self.offset[0], y + self.offset[1]


# Building outlines in units of the hex radius, centred on the building's spot; y grows down.
HUT_SHAPE: tuple[Point, ...] = (
    (-0.17, 0.15), (-0.17, -0.04), (0.0, -0.2), (0.17, -0.04), (0.17, 0.15),
)  # fmt: skip
TEMPLE_SHAPE: tuple[Point, ...] = (
    (-0.32, 0.26), (-0.32, 0.14), (-0.25, 0.14), (-0.25, -0.06), (-0.33, -0.06),
    (0.0, -0.3), (0.33, -0.06), (0.25, -0.06), (0.25, 0.14), (0.32, 0.14), (0.32, 0.26),
)  # fmt: skip
TEMPLE_DOOR: tuple[Point, ...] = ((-0.07, 0.14), (-0.07, 0.0), (0.07, 0.0), (0.07, 0.14))
TOWER_SHAPE: tuple[Point, ...] = (
    (-0.14, 0.3), (-0.14, -0.18), (-0.2, -0.18), (-0.2, -0.34), (-0.11, -0.34),
    (-0.11, -0.26), (-0.04, -0.26), (-0.04, -0.34), (0.04, -0.34), (0.04, -0.26),
    (0.11, -0.26), (0.11, -0.34), (0.2, -0.34), (0.2, -0.18), (0.14, -0.18), (0.14, 0.3),
)  # fmt: skip
TOWER_WINDOW: tuple[Point, ...] = ((-0.04, 0.02), (-0.04, -0.1), (0.04, -0.1), (0.04, 0.02))
SHIP_HULL: tuple[Point, ...] = ((-0.34, 0.1), (0.34, 0.1), (0.22, 0.27), (-0.22, 0.27))
SHIP_SAIL: tuple[Point, ...] = ((-0.03, 0.05), (-0.03, -0.36), (0.25, 0.05))
VOLCANO_SHAPE: tuple[Point, ...] = (
    (-0.36, 0.3), (-0.1, -0.12), (-0.05, -0.06), (0.0, -0.14), (0.05, -0.06), (0.1, -0.12),
    (0.36, 0.3),
)  # fmt: skip
VOLCANO_LAVA: tuple[Point, ...] = (
    (-0.1, -0.12),
    (-0.05, -0.06),
    (0.0, -0.14),
    (0.05, -0.06),
    (0.1, -0.12),
    (0.04, -0.2),
    (-0.04, -0.2),
)

HUT_SPOTS: dict[int, tuple[Point, ...]] = {
    1: ((0.0, 0.0),),
    2: ((-0.2, 0.0), (0.2, 0.0)),
    3: ((-0.19, 0.14), (0.19, 0.14), (0.0, -0.16)),
    4: ((-0.19, 0.14), (0.19, 0.14), (-0.19, -0.16), (0.19, -0.16)),
    5: ((-0.34, 0.14), (0.0, 0.14), (0.34, 0.14), (-0.17, -0.16), (0.17, -0.16)),
}
"""Where the huts of a hex stand (a hex at level ``h`` holds ``h`` huts)."""

DIRECTION_ANGLES = tuple(-60.0 * k for k in range(6))
"""Screen angle (degrees, y down) of each direction ``D[k]``: E is 0, NE is -60."""


def hex_corners(cx: float, cy: float, radius: float) -> tuple[Point, ...]:
    """The six corners of a pointy-top hex, clockwise from the top."""
    return tuple(
        (cx + radius * math.cos(math.radians(a)), cy + radius * math.sin(math.radians(a)))
        for a in (-90, -30, 30, 90, 150, 210)
    )


def edge_points(cx: float, cy: float, radius: float, direction: int) -> tuple[Point, Point]:
    """The two corners of the hex edge facing direction ``k``."""
    angle = DIRECTION_ANGLES[direction]
    return (
        (
            cx + radius * math.cos(math.radians(angle - 30)),
            cy + radius * math.sin(math.radians(angle - 30)),
        ),
        (
            cx + radius * math.cos(math.radians(angle + 30)),
            cy + radius * math.sin(math.radians(angle + 30)),
        ),
    )


def placed(shape: tuple[Point, ...], x: float, y: float, scale: float) -> tuple[Point, ...]:
    """A unit shape moved to ``(x, y)`` and scaled."""
    return tuple((x + px * scale, y + py * scale) for px, py in shape)


def piece_stroke(colour: str) -> str:
    """Outline of a piece: dark for light pieces, light for the black ones."""
    return "#e8e8e8" if style.contrast_text(colour) == "#ffffff" else "#151515"


def building_shapes(
    kind: str, owner: int, level: int, x: float, y: float, size: float
) -> list[Shape]:
    """Shapes of a building (``hut`` stands for all the huts of the hex) in its owner's colour."""
    colour = style.player_colour(owner)
    line = piece_stroke(colour)
    width = 0.035 * size
    if kind == "hut":
        spots = HUT_SPOTS.get(level, HUT_SPOTS[5])
        scale = size if level <= 2 else size * 0.8
        return [
            Shape(placed(HUT_SHAPE, x + dx * size, y + dy * size, scale), colour, line, width)
            for dx, dy in spots
        ]
    if kind == "temple":
        return [
            Shape(placed(TEMPLE_SHAPE, x, y, size), colour, line, width),
            Shape(placed(TEMPLE_DOOR, x, y, size), line),
        ]
    if kind == "tower":
        return [
            Shape(placed(TOWER_SHAPE, x, y, size), colour, line, width),
            Shape(placed(TOWER_WINDOW, x, y, size), line),
        ]
    if kind == "ship":
        return [
            Shape(placed(SHIP_HULL, x, y, size), colour, line, width),
            Shape(placed(SHIP_SAIL, x, y, size), colour, line, width),
        ]
    raise ValueError(f"unknown building kind {kind!r}")


def board_scene(
    game: Game,
    size: float = 36.0,
    *,
    coordinates: bool = True,
    header: bool = True,
    highlight: frozenset[int] | None = None,
    include: frozenset[int] = frozenset(),
) -> Scene:
    """Lay out a picture of ``game``'s position with hexes of radius ``size`` pixels.

    ``highlight`` overrides the hexes outlined as the last move (by default those of the
    latest turn); ``include`` names sea hexes the picture must show too (where a caller draws
    a move over the position).
    """
    land = game.land()
    ships = ships_of(game)
    lagoons = lagoons_of(game)
    zone = zone_polygon(game)
    marked = last_turn_hexes(game) if highlight is None else highlight
    lagoon_hexes = {h for group in lagoons for h in group}
    shown = set(land) | set(ships) | lagoon_hexes | include
    points = [pixel_centre(h, size) for h in shown] or [(0.0, 0.0)]
    half_width = size * math.sqrt(3) / 2
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    left, right = min(xs) - half_width, max(xs) + half_width
    top, bottom = min(ys) - size, max(ys) + size
    if zone:
        left = min(left, *(x * size for x, _ in zone))
        right = max(right, *(x * size for x, _ in zone))
        top = min(top, *(y * size for _, y in zone))
        bottom = max(bottom, *(y * size for _, y in zone))
    margin = size * 0.6
    header_height = size * (0.55 * game.player_count + 0.9) if header else 0.0
    dx = margin - left
    dy = margin - top + header_height
    width = right - left + 2 * margin
    if header:
        width = max(width, size * 9.5)
    height = bottom - top + 2 * margin + header_height
    # Whole pixels, so that the SVG and its PNG have exactly the same size.
    width, height = math.ceil(width), math.ceil(height)

    def centre(hex_: int) -> Point:
        x, y = pixel_centre(hex_, size)
        return x + dx, y + dy

    items: list[Item] = []
    if zone:
        items.append(Shape(tuple((x * size + dx, y * size + dy) for x, y in zone), style.SEA))
    for hex_ in sorted(lagoon_hexes):
        cx, cy = centre(hex_)
        items.append(
            Group(
                {"class": "lagoon", "data-hex": format_hex(hex_)},
                [Shape(hex_corners(cx, cy, size), style.LAGOON, style.SEA, size * 0.03)],
            )
        )
    for hex_ in land:
        items.append(_hex_group(game, hex_, centre(hex_), size, coordinates))
    items.extend(_tile_outlines(game, land, centre, size))
    for hex_, owner in sorted(ships.items()):
        cx, cy = centre(hex_)
        group = Group(
            {"class": "ship", "data-hex": format_hex(hex_), "data-player": str(owner)},
            list(building_shapes("ship", owner, 1, cx, cy + size * 0.05, size)),
        )
        items.append(group)
    if zone:
        outline = tuple((x * size + dx, y * size + dy) for x, y in zone)
        items.append(Shape(outline, None, style.ZONE_LINE, size * 0.06, dash=size * 0.25))
    items.extend(_highlight_outline(marked, centre, size))
    if header:
        items.extend(_header(game, size, width))
    background = style.OUTSIDE_ZONE if zone else style.SEA
    if game.moves:
        title = T("Taluva, ply {ply}: {move}", ply=game.ply, move=str(game.moves[-1]))
    else:
        title = T("Taluva, ply {ply}", ply=game.ply)
    return Scene(width, height, background, items, title, size, (dx, dy))


def _hex_group(game: Game, hex_: int, at: Point, size: float, coordinates: bool) -> Group:
    """The hex itself: terrain fill by level, level rings and number, volcano, buildings."""
    cx, cy = at
    terrain = game.terrain(hex_) or 0
    level = game.level(hex_)
    fill = style.level_fill(terrain, level)
    edge = style.shade(fill, style.HEX_EDGE_SHADE)
    group = Group(
        {
            "class": "hex",
            "data-hex": format_hex(hex_),
            "data-terrain": TERRAIN_NAMES[terrain],
            "data-level": str(level),
        }
    )
    items = group.items
    items.append(Shape(hex_corners(cx, cy, size), fill, edge, size * 0.04))
    ring = style.shade(fill, -0.28)
    for step in range(1, min(level, 5)):
        items.append(Shape(hex_corners(cx, cy, size * (1 - 0.11 * step)), None, ring, size * 0.035))
    if terrain == VOLCANO:
        items.append(
            Shape(placed(VOLCANO_SHAPE, cx, cy + size * 0.12, size), style.shade(fill, -0.35))
        )
        items.append(Shape(placed(VOLCANO_LAVA, cx, cy + size * 0.12, size), "#ff8f00"))
    text_colour = style.contrast_text(fill)
    items.append(Label(cx, cy - size * 0.58, str(level), size * 0.3, text_colour, bold=True))
    if coordinates:
        items.append(Label(cx, cy + size * 0.66, format_hex(hex_), size * 0.19, text_colour))
    piece = game.building(hex_)
    if piece is not None:
        owner, kind = piece
        group.attrs["data-building"] = kind
        group.attrs["data-player"] = str(owner)
        items.extend(building_shapes(kind, owner, level, cx, cy + size * 0.08, size))
    return group


def _tile_outlines(
    game: Game, land: list[int], locate: Callable[[int], Point], size: float
) -> list[Shape]:
    """Thick lines where two different tiles (or a tile and the sea) meet."""
    land_set = set(land)
    lines = []
    for hex_ in land:
        cx, cy = locate(hex_)
        top = game.tile_index(hex_)
        for k, delta in enumerate(DELTAS):
            other = hex_ + delta
            if other in land_set and (other < hex_ or game.tile_index(other) == top):
                continue
            a, b = edge_points(cx, cy, size, k)
            lines.append(Shape((a, b), None, style.TILE_EDGE, size * 0.08, closed=False))
    return lines


def _highlight_outline(
    marked: frozenset[int], locate: Callable[[int], Point], size: float
) -> list[Shape]:
    """A bright line around the hexes of the last turn."""
    lines = []
    for hex_ in sorted(marked):
        cx, cy = locate(hex_)
        for k, delta in enumerate(DELTAS):
            if hex_ + delta in marked:
                continue
            a, b = edge_points(cx, cy, size * 0.93, k)
            lines.append(Shape((a, b), None, style.LAST_MOVE, size * 0.1, closed=False))
    return lines


def _header(game: Game, size: float, width: float) -> list[Item]:
    """Players with their colours, pieces left and scores; whose turn it is."""
    items: list[Item] = []
    line = size * 0.55
    text_size = size * 0.32
    y = size * 0.45
    for player, name in enumerate(game.players):
        colour = style.player_colour(player)
        x = size * 0.5
        swatch = ((x, y - line * 0.3), (x + line * 0.6, y - line * 0.3),
                  (x + line * 0.6, y + line * 0.3), (x, y + line * 0.3))  # fmt: skip
        items.append(Shape(swatch, colour, piece_stroke(colour), size * 0.03))
        supply = game.supply(player)
        marker = ">" if game.result is None and player == game.to_move else " "
        kinds = [Piece.HUT, Piece.TEMPLE, Piece.TOWER]
        if "ships" in game.options.get("expansions", []):
            kinds.append(Piece.SHIP)
        left = {kind.plural: kind.count(supply[kind.plural]) for kind in kinds}
        text = _player_label(marker, name, game.score(player), left, player in game.eliminated)
        items.append(_left_label(x + line, y, text, text_size))
        y += line
    if game.moves:
        last = T("ply {ply}, last move: {move}", ply=game.ply, move=str(game.moves[-1]))
    else:
        last = T("ply {ply}, last move: none", ply=game.ply)
    items.append(_left_label(size * 0.5, y, last, text_size))
    return items


def _player_label(marker: str, name: str, score: int, left: dict[str, Text], out: bool) -> Text:
    """A player's line of the header: whose turn (``>``), name, score and pieces left."""
    values = {"marker": marker, "name": name, "score": score, **left}
    if "ships" in left:
        if out:
            return T(
                "{marker}{name}: {score} pts, left {huts} {temples} {towers} {ships} (out)",
                **values,
            )
        return T("{marker}{name}: {score} pts, left {huts} {temples} {towers} {ships}", **values)
    if out:
        return T("{marker}{name}: {score} pts, left {huts} {temples} {towers} (out)", **values)
    return T("{marker}{name}: {score} pts, left {huts} {temples} {towers}", **values)


def _left_label(x: float, y: float, text: str, size: float) -> Label:
    """A white label starting at ``x``."""
    return Label(x, y, text, size, "#ffffff", anchor="start")
