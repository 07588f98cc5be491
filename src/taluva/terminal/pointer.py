"""Where a person points on the island: the cursor, the turn of the tile in hand, the
double-hex tile chosen, the build previewed and the move hinted, with the legal spots
around them and the overlay they draw on the map.

No Textual here: the game screen turns keys and clicks into these methods.
"""

from __future__ import annotations

from typing import Final

from taluva.engine.game import Game
from taluva.engine.hexes import DELTAS, coords, hex_at, pixel_centre
from taluva.engine.moves import DOUBLE, DRAW, EXPAND, HUT, SHIP, TEMPLE, TILE, TOWER, Move, MoveKind
from taluva.engine.tiles import double_footprint, double_terrains, footprint, tile_terrains
from taluva.render.position import lagoons_of, move_hexes
from taluva.terminal.mapview import Overlay
from taluva.terminal.session import Session

BUILD_ORDER: Final = (HUT, EXPAND, TEMPLE, TOWER, SHIP)
"""The order of the kinds of build in the build menu."""


def tile_spots(legal: list[Move], kind: MoveKind, code: str, orientation: int) -> frozenset[int]:
    """Anchor hexes where the tile (or double-hex ``code``) fits in ``orientation``."""
    spots = set()
    for move in legal:
        if move.kind != kind or (kind == DOUBLE and move.tile != code):
            continue
        if move.orientation == orientation:
            spots.add(move.hex)
        if kind == DOUBLE and code in ("VV", "JJ") and move.orientation + 3 == orientation:
            spots.add(move.hex + DELTAS[move.orientation])
    return frozenset(spots)


def ghost_cells(move: Move, tile: str | None) -> dict[int, int]:
    """Hex to terrain for the ghost of a tile or double-hex move (``tile``: the drawn code)."""
    if move.kind == TILE:
        hexes: tuple[int, ...] = footprint(move.hex, move.orientation)
        terrains: tuple[int, ...] = tile_terrains(tile or "")
    else:
        hexes = double_footprint(move.hex, move.orientation)
        terrains = double_terrains(move.tile)
    return dict(zip(hexes, terrains, strict=True))


def _reading_order(spot: tuple[int, int]) -> tuple[int, int, int]:
    q, r = coords(spot[0])
    return r, q, spot[1]


class Pointer:
    """A person's move in the making over a session's game: the cursor hex (and the column
    that up and down keep), the tile's orientation, the double-hex tile chosen, the build
    previewed in the menu and the move the AI hinted."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.cursor = hex_at(0, 0)
        self.column = 0
        self.orientation = 0
        self.double: str | None = None
        self.preview: Move | None = None
        self.hinted: Move | None = None

    # ------------------------------------------------------------------ the position

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def human_turn(self) -> bool:
        return not self.game.is_over and not self.session.ai_to_move

    def legal(self) -> list[Move]:
        return self.game.legal_moves()

    def drawing_choice(self) -> bool:
        """Whether the player to move must first choose between drawing and a double-hex."""
        game = self.game
        return game.phase == "tile" and game.tile is None and not game.is_over

    def ghost_move(self) -> Move | None:
        """The tile move the ghost stands for at the cursor, if any tile is in hand."""
        game = self.game
        if game.phase != "tile" or not self.human_turn:
            return None
        if game.tile is not None:
            return Move.place_tile(self.cursor, self.orientation)
        if self.double is not None:
            return Move.place_double(self.double, self.cursor, self.orientation)
        return None

    def spot_moves(self) -> list[tuple[int, int]]:
        """``(hex, orientation)`` of every legal spot, in reading order (for Tab)."""
        game = self.game
        if not self.human_turn:
            return []
        legal = self.legal()
        if game.phase == "tile":
            kind = TILE if game.tile is not None else DOUBLE
            if kind == DOUBLE and self.double is None:
                return []
            found = [
                (move.hex, move.orientation)
                for move in legal
                if move.kind == kind and (kind == TILE or move.tile == self.double)
            ]
        else:
            found = sorted({(h, 0) for move in legal for h in self.action_hexes(move)})
        return sorted(found, key=_reading_order)

    def action_hexes(self, move: Move) -> tuple[int, ...]:
        """Hexes where a build can be chosen: its own, or every hex of a ship's lagoon."""
        if move.kind == SHIP:
            for lagoon in lagoons_of(self.game):
                if move.hex in lagoon:
                    return tuple(sorted(lagoon))
        return move_hexes(move)

    def builds_at(self, hex_: int) -> list[Move]:
        """The legal builds that can be chosen on a hex, in menu order."""
        return sorted(
            (move for move in self.legal() if hex_ in self.action_hexes(move)),
            key=lambda move: (BUILD_ORDER.index(move.kind), str(move)),
        )

    def near_island(self, hex_: int) -> bool:
        """Whether the cursor may go to a hex: at most three steps from land (or from the
        middle of an empty board)."""
        land = self.game.land()
        if not land:
            return hex_ in {hex_at(0, 0)} | {hex_at(0, 0) + d for d in DELTAS}
        q, r = coords(hex_)
        return any(
            max(abs(q - lq), abs(r - lr), abs(q + r - lq - lr)) <= 3 for lq, lr in map(coords, land)
        )

    # ------------------------------------------------------------------ moving the cursor

    def point_at(self, hex_: int) -> None:
        """Put the cursor on a hex and make its column the one up and down keep."""
        self.cursor = hex_
        q, r = coords(hex_)
        self.column = 2 * q + r

    def reset(self) -> None:
        """Put the cursor on the legal spot nearest the middle of the island."""
        spots = self.spot_moves()
        land = self.game.land()
        if land:
            points = [pixel_centre(h) for h in land]
            middle = (
                sum(x for x, _ in points) / len(points),
                sum(y for _, y in points) / len(points),
            )
        else:
            middle = (0.0, 0.0)

        def distance(hex_: int) -> float:
            x, y = pixel_centre(hex_)
            return (x - middle[0]) ** 2 + (y - middle[1]) ** 2

        if spots:
            self.cursor, orientation = min(spots, key=lambda spot: (distance(spot[0]), spot))
            if self.game.phase == "tile":
                self.orientation = orientation
        elif land:
            self.cursor = min(land, key=distance)
        self.point_at(self.cursor)

    def to_nearest_build(self) -> None:
        """After placing a tile, put the cursor on the nearest hex with a build."""
        hexes = {spot for spot, _ in self.spot_moves()}
        if hexes and self.cursor not in hexes:
            here = pixel_centre(self.cursor)
            self.point_at(min(
                hexes,
                key=lambda h: ((pixel_centre(h)[0] - here[0]) ** 2
                               + (pixel_centre(h)[1] - here[1]) ** 2, h),
            ))  # fmt: skip

    def step(self, direction: int) -> bool:
        """Move the cursor to the neighbour in ``direction`` (0 east, 3 west) if it is near
        the island; say whether it moved."""
        target = self.cursor + DELTAS[direction]
        if not self.near_island(target):
            return False
        self.point_at(target)
        return True

    def step_row(self, step: int) -> bool:
        """Move the cursor one row up (-1) or down (1), keeping to its column; say whether
        it moved."""
        _, r = coords(self.cursor)
        row = r + step
        q = (self.column - row + 1) // 2
        target = hex_at(q, row)
        if not self.near_island(target):
            return False
        self.cursor = target
        return True

    def next_spot(self, step: int) -> bool:
        """Jump to the next (or previous) legal spot in reading order from the cursor; False
        if there is none."""
        spots = self.spot_moves()
        if not spots:
            return False
        tile_phase = self.game.phase == "tile"
        here = _reading_order((self.cursor, self.orientation if tile_phase else 0))
        keys = [_reading_order(spot) for spot in spots]
        if step > 0:
            index = next((i for i, key in enumerate(keys) if key > here), 0)
        else:
            index = next((i for i in reversed(range(len(keys))) if keys[i] < here), -1)
        hex_, orientation = spots[index]
        if tile_phase:
            self.orientation = orientation
        self.point_at(hex_)
        return True

    def follow_hint(self, move: Move) -> None:
        """Show the AI's hint: the ghost goes where the hinted tile goes, the cursor on the
        hinted build."""
        self.hinted = move
        if move.kind in (TILE, DOUBLE):
            self.orientation = move.orientation
            self.point_at(move.hex)
        elif move.kind != DRAW:
            self.cursor = move_hexes(move)[0]

    # ------------------------------------------------------------------ drawing

    def overlay(self) -> Overlay:
        """What to draw over the map: the cursor, the ghost tile and its legal spots, the
        build previewed or the move hinted."""
        game = self.game
        overlay = Overlay(cursor=self.cursor if self.human_turn else None)
        move = self.ghost_move()
        if move is not None:
            overlay.ghost = ghost_cells(move, game.tile)
            overlay.ghost_legal = move in set(self.legal())
            kind = TILE if game.tile is not None else DOUBLE
            overlay.spots = tile_spots(self.legal(), kind, self.double or "", self.orientation)
        shown = self.preview or self.hinted
        if shown is not None and shown.kind not in (TILE, DOUBLE, DRAW):
            overlay.preview = frozenset(move_hexes(shown))
            overlay.preview_kind = "hut" if shown.kind == EXPAND else shown.kind
            overlay.preview_owner = game.to_move
        elif shown is not None and shown.kind in (TILE, DOUBLE) and move is None:
            overlay.highlight = frozenset(move_hexes(shown))
        return overlay
