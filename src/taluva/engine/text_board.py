"""A plain-text picture of the island, for terminals, logs and doctests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from taluva.engine.hexes import coords
from taluva.engine.tiles import TERRAIN_LETTERS

if TYPE_CHECKING:
    from taluva.engine.game import Game

_BUILDING_MARKS = {"hut": "h", "temple": "T", "tower": "W"}


def board_text(game: Game) -> str:
    """Rows of hexes, each shown as terrain letter, level and building (``J1``, ``C2a``...).

    Row ``r`` is shifted by half a hex per row so that neighbours stay next to each other.
    A building shows as its owner's letter (a, b, ...): lower case for huts, upper case for a
    temple, with ``*`` for a tower. Each row starts with its ``r``.
    """
    land = game.land()
    if not land:
        return "(no tiles yet)"
    cells = {coords(h): h for h in land}
    left = min(2 * q + r for q, r in cells)
    rows = range(min(r for _, r in cells), max(r for _, r in cells) + 1)
    lines = []
    for r in rows:
        line = ""
        for (q, row), hex_ in sorted(cells.items()):
            if row != r:
                continue
            text = f"{TERRAIN_LETTERS[game.terrain(hex_) or 0]}{game.level(hex_)}"
            piece = game.building(hex_)
            if piece is not None:
                owner = "abcde"[piece[0]]
                text += {"hut": owner, "temple": owner.upper(), "tower": owner + "*"}[piece[1]]
            column = 3 * (2 * q + r - left)
            line = line.ljust(column) + text
        lines.append(f"{r:>4} {line}".rstrip())
    return "\n".join(lines)
