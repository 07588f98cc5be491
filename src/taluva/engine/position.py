"""The position: one immutable snapshot of a game, its setup, and the caches move generation
keeps on it.

A move never changes a position; the rules build the next one (``turns.apply``), sharing
every container the move does not touch. Caches live on the position they describe, so
they cannot outlive their inputs: the setup (players, options, draw pile, face-up tiles) is
part of the position, and a different pile means a different position (``Position.rebased``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from taluva.engine.moves import Move
from taluva.engine.options import Options
from taluva.engine.outcome import Outcome, Resignation
from taluva.engine.pieces import BASE_PIECE_TYPES
from taluva.engine.refusals import refusal
from taluva.engine.wording import Text


class Phase(StrEnum):
    """Where the player to move is in their turn."""

    TILE = "tile"
    BUILD = "build"
    OVER = "over"

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:  # shows as the text it equals, as before it was an enum
        return repr(self.value)


TILE_PHASE: Final = Phase.TILE
BUILD_PHASE: Final = Phase.BUILD
OVER: Final = Phase.OVER

EMPTY: Final[frozenset[int]] = frozenset()

Pending = tuple[Any, Iterable[int]] | None
"""Hexes changed since a cache was last brought up to date, as a chain ``(older, hexes)``."""


class Expansion:
    """The points where an expansion changes the base rules; every default is the base game.

    The base rules call these hooks by name (``placement.py``, ``building.py``,
    ``turns.py``); an expansion module overrides the ones it needs and lists itself in
    ``expansions.catalogue``.
    """

    name: str = ""
    piece_types: int = 0
    """Kinds of pieces it adds that count for victory and ranking (Ships: 1)."""
    limits_placement: bool = False
    """Whether ``allows_placement`` must be asked about every placement."""
    ends_without_placement: bool = False
    """Whether a player with no legal tile placement ends the game (Game Board)."""

    def allows_placement(self, position: Position, code: int, hexes: tuple[int, ...]) -> bool:
        """Whether a placement (code ``hex * 8 + k``) that the base rules allow stays legal."""
        return True

    def placement_problem(self, position: Position, hexes: tuple[int, ...]) -> Text | None:
        """Why this expansion refuses a tile on these hexes, in words, or None."""
        return None

    def tile_choices(self, position: Position) -> list[Move]:
        """Moves offered at the start of a turn before any tile is drawn."""
        return []

    def offers_choice(self, position: Position, player: int, pile: bool) -> bool:
        """Whether ``player``'s turn starts with a choice instead of a drawn tile."""
        return False

    def builds(self, position: Position, player: int) -> list[Move]:
        """Building actions it adds for ``player``."""
        return []

    def owns(self, move: Move) -> bool:
        """Whether the move is one of this expansion's own (it checks and plays it)."""
        return False

    def canonical(self, position: Position, move: Move) -> Move | None:
        """One of its own moves in the form the engine lists, or None if it is not legal."""
        return move

    def problem(self, position: Position, move: Move) -> Text:
        """Why one of its own moves is not legal here, in words (a refusal with its code)."""
        return refusal("not-a-move-here")

    def play(self, position: Position, new: Position, move: Move) -> None:
        """Apply one of its own moves to ``new`` (a copy of ``position``)."""
        raise NotImplementedError

    def land_added(self, position: Position, new: Position, hexes: tuple[int, ...]) -> None:
        """Called when a tile raises new land from the sea."""

    def coast_changed(self, position: Position, new_land: set[int], coast: set[int]) -> None:
        """Called when the placement sets catch up with new land, to update its own."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What a game is played with and never changes: players, options, the draw pile in draw
    order, the face-up double-hex tiles, and the expansions' hooks."""

    players: tuple[str, ...]
    options: Options
    deck: tuple[str, ...]
    doubles: tuple[str, ...]
    expansions: tuple[Expansion, ...] = ()
    placement_limits: tuple[Expansion, ...] = field(default=(), init=False, repr=False)
    choice_hooks: tuple[Expansion, ...] = field(default=(), init=False, repr=False)
    build_hooks: tuple[Expansion, ...] = field(default=(), init=False, repr=False)
    land_hooks: tuple[Expansion, ...] = field(default=(), init=False, repr=False)
    coast_hooks: tuple[Expansion, ...] = field(default=(), init=False, repr=False)
    piece_types: int = field(default=BASE_PIECE_TYPES, init=False)
    ends_without_placement: bool = field(default=False, init=False)
    adjacent_hut: bool = field(default=False, init=False)
    player_count: int = field(default=0, init=False)
    """Number of seats."""

    def __post_init__(self) -> None:
        def overriding(hook: str) -> tuple[Expansion, ...]:
            base = getattr(Expansion, hook)
            return tuple(e for e in self.expansions if getattr(type(e), hook) is not base)

        fill = object.__setattr__  # frozen: derived fields are set once, here
        fill(self, "placement_limits", tuple(e for e in self.expansions if e.limits_placement))
        fill(self, "choice_hooks", overriding("offers_choice"))
        fill(self, "build_hooks", overriding("builds"))
        fill(self, "land_hooks", overriding("land_added"))
        fill(self, "coast_hooks", overriding("coast_changed"))
        fill(self, "piece_types", BASE_PIECE_TYPES + sum(e.piece_types for e in self.expansions))
        fill(self, "ends_without_placement", any(e.ends_without_placement for e in self.expansions))
        fill(self, "adjacent_hut", self.options.adjacent_hut)
        fill(self, "player_count", len(self.players))

    def owner_of(self, move: Move) -> Expansion | None:
        """The expansion whose move this is (``draw``, ``double``, ``ship``), or None."""
        return next((e for e in self.expansions if e.owns(move)), None)

    def with_deck(self, deck: tuple[str, ...]) -> Setup:
        """The same setup with another draw pile."""
        return Setup(self.players, self.options, deck, self.doubles, self.expansions)


class Position:
    """One position. Never changed once a move has been played from it, except for caches.

    The fields are the board (``level``, ``terrain``, ``tile_at``, ``building``), who holds
    what (``supply``, ``destroyed``), whose turn and which phase, and what move generation
    keeps up to date move by move (free hexes, settlements, legal placements).
    """

    __slots__ = (
        "blocked",
        "building",
        "builds",
        "deck_pos",
        "destroyed",
        "dirty",
        "doubles_left",
        "doubles_taken",
        "eliminated",
        "erupt",
        "free",
        "lagoons",
        "land_count",
        "land_edges",
        "land_order",
        "land_triangles",
        "level",
        "new_land",
        "own",
        "phase",
        "resignations",
        "result",
        "sampled",
        "sea",
        "sea2",
        "settlement",
        "settlement_lists",
        "setup",
        "ships",
        "supply",
        "terrain",
        "tile",
        "tile_at",
        "tile_moves",
        "tiles_placed",
        "to_move",
    )

    setup: Setup
    level: dict[int, int]  # land hexes: number of tiles stacked
    terrain: dict[int, int]  # land hexes: terrain of the top tile
    tile_at: dict[int, int]  # land hexes: index (placement order) of the top tile
    building: dict[int, int]  # hexes with a building: player * 4 + kind
    settlement: dict[int, frozenset[int]]  # building hexes: the hexes of their settlement
    settlement_lists: list[list[frozenset[int]] | None]  # per player, found when first asked
    own: tuple[frozenset[int], ...]  # per player: hexes holding their buildings
    free: frozenset[int]  # buildable hexes: land, not volcano, no piece
    land_order: list[int]  # land hexes in the order they rose (shared, see placement.grow)
    land_count: int  # how many of land_order belong to this position
    land_edges: int  # pairs of neighbouring land hexes (Ships: counts lagoons)
    land_triangles: int  # triples of mutually neighbouring land hexes
    lagoons: list[frozenset[int]] | None  # enclosed sea areas, found when first needed
    ships: dict[int, int]  # lowest hex of a lagoon holding a ship: its owner
    blocked: frozenset[int]  # hexes of lagoons that hold a ship: no tile may cover them
    doubles_left: tuple[str, ...]  # face-up double-hex tiles nobody has taken yet
    doubles_taken: tuple[int, ...]  # per player: double-hex tiles taken
    supply: tuple[tuple[int, int, int, int], ...]  # per player: huts, temples, towers, ships
    destroyed: tuple[int, ...]  # per player: huts destroyed by eruptions
    to_move: int
    phase: Phase
    tile: str | None
    deck_pos: int
    tiles_placed: int
    eliminated: tuple[int, ...]  # in the order they left the game
    resignations: tuple[Resignation, ...]  # the eliminated who resigned or ran out of time
    result: Outcome | None
    sampled: Move | None  # the last move random_move() found legal here
    sea: frozenset[int] | set[int]  # legal sea-level placement codes, up to new_land
    erupt: frozenset[int] | set[int]  # legal eruption codes, up to dirty
    sea2: frozenset[int] | set[int]  # legal sea-level double-hex codes (hex * 8 + k)
    new_land: Pending  # hexes that became land since `sea` was brought up to date
    dirty: Pending  # hexes whose eruption placements may have changed since then
    tile_moves: list[Move] | None  # cache: the legal moves of the tile phase
    builds: list[Move] | None  # cache: the legal moves of the build phase

    @classmethod
    def empty(cls, setup: Setup, supply: tuple[int, int, int, int]) -> Position:
        """The sea before the first tile: no land, every player holding ``supply``."""
        s = cls.__new__(cls)
        players = setup.player_count
        s.setup = setup
        s.level, s.terrain, s.tile_at, s.building, s.settlement = {}, {}, {}, {}, {}
        s.own = (EMPTY,) * players
        s.settlement_lists = [None] * players
        s.free = s.sea = s.sea2 = s.erupt = s.blocked = EMPTY
        s.new_land = s.dirty = None
        s.land_order = []
        s.land_count = s.land_edges = s.land_triangles = 0
        s.lagoons = None
        s.ships = {}
        s.doubles_left = setup.doubles
        s.doubles_taken = (0,) * players
        s.supply = (supply,) * players
        s.destroyed = (0,) * players
        s.deck_pos = s.tiles_placed = 0
        s.eliminated = ()
        s.resignations = ()
        s.result = None
        s.tile_moves = s.builds = s.sampled = None
        s.to_move = 0
        s.phase = TILE_PHASE
        s.tile = None
        return s

    def successor(self) -> Position:
        """A copy to build the next position in: shares every container, no move caches."""
        new = Position.__new__(Position)
        new.setup = self.setup
        new.blocked = self.blocked
        new.building = self.building
        new.builds = None
        new.deck_pos = self.deck_pos
        new.destroyed = self.destroyed
        new.dirty = self.dirty
        new.doubles_left = self.doubles_left
        new.doubles_taken = self.doubles_taken
        new.eliminated = self.eliminated
        new.erupt = self.erupt
        new.free = self.free
        new.lagoons = self.lagoons
        new.land_count = self.land_count
        new.land_edges = self.land_edges
        new.land_order = self.land_order
        new.land_triangles = self.land_triangles
        new.level = self.level
        new.new_land = self.new_land
        new.own = self.own
        new.phase = self.phase
        new.resignations = self.resignations
        new.result = self.result
        new.sampled = None
        new.sea = self.sea
        new.sea2 = self.sea2
        new.settlement = self.settlement
        new.settlement_lists = self.settlement_lists
        new.ships = self.ships
        new.supply = self.supply
        new.terrain = self.terrain
        new.tile = self.tile
        new.tile_at = self.tile_at
        new.tile_moves = None
        new.tiles_placed = self.tiles_placed
        new.to_move = self.to_move
        return new

    def rebased(self, setup: Setup) -> Position:
        """This position played with another setup (a different pile of tiles still to come):
        the board is shared, the caches that read the setup are not."""
        new = self.successor()
        new.setup = setup
        new.builds = self.builds
        return new

    @property
    def pile_left(self) -> int:
        """Tiles still in the draw pile."""
        return len(self.setup.deck) - self.deck_pos


def pending_hexes(chain: Pending) -> set[int]:
    """Every hex of a chain of pending changes."""
    hexes: set[int] = set()
    while chain is not None:
        chain, part = chain
        hexes.update(part)
    return hexes
