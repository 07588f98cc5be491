"""Game Board (docs/rules.md, "Game Board"): the island must grow inside a zone of the
board; a tile may stick out of it by at most two corners, and a player who can place the drawn
tile nowhere ends the game.

The printed board is not available, so the zones are data defined here: polygons in the
plane of ``hexes.pixel_centre(h, size=1)`` centred on hex 0,0, from the largest (Beginner)
to the smallest (Expert). A tile may stick out of its zone by at most two outline corners.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from taluva.engine.hexes import DELTAS, hex_at, pixel_centre
from taluva.engine.options import ZONE_NAMES
from taluva.engine.position import Expansion, Position
from taluva.engine.refusals import refusal
from taluva.engine.wording import T, Text

MAX_CORNERS_OUT: Final = 2
"""How many outline corners of a tile may lie outside the zone."""

_SQRT3: Final = math.sqrt(3)
_CORNERS: Final = tuple(
    (round(math.cos(math.radians(60 * i - 30)), 9), round(math.sin(math.radians(60 * i - 30)), 9))
    for i in range(6)
)


def hex_corners(hex_: int) -> list[tuple[float, float]]:
    """The six corners of a pointy-top hex of size 1."""
    x, y = pixel_centre(hex_)
    return [(x + dx, y + dy) for dx, dy in _CORNERS]


def outline_corners(hexes: Sequence[int]) -> list[tuple[float, float]]:
    """Corners on the outline of a tile: 12 for three hexes, 10 for two.

    A corner shared by all three hexes of a tile lies inside it and is not on the outline.
    """
    seen: dict[tuple[float, float], int] = {}
    for hex_ in hexes:
        for x, y in hex_corners(hex_):
            key = (round(x, 5), round(y, 5))
            seen[key] = seen.get(key, 0) + 1
    return [point for point, count in seen.items() if count < 3]


def inside_polygon(point: tuple[float, float], polygon: Sequence[tuple[float, float]]) -> bool:
    """Whether a point lies inside the polygon or on its boundary (even-odd rule)."""
    x, y = point
    inside = False
    count = len(polygon)
    for i in range(count):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % count]
        cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)
        if (
            abs(cross) < 1e-9
            and min(x1, x2) - 1e-9 <= x <= max(x1, x2) + 1e-9
            and min(y1, y2) - 1e-9 <= y <= max(y1, y2) + 1e-9
        ):
            return True
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            inside = not inside
    return inside


@dataclass(frozen=True)
class Zone:
    """A zone of the board: its name, outline polygon, and the placements it allows."""

    name: str
    title: str
    polygon: tuple[tuple[float, float], ...] = field(repr=False)

    @cached_property
    def hexes(self) -> frozenset[int]:
        """Hexes whose centre lies inside the zone: its area in hexes."""
        return frozenset(
            hex_ for hex_ in self._near() if inside_polygon(pixel_centre(hex_), self.polygon)
        )

    @cached_property
    def area(self) -> int:
        """Number of hexes whose centre lies inside the zone."""
        return len(self.hexes)

    def corners_out(self, hexes: Sequence[int]) -> int:
        """How many outline corners of a tile lie outside the zone."""
        return sum(not self._contains(point) for point in outline_corners(hexes))

    def _contains(self, point: tuple[float, float]) -> bool:
        inside = self._inside_cache.get(point)
        if inside is None:
            inside = self._inside_cache[point] = inside_polygon(point, self.polygon)
        return inside

    @cached_property
    def _inside_cache(self) -> dict[tuple[float, float], bool]:
        return {}

    def allows(self, hexes: Sequence[int]) -> bool:
        """Whether a tile on these hexes sticks out by at most two corners."""
        return self.corners_out(hexes) <= MAX_CORNERS_OUT

    @cached_property
    def tile_codes(self) -> frozenset[int]:
        """Codes ``volcano * 8 + k`` of every three-hex placement the zone allows."""
        return frozenset(
            v * 8 + k
            for v in self._near()
            for k in range(6)
            if self.allows((v, v + DELTAS[k], v + DELTAS[(k + 1) % 6]))
        )

    @cached_property
    def pair_codes(self) -> frozenset[int]:
        """Codes ``hex * 8 + k`` of every two-hex placement the zone allows."""
        return frozenset(
            h * 8 + k for h in self._near() for k in range(6) if self.allows((h, h + DELTAS[k]))
        )

    def _reach(self) -> int:
        """A hex distance from 0,0 beyond which no hex centre is inside the zone."""
        return int(max(math.hypot(x, y) for x, y in self.polygon) / 1.5) + 2

    def _near(self) -> list[int]:
        """Every hex that a tile with at most two corners out could cover (and some more)."""
        reach = self._reach() + 2
        return [
            hex_at(q, r)
            for q in range(-reach, reach + 1)
            for r in range(-reach, reach + 1)
            if abs(q) + abs(r) + abs(q + r) <= 2 * reach
        ]


def _ellipse(rx: float, ry: float, points: int = 24) -> tuple[tuple[float, float], ...]:
    return tuple(
        (
            round(rx * math.cos(2 * math.pi * i / points), 4),
            round(ry * math.sin(2 * math.pi * i / points), 4),
        )
        for i in range(points)
    )


def _scaled(
    outline: Sequence[tuple[float, float]], scale: float
) -> tuple[tuple[float, float], ...]:
    return tuple((round(x * scale, 4), round(y * scale, 4)) for x, y in outline)


# An irregular island outline (a kidney with a bay), scaled to size below.
_KIDNEY: Final = (
    (1.00, 0.00), (0.92, 0.38), (0.70, 0.66), (0.38, 0.78), (0.10, 0.62), (-0.12, 0.70),
    (-0.45, 0.86), (-0.78, 0.64), (-0.98, 0.24), (-0.96, -0.20), (-0.74, -0.60),
    (-0.40, -0.82), (0.00, -0.88), (0.42, -0.80), (0.76, -0.52), (0.95, -0.26),
)  # fmt: skip

ZONES: Final[dict[str, Zone]] = {
    "beginner": Zone("beginner", T("Beginner"), _ellipse(16.0, 13.0)),
    "intermediate-a": Zone("intermediate-a", T("Intermediate (area A)"), _ellipse(15.0, 10.3)),
    "intermediate-b": Zone("intermediate-b", T("Intermediate (area B)"), _scaled(_KIDNEY, 14.5)),
    "expert": Zone("expert", T("Expert"), _ellipse(12.5, 9.5)),
}
"""The four zones, largest first. Sizes are set so that Expert games are cramped but playable
(bench/expansions.py measures how often each zone ends a game early)."""

assert tuple(ZONES) == ZONE_NAMES, "options.ZONE_NAMES lists the zones defined here"


class BoardZone(Expansion):
    """The zone limit on every placement, and the end of the game when nothing fits."""

    limits_placement = True
    ends_without_placement = True

    def __init__(self, zone: Zone) -> None:
        self.zone = zone
        self.name = f"board:{zone.name}"

    def allows_placement(self, position: Position, code: int, hexes: tuple[int, ...]) -> bool:
        """Codes of two-hex placements are checked against the two-hex table."""
        codes = self.zone.pair_codes if len(hexes) == 2 else self.zone.tile_codes
        return code in codes

    def placement_problem(self, position: Position, hexes: tuple[int, ...]) -> Text | None:
        if self.zone.allows(hexes):
            return None
        out = self.zone.corners_out(hexes)
        return refusal("outside-zone", zone=self.zone.title, corners=out)
