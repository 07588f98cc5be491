"""The drawing rules every picture of the island follows: terminal, SVG, PNG and web client.

One table of colours (terrains, players, sea, highlights) and one rule for showing a hex's
level, so that a position looks the same wherever it is drawn. ``drawing_rules()`` gives
them as JSON-ready data for the web client.
"""

from __future__ import annotations

from typing import Any, Final

from taluva.engine.tiles import TERRAIN_NAMES

TERRAIN_COLOURS: Final[dict[str, str]] = {
    "volcano": "#b3472f",
    "jungle": "#2e7d32",
    "clearing": "#9ccc65",
    "sand": "#e6c36a",
    "rock": "#98a0a8",
    "lake": "#4aa3df",
}
"""Base colour of each terrain at level 2; other levels are shaded from it (``level_fill``)."""

PLAYER_COLOURS: Final = ("#e53935", "#f5f5f5", "#8e24aa", "#fb8c00", "#212121")
"""Piece colours by seat: red, white, purple, orange and the fifth player's black."""

PLAYER_COLOUR_NAMES: Final = ("red", "white", "purple", "orange", "black")

SEA: Final = "#183a5a"
"""The open sea around the island."""

LAGOON: Final = "#1f6d68"
"""Sea enclosed by the island (Ships expansion): teal, unlike both the open sea and lakes."""

OUTSIDE_ZONE: Final = "#0d1f30"
"""Sea outside the chosen zone of the Game Board expansion."""

ZONE_LINE: Final = "#e0f2ff"
TILE_EDGE: Final = "#1a1a1a"
"""Outline of a whole tile (and of the coast)."""

HEX_EDGE_SHADE: Final = -0.22
"""A thin line between two hexes of one tile: the hex's fill darkened by this much."""

LAST_MOVE: Final = "#ffd600"
"""Outline of the hexes that the last turn changed."""

CURSOR: Final = "#00e5ff"
ILLEGAL: Final = "#ff1744"

LEVEL_LIGHTNESS: Final = (-0.30, -0.10, 0.14, 0.34, 0.50)
"""How much a hex is darkened (negative) or lightened at levels 1, 2, 3, 4 and 5+: the higher
a hex stands, the lighter it looks."""


def parse_colour(colour: str) -> tuple[int, int, int]:
    """Red, green and blue of ``#rrggbb`` (an alpha suffix is ignored).

    >>> parse_colour("#ff8000")
    (255, 128, 0)
    """
    text = colour.lstrip("#")
    if len(text) not in (6, 8) or any(c not in "0123456789abcdefABCDEF" for c in text):
        raise ValueError(f"{colour!r} is not a colour: expected #rrggbb")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def format_colour(rgb: tuple[float, float, float]) -> str:
    """``#rrggbb`` text of a colour.

    >>> format_colour((255, 128, 0))
    '#ff8000'
    """
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in rgb)


def mix(colour: str, other: str, amount: float) -> str:
    """``colour`` moved ``amount`` (0 to 1) of the way towards ``other``.

    >>> mix("#000000", "#ffffff", 0.5)
    '#808080'
    """
    a, b = parse_colour(colour), parse_colour(other)
    return format_colour(
        (
            a[0] + (b[0] - a[0]) * amount,
            a[1] + (b[1] - a[1]) * amount,
            a[2] + (b[2] - a[2]) * amount,
        )
    )


def shade(colour: str, lightness: float) -> str:
    """Lighten (positive) or darken (negative) a colour by a fraction."""
    if lightness >= 0:
        return mix(colour, "#ffffff", lightness)
    return mix(colour, "#000000", -lightness)


def level_fill(terrain: int, level: int) -> str:
    """Fill colour of a hex of ``terrain`` (index into TERRAIN_NAMES) standing at ``level``.

    >>> level_fill(1, 1) != level_fill(1, 3)
    True
    """
    step = LEVEL_LIGHTNESS[max(1, min(level, len(LEVEL_LIGHTNESS))) - 1]
    return shade(TERRAIN_COLOURS[TERRAIN_NAMES[terrain]], step)


def contrast_text(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    r, g, b = parse_colour(colour)
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def player_colour(player: int) -> str:
    """Piece colour of a seat."""
    return PLAYER_COLOURS[player % len(PLAYER_COLOURS)]


def drawing_rules() -> dict[str, Any]:
    """The rules above as JSON-ready data, for clients that draw the board themselves."""
    return {
        "terrains": dict(TERRAIN_COLOURS),
        "terrain_order": list(TERRAIN_NAMES),
        "players": list(PLAYER_COLOURS),
        "player_names": list(PLAYER_COLOUR_NAMES),
        "sea": SEA,
        "lagoon": LAGOON,
        "outside_zone": OUTSIDE_ZONE,
        "zone_line": ZONE_LINE,
        "tile_edge": TILE_EDGE,
        "hex_edge_shade": HEX_EDGE_SHADE,
        "last_move": LAST_MOVE,
        "cursor": CURSOR,
        "illegal": ILLEGAL,
        "level_lightness": list(LEVEL_LIGHTNESS),
        "level_rule": (
            "fill = terrain colour shaded by level_lightness[min(level, 5) - 1] (towards white "
            "if positive, black if negative); one inner ring per level above 1; the level "
            "number at the top of the hex"
        ),
    }
