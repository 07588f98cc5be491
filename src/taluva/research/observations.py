"""Observations for learning agents: channel-first planes over the action window, plus scalars.

Planes are ``(channels, 2R+1, 2R+1)`` arrays indexed ``[channel, r + R, q + R]`` (rows are
``r``, columns ``q``; cells outside the hexagonal window stay 0). Everything that belongs to a
player is given relative to the observing player (by default the one to move): "player 0" is
the observer, "player 1" the next in seat order, and so on. ``CHANNELS`` and ``SCALARS`` name
every entry; docs/research.md lists them. Every plane is equivariant under the six rotations
about ``0,0`` (``rotate_planes``): that is what makes rotations exact data augmentation
(except the ``zone`` plane of the Game Board expansion, whose zones are not symmetric).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from taluva.engine.expansions.board_zones import ZONES
from taluva.engine.game import Game
from taluva.engine.hexes import DIRECTIONS, coords
from taluva.engine.options import PLAYER_COUNTS, player_count_range
from taluva.engine.pieces import Piece
from taluva.engine.tiles import DOUBLE_HEX_TILES, TERRAIN_NAMES
from taluva.research.actions import DEFAULT_RADIUS, TILE_CODES, ActionSpace, action_space
from taluva.research.symmetry import rotate_hex

Planes = npt.NDArray[np.float32]
Scalars = npt.NDArray[np.float32]

LEVEL_PLANES: Final = 6
"""Levels one-hot: 1, 2, 3, 4, 5, and 6 or more."""

DIRECTION_SUFFIXES: Final = ("e", "ne", "nw", "w", "sw", "se")
PIECES: Final = tuple(piece.word for piece in Piece)
"""``hut``, ``temple``, ``tower``, ``ship``: the engine's names of the piece kinds."""
_PIECE_INDEX: Final = {name: i for i, name in enumerate(PIECES)}


def channel_names(players: int) -> tuple[str, ...]:
    """The name of each plane, in order, for a game of ``players``."""
    names = ["window"]
    names += [f"level_{n}" for n in range(1, LEVEL_PLANES)] + [f"level_{LEVEL_PLANES}+"]
    names += [f"terrain_{name}" for name in TERRAIN_NAMES]
    names += [f"edge_{suffix}" for suffix in DIRECTION_SUFFIXES]
    names += ["lagoon", "zone"]
    names += [f"p{i}_{piece}" for i in range(players) for piece in PIECES]
    names += [f"legal_tile_k{k}" for k in range(6)]
    names += [f"legal_{piece}" for piece in PIECES]
    return tuple(names)


def scalar_names(players: int) -> tuple[str, ...]:
    """The name of each scalar, in order, for a game of ``players``."""
    names = [f"p{i}_{piece}s_left" for i in range(players) for piece in PIECES]
    names += [f"p{i}_eliminated" for i in range(players)]
    names += [f"p{i}_doubles_taken" for i in range(players)]
    names += [f"unseen_{code}" for code in TILE_CODES]
    names.append("tiles_left")
    names += [f"drawn_{code}" for code in TILE_CODES]
    names += ["phase_choose", "phase_tile", "phase_build"]
    names += [f"face_up_{code}" for code in DOUBLE_HEX_TILES]
    return tuple(names)


_WINDOW: Final = 0
_LEVEL: Final = 1
_TERRAIN: Final = _LEVEL + LEVEL_PLANES
_EDGE: Final = _TERRAIN + 6
_LAGOON: Final = _EDGE + 6
_ZONE: Final = _LAGOON + 1
_PLAYERS: Final = _ZONE + 1


class Observer:
    """Builds observations of one game size (players) and window (radius).

    >>> from taluva import Game
    >>> observer = Observer(players=2, radius=3)
    >>> planes, scalars = observer.observe(Game.new(players=2, deck=["JC"] * 2))
    >>> planes.shape, scalars.shape, int(planes[observer.channel("legal_tile_k0")].sum())
    ((39, 7, 7), (71,), 1)
    """

    def __init__(self, players: int, radius: int = DEFAULT_RADIUS) -> None:
        if type(players) is not int or players not in PLAYER_COUNTS:
            raise ValueError(
                f"players is {players!r}: Taluva is for {player_count_range()} players"
            )
        self.players = players
        self.space: ActionSpace = action_space(radius)
        self.radius = radius
        self.side = 2 * radius + 1
        self.channels = channel_names(players)
        self.scalars = scalar_names(players)
        self._channel = {name: i for i, name in enumerate(self.channels)}
        self._scalar = {name: i for i, name in enumerate(self.scalars)}
        self._legal_tile = self._channel["legal_tile_k0"]
        self._legal_single = self._channel["legal_hut"]
        self.planes_shape = (len(self.channels), self.side, self.side)
        self.scalars_shape = (len(self.scalars),)
        self._cell = {h: self._cell_of(h) for h in self.space.hexes}
        self._cell_by_index = np.array([self._cell[h] for h in self.space.hexes], np.int64)
        self._window = np.zeros(self.side * self.side, np.float32)
        self._window[list(self._cell.values())] = 1.0
        self._zones: dict[str, npt.NDArray[np.float32]] = {}
        self._rotations: dict[int, tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]] = {}

    def _cell_of(self, hex_: int) -> int:
        q, r = coords(hex_)
        return (r + self.radius) * self.side + q + self.radius

    def channel(self, name: str) -> int:
        """Index of a plane by name (see ``channels``)."""
        return self._channel[name]

    def scalar(self, name: str) -> int:
        """Index of a scalar by name (see ``scalars``)."""
        return self._scalar[name]

    def cell(self, hex_: int) -> tuple[int, int]:
        """``(row, column)`` of a window hex in the planes."""
        return divmod(self._cell[hex_], self.side)

    # ------------------------------------------------------------------ observing

    def observe(
        self,
        game: Game,
        perspective: int | None = None,
        *,
        legal_actions: Sequence[int] | None = None,
        hide_tile: bool = False,
        hide_doubles: bool = False,
    ) -> tuple[Planes, Scalars]:
        """Planes and scalars of a position seen by ``perspective`` (default: the player to
        move); ``legal_actions`` may pass the position's legal actions if already known.
        ``hide_tile`` shows the position just before the tile is drawn (a chance node):
        the drawn tile goes back among the unseen ones and no placement is shown;
        ``hide_doubles`` shows no face-up double-hex tile (before they are laid)."""
        if game.player_count != self.players:
            raise ValueError(
                f"this observer is for {self.players} players, the game has {game.player_count}"
            )
        me = game.to_move if perspective is None else perspective
        players = self.players
        area = self.side * self.side
        planes = np.zeros(len(self.channels) * area, np.float32)
        planes[:area] = self._window
        cell = self._cell
        side = self.side
        cells: list[int] = []
        levels: list[int] = []
        terrains: list[int] = []
        tiles: list[int] = []
        for hex_ in game.land():
            at = cell.get(hex_)
            if at is not None:
                cells.append(at)
                levels.append(game.level(hex_))
                terrains.append(game.terrain(hex_) or 0)
                tiles.append(game.tile_index(hex_) or 0)
        where = np.array(cells, np.int64)
        level_planes = np.minimum(np.array(levels, np.int64), LEVEL_PLANES) - 1
        planes[(_LEVEL + level_planes) * area + where] = 1.0
        planes[(_TERRAIN + np.array(terrains, np.int64)) * area + where] = 1.0
        padded = np.full((side + 2) * (side + 2), -1, np.int64)
        padded[where + where // side * 2 + side + 3] = tiles
        grid = padded.reshape(side + 2, side + 2)
        centre = grid[1 : side + 1, 1 : side + 1]
        land = centre >= 0
        for k, (dq, dr) in enumerate(DIRECTIONS):
            neighbour = grid[1 + dr : side + 1 + dr, 1 + dq : side + 1 + dq]
            planes[(_EDGE + k) * area : (_EDGE + k + 1) * area] = (
                land & (neighbour != centre)
            ).ravel()
        hits: list[int] = []
        mark = hits.append
        for hex_, (owner, kind) in game.buildings().items():
            at = cell.get(hex_)
            if at is not None:
                mark((_PLAYERS + 4 * ((owner - me) % players) + _PIECE_INDEX[kind]) * area + at)
        lagoons = _lagoons(game)
        ships = _ships(game)
        for lagoon in lagoons:
            sailor = ships.get(min(lagoon))
            for hex_ in lagoon:
                at = cell.get(hex_)
                if at is None:
                    continue
                mark(_LAGOON * area + at)
                if sailor is not None:
                    mark((_PLAYERS + 4 * ((sailor - me) % players) + 3) * area + at)
        zone = getattr(game, "zone", None)
        if zone is not None:
            planes[_ZONE * area : (_ZONE + 1) * area] = self._zone_plane(zone)
        planes[hits] = 1.0
        if not hide_tile and not hide_doubles and not game.is_over:
            if legal_actions is None:
                legal_actions = self.space.legal_actions(game)
            self._mark_legal(planes, legal_actions, lagoons)
        scalars = self._scalars(game, me, hide_tile, hide_doubles)
        return planes.reshape(len(self.channels), side, side), scalars

    def _zone_plane(self, name: str) -> npt.NDArray[np.float32]:
        plane = self._zones.get(name)
        if plane is None:
            plane = np.zeros(self.side * self.side, np.float32)
            inside = [at for h, at in self._cell.items() if h in ZONES[name].hexes]
            plane[inside] = 1.0
            self._zones[name] = plane
        return plane

    def _mark_legal(
        self,
        planes: npt.NDArray[np.float32],
        legal_actions: Sequence[int],
        lagoons: list[frozenset[int]],
    ) -> None:
        space = self.space
        area = self.side * self.side
        actions = np.asarray(legal_actions, np.int64)
        cells = self._cell_by_index
        tiles = actions[actions < space.draw_action]
        planes[(self._legal_tile + tiles % 6) * area + cells[tiles // 6]] = 1.0
        for offset, base in enumerate((space.hut_base, space.temple_base, space.tower_base)):
            chosen = actions[(actions >= base) & (actions < base + space.hex_count)] - base
            planes[(self._legal_single + offset) * area + cells[chosen]] = 1.0
        ship_channel = (self._legal_single + 3) * area
        for action in actions[actions >= space.ship_base].tolist():
            hex_ = space.hexes[action - space.ship_base]
            for lagoon in lagoons:
                if hex_ in lagoon:
                    for member in lagoon:
                        at = self._cell.get(member)
                        if at is not None:
                            planes[ship_channel + at] = 1.0

    def _scalars(self, game: Game, me: int, hide_tile: bool, hide_doubles: bool) -> Scalars:
        players = self.players
        values = np.zeros(len(self.scalars), np.float32)
        eliminated = set(game.eliminated)
        for i in range(players):
            seat = (me + i) % players
            supply = game.supply(seat)
            for j, piece in enumerate(PIECES):
                values[4 * i + j] = supply[piece + "s"]
            values[4 * players + i] = 1.0 if seat in eliminated else 0.0
            values[5 * players + i] = _doubles_taken(game, seat)
        base = 6 * players
        unseen = game.unseen_tiles()
        tile = game.tile
        tiles_left = game.tiles_left
        if hide_tile and tile is not None:
            unseen[tile] += 1
            tiles_left += 1
            tile = None
        for j, code in enumerate(TILE_CODES):
            values[base + j] = unseen[code]
        values[base + 25] = tiles_left
        if tile is not None and tile in TILE_CODES:
            values[base + 26 + TILE_CODES.index(tile)] = 1.0
        phase = base + 51
        if not hide_tile and not hide_doubles and not game.is_over:
            if game.phase == "build":
                values[phase + 2] = 1.0
            elif tile is None:
                values[phase] = 1.0
            else:
                values[phase + 1] = 1.0
        face_up = set() if hide_doubles else set(getattr(game, "doubles", ()))
        for j, code in enumerate(DOUBLE_HEX_TILES):
            if code in face_up:
                values[phase + 3 + j] = 1.0
        return values

    # ------------------------------------------------------------------ rotations

    def _rotation(self, k: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """Gather indices (channels, cells) that turn planes by ``k`` sixths counter-clockwise."""
        cells = np.arange(self.side * self.side)
        for hex_, at in self._cell.items():
            cells[self._cell[rotate_hex(hex_, k)]] = at
        channels = np.arange(len(self.channels))
        for base in (_EDGE, self._legal_tile):
            for e in range(6):
                channels[base + e] = base + (e - k) % 6
        return channels, cells

    def rotate_planes(self, planes: npt.NDArray[Any], k: int) -> npt.NDArray[Any]:
        """Planes (or a batch of them) turned by ``k`` sixths of a turn counter-clockwise
        (direction ``D[i]`` becomes ``D[i + k]``): exactly the planes of the turned position."""
        k %= 6
        if k not in self._rotations:
            self._rotations[k] = self._rotation(k)
        channels, cells = self._rotations[k]
        side = self.side
        flat = planes.reshape(*planes.shape[:-2], side * side)
        turned = np.take(np.take(flat, channels, axis=-2), cells, axis=-1)
        return turned.reshape(planes.shape)


def _lagoons(game: Game) -> list[frozenset[int]]:
    lagoons = getattr(game, "lagoons", None)
    if lagoons is None or "ships" not in game.options["expansions"]:
        return []
    return list(lagoons())


def _ships(game: Game) -> dict[int, int]:
    ships = getattr(game, "ships", None)
    return dict(ships()) if callable(ships) else {}


def _doubles_taken(game: Game, player: int) -> int:
    taken = getattr(game, "doubles_taken", None)
    return int(taken(player)) if callable(taken) else 0
