"""A fixed action space for learning agents: every move as one integer, whatever the position.

The island is played inside a hexagonal *window* of ``radius`` hexes around ``0,0``; each
block of actions is indexed by the window's hexes (sorted by ``q``, then ``r``):

==========  ===========  ===================================================================
block       size         action
==========  ===========  ===================================================================
tile        6·H          ``tile Q,R K``: volcano hex x orientation
draw        1            ``draw`` (Double-Hex expansion)
double      24·H         ``double XY Q,R K``: hex x (VL, VJ, VS: k 0-5; VV, JJ: k 0-2)
hut         H            ``hut Q,R``
expand      5·H          ``expand TERRAIN ...``: settlement anchor (its lowest hex) x terrain
temple      H            ``temple Q,R``
tower       H            ``tower Q,R``
ship        H            ``ship Q,R``: the lagoon's lowest hex (Ships expansion)
==========  ===========  ===================================================================

``H = 3·radius·(radius + 1) + 1``; the default radius 12 gives 469 hexes and 18 292 actions.
Every action but ``expand`` names its move text by itself; an expansion names its settlement,
and the hexes it fills come from the position. The window is a board edge: a tile is offered
only when every hex of it lies inside, and a player left with no such placement ends the game
as the Game Board expansion's "no legal tile placement" does (``window_outcome``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final

from taluva.engine.errors import IllegalMove
from taluva.engine.game import Game
from taluva.engine.hexes import DELTAS, distance, format_hex, hex_at
from taluva.engine.moves import DOUBLE, DRAW, EXPAND, HUT, SHIP, TEMPLE, TILE, TOWER, Move, MoveKind
from taluva.engine.outcome import PIECE_NAMES, Outcome, Reason, rank_players
from taluva.engine.tiles import BASE_TILE_COUNTS, TERRAIN_NAMES, VOLCANO

DEFAULT_RADIUS: Final = 12
"""Hexes from ``0,0`` to the window's edge (469 hexes in all; docs/research.md says why)."""

TILE_CODES: Final = tuple(sorted(BASE_TILE_COUNTS))
"""The 25 regular tiles in a fixed order (chance outcomes, observation scalars)."""

DOUBLE_SLOTS: Final = tuple((code, k) for code in ("VL", "VJ", "VS") for k in range(6)) + tuple(
    (code, k) for code in ("VV", "JJ") for k in range(3)
)
"""The 24 double-hex placements at one hex: ``VV`` and ``JJ`` read the same from either end,
so only orientations 0-2 are canonical for them (docs/notation.md)."""

EXPAND_TERRAINS: Final = (1, 2, 3, 4, 5)
"""Jungle, clearing, sand, rock, lake: the terrains a settlement expands into."""

CHANCE_PLAYER: Final = -1
TERMINAL_PLAYER: Final = -4
"""OpenSpiel's player ids for chance nodes and finished games."""


class OutsideWindow(IllegalMove):
    """A move whose hexes reach past the action window, so no action names it."""


def window_hexes(radius: int) -> tuple[int, ...]:
    """The hexes within ``radius`` steps of ``0,0``, sorted by ``q`` then ``r``.

    >>> [format_hex(h) for h in window_hexes(1)]
    ['-1,0', '-1,1', '0,-1', '0,0', '0,1', '1,-1', '1,0']
    """
    if type(radius) is not int or radius < 1:
        raise ValueError(f"the window radius is {radius!r}: it must be a whole number, 1 or more")
    return tuple(
        hex_at(q, r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if distance(hex_at(q, r), 0) <= radius
    )


class ActionSpace:
    """The actions of one window size: encoding, decoding and the legal actions of a game.

    >>> space = ActionSpace(radius=2)
    >>> space.size, space.encode(None, Move.parse("tile 0,0 3"))
    (742, 57)
    >>> str(space.decode(None, 57))
    'tile 0,0 3'
    """

    def __init__(self, radius: int = DEFAULT_RADIUS) -> None:
        self.radius = radius
        self.hexes = window_hexes(radius)
        hex_count = len(self.hexes)
        self.hex_count = hex_count
        self._index = {h: i for i, h in enumerate(self.hexes)}
        self.tile_base = 0
        self.draw_action = 6 * hex_count
        self.double_base = self.draw_action + 1
        self.hut_base = self.double_base + 24 * hex_count
        self.expand_base = self.hut_base + hex_count
        self.temple_base = self.expand_base + 5 * hex_count
        self.tower_base = self.temple_base + hex_count
        self.ship_base = self.tower_base + hex_count
        self.size = self.ship_base + hex_count
        inside = self._index.keys()
        self.tile_fits: frozenset[int] = frozenset(
            h * 8 + k
            for h in self.hexes
            for k in range(6)
            if h + DELTAS[k] in inside and h + DELTAS[(k + 1) % 6] in inside
        )
        """Placement codes ``volcano * 8 + k`` of the regular tiles that lie inside."""
        self._double_slot = {slot: i for i, slot in enumerate(DOUBLE_SLOTS)}
        self._known: dict[Move, int] = {}
        """Actions of the moves met so far that name their action alone (-1: outside)."""
        self._single = {
            HUT: self.hut_base,
            TEMPLE: self.temple_base,
            TOWER: self.tower_base,
            SHIP: self.ship_base,
        }

    def __repr__(self) -> str:
        return f"ActionSpace(radius={self.radius})"

    # ------------------------------------------------------------------ hexes

    def hex_index(self, hex_: int) -> int:
        """Position of a hex in the window's order; raise OutsideWindow for a hex outside."""
        index = self._index.get(hex_)
        if index is None:
            raise OutsideWindow(
                f"hex {format_hex(hex_)} lies outside the action window of radius {self.radius}"
            )
        return index

    def contains(self, hex_: int) -> bool:
        """Whether a hex lies inside the window."""
        return hex_ in self._index

    # ------------------------------------------------------------------ encoding

    def encode(self, game: Game | None, move: Move | str) -> int:
        """The action of a move (or move text). Only ``expand`` needs the game, to find the
        settlement; raise OutsideWindow when the move's anchor hex is outside the window."""
        if isinstance(move, str):
            move = Move.parse(move)
        kind = move.kind
        if kind == TILE:
            return self.tile_base + 6 * self.hex_index(move.hex) + move.orientation
        if kind in self._single:
            return self._single[kind] + self.hex_index(move.hex)
        if kind == EXPAND:
            if game is None:
                raise ValueError(f"{move}: encoding an expansion needs the game (its settlement)")
            table = expansion_anchors(game)
            anchor = table.get((move.terrain, move.hexes))
            if anchor is None:
                raise IllegalMove(
                    f"{move}: no settlement of player {game.to_move + 1} expands into exactly "
                    "these hexes"
                )
            return self.expand_base + 5 * self.hex_index(anchor) + move.terrain - 1
        if kind == DRAW:
            return self.draw_action
        if kind == DOUBLE:
            slot = self._double_slot.get((move.tile, move.orientation))
            if slot is None:
                raise ValueError(f"{move}: not a canonical double-hex placement")
            return self.double_base + 24 * self.hex_index(move.hex) + slot
        raise ValueError(f"{move}: unknown move kind {kind!r}")

    def decode(self, game: Game | None, action: int) -> Move:
        """The move an action names; expansions need the game to list the hexes they fill.

        Raises ValueError for an index outside the action space, or an expansion anchor that
        is not the lowest hex of one of the mover's settlements.
        """
        if type(action) is not int:
            try:
                action = int(action)
            except (TypeError, ValueError):
                raise ValueError(f"an action is a whole number, not {action!r}") from None
        if not 0 <= action < self.size:
            raise ValueError(f"action {action} is outside the action space 0..{self.size - 1}")
        if action < self.draw_action:
            index, k = divmod(action - self.tile_base, 6)
            return Move.place_tile(self.hexes[index], k)
        if action == self.draw_action:
            return Move(DRAW)
        if action < self.hut_base:
            index, slot = divmod(action - self.double_base, 24)
            code, k = DOUBLE_SLOTS[slot]
            return Move(DOUBLE, self.hexes[index], k, (), code)
        if action < self.expand_base:
            return Move(HUT, self.hexes[action - self.hut_base])
        if action < self.temple_base:
            index, terrain_slot = divmod(action - self.expand_base, 5)
            return self._expansion(game, self.hexes[index], EXPAND_TERRAINS[terrain_slot])
        if action < self.tower_base:
            return Move(TEMPLE, self.hexes[action - self.temple_base])
        if action < self.ship_base:
            return Move(TOWER, self.hexes[action - self.tower_base])
        return Move(SHIP, self.hexes[action - self.ship_base])

    def _expansion(self, game: Game | None, anchor: int, terrain: int) -> Move:
        where = f"expand {TERRAIN_NAMES[terrain]} from {format_hex(anchor)}"
        if game is None:
            raise ValueError(f"{where}: decoding an expansion needs the game (its settlement)")
        player = game.to_move
        for group in game.settlements(player):
            if min(group) == anchor:
                field = _field(game, group, terrain)
                if not field:
                    raise ValueError(
                        f"{where}: the settlement has no {TERRAIN_NAMES[terrain]} "
                        "hex to expand into"
                    )
                return Move.expand(terrain, sorted(field))
        raise ValueError(
            f"{where}: {format_hex(anchor)} is not the lowest hex of a settlement of player "
            f"{player + 1}"
        )

    def describe(self, action: int) -> str:
        """A position-free description of an action: its move text, or for an expansion
        ``expand TERRAIN from Q,R`` (the settlement's anchor)."""
        if self.expand_base <= action < self.temple_base:
            index, terrain_slot = divmod(action - self.expand_base, 5)
            terrain = TERRAIN_NAMES[EXPAND_TERRAINS[terrain_slot]]
            return f"expand {terrain} from {format_hex(self.hexes[index])}"
        return str(self.decode(None, action))

    def kind(self, action: int) -> MoveKind:
        """The move kind an action belongs to (``tile``, ``draw``, ``double``, ``hut``...)."""
        for base, name in (
            (self.ship_base, SHIP),
            (self.tower_base, TOWER),
            (self.temple_base, TEMPLE),
            (self.expand_base, EXPAND),
            (self.hut_base, HUT),
            (self.double_base, DOUBLE),
            (self.draw_action, DRAW),
        ):
            if action >= base:
                return name
        return TILE

    # ------------------------------------------------------------------ positions

    def fits(self, move: Move) -> bool:
        """Whether every hex a move touches lies inside the window."""
        kind = move.kind
        if kind == TILE:
            return move.hex * 8 + move.orientation in self.tile_fits
        if kind == DOUBLE:
            index = self._index
            return move.hex in index and move.hex + DELTAS[move.orientation] in index
        if kind == DRAW:
            return True
        if kind == EXPAND:
            return all(h in self._index for h in move.hexes)
        return move.hex in self._index

    def legal_actions(self, game: Game, moves: Sequence[Move] | None = None) -> list[int]:
        """The legal actions of a position, sorted (empty when the game is over).

        ``moves`` may pass the game's legal moves when the caller already has them.
        """
        if moves is None:
            moves = game.legal_moves()
        actions: list[int] = []
        append = actions.append
        known = self._known
        table: dict[tuple[int, tuple[int, ...]], int] | None = None
        for move in moves:
            action = known.get(move)
            if action is not None:
                if action >= 0:
                    append(action)
            elif move.kind == EXPAND:
                if table is None:
                    table = expansion_anchors(game)
                position = self._index.get(table[(move[2], move[3])])
                if position is not None and self.fits(move):
                    append(self.expand_base + 5 * position + move[2] - 1)
            else:
                action = self.encode(game, move) if self.fits(move) else -1
                known[move] = action
                if action >= 0:
                    append(action)
        actions.sort()
        return actions

    def window_outcome(
        self, game: Game, legal_actions: Sequence[int] | None = None
    ) -> Outcome | None:
        """The game's result, counting the window as a board edge: a running game whose player
        has legal moves but none inside the window ends as "no-placement" (docs/rules.md)."""
        if game.is_over:
            return game.result
        if legal_actions is None:
            legal_actions = self.legal_actions(game)
        if legal_actions:
            return None
        return final_ranking(game, Reason.NO_PLACEMENT)


def final_ranking(game: Game, reason: Reason) -> Outcome:
    """End a running game now and rank its players as when the tiles run out (docs/rules.md)."""
    supplies = [
        tuple(game.supply(p)[name] for name in PIECE_NAMES) for p in range(game.player_count)
    ]
    ships = "ships" in game.options["expansions"]
    return Outcome(rank_players(supplies, game.eliminated, None, ships), reason)


def returns_of(outcome: Outcome, players: int) -> list[float]:
    """Each player's return in [-1, 1]: (players ranked below - players ranked above) / (n - 1).

    Zero-sum for any number of players; two players get +1 / -1, or 0 each for a shared place.

    >>> returns_of(Outcome(((1,), (0, 2)), Reason.TILES), 3)
    [-0.5, 1.0, -0.5]
    """
    places = outcome.places()
    values = [0.0] * players
    for player, place in places.items():
        below = sum(1 for other in places.values() if other > place)
        values[player] = (below - (place - 1)) / (players - 1)
    return values


def expansion_anchors(game: Game) -> dict[tuple[int, tuple[int, ...]], int]:
    """For the player to move: ``(terrain, hexes filled) -> anchor`` of every expansion, the
    anchor being the lowest hex of the settlement (the lowest such settlement when two
    settlements fill the same hexes, so that each expand move has exactly one action)."""
    return {key: min(groups[0]) for key, groups in expansion_settlements(game).items()}


def expansion_settlements(game: Game) -> dict[tuple[int, tuple[int, ...]], list[frozenset[int]]]:
    """For the player to move: ``(terrain, hexes filled) -> settlements`` that expand so,
    ordered by their lowest hex (usually one; two settlements can reach the same hexes)."""
    table: dict[tuple[int, tuple[int, ...]], list[frozenset[int]]] = {}
    if game.phase != "build":
        return table
    for group in game.settlements(game.to_move):
        fields: dict[int, set[int]] = {}
        for hex_ in _border(group):
            terrain = _buildable_terrain(game, hex_)
            if terrain is not None:
                fields.setdefault(terrain, set()).add(hex_)
        for terrain, field in fields.items():
            table.setdefault((terrain, tuple(sorted(field))), []).append(group)
    return table


def _border(group: Iterable[int]) -> set[int]:
    hexes = set(group)
    return {h + d for h in hexes for d in DELTAS} - hexes


def _buildable_terrain(game: Game, hex_: int) -> int | None:
    terrain = game.terrain(hex_)
    if terrain is None or terrain == VOLCANO or game.building(hex_) is not None:
        return None
    return terrain


def _field(game: Game, group: frozenset[int], terrain: int) -> set[int]:
    return {h for h in _border(group) if _buildable_terrain(game, h) == terrain}


@lru_cache(maxsize=8)
def action_space(radius: int = DEFAULT_RADIUS) -> ActionSpace:
    """The shared ActionSpace of a radius (building one costs a few milliseconds)."""
    return ActionSpace(radius)
