"""A plain-text picture of the island, for terminals, logs and doctests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from taluva.hexes import coords
from taluva.tiles import TERRAIN_LETTERS

if TYPE_CHECKING:
    from taluva.game import Game

_BUILDING_MARKS = {"hut": "h", "temple": "T", "tower": "W"}


def board_text(game: Game) -> str:
    """Rows of hexes, each shown as terrain letter, level and building (``J1``, ``C2a``...).

    Row ``r`` is shifted by half a cell per row so that neighbours stay next to each other;
    a building shows as the owner's letter (a, b, ...), upper case for a temple, ``*`` suffix
    for a tower.
    """
    land = game.land()
    if not land:
        return "(no tiles yet)"
    cells = {coords(h): h for h in land}
    qs = [q for q, _ in cells]
    rs = [r for _, r in cells]
    lines = []
    for r in range(min(rs), max(rs) + 1):
        xs = [2 * q + r for q in qs]
        row = [" " * (2 * (max(xs) - min(xs)) + 8)]
        chars = list(row[0])
        for q in range(min(qs) - max(rs), max(qs) - min(rs) + 1):
            hex_ = cells.get((q, r))
            if hex_ is None:
                continue
            text = f"{TERRAIN_LETTERS[game.terrain(hex_) or 0]}{game.level(hex_)}"
            piece = game.building(hex_)
            if piece is not None:
                owner = "abcde"[piece[0]]
                text += owner.upper() if piece[1] == "temple" else owner
                if piece[1] == "tower":
                    text += "*"
            column = 2 * ((2 * q + r) - min(xs))
            for i, ch in enumerate(text):
                if column + i < len(chars):
                    chars[column + i] = ch
        lines.append(f"{r:>4} " + "".join(chars).rstrip())
    return "\n".join(lines)
