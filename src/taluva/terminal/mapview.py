"""The island drawn with characters: pointy-top hexes in a grid of terminal cells.

One drawing serves the full-screen game (as coloured text), the ``--plain`` mode and the
snapshot tests (as bare characters, and as one style code per cell). Hex ``(q, r)`` has its
centre in column ``2a(2q + r)`` and its rows start at ``(a + 1) r``, where the scale ``a``
is 1 (compact: 3 cells wide inside) or 2 (large: 7 wide, with coordinates):

    compact        large
     / \\          /   \
    |2⌂a|       |  0,1  |
     \\ /        |  2 a⌂ |
                  \\   /
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from taluva.engine.expansions.board_zones import inside_polygon
from taluva.engine.hexes import DELTAS, coords, format_hex, hex_at, pixel_centre
from taluva.engine.tiles import TERRAIN_LETTERS, VOLCANO
from taluva.render import style
from taluva.render.position import (
    lagoons_of,
    last_turn_hexes,
    ships_of,
    zone_polygon,
)

if TYPE_CHECKING:
    from taluva.engine.game import Game

OWNER_LETTERS: Final = "abcde"
GLYPHS: Final = {"hut": "\u2302", "temple": "\u03a0", "tower": "\u265c", "ship": "\u222a"}
"""Hut, temple, tower and ship: a house, a pi-shaped portico, a rook and a hull."""
ASCII_GLYPHS: Final = {"hut": "h", "temple": "T", "tower": "W", "ship": "S"}
SPOT: Final = "+"

STYLE_CODES: Final = {
    "sea": "~",
    "lagoon": "l",
    "outside": "o",
    "coast": "=",
    "tile": "#",
    "inner": "-",
    "last": "Y",
    "cursor": "C",
    "ghostedge": "G",
    "badedge": "X",
    "ghost": "g",
    "bad": "x",
    "chip": "P",
    "preview": "p",
    "spot": "+",
}
"""One character per style family, for the style layer of snapshot tests (``land`` shows
as its terrain letter)."""


@dataclass(slots=True)
class Overlay:
    """What the interface draws over the position: cursor, ghost tile, marks, previews."""

    cursor: int | None = None
    ghost: dict[int, int] = field(default_factory=dict)
    """Hexes of the tile being placed, each with its terrain."""
    ghost_legal: bool = True
    spots: frozenset[int] = frozenset()
    """Hexes marked as legal spots (where the ghost's anchor may go)."""
    highlight: frozenset[int] | None = None
    """Hexes outlined as the last move; None means those of the latest turn."""
    preview: frozenset[int] = frozenset()
    """Hexes that would receive a piece from the action being chosen."""
    preview_kind: str = "hut"
    preview_owner: int = 0


@dataclass(slots=True)
class MapPicture:
    """A drawn map: characters and style keys per cell, and which hex each cell shows."""

    scale: int
    chars: list[list[str]]
    keys: list[list[str]]
    owners: list[list[int | None]]
    origin: tuple[int, int]
    """``(min of 2q + r, min of r)`` over the hexes shown: where column and row 0 are."""

    @property
    def width(self) -> int:
        return len(self.chars[0]) if self.chars else 0

    @property
    def height(self) -> int:
        return len(self.chars)

    def hex_at_cell(self, x: int, y: int) -> int | None:
        """The hex drawn at cell ``(x, y)``, if any."""
        if 0 <= y < self.height and 0 <= x < self.width:
            return self.owners[y][x]
        return None

    def cell_of(self, hex_: int) -> tuple[int, int]:
        """The cell in the middle of a hex's first content line."""
        q, r = coords(hex_)
        a = self.scale
        return 2 * a * (2 * q + r - self.origin[0]) + 2 * a, (r - self.origin[1]) * (a + 1) + 1

    def text(self) -> str:
        """The characters alone, trailing spaces removed."""
        return "\n".join("".join(row).rstrip() for row in self.chars)

    def style_text(self) -> str:
        """One code per cell saying how it is coloured (see STYLE_CODES)."""
        lines = []
        for row in self.keys:
            lines.append("".join(style_code(key) for key in row).rstrip("~"))
        return "\n".join(lines)


def style_code(key: str) -> str:
    """The snapshot code of a style key: a terrain letter for land, else STYLE_CODES."""
    family, _, rest = key.partition(":")
    if family == "land":
        return TERRAIN_LETTERS[int(rest.split(":")[0])]
    if family == "spot":
        return "+"
    return STYLE_CODES.get(family, "?")


def draw_map(
    game: Game,
    overlay: Overlay | None = None,
    *,
    scale: int = 1,
    ascii_only: bool = False,
    margin: int = 1,
) -> MapPicture:
    """Draw the island, the sea ``margin`` hexes around it, and the overlay."""
    if scale not in (1, 2):
        raise ValueError(f"scale {scale} must be 1 (compact) or 2 (large)")
    overlay = overlay or Overlay()
    glyphs = ASCII_GLYPHS if ascii_only else GLYPHS
    land = set(game.land())
    ships = ships_of(game)
    lagoon = {h for group in lagoons_of(game) for h in group}
    zone = zone_polygon(game)
    highlight = last_turn_hexes(game) if overlay.highlight is None else overlay.highlight
    near = set(land)
    for _ in range(margin):
        near |= {h + d for h in near for d in DELTAS}
    shown = near | set(overlay.ghost) | overlay.spots | set(ships) | lagoon
    if overlay.cursor is not None:
        shown.add(overlay.cursor)
    if zone is not None:
        shown |= _zone_corners(zone)
    if not shown:
        shown = {hex_at(0, 0)}
    xs = [2 * q + r for q, r in map(coords, shown)]
    rs = [coords(h)[1] for h in shown]
    x_min, x_max, r_min, r_max = min(xs), max(xs), min(rs), max(rs)
    a = scale
    lines_per_row = a + 1
    width = 2 * a * (x_max - x_min) + 4 * a + 1
    height = (r_max - r_min + 1) * lines_per_row + 1
    chars = [[" "] * width for _ in range(height)]
    keys = [["sea"] * width for _ in range(height)]
    owners: list[list[int | None]] = [[None] * width for _ in range(height)]
    picture = MapPicture(scale, chars, keys, owners, (x_min, r_min))

    def sea_key(hex_: int) -> str:
        if hex_ in lagoon:
            return "lagoon"
        if zone is not None and not inside_polygon(pixel_centre(hex_, 1.0), zone):
            return "outside"
        return "sea"

    def body_key(hex_: int) -> str:
        if hex_ in overlay.ghost:
            terrain = overlay.ghost[hex_]
            if overlay.ghost_legal:
                return f"ghost:{terrain}:{game.level(hex_) + 1}"
            return f"bad:{terrain}:{game.level(hex_) + 1}"
        if hex_ in land:
            return f"land:{game.terrain(hex_)}:{game.level(hex_)}"
        return sea_key(hex_)

    def put(x: int, y: int, text: str, key: str, owner: int | None) -> None:
        for offset, char in enumerate(text):
            if 0 <= y < height and 0 <= x + offset < width:
                chars[y][x + offset] = char
                keys[y][x + offset] = key
                owners[y][x + offset] = owner

    def edge_key(hex_: int, other: int) -> str:
        inside, outside = hex_ in overlay.ghost, other in overlay.ghost
        if inside != outside:
            return "ghostedge" if overlay.ghost_legal else "badedge"
        if inside:
            return f"inner:{overlay.ghost[hex_]}:{game.level(hex_) + 1}"
        if overlay.cursor is not None and (hex_ == overlay.cursor) != (other == overlay.cursor):
            return "cursor"
        if (hex_ in highlight) != (other in highlight):
            return "last"
        here, there = hex_ in land, other in land
        if here and there:
            family = "inner" if game.tile_index(hex_) == game.tile_index(other) else "tile"
            return f"{family}:{game.terrain(hex_)}:{game.level(hex_)}"
        if here or there:
            return "coast"
        return sea_key(hex_)

    candidates = _hexes_in_box(x_min - 2, x_max + 2, r_min - 1, r_max + 1)
    for hex_ in candidates:
        q, r = coords(hex_)
        c = 2 * a * (2 * q + r - x_min) + 2 * a
        y0 = (r - r_min) * lines_per_row
        body = body_key(hex_)
        for y in range(y0 + 1, y0 + 1 + a):
            put(c - 2 * a + 1, y, " " * (4 * a - 1), body, hex_)
        put(c - a + 1, y0, " " * (2 * a - 1), body, hex_)
        put(c - a + 1, y0 + lines_per_row, " " * (2 * a - 1), body, hex_)
    for hex_ in candidates:
        q, r = coords(hex_)
        c = 2 * a * (2 * q + r - x_min) + 2 * a
        y0 = (r - r_min) * lines_per_row
        edges = (
            (c + 2 * a, range(y0 + 1, y0 + 1 + a), "|", 0),
            (c + a, (y0,), "\\", 1),
            (c - a, (y0,), "/", 2),
            (c - 2 * a, range(y0 + 1, y0 + 1 + a), "|", 3),
            (c - a, (y0 + lines_per_row,), "\\", 4),
            (c + a, (y0 + lines_per_row,), "/", 5),
        )
        for x, ys, glyph, k in edges:
            other = hex_ + DELTAS[k]
            if hex_ > other:
                continue  # each edge is drawn once, from its lower hex
            key = edge_key(hex_, other)
            family = key.split(":")[0]
            char = " " if family in ("sea", "lagoon", "outside") else glyph
            for y in ys:
                put(x, y, char, key, hex_ if hex_ in land or other not in land else other)
    for hex_ in candidates:
        if hex_ in near or hex_ in overlay.ghost or hex_ in ships or hex_ == overlay.cursor:
            _fill_hex(picture, game, hex_, overlay, glyphs, ascii_only, land, ships, highlight,
                      body_key(hex_), put)  # fmt: skip
    return picture


def _zone_corners(zone: list[tuple[float, float]]) -> set[int]:
    """Hexes at the corners of a zone's bounding box, so the map shows the whole zone."""
    xs = [x for x, _ in zone]
    ys = [y for _, y in zone]
    r_low, r_high = math.floor(min(ys) / 1.5) - 1, math.ceil(max(ys) / 1.5) + 1
    half = math.sqrt(3) / 2
    x_low, x_high = math.floor(min(xs) / half) - 1, math.ceil(max(xs) / half) + 1
    corners = set()
    for r in (r_low, r_high):
        for x in (x_low, x_high):
            corners.add(hex_at((x - r) // 2, r))
    return corners


def _hexes_in_box(x_min: int, x_max: int, r_min: int, r_max: int) -> list[int]:
    """Every hex whose ``2q + r`` and ``r`` fall in the given ranges, sorted."""
    found = []
    for r in range(r_min, r_max + 1):
        for x in range(x_min, x_max + 1):
            if (x - r) % 2 == 0:
                found.append(hex_at((x - r) // 2, r))
    return sorted(found)


def _fill_hex(
    picture: MapPicture,
    game: Game,
    hex_: int,
    overlay: Overlay,
    glyphs: dict[str, str],
    ascii_only: bool,
    land: set[int],
    ships: dict[int, int],
    highlight: Iterable[int],
    body: str,
    put: Callable[[int, int, str, str, int | None], None],
) -> None:
    """Write a hex's contents: terrain letter, level, building (or ghost, spot, preview)."""
    a = picture.scale
    c, y = picture.cell_of(hex_)
    ghost = hex_ in overlay.ghost
    terrain = overlay.ghost[hex_] if ghost else game.terrain(hex_)
    level = game.level(hex_) + (1 if ghost else 0)
    if terrain is not None:
        letter = TERRAIN_LETTERS[terrain]
        if terrain == VOLCANO and not ascii_only:
            letter = "▲"
        put(c - a + 1, y - 1, letter if a == 1 else f" {letter} ", body, hex_)
    piece = None if ghost else game.building(hex_)
    mark = "  "
    mark_key = body
    if piece is not None:
        mark = OWNER_LETTERS[piece[0]] + glyphs[piece[1]]
        mark_key = f"chip:{piece[0]}"
    elif hex_ in ships and not ghost:
        mark = OWNER_LETTERS[ships[hex_]] + glyphs["ship"]
        mark_key = f"chip:{ships[hex_]}"
    elif hex_ in overlay.preview:
        mark = OWNER_LETTERS[overlay.preview_owner] + glyphs[overlay.preview_kind]
        mark_key = f"preview:{overlay.preview_owner}"
    level_text = str(level) if terrain is not None else " "
    if a == 1:
        put(c - 1, y, level_text, body, hex_)
        put(c, y, mark, mark_key, hex_)
    else:
        label = format_hex(hex_)
        put(c - len(label) // 2, y, label, body, hex_)
        put(c - 2, y + 1, level_text, body, hex_)
        put(c, y + 1, mark, mark_key, hex_)
    if ascii_only and hex_ in highlight:
        put(c - a + 1, y + a, "*" * (2 * a - 1), body, hex_)
    if hex_ in overlay.spots and not ghost:
        free = piece is None and hex_ not in ships and hex_ not in overlay.preview
        put(c, y + a - 1 if free else y + a, SPOT, f"spot:{body}", hex_)


EDGE_DARK: Final = "#0e1216"
COAST_LINE: Final = "#c9d6e2"


def key_colours(key: str) -> tuple[str, str, bool]:
    """Foreground, background and boldness of a style key, by the shared drawing rules."""
    family, _, rest = key.partition(":")
    if family == "spot":
        _, background, _ = key_colours(rest)
        return "#00e676", background, True
    if family in ("land", "ghost", "bad", "inner", "tile"):
        terrain, level = (int(part) for part in rest.split(":"))
        fill = style.level_fill(terrain, level)
        if family == "ghost":
            fill = style.mix(fill, style.CURSOR, 0.25)
        elif family == "bad":
            fill = style.mix(fill, style.ILLEGAL, 0.55)
        elif family == "inner":
            return style.shade(fill, -0.3), fill, False
        elif family == "tile":
            return EDGE_DARK, fill, True
        return style.contrast_text(fill), fill, family != "land"
    if family in ("chip", "preview"):
        colour = style.player_colour(int(rest))
        if family == "preview":
            colour = style.mix(colour, "#808080", 0.45)
        return style.contrast_text(colour), colour, True
    fixed = {
        "sea": (style.mix(style.SEA, "#ffffff", 0.3), style.SEA, False),
        "lagoon": ("#ffffff", style.LAGOON, False),
        "outside": (style.OUTSIDE_ZONE, style.OUTSIDE_ZONE, False),
        "coast": (COAST_LINE, style.SEA, False),
        "last": ("#000000", style.LAST_MOVE, True),
        "cursor": ("#000000", style.CURSOR, True),
        "ghostedge": ("#000000", style.CURSOR, True),
        "badedge": ("#ffffff", style.ILLEGAL, True),
    }
    return fixed.get(family, ("#ffffff", "#ff00ff", False))
