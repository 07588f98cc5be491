"""Pictures of a position for environments: fixed-size RGB frames, SVG, and text.

Frames cover the whole action window, so every frame of a game (and of every game with the
same radius) has the same size, as video recorders want. Hexes are pointy-top as in
docs/notation.md; each shows its terrain (darker for higher levels), tile outlines, and buildings
in the owner's colour: a small disc for huts, a large disc for a temple, a square for a tower,
a diamond for a ship (on its lagoon's lowest hex).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt

from taluva.engine.game import Game
from taluva.engine.hexes import DELTAS, coords
from taluva.engine.outcome import Outcome
from taluva.render.svg import svg_board
from taluva.research.actions import window_hexes

Frame = npt.NDArray[np.uint8]

TERRAIN_COLOURS: Final = (
    (150, 40, 30),  # volcano
    (40, 120, 50),  # jungle
    (140, 200, 90),  # clearing
    (230, 205, 120),  # sand
    (140, 135, 130),  # rock
    (70, 140, 210),  # lake
)
SEA: Final = (200, 225, 240)
LAGOON: Final = (150, 195, 225)
OUTSIDE: Final = (235, 235, 235)
OUTLINE: Final = (25, 25, 25)
PLAYER_COLOURS: Final = (
    (250, 250, 250),
    (20, 20, 20),
    (230, 60, 40),
    (40, 90, 230),
    (245, 200, 30),
)
_SQRT3: Final = math.sqrt(3.0)


class _Grid:
    """Per-pixel geometry of one window and hex size, computed once."""

    def __init__(self, radius: int, size: int) -> None:
        self.hexes = window_hexes(radius)
        index = {h: i for i, h in enumerate(self.hexes)}
        margin = size
        half_width = _SQRT3 * size * (radius + 0.5)
        half_height = 1.5 * size * radius + size
        self.width = math.ceil(2 * (half_width + margin))
        self.height = math.ceil(2 * (half_height + margin))
        ys, xs = np.mgrid[0 : self.height, 0 : self.width].astype(np.float64)
        x = xs + 0.5 - self.width / 2
        y = ys + 0.5 - self.height / 2
        fq = (_SQRT3 / 3 * x - y / 3) / size
        fr = (2 / 3 * y) / size
        q, r = _round_axial(fq, fr)
        lookup = np.full(q.shape, -1, np.int64)
        for hex_, i in index.items():
            hq, hr = coords(hex_)
            lookup[(q == hq) & (r == hr)] = i
        self.cell = lookup
        cx = size * _SQRT3 * (q + r / 2)
        cy = size * 1.5 * r
        dx, dy = x - cx, y - cy
        self.dx, self.dy = dx / size, dy / size
        projections = []
        for dq, dr in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)):
            ux, uy = _SQRT3 * (dq + dr / 2), 1.5 * dr
            length = math.hypot(ux, uy)
            projections.append((dx * ux + dy * uy) / length)
        stacked = np.stack(projections)
        self.edge_direction = np.argmax(stacked, axis=0)
        self.near_edge = (size * _SQRT3 / 2 - np.max(stacked, axis=0)) < max(1.0, size / 10)


def _round_axial(
    fq: npt.NDArray[np.float64], fr: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    fs = -fq - fr
    q, r, s = np.round(fq), np.round(fr), np.round(fs)
    dq, dr, ds = np.abs(q - fq), np.abs(r - fr), np.abs(s - fs)
    fix_q = (dq > dr) & (dq > ds)
    fix_r = ~fix_q & (dr > ds)
    q = np.where(fix_q, -r - s, q)
    r = np.where(fix_r, -q - s, r)
    return q.astype(np.int64), r.astype(np.int64)


@lru_cache(maxsize=4)
def _grid(radius: int, size: int) -> _Grid:
    return _Grid(radius, size)


def rgb_frame(game: Game, radius: int, size: int = 10) -> Frame:
    """An ``(height, width, 3)`` uint8 picture of the window around ``0,0``."""
    grid = _grid(radius, size)
    count = len(grid.hexes)
    colours = np.zeros((count + 1, 3), np.uint8)
    colours[count] = OUTSIDE
    colours[:count] = SEA
    edges = np.zeros((count + 1, 6), bool)
    lagoon_hexes: set[int] = set()
    lagoons = game.lagoons() if "ships" in game.options["expansions"] else []
    for lagoon in lagoons:
        lagoon_hexes |= lagoon
    for i, hex_ in enumerate(grid.hexes):
        terrain = game.terrain(hex_)
        if terrain is None:
            if hex_ in lagoon_hexes:
                colours[i] = LAGOON
            continue
        level = game.level(hex_)
        shade = max(0.45, 1.0 - 0.12 * (level - 1))
        colours[i] = [int(c * shade) for c in TERRAIN_COLOURS[terrain]]
        own = game.tile_index(hex_)
        for k, delta in enumerate(DELTAS):
            edges[i, k] = game.tile_index(hex_ + delta) != own
    cell = np.where(grid.cell < 0, count, grid.cell)
    frame = colours[cell]
    outline = grid.near_edge & edges[cell, grid.edge_direction]
    frame[outline] = OUTLINE
    index = {h: i for i, h in enumerate(grid.hexes)}
    dx, dy = grid.dx, grid.dy
    for hex_, (owner, kind) in game.buildings().items():
        _mark(frame, cell == index.get(hex_, -2), dx, dy, kind, PLAYER_COLOURS[owner])
    ships = game.ships() if lagoons else {}
    for hex_, owner in ships.items():
        _mark(frame, cell == index.get(hex_, -2), dx, dy, "ship", PLAYER_COLOURS[owner])
    return frame


def _mark(
    frame: Frame,
    at: npt.NDArray[np.bool_],
    dx: npt.NDArray[np.float64],
    dy: npt.NDArray[np.float64],
    kind: str,
    colour: tuple[int, int, int],
) -> None:
    distance = np.hypot(dx, dy)
    if kind == "hut":
        inner, ring = distance < 0.28, distance < 0.36
    elif kind == "temple":
        inner, ring = distance < 0.5, distance < 0.58
    elif kind == "tower":
        box = np.maximum(np.abs(dx), np.abs(dy))
        inner, ring = box < 0.42, box < 0.5
    else:
        diamond = np.abs(dx) + np.abs(dy)
        inner, ring = diamond < 0.5, diamond < 0.6
    frame[at & ring] = OUTLINE if sum(colour) > 300 else (235, 235, 235)
    frame[at & inner] = colour


def svg_picture(game: Game) -> str:
    """The project's SVG drawing of the position (``taluva.render.svg``)."""
    return svg_board(game, coordinates=False)


def ansi_picture(game: Game, outcome: Outcome | None = None) -> str:
    """The text board with a line saying whose turn it is, or how the game ended."""
    lines = [str(game)]
    outcome = outcome or game.result
    if outcome is not None:
        lines.append(f"over: {dict(outcome)}")
    else:
        tile = f", tile {game.tile}" if game.tile else ""
        lines.append(f"to move: player_{game.to_move} ({game.phase}{tile})")
    return "\n".join(lines)
