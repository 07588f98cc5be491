"""A plain-text picture of the island, for terminals, logs and doctests."""

from __future__ import annotations

from taluva.engine.hexes import coords
from taluva.engine.position import Position
from taluva.engine.tiles import TERRAIN_LETTERS
from taluva.engine.wording import T

_MARKS = ("{}", "{}", "{}*")
"""How a hut, a temple and a tower show their owner's letter (a temple in upper case)."""


def board_text(position: Position) -> str:
    """Rows of hexes, each shown as terrain letter, level and building (``J1``, ``C2a``...).

    Row ``r`` is shifted by half a hex per row so that neighbours stay next to each other.
    A building shows as its owner's letter (a, b, ...): lower case for huts, upper case for a
    temple, with ``*`` for a tower. Each row starts with its ``r``.
    """
    level = position.level
    if not level:
        return T("(no tiles yet)")
    cells = {coords(h): h for h in level}
    left = min(2 * q + r for q, r in cells)
    rows = range(min(r for _, r in cells), max(r for _, r in cells) + 1)
    lines = []
    for r in rows:
        line = ""
        for (q, row), hex_ in sorted(cells.items()):
            if row != r:
                continue
            text = f"{TERRAIN_LETTERS[position.terrain[hex_]]}{level[hex_]}"
            piece = position.building.get(hex_)
            if piece is not None:
                owner = "abcde"[piece >> 2]
                kind = piece & 3
                text += _MARKS[kind].format(owner.upper() if kind == 1 else owner)
            column = 3 * (2 * q + r - left)
            line = line.ljust(column) + text
        lines.append(f"{r:>4} {line}".rstrip())
    return "\n".join(lines)
