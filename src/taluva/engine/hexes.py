"""Hex coordinates: axial ``(q, r)`` as docs/notation.md defines them, packed into one int.

Inside the engine a hex is the int ``q * STRIDE + r``: neighbours are one addition away,
and ordering the ints orders hexes by ``q``, then ``r``, which is the canonical order of
move text. Objects appear only at the API edge.
"""

from __future__ import annotations

import math
import re
from typing import Final

from taluva.engine.refusals import refusal

STRIDE: Final = 1024
"""Distance between columns of constant ``q``; ``r`` must stay within ±STRIDE/2."""

_HALF: Final = STRIDE // 2

DIRECTION_NAMES: Final = ("E", "NE", "NW", "W", "SW", "SE")
DIRECTIONS: Final = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""``D[k]`` of docs/notation.md, counter-clockwise from east."""

DELTAS: Final = tuple(dq * STRIDE + dr for dq, dr in DIRECTIONS)
"""The packed offset of each direction: ``neighbour = hex + DELTAS[k]``."""

ORIGIN: Final = 0
"""Hex ``0,0``, where the first volcano goes."""

LIMIT: Final = 200
"""Coordinates accepted from outside: ``|q|, |r| <= LIMIT`` (far beyond any real island)."""

_HEX_TEXT = re.compile(r"^\s*\(?\s*([+-]?\d+)\s*,\s*([+-]?\d+)\s*\)?\s*$")


def hex_at(q: int, r: int) -> int:
    """Pack axial coordinates into the engine's int form.

    >>> hex_at(0, 0), hex_at(1, -2) == hex_at(1, 0) - 2
    (0, True)
    """
    return q * STRIDE + r


def coords(hex_: int) -> tuple[int, int]:
    """Unpack an engine hex into ``(q, r)``.

    >>> coords(hex_at(-2, 1))
    (-2, 1)
    """
    q = (hex_ + _HALF) // STRIDE
    return q, hex_ - q * STRIDE


def neighbours(hex_: int) -> tuple[int, ...]:
    """The six hexes sharing an edge with ``hex_``, in direction order."""
    return tuple(hex_ + d for d in DELTAS)


def distance(a: int, b: int) -> int:
    """Number of steps between two hexes."""
    aq, ar = coords(a)
    bq, br = coords(b)
    dq, dr = aq - bq, ar - br
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def format_hex(hex_: int) -> str:
    """Canonical text ``q,r`` of a hex.

    >>> format_hex(hex_at(1, -2))
    '1,-2'
    """
    q, r = coords(hex_)
    return f"{q},{r}"


def parse_hex(text: str) -> int:
    """Read ``q,r`` (spaces and parentheses tolerated); raise ValueError on anything else.

    >>> parse_hex(" -2, 1") == hex_at(-2, 1)
    True
    """
    match = _HEX_TEXT.match(text)
    if match is None:
        raise ValueError(refusal("not-a-hex", text=repr(text.strip())))
    q, r = int(match.group(1)), int(match.group(2))
    if abs(q) > LIMIT or abs(r) > LIMIT:
        raise ValueError(refusal("hex-off-map", hex=f"{q},{r}", limit=LIMIT))
    return hex_at(q, r)


def pixel_centre(hex_: int, size: float = 1.0) -> tuple[float, float]:
    """Screen position of a hex centre (pointy-top, ``r`` growing downwards)."""
    q, r = coords(hex_)
    return size * math.sqrt(3) * (q + r / 2), size * 1.5 * r
