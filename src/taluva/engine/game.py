"""The game: one mutable position with ``play``/``undo``/``copy`` over immutable snapshots.

Each move builds a new snapshot (``_State``) that shares every container it does not
change with the one before: undo pops a snapshot, ``copy()`` shares them all. What move
generation needs (free hexes, the coast, top volcanoes, settlements, the set of legal
placements) is kept up to date move by move instead of rescanning the board.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from types import MappingProxyType
from typing import Any, Final, Literal

from taluva.engine.board import (
    BUILDING_NAMES,
    CODE_OFFSETS_OVER,
    DOUBLE_MOVES,
    DRAW_MOVE,
    HUT_KIND,
    HUT_MOVES,
    NEXT_DELTAS,
    PAIR_OFFSETS_OVER,
    PAIRS_OVER,
    PLACEMENTS_OVER,
    SHIP_MOVES,
    TEMPLE_KIND,
    TEMPLE_MOVES,
    TILE_MOVES,
    TOWER_KIND,
    TOWER_MOVES,
    enclosed_sea,
    placement_problem,
)
from taluva.engine.errors import IllegalMove, InvalidOption
from taluva.engine.expansions.board_zones import ZONES
from taluva.engine.hexes import DELTAS, ORIGIN, format_hex
from taluva.engine.moves import (
    DOUBLE,
    DRAW,
    EXPAND,
    HUT,
    SHIP,
    TEMPLE,
    TILE,
    TILE_KINDS,
    TOWER,
    Move,
)
from taluva.engine.outcome import (
    HUTS,
    PIECE_NAMES,
    SHIPS,
    STARTING_SUPPLY,
    TEMPLES,
    TOWERS,
    Outcome,
    Reason,
    rank_players,
    score,
)
from taluva.engine.rules.settlements import components
from taluva.engine.tiles import (
    DOUBLE_HEX_TILES,
    TERRAIN_NAMES,
    TILES_PER_PLAYER_CHOICES,
    VOLCANO,
    check_deck,
    double_footprint,
    double_terrains,
    footprint,
    shuffled_deck,
    shuffled_doubles,
    tile_set,
    tile_terrains,
)

Phase = Literal["tile", "build", "over"]
TILE_PHASE: Final = "tile"
BUILD_PHASE: Final = "build"
OVER: Final = "over"

HOUSE_RULES: Final = ("adjacent_hut", "all_tiles")
EXPANSIONS: Final = ("ships", "double_hex", *(f"board:{name}" for name in ZONES))
_EMPTY: Final[frozenset[int]] = frozenset()
_Pending = tuple[Any, Iterable[int]] | None
"""Hexes changed since a cache was last brought up to date, as a chain ``(older, hexes)``."""
_FIRST_TILE_CODES: Final = tuple(ORIGIN * 8 + k for k in range(6))
_SYMMETRIC_DOUBLES: Final = frozenset({"VV", "JJ"})
_KIND_OF_BUILD: Final = {HUT: HUT_KIND, EXPAND: HUT_KIND, TEMPLE: TEMPLE_KIND, TOWER: TOWER_KIND}
_SUPPLY_INDEX: Final = {HUT_KIND: HUTS, TEMPLE_KIND: TEMPLES, TOWER_KIND: TOWERS}


class _State:
    """One position. Never changed once a move has been played from it, except for caches."""

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
        "result",
        "sampled",
        "sea",
        "sea2",
        "settlement",
        "settlement_lists",
        "ships",
        "supply",
        "terrain",
        "tile",
        "tile_at",
        "tile_moves",
        "tiles_placed",
        "to_move",
    )

    level: dict[int, int]  # land hexes: number of tiles stacked
    terrain: dict[int, int]  # land hexes: terrain of the top tile
    tile_at: dict[int, int]  # land hexes: index (placement order) of the top tile
    building: dict[int, int]  # hexes with a building: player * 4 + kind
    settlement: dict[int, frozenset[int]]  # building hexes: the hexes of their settlement
    settlement_lists: list[list[frozenset[int]] | None]  # per player, found when first asked
    own: tuple[frozenset[int], ...]  # per player: hexes holding their buildings
    free: frozenset[int]  # buildable hexes: land, not volcano, no piece
    land_order: list[int]  # land hexes in the order they rose from the sea (shared, see _grow)
    land_count: int  # how many of land_order belong to this position
    land_edges: int  # pairs of neighbouring land hexes (Ships: counts lagoons, see _grow)
    land_triangles: int  # triples of mutually neighbouring land hexes
    lagoons: list[frozenset[int]] | None  # enclosed sea areas, found when first needed
    ships: dict[int, int]  # lowest hex of a lagoon holding a ship: its owner
    blocked: frozenset[int]  # hexes of lagoons that hold a ship: no tile may cover them
    doubles_left: tuple[str, ...]  # face-up double-hex tiles nobody has taken yet
    doubles_taken: tuple[int, ...]  # per player: double-hex tiles taken
    supply: tuple[tuple[int, int, int, int], ...]  # per player: huts, temples, towers, ships
    destroyed: tuple[int, ...]  # per player: huts destroyed by eruptions
    to_move: int
    phase: str
    tile: str | None
    deck_pos: int
    tiles_placed: int
    eliminated: tuple[int, ...]  # in the order they left the game
    result: Outcome | None
    sampled: Move | None  # the last move random_move() found legal here
    sea: frozenset[int] | set[int]  # legal sea-level placement codes, up to new_land
    erupt: frozenset[int] | set[int]  # legal eruption codes, up to dirty
    sea2: frozenset[int] | set[int]  # legal sea-level double-hex codes (hex * 8 + k)
    new_land: _Pending  # hexes that became land since `sea` was brought up to date
    dirty: _Pending  # hexes whose eruption placements may have changed since then
    tile_moves: list[Move] | None
    builds: list[Move] | None

    def clone(self) -> _State:
        new = _State.__new__(_State)
        new.blocked = self.blocked
        new.building = self.building
        new.builds = self.builds
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
        new.tile_moves = self.tile_moves
        new.tiles_placed = self.tiles_placed
        new.to_move = self.to_move
        return new


class Game:
    """A game of Taluva in progress: the position, its history and the options it was set up with.

    >>> game = Game.new(players=2, deck=["JC", "SR", "LL"])
    >>> game.phase, game.to_move, game.tile
    ('tile', 0, 'JC')
    >>> game.play("tile 0,0 0")
    >>> sorted(str(move) for move in game.legal_moves())
    ['hut 1,-1', 'hut 1,0']
    """

    __slots__ = (
        "_adjacent_hut",
        "_deck",
        "_double_hex",
        "_doubles",
        "_expansions",
        "_history",
        "_names",
        "_options",
        "_players",
        "_s",
        "_ships",
        "_zone",
    )

    def __init__(
        self,
        names: Sequence[str],
        deck: Sequence[str],
        tiles_per_player: int,
        expansions: Sequence[str],
        house_rules: Sequence[str],
        doubles: Sequence[str] = (),
    ) -> None:
        """Set up a game from checked options; use ``Game.new`` or ``Game.from_record``."""
        self._names = tuple(names)
        self._players = len(self._names)
        self._deck = tuple(deck)
        self._doubles = tuple(doubles)
        self._expansions = tuple(expansions)
        self._options = {
            "tiles_per_player": tiles_per_player,
            "expansions": list(expansions),
            "house_rules": list(house_rules),
        }
        self._adjacent_hut = "adjacent_hut" in house_rules
        self._ships = "ships" in expansions
        self._double_hex = "double_hex" in expansions
        zones = [ZONES[e.partition(":")[2]] for e in expansions if e.startswith("board:")]
        self._zone = zones[0] if zones else None
        self._history: list[tuple[_State, Move]] = []
        s = _State()
        s.level, s.terrain, s.tile_at, s.building, s.settlement = {}, {}, {}, {}, {}
        s.own = (_EMPTY,) * self._players
        s.settlement_lists = [None] * self._players
        s.free = s.sea = s.sea2 = s.erupt = s.blocked = _EMPTY
        s.new_land = s.dirty = None
        s.land_order = []
        s.land_count = s.land_edges = s.land_triangles = 0
        s.lagoons = None
        s.ships = {}
        s.doubles_left = self._doubles
        s.doubles_taken = (0,) * self._players
        start = (*STARTING_SUPPLY[:3], STARTING_SUPPLY[SHIPS] if self._ships else 0)
        s.supply = (start,) * self._players
        s.destroyed = (0,) * self._players
        s.deck_pos = s.tiles_placed = 0
        s.eliminated = ()
        s.result = None
        s.tile_moves = s.builds = s.sampled = None
        self._s = s
        self._start_turn(s, 0)

    @classmethod
    def new(
        cls,
        players: int | Sequence[str] = 2,
        seed: int | str | None = None,
        deck: Sequence[str] | None = None,
        tiles_per_player: int = 12,
        expansions: Iterable[str] = (),
        house_rules: Iterable[str] = (),
        doubles: Sequence[str] | None = None,
    ) -> Game:
        """Start a game for 2 to 5 players (a count or their names).

        The draw pile (and, with Double-Hex tiles, the face-up double-hex tiles) are shuffled
        from ``seed`` unless ``deck`` (draw order) and ``doubles`` give them. Raises
        InvalidOption for options that do not exist or do not fit together.
        """
        names = _player_names(players)
        count = len(names)
        if type(tiles_per_player) is not int or tiles_per_player not in TILES_PER_PLAYER_CHOICES:
            raise InvalidOption(f"tiles_per_player is {tiles_per_player!r}: choose 12, 18 or 24")
        if tiles_per_player != 12 and count != 2:
            raise InvalidOption(
                f"{tiles_per_player} tiles per player is for two players only; "
                f"a {count}-player game uses 12"
            )
        rules = _checked_names(house_rules, HOUSE_RULES, "house rule")
        expansion_list = _checked_expansions(expansions)
        rng = random.Random(seed)
        if deck is None:
            deck = shuffled_deck(count, tiles_per_player, rng, "all_tiles" in rules)
        else:
            try:
                deck = check_deck(deck, count)
            except ValueError as error:
                raise InvalidOption(str(error)) from None
        if "double_hex" not in expansion_list:
            if doubles:
                raise InvalidOption("face-up double-hex tiles need the double_hex expansion")
            doubles = ()
        elif doubles is None:
            doubles = shuffled_doubles(count, rng)
        else:
            doubles = _checked_doubles(doubles, count)
        return cls(names, deck, tiles_per_player, expansion_list, rules, doubles)

    # ----------------------------------------------------------------- reading the position

    @property
    def players(self) -> tuple[str, ...]:
        """The players' names, in seat order."""
        return self._names

    @property
    def player_count(self) -> int:
        """Number of seats, eliminated players included."""
        return self._players

    @property
    def options(self) -> dict[str, Any]:
        """The record's ``options`` object."""
        return {key: (list(v) if isinstance(v, list) else v) for key, v in self._options.items()}

    @property
    def deck(self) -> tuple[str, ...]:
        """The whole draw pile in draw order (what a record stores)."""
        return self._deck

    @property
    def phase(self) -> str:
        """``"tile"``, ``"build"`` or ``"over"``."""
        return self._s.phase

    @property
    def to_move(self) -> int:
        """Index of the player whose turn it is."""
        return self._s.to_move

    @property
    def tile(self) -> str | None:
        """The drawn tile waiting to be placed, or None outside the tile phase."""
        return self._s.tile

    @property
    def result(self) -> Outcome | None:
        """None while the game runs; then the outcome (equal to the record's result object)."""
        return self._s.result

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._s.phase == OVER

    @property
    def moves(self) -> list[Move]:
        """Every move played so far."""
        return [move for _, move in self._history]

    @property
    def ply(self) -> int:
        """Number of moves played."""
        return len(self._history)

    @property
    def tiles_left(self) -> int:
        """Tiles still in the draw pile (the drawn tile is no longer in it)."""
        return len(self._deck) - self._s.deck_pos

    @property
    def eliminated(self) -> tuple[int, ...]:
        """Players who could not build, in the order they left the game."""
        return self._s.eliminated

    def supply(self, player: int) -> dict[str, int]:
        """Pieces a player still holds: ``{"huts": n, "temples": n, "towers": n, "ships": n}``."""
        return dict(zip(PIECE_NAMES, self._s.supply[player], strict=True))

    def destroyed_huts(self, player: int) -> int:
        """Huts of a player destroyed by eruptions (they count as placed)."""
        return self._s.destroyed[player]

    def score(self, player: int) -> int:
        """Board Game Arena's score: 1000 a temple, 100 a tower, 1 a hut placed."""
        return score(self._s.supply[player])

    def level(self, hex_: int) -> int:
        """Number of tiles stacked on a hex (0 for sea)."""
        return self._s.level.get(hex_, 0)

    def terrain(self, hex_: int) -> int | None:
        """Terrain of the top tile on a hex, None for sea."""
        return self._s.terrain.get(hex_)

    def heights(self) -> Mapping[int, int]:
        """Every land hex with its level: a read-only view of this position, for reading the
        board fast in a search (it keeps showing this position after later moves)."""
        return MappingProxyType(self._s.level)

    def terrains(self) -> Mapping[int, int]:
        """Every land hex with the terrain code of its top tile (``tiles.VOLCANO`` is 0), a
        read-only view of this position like ``heights``."""
        return MappingProxyType(self._s.terrain)

    def buildable(self) -> frozenset[int]:
        """The hexes a building could stand on now: land, not a volcano, no piece on it."""
        return self._s.free

    def tile_index(self, hex_: int) -> int | None:
        """Placement index of the top tile on a hex (for drawing tile outlines), None for sea."""
        return self._s.tile_at.get(hex_)

    def building(self, hex_: int) -> tuple[int, str] | None:
        """``(player, "hut" | "temple" | "tower")`` on a hex, or None."""
        piece = self._s.building.get(hex_)
        return None if piece is None else (piece >> 2, BUILDING_NAMES[piece & 3])

    def land(self) -> list[int]:
        """Every hex of the island, sorted."""
        return sorted(self._s.level)

    def buildings(self) -> dict[int, tuple[int, str]]:
        """Every building: hex to ``(player, kind)``."""
        return {h: (p >> 2, BUILDING_NAMES[p & 3]) for h, p in self._s.building.items()}

    def settlements(self, player: int) -> list[frozenset[int]]:
        """A player's settlements, each the set of its hexes, ordered by lowest hex."""
        s = self._s
        found = s.settlement_lists[player]
        if found is None:
            unique = {id(s.settlement[h]): s.settlement[h] for h in s.own[player]}
            found = s.settlement_lists[player] = sorted(unique.values(), key=min)
        return list(found)

    @property
    def expansions(self) -> tuple[str, ...]:
        """The expansions this game plays with (``ships``, ``double_hex``, ``board:<zone>``)."""
        return tuple(self._expansions)

    @property
    def zone(self) -> str | None:
        """Name of the board zone the island must grow in (Game Board expansion), or None."""
        return None if self._zone is None else self._zone.name

    @property
    def doubles(self) -> tuple[str, ...]:
        """Face-up double-hex tiles still to be taken (Double-Hex expansion)."""
        return self._s.doubles_left

    @property
    def face_up_doubles(self) -> tuple[str, ...]:
        """The double-hex tiles laid face up at setup (what a record stores)."""
        return self._doubles

    def doubles_taken(self, player: int) -> int:
        """How many double-hex tiles a player has taken (at most two)."""
        return self._s.doubles_taken[player]

    def ships(self) -> dict[int, int]:
        """Every ship: the lowest hex of its lagoon mapped to its owner."""
        return dict(self._s.ships)

    def ship_at(self, hex_: int) -> int | None:
        """Owner of the ship in the lagoon containing ``hex_``, or None."""
        for lagoon in self.lagoons():
            if hex_ in lagoon:
                return self._s.ships.get(min(lagoon))
        return None

    def lagoons(self) -> list[frozenset[int]]:
        """Sea areas the island encloses completely, ordered by lowest hex (Ships expansion)."""
        return list(self._lagoons(self._s))

    # ----------------------------------------------------------------- moves

    def legal_moves(self) -> list[Move]:
        """Every legal move of the current phase, each exactly once (empty when it is over)."""
        s = self._s
        if s.phase == BUILD_PHASE:
            return list(self._build_moves(s))
        if s.phase == TILE_PHASE:
            return list(self._tile_moves(s))
        return []

    def random_move(self, rng: random.Random) -> Move:
        """A random legal move, much quicker than choosing from ``legal_moves()``.

        Not uniform: it tries random spots near random land hexes, for playouts.
        """
        s = self._s
        if s.phase == TILE_PHASE:
            move = s.sampled = self._sample_tile_move(s, rng)
        elif s.phase == BUILD_PHASE:
            move = s.sampled = self._sample_build(s, rng)
        else:
            raise IllegalMove("the game is over: there is no move to make")
        return move

    def is_legal(self, move: Move | str) -> bool:
        """Whether a move (or move text) may be played now."""
        try:
            return self._legal_form(move) is not None
        except IllegalMove:
            return False

    def explain(self, move: Move | str) -> str | None:
        """Why a move may not be played now, in words, or None if it may."""
        try:
            return None if self._legal_form(move) is not None else self._why_illegal(_as_move(move))
        except IllegalMove as error:
            return str(error)

    def play(self, move: Move | str) -> None:
        """Play a move or move text; raise IllegalMove (naming the rule) and change nothing if
        it is not legal here."""
        if move is self._s.sampled:
            self._apply(self._s.sampled)
            return
        legal = self._legal_form(move)
        if legal is None:
            raise IllegalMove(f"{move}: {self._why_illegal(_as_move(move))}")
        self._apply(legal)

    def undo(self) -> Move:
        """Take back the last move and return it."""
        if not self._history:
            raise IllegalMove("there is no move to take back")
        self._s, move = self._history.pop()
        return move

    def copy(self) -> Game:
        """An independent game in the same position, cheap enough for search."""
        new = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(new, name, getattr(self, name))
        new._history = list(self._history)
        return new

    def unseen_tiles(self) -> Counter[str]:
        """Tiles nobody has seen yet: the rest of the draw pile and those left in the box.

        The order of the pile is hidden information; an AI that must not peek draws its
        guesses from these (``redeal``).
        """
        unseen = tile_set(self._players)
        unseen.subtract(self._deck[: self._s.deck_pos])
        return +unseen

    def redeal(self, rng: random.Random) -> Game:
        """A copy whose remaining pile is a random guess drawn from the unseen tiles.

        Same position and history; only the tiles still to come differ. For determinized
        search (the real order is not looked at).
        """
        unseen = sorted(self.unseen_tiles().elements())
        rng.shuffle(unseen)
        new = self.copy()
        new._deck = self._deck[: self._s.deck_pos] + tuple(unseen[: self.tiles_left])
        return new

    def with_pile(self, tiles: Sequence[str]) -> Game:
        """A copy whose remaining draw pile is ``tiles`` (in draw order), drawn from the unseen
        tiles: for chance nodes and search that choose what comes next."""
        codes = [code.strip().upper() for code in tiles]
        missing = Counter(codes) - self.unseen_tiles()
        if missing:
            extra = " ".join(sorted(missing.elements()))
            raise InvalidOption(f"not among the unseen tiles: {extra}")
        new = self.copy()
        new._deck = self._deck[: self._s.deck_pos] + tuple(codes)
        return new

    # ----------------------------------------------------------------- records

    def to_record(self) -> dict[str, Any]:
        """The JSON-ready game record of NOTATION.md."""
        return {
            "format": "taluva-record/1",
            "players": list(self._names),
            "options": self.options,
            "deck": list(self._deck),
            "doubles": list(self._doubles),
            "moves": [str(move) for _, move in self._history],
            "result": None if self._s.result is None else self._s.result.to_json(),
        }

    @classmethod
    def from_record(cls, record: Any) -> Game:
        """Replay a record (a dict, or JSON text), checking every move; raise InvalidRecord."""
        from taluva.engine.record import game_from_record

        return game_from_record(record)

    # ----------------------------------------------------------------- text views

    def __repr__(self) -> str:
        return (
            f"<Game players={self._players} ply={len(self._history)} phase={self.phase} "
            f"to_move={self.to_move}>"
        )

    def __str__(self) -> str:
        from taluva.engine.text_board import board_text

        return board_text(self)

    # ----------------------------------------------------------------- internals: checking

    def _legal_form(self, move: Move | str) -> Move | None:
        """The move as the engine plays it if it is legal now, else None."""
        move = _as_move(move)
        s = self._s
        kind = move[0]
        if s.phase == TILE_PHASE:
            if s.tile is None:
                return move if kind != TILE and move in self._tile_moves(s) else None
            if kind == TILE and 0 <= move[2] < 6:
                code = move[1] * 8 + move[2]
                if s.tiles_placed == 0:
                    return TILE_MOVES[code] if code in _FIRST_TILE_CODES else None
                self._sync_placements(s)
                if code in s.sea or code in s.erupt:
                    return TILE_MOVES[code]
            return None
        if s.phase == BUILD_PHASE:
            if kind == SHIP:
                lagoon = self._lagoon_of(s, move[1])
                if lagoon is None:
                    return None
                move = SHIP_MOVES[min(lagoon)]
            if move in self._build_moves(s):
                return move
        return None

    def _why_illegal(self, move: Move) -> str:
        s = self._s
        kind = move[0]
        who = f"player {s.to_move + 1}"
        if s.phase == OVER:
            return "the game is over"
        if s.phase == BUILD_PHASE:
            if kind in TILE_KINDS:
                return f"{who} has placed a tile and must now build"
            return self._why_build_illegal(s, move)
        if kind not in TILE_KINDS:
            return f"{who} must place a tile before building"
        if s.tile is None:
            if kind == TILE:
                return f"{who} must first draw a tile or take a face-up double-hex tile"
            if kind == DRAW:
                return "the draw pile is empty: take a face-up double-hex tile"
            return self._why_double_illegal(s, move)
        if kind == DRAW:
            if self._double_hex:
                return f"{who} has drawn already: place the drawn tile ({s.tile})"
            return "the engine draws the tile: 'draw' is a move of the Double-Hex expansion only"
        if kind == DOUBLE:
            if not self._double_hex:
                return "this game is played without the Double-Hex expansion"
            if s.doubles_taken[s.to_move]:
                return (
                    f"{who} has taken a double-hex tile already "
                    "(a second one only once the pile is empty)"
                )
            return f"{who} has drawn {s.tile}: a double-hex tile is taken instead of drawing"
        hexes = footprint(move[1], move[2])
        return self._placement_problem(s, hexes, tile_terrains(s.tile)) or "not a legal placement"

    def _why_double_illegal(self, s: _State, move: Move) -> str:
        code = move[4]
        if code not in s.doubles_left:
            return f"{code} is not among the face-up double-hex tiles ({' '.join(s.doubles_left)})"
        hexes = double_footprint(move[1], move[2])
        problem = self._placement_problem(s, hexes, double_terrains(code))
        return problem or "not a legal placement"

    def _placement_problem(
        self, s: _State, hexes: tuple[int, ...], terrains: tuple[int, ...]
    ) -> str | None:
        if self._zone is not None and not self._zone.allows(hexes):
            out = self._zone.corners_out(hexes)
            return (
                f"the tile would stick out of the {self._zone.title} zone by {out} corners "
                "(at most 2 may)"
            )
        return placement_problem(
            hexes, terrains, s.tiles_placed == 0, s.level, s.tile_at, s.terrain, s.building,
            s.settlement, s.blocked,
        )

    def _why_build_illegal(self, s: _State, move: Move) -> str:
        player = s.to_move
        supply = s.supply[player]
        kind = move[0]
        needed = {HUT: HUTS, EXPAND: HUTS, TEMPLE: TEMPLES, TOWER: TOWERS, SHIP: SHIPS}[kind]
        if kind == SHIP and not self._ships:
            return "ships belong to the Ships expansion, which this game does not use"
        if supply[needed] == 0:
            return f"player {player + 1} has no {PIECE_NAMES[needed]} left"
        if kind == SHIP:
            return self._why_ship_illegal(s, move[1], player)
        for hex_ in move[3] or (move[1],):
            where = format_hex(hex_)
            if hex_ not in s.level:
                return f"{where} is sea: buildings stand on land"
            if s.terrain[hex_] == VOLCANO:
                return f"{where} is a volcano: nothing is built on a volcano"
            if hex_ in s.building:
                return f"{where} already holds a building"
        own = s.own[player]
        if kind == HUT:
            if s.level[move[1]] != 1:
                return (
                    f"a new settlement is founded on level 1; {format_hex(move[1])} is at "
                    f"level {s.level[move[1]]}"
                )
            near = [h for h in own if move[1] - h in DELTAS]
            if near:
                return (
                    f"{format_hex(move[1])} is next to your building at {format_hex(near[0])}: "
                    "a new settlement may not touch your own buildings (expand instead)"
                )
            return "not a legal hut here"
        adjacent = {id(s.settlement[h]): s.settlement[h] for h in own if move[1] - h in DELTAS}
        if kind == EXPAND:
            return self._why_expansion_illegal(s, move, supply[HUTS])
        if not adjacent:
            return f"{format_hex(move[1])} is not next to any settlement of yours"
        if kind == TEMPLE:
            if all(len(group) < 3 for group in adjacent.values()):
                return "a temple needs an adjacent settlement of yours covering at least 3 hexes"
            return "every adjacent settlement of yours that is large enough already has a temple"
        if s.level[move[1]] < 3:
            return f"a tower stands on level 3 or higher; {format_hex(move[1])} is at level " + str(
                s.level[move[1]]
            )
        return "every adjacent settlement of yours already has a tower"

    def _why_ship_illegal(self, s: _State, hex_: int, player: int) -> str:
        where = format_hex(hex_)
        if hex_ in s.level:
            return f"{where} is land: a ship goes into a lagoon"
        lagoon = self._lagoon_of(s, hex_)
        if lagoon is None:
            return f"{where} is open sea, not a lagoon: the island must enclose it completely"
        if min(lagoon) in s.ships:
            return f"the lagoon at {format_hex(min(lagoon))} already holds a ship"
        own = s.own[player]
        if not any(h + d in own for h in lagoon for d in DELTAS):
            return f"the lagoon at {format_hex(min(lagoon))} does not touch a settlement of yours"
        return "not a legal ship here"

    def _why_expansion_illegal(self, s: _State, move: Move, huts: int) -> str:
        terrain = move[2]
        for hex_ in move[3]:
            if s.terrain[hex_] != terrain:
                return (
                    f"{format_hex(hex_)} is {TERRAIN_NAMES[s.terrain[hex_]]}, "
                    f"not {TERRAIN_NAMES[terrain]}"
                )
        player = s.to_move
        groups = {id(s.settlement[h]): s.settlement[h] for h in s.own[player]}
        for group in groups.values():
            reach = _fields(group, s.free, s.terrain, terrain)
            if reach and set(move[3]) <= reach:
                if set(move[3]) != reach:
                    missing = ", ".join(format_hex(h) for h in sorted(reach - set(move[3])))
                    return (
                        f"expanding into {TERRAIN_NAMES[terrain]} fills every such hex next to "
                        f"the settlement: {missing} missing"
                    )
                need = sum(s.level[h] for h in reach)
                return f"this expansion needs {need} huts and player {player + 1} has {huts}"
        return (
            f"no settlement of yours reaches exactly these {TERRAIN_NAMES[terrain]} hexes "
            "(every hex must be next to the same settlement)"
        )

    # ----------------------------------------------------------------- internals: generation

    def _tile_moves(self, s: _State) -> list[Move]:
        moves = s.tile_moves
        if moves is None:
            if s.tile is None:
                moves = [DRAW_MOVE] if s.deck_pos < len(self._deck) else []
                moves += self._double_moves(s)
            elif s.tiles_placed == 0:
                moves = [TILE_MOVES[code] for code in _FIRST_TILE_CODES]
            else:
                self._sync_placements(s)
                moves = [TILE_MOVES[code] for code in chain(s.sea, s.erupt)]
            s.tile_moves = moves
        return moves

    def _double_moves(self, s: _State) -> list[Move]:
        """Every placement of every face-up double-hex tile (RULES.md, "Double-Hex tiles")."""
        codes = s.doubles_left
        if s.tiles_placed == 0:
            return [Move.place_double(code, ORIGIN, k) for code in codes for k in range(6)]
        self._sync_placements(s)
        moves = []
        symmetric = [code for code in codes if code in _SYMMETRIC_DOUBLES]
        asymmetric = [code for code in codes if code not in _SYMMETRIC_DOUBLES]
        for placement in s.sea2:
            moves += [DOUBLE_MOVES[code, placement] for code in asymmetric]
            if placement & 7 < 3:
                moves += [DOUBLE_MOVES[code, placement] for code in symmetric]
        if "VV" in codes or asymmetric:
            level = s.level
            tile_at = s.tile_at
            building = s.building
            settlement = s.settlement
            allowed = None if self._zone is None else self._zone.pair_codes
            on_top: dict[Move, None] = {}
            for volcano, kind in s.terrain.items():
                if kind != VOLCANO:
                    continue
                height = level[volcano]
                for k in range(6):
                    other = volcano + DELTAS[k]
                    if level.get(other) != height or tile_at[other] == tile_at[volcano]:
                        continue
                    piece = building.get(other)
                    if piece is not None and (
                        piece & 3 != HUT_KIND or settlement[other] <= {volcano, other}
                    ):
                        continue
                    placement = volcano * 8 + k
                    if allowed is not None and placement not in allowed:
                        continue
                    on_top.update(
                        (DOUBLE_MOVES[code, placement], None) for code in codes if code != "JJ"
                    )
            moves += on_top
        return moves

    def _build_moves(self, s: _State) -> list[Move]:
        moves = s.builds
        if moves is None:
            moves = s.builds = self._generate_builds(s, s.to_move)
        return moves

    def _sync_placements(self, s: _State) -> None:
        """Bring the placement sets up to date with the hexes changed since the last time."""
        level = s.level
        if s.new_land is not None:
            new_land = _pending_hexes(s.new_land)
            coast = {h + d for h in new_land for d in DELTAS} - level.keys()
            limited = self._zone is not None or bool(s.blocked)
            sea = set(s.sea)
            discard = sea.discard
            for hex_ in new_land:
                base = hex_ * 8
                for offset in CODE_OFFSETS_OVER:
                    discard(base + offset)
            add = sea.add
            for hex_ in coast:
                base = hex_ * 8
                for offset, other, third in PLACEMENTS_OVER:
                    second, last = hex_ + other, hex_ + third
                    code = base + offset
                    if (
                        second not in level
                        and last not in level
                        and (not limited or self._sea_allowed(s, code, (hex_, second, last)))
                    ):
                        add(code)
            s.sea = sea
            if self._double_hex:
                pairs = set(s.sea2)
                for hex_ in new_land:
                    base = hex_ * 8
                    for offset in PAIR_OFFSETS_OVER:
                        pairs.discard(base + offset)
                for hex_ in coast:
                    base = hex_ * 8
                    for offset, other in PAIRS_OVER:
                        if hex_ + other not in level and (
                            not limited or self._pair_allowed(s, base + offset, hex_, hex_ + other)
                        ):
                            pairs.add(base + offset)
                s.sea2 = pairs
            s.new_land = None
        if s.dirty is not None:
            erupt = set(s.erupt)
            terrain = s.terrain
            allowed = None if self._zone is None else self._zone.tile_codes
            for code in {h * 8 + o for h in _pending_hexes(s.dirty) for o in CODE_OFFSETS_OVER}:
                if (
                    terrain.get(code >> 3) == VOLCANO
                    and _eruption_ok(s, code)
                    and (allowed is None or code in allowed)
                ):
                    erupt.add(code)
                else:
                    erupt.discard(code)
            s.erupt = erupt
            s.dirty = None

    def _sea_allowed(self, s: _State, code: int, hexes: tuple[int, int, int]) -> bool:
        """The Ships and Game Board limits on a sea-level placement."""
        if self._zone is not None and code not in self._zone.tile_codes:
            return False
        blocked = s.blocked
        return not (hexes[0] in blocked or hexes[1] in blocked or hexes[2] in blocked)

    def _pair_allowed(self, s: _State, code: int, first: int, second: int) -> bool:
        """The Ships and Game Board limits on a sea-level double-hex placement."""
        if self._zone is not None and code not in self._zone.pair_codes:
            return False
        return first not in s.blocked and second not in s.blocked

    def _sample_tile_move(self, s: _State, rng: random.Random) -> Move:
        """A legal placement found by trying random spots around random land hexes."""
        if s.tile is None or self._zone is not None or s.blocked:
            moves = self._tile_moves(s)
            return moves[int(rng.random() * len(moves))]
        if s.tiles_placed == 0:
            return TILE_MOVES[_FIRST_TILE_CODES[int(rng.random() * 6)]]
        level = s.level
        land = s.land_order
        count = s.land_count
        random_ = rng.random
        for _ in range(64):
            hex_ = land[int(random_() * count)]
            if s.terrain[hex_] == VOLCANO and random_() < 0.5:
                code = hex_ * 8 + int(random_() * 6)
                if _eruption_ok(s, code):
                    return TILE_MOVES[code]
                continue
            hex_ += DELTAS[int(random_() * 6)]
            if hex_ in level:
                continue
            offset, other, third = PLACEMENTS_OVER[int(random_() * 18)]
            if hex_ + other not in level and hex_ + third not in level:
                return TILE_MOVES[hex_ * 8 + offset]
        moves = self._tile_moves(s)
        return moves[int(random_() * len(moves))]

    def _sample_build(self, s: _State, rng: random.Random) -> Move:
        """A legal build: a new settlement on a random free hex, or a random build that a
        random settlement of the player allows; the full list when neither turns one up."""
        random_ = rng.random
        player = s.to_move
        own = s.own[player]
        if s.builds is None:
            huts, temples, towers, _ships = s.supply[player]
            if own and random_() < 0.5:
                hexes = tuple(own)
                group = s.settlement[hexes[int(random_() * len(hexes))]]
                options = _settlement_builds(s, group, huts, temples, towers)
                if options:
                    return options[int(random_() * len(options))]
            if huts:
                found = self._adjacent_hut
                free = s.free
                level = s.level
                land = s.land_order
                count = s.land_count
                for _ in range(16):
                    hex_ = land[int(random_() * count)]
                    if hex_ in free and level[hex_] == 1 and (
                        found or not any(hex_ + d in own for d in DELTAS)
                    ):
                        return HUT_MOVES[hex_]
        moves = self._build_moves(s)
        return moves[int(random_() * len(moves))]

    def _can_build(self, s: _State, player: int) -> bool:
        """Whether the player has any build, usually decided by the first free hex tried."""
        if s.supply[player][HUTS]:
            own = s.own[player]
            level = s.level
            found = self._adjacent_hut
            for hex_ in s.free:
                if level[hex_] == 1 and (found or not any(hex_ + d in own for d in DELTAS)):
                    return True
        return bool(self._build_moves(s))

    def _generate_builds(self, s: _State, player: int) -> list[Move]:
        huts, temples, towers, ships_left = s.supply[player]
        level = s.level
        free = s.free
        own = s.own[player]
        moves: list[Move] = []
        if huts:
            if self._adjacent_hut or not own:
                moves = [HUT_MOVES[h] for h in free if level[h] == 1]
            else:
                near = {h + d for h in own for d in DELTAS}
                moves = [HUT_MOVES[h] for h in free if level[h] == 1 and h not in near]
        if own:
            settlement = s.settlement
            seen: set[int] = set()
            builds: dict[Move, None] = {}  # a dict, not a set: keeps the order reproducible
            for start in own:
                group = settlement[start]
                if id(group) not in seen:
                    seen.add(id(group))
                    options = _settlement_builds(s, group, huts, temples, towers)
                    builds.update(dict.fromkeys(options))
            moves += builds
            if ships_left:
                moves += self._ship_moves(s, own)
        return moves

    def _ship_moves(self, s: _State, own: frozenset[int]) -> list[Move]:
        """A ship into each lagoon next to the player's buildings that holds none yet."""
        return [
            SHIP_MOVES[min(lagoon)]
            for lagoon in self._lagoons(s)
            if min(lagoon) not in s.ships and any(h + d in own for h in lagoon for d in DELTAS)
        ]

    def _lagoons(self, s: _State) -> list[frozenset[int]]:
        lagoons = s.lagoons
        if lagoons is None:
            holes = 1 - s.land_count + s.land_edges - s.land_triangles
            lagoons = s.lagoons = enclosed_sea(s.level) if holes > 0 else []
        return lagoons

    def _lagoon_of(self, s: _State, hex_: int) -> frozenset[int] | None:
        if not self._ships or hex_ in s.level:
            return None
        return next((lagoon for lagoon in self._lagoons(s) if hex_ in lagoon), None)

    # ----------------------------------------------------------------- internals: applying

    def _apply(self, move: Move) -> None:
        s = self._s
        n = s.clone()
        n.tile_moves = None
        n.builds = None
        player = s.to_move
        kind = move[0]
        if kind in (TILE, DOUBLE):
            if kind == TILE:
                self._place(s, n, footprint(move[1], move[2]), tile_terrains(s.tile or "JJ"))
            else:
                code = move[4]
                self._place(s, n, double_footprint(move[1], move[2]), double_terrains(code))
                n.doubles_left = tuple(c for c in s.doubles_left if c != code)
                taken = list(s.doubles_taken)
                taken[player] += 1
                n.doubles_taken = tuple(taken)
            if self._can_build(n, player):
                n.phase = BUILD_PHASE
            else:
                self._eliminate(n, player)
        elif kind == DRAW:
            self._draw(n)
        else:
            if kind == SHIP:
                self._place_ship(s, n, move[1], player)
            else:
                self._build(s, n, move, player)
            types = 4 if self._ships else 3
            if sum(1 for left in n.supply[player][:types] if left == 0) >= 2:
                n.phase = OVER
                n.result = Outcome(
                    rank_players(n.supply, n.eliminated, player, self._ships), Reason.VICTORY
                )
            else:
                self._start_turn(n, self._next_player(n, player))
        self._history.append((s, move))
        self._s = n

    def _place(
        self, s: _State, n: _State, hexes: tuple[int, ...], terrains: tuple[int, ...]
    ) -> None:
        """Lay a tile on sea level or on top (an eruption, destroying the huts it covers)."""
        level = n.level = s.level.copy()
        terrain = n.terrain = s.terrain.copy()
        tile_at = n.tile_at = s.tile_at.copy()
        height = level.get(hexes[0], 0)
        index = s.tiles_placed
        for hex_, kind in zip(hexes, terrains, strict=True):
            level[hex_] = height + 1
            terrain[hex_] = kind
            tile_at[hex_] = index
        n.tiles_placed = index + 1
        n.tile = None
        fields = [h for h, kind in zip(hexes, terrains, strict=True) if kind != VOLCANO]
        n.free = s.free.union(fields)
        if len(fields) + 1 != len(hexes):
            n.free = n.free.difference(h for h in hexes if terrain[h] == VOLCANO)
        if height == 0:
            self._grow(s, n, hexes)
            n.new_land = (s.new_land, hexes)
            n.dirty = (s.dirty, hexes)
            return
        dirty: Iterable[int] = hexes
        covered = [h for h in hexes if h in s.building]
        if covered:
            building = n.building = s.building.copy()
            settlement = n.settlement = s.settlement.copy()
            n.settlement_lists = [None] * self._players
            own = list(s.own)
            destroyed = list(s.destroyed)
            for hex_ in covered:
                owner = building.pop(hex_) >> 2
                destroyed[owner] += height
                own[owner] = own[owner] - {hex_}
            groups = {id(s.settlement[h]): s.settlement[h] for h in covered}.values()
            for group in groups:
                for hex_ in group:
                    settlement.pop(hex_)
                for part in components(group.difference(covered)):
                    for hex_ in part:
                        settlement[hex_] = part
            n.own = tuple(own)
            n.destroyed = tuple(destroyed)
            dirty = set(hexes).union(*groups)
        n.dirty = (s.dirty, dirty)

    def _grow(self, s: _State, n: _State, hexes: tuple[int, ...]) -> None:
        """Append new land to the shared land list (copied first if another line of play,
        after an undo, has appended past this position); with Ships, count what closes
        lagoons: land hexes, neighbouring pairs and triangles (see ``enclosed_sea``)."""
        order = s.land_order
        if len(order) != s.land_count:
            order = order[: s.land_count]
        order.extend(hexes)
        n.land_order = order
        n.land_count = s.land_count + len(hexes)
        if self._ships:
            level = s.level
            added: list[int] = []
            edges = s.land_edges
            triangles = s.land_triangles
            for hex_ in hexes:
                near = [hex_ + d in level or hex_ + d in added for d in DELTAS]
                edges += sum(near)
                triangles += sum(near[k] and near[k - 5] for k in range(6))
                added.append(hex_)
            n.land_edges = edges
            n.land_triangles = triangles
            n.lagoons = None

    def _place_ship(self, s: _State, n: _State, hex_: int, player: int) -> None:
        lagoon = self._lagoon_of(s, hex_)
        assert lagoon is not None
        n.ships = {**s.ships, min(lagoon): player}
        n.blocked = s.blocked | lagoon
        supplies = list(s.supply)
        huts, temples, towers, ships = s.supply[player]
        supplies[player] = (huts, temples, towers, ships - 1)
        n.supply = tuple(supplies)
        n.sea = s.sea.difference(h * 8 + o for h in lagoon for o in CODE_OFFSETS_OVER)
        n.sea2 = s.sea2.difference(h * 8 + o for h in lagoon for o in PAIR_OFFSETS_OVER)

    def _build(self, s: _State, n: _State, move: Move, player: int) -> None:
        kind = _KIND_OF_BUILD[move[0]]
        hexes = move[3] or (move[1],)
        piece = player * 4 + kind
        building = n.building = s.building.copy()
        for hex_ in hexes:
            building[hex_] = piece
        n.free = s.free.difference(hexes)
        supply = list(s.supply[player])
        supply[_SUPPLY_INDEX[kind]] -= (
            sum(s.level[h] for h in hexes) if kind == HUT_KIND else 1
        )
        supplies = list(s.supply)
        supplies[player] = (supply[0], supply[1], supply[2], supply[3])
        n.supply = tuple(supplies)
        own = list(s.own)
        own[player] = own[player].union(hexes)
        n.own = tuple(own)
        settlement = n.settlement = s.settlement.copy()
        n.settlement_lists = [None] * self._players
        joined = set(hexes)
        small = len(hexes) <= 2
        for hex_ in hexes:
            for d in DELTAS:
                neighbour = hex_ + d
                if neighbour not in joined and building.get(neighbour, -1) >> 2 == player:
                    group = settlement[neighbour]
                    joined |= group
                    small = small or len(group) <= 2
        merged = frozenset(joined)
        for hex_ in merged:
            settlement[hex_] = merged
        n.dirty = (s.dirty, merged if small else hexes)

    def _eliminate(self, n: _State, player: int) -> None:
        n.eliminated = (*n.eliminated, player)
        standing = [p for p in range(self._players) if p not in n.eliminated]
        if len(standing) == 1:
            n.phase = OVER
            n.tile = None
            n.result = Outcome(
                rank_players(n.supply, n.eliminated, standing[0], self._ships),
                Reason.LAST_STANDING,
            )
        else:
            self._start_turn(n, self._next_player(n, player))

    def _next_player(self, n: _State, player: int) -> int:
        for step in range(1, self._players + 1):
            candidate = (player + step) % self._players
            if candidate not in n.eliminated:
                return candidate
        return player

    def _start_turn(self, n: _State, player: int) -> None:
        """Begin a player's turn: draw the tile, or offer the double-hex choice; end the game
        when the player can take no tile, or (Game Board) can place none."""
        n.to_move = player
        pile = n.deck_pos < len(self._deck)
        if self._double_hex and n.doubles_left:
            taken = n.doubles_taken[player]
            if taken == 0 or (not pile and taken < 2):
                n.phase = TILE_PHASE
                n.tile = None
                if not pile and self._zone is not None and not self._tile_moves(n):
                    self._end(n, Reason.NO_PLACEMENT)
                return
        if not pile:
            self._end(n, Reason.TILES)
            return
        n.phase = TILE_PHASE
        self._draw(n)

    def _draw(self, n: _State) -> None:
        n.tile = self._deck[n.deck_pos]
        n.deck_pos += 1
        n.tile_moves = None
        if self._zone is not None and not self._tile_moves(n):
            self._end(n, Reason.NO_PLACEMENT)

    def _end(self, n: _State, reason: Reason) -> None:
        n.phase = OVER
        n.tile = None
        n.tile_moves = None
        n.result = Outcome(rank_players(n.supply, n.eliminated, None, self._ships), reason)

def _eruption_ok(s: _State, code: int) -> bool:
    """Whether an eruption placement is legal (RULES.md, "Volcanic eruption"); the fast twin of
    ``board.placement_problem``, which says why not."""
    volcano = code >> 3
    level = s.level
    if s.terrain.get(volcano) != VOLCANO:
        return False
    k = code & 7
    a = volcano + DELTAS[k]
    b = volcano + NEXT_DELTAS[k]
    height = level[volcano]
    if level.get(a) != height or level.get(b) != height:
        return False
    tile_at = s.tile_at
    top = tile_at[volcano]
    if tile_at[a] == top and tile_at[b] == top:
        return False
    building = s.building
    for hex_ in (a, b):
        piece = building.get(hex_)
        if piece is not None and (piece & 3 != HUT_KIND or s.settlement[hex_] <= {a, b}):
            return False
    return True


def _settlement_builds(
    s: _State, group: frozenset[int], huts: int, temples: int, towers: int
) -> list[Move]:
    """The expansions, temples and towers that one settlement allows (RULES.md, "Building
    actions"): every hex of a terrain next to it, a temple beside 3+ hexes, a tower on 3+."""
    free = s.free
    border = {h + d for h in group for d in DELTAS} & free
    if not border:
        return []
    level = s.level
    moves = []
    if huts:
        terrain = s.terrain
        fields: dict[int, list[int]] = {}
        for hex_ in border:
            fields.setdefault(terrain[hex_], []).append(hex_)
        for kind, field in fields.items():
            if len(field) == 1:
                if level[field[0]] <= huts:
                    moves.append(Move(EXPAND, field[0], kind, (field[0],)))
            elif sum(level[h] for h in field) <= huts:
                field.sort()
                moves.append(Move(EXPAND, field[0], kind, tuple(field)))
    if temples or towers:
        building = s.building
        kinds = {building[h] & 3 for h in group}
        if temples and len(group) >= 3 and TEMPLE_KIND not in kinds:
            moves += [TEMPLE_MOVES[h] for h in border]
        if towers and TOWER_KIND not in kinds:
            moves += [TOWER_MOVES[h] for h in border if level[h] >= 3]
    return moves


def _pending_hexes(chain: _Pending) -> set[int]:
    hexes: set[int] = set()
    while chain is not None:
        chain, part = chain
        hexes.update(part)
    return hexes


def _as_move(move: Move | str) -> Move:
    if isinstance(move, Move):
        return move
    if isinstance(move, str):
        return Move.parse(move)
    raise IllegalMove(f"{move!r} is neither a Move nor move text")


def _fields(
    group: frozenset[int], free: frozenset[int], terrain: dict[int, int], kind: int
) -> set[int]:
    """Buildable hexes of one terrain next to a settlement: what expanding into it fills."""
    return {h + d for h in group for d in DELTAS if h + d in free and terrain[h + d] == kind}


def _player_names(players: int | Sequence[str]) -> tuple[str, ...]:
    if isinstance(players, int) and not isinstance(players, bool):
        if not 2 <= players <= 5:
            raise InvalidOption(f"players is {players}: Taluva is for 2 to 5 players")
        return tuple(f"Player {i + 1}" for i in range(players))
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise InvalidOption(f"players must be a count or a list of names, not {players!r}")
    names = tuple(players)
    if not 2 <= len(names) <= 5:
        raise InvalidOption(f"{len(names)} players named: Taluva is for 2 to 5 players")
    for index, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise InvalidOption(f"player {index + 1}'s name {name!r} must be non-empty text")
    return names


def _checked_names(values: Iterable[str], allowed: Sequence[str], what: str) -> list[str]:
    if isinstance(values, str):
        values = [values]
    chosen: list[str] = []
    for value in values:
        if value not in allowed:
            raise InvalidOption(f"unknown {what} {value!r}: choose from {', '.join(allowed)}")
        if value not in chosen:
            chosen.append(value)
    return chosen


def _checked_expansions(values: Iterable[str]) -> list[str]:
    chosen = list([values] if isinstance(values, str) else values)
    allowed = ["ships", "double_hex", *(f"board:{name}" for name in ZONES)]
    result: list[str] = []
    for value in chosen:
        if not isinstance(value, str) or value not in allowed:
            raise InvalidOption(f"unknown expansion {value!r}: choose from {', '.join(allowed)}")
        if value not in result:
            result.append(value)
    boards = [value for value in result if value.startswith("board:")]
    if len(boards) > 1:
        raise InvalidOption(f"choose one board zone, not {' and '.join(boards)}")
    return result


def _checked_doubles(values: Sequence[str], players: int) -> tuple[str, ...]:
    if isinstance(values, str):
        values = [values]
    codes = []
    for index, value in enumerate(values):
        code = value.strip().upper() if isinstance(value, str) else value
        if code not in DOUBLE_HEX_TILES:
            raise InvalidOption(
                f"doubles[{index}] is {value!r}, not one of {' '.join(DOUBLE_HEX_TILES)}"
            )
        if code in codes:
            raise InvalidOption(f"doubles lists {code} twice: there is one of each")
        codes.append(code)
    if len(codes) != players:
        raise InvalidOption(
            f"{len(codes)} face-up double-hex tiles for {players} players: lay one per player"
        )
    return tuple(codes)
