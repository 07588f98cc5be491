"""The expansions of docs/rules.md (Ships, Double-Hex tiles, Fifth player) proved on real games.

Every rule gets an allowed and a forbidden case, played from move text with a chosen deck (and
face-up double-hex tiles) or replayed from a record in ``tests/data/expansions/`` found by a
seeded search. The Game Board rules are in ``test_zones.py``. Further down: an independent
cross-check of move generation with every combination of expansions, against a rules oracle
written here from docs/rules.md alone, and the perft table ``tests/data/perft/expansions.jsonl``.

Run ``python tests/test_expansions.py`` to search the fixtures again and recount the table.
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from scenarios import allowed, legal, refused

from taluva import Game, InvalidOption, InvalidRecord, Move, coords, hex_at
from taluva.engine.expansions.board_zones import ZONES, Zone
from taluva.engine.moves import DOUBLE, DRAW, EXPAND, HUT, SHIP, TEMPLE, TILE, TOWER
from taluva.engine.perft import perft

DATA = Path(__file__).resolve().parent / "data"
FIXTURES = DATA / "expansions"
PERFT_TABLE = DATA / "perft" / "expansions.jsonl"

STEPS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""The six directions of docs/notation.md, restated so the oracle below shares no engine table."""
LETTERS = "VJCSRL"
DOUBLE_CODES = ("VL", "VJ", "VS", "VV", "JJ")
BOARDS = tuple(f"board:{name}" for name in ZONES)
COMBINATIONS: tuple[tuple[str, ...], ...] = tuple(
    tuple(part for part in (ships, double, board) if part)
    for ships in ("", "ships")
    for double in ("", "double_hex")
    for board in ("", *BOARDS)
)
"""Every combination of expansions: ships or not, Double-Hex or not, no board or one zone."""


def h(text: str) -> int:
    """The engine hex of ``q,r`` text."""
    q, r = text.split(",")
    return hex_at(int(q), int(r))


def hexes_of(*texts: str) -> frozenset[int]:
    """A set of engine hexes from ``q,r`` texts."""
    return frozenset(h(text) for text in texts)


def new_game(
    turns: Sequence[str],
    deck: Sequence[str],
    players: int = 2,
    expansions: Sequence[str] = ("ships",),
    doubles: Sequence[str] | None = None,
) -> Game:
    """A game with ``deck`` drawn in order, after playing ``turns`` (moves joined by ``;``)."""
    game = Game.new(players=players, deck=deck, expansions=expansions, doubles=doubles)
    return play(game, *turns)


def play(game: Game, *turns: str) -> Game:
    """Play turns of move text (moves of one turn joined by ``;``) and return the game."""
    for turn in turns:
        for text in turn.split(";"):
            game.play(text.strip())
    return game


def fixture(name: str) -> dict[str, Any]:
    """A record kept in tests/data/expansions/."""
    record: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return record


def replay(record: dict[str, Any], plies: int | None = None, **changes: Any) -> Game:
    """Replay a record's first ``plies`` moves, with some of its keys (or options) changed."""
    moves = record["moves"] if plies is None else record["moves"][:plies]
    options = {**record["options"], **changes.pop("options", {})}
    return Game.from_record(
        {**record, **changes, "options": options, "moves": moves, "result": None}
    )


# ----------------------------------------------------------------- an independent rules oracle


def around(hex_: int) -> list[int]:
    """The six neighbours of a hex, from (q, r) arithmetic."""
    q, r = coords(hex_)
    return [hex_at(q + dq, r + dr) for dq, dr in STEPS]


def step(hex_: int, k: int) -> int:
    """The neighbour of a hex in direction ``k``."""
    q, r = coords(hex_)
    return hex_at(q + STEPS[k % 6][0], r + STEPS[k % 6][1])


def flood(start: int, inside: set[int]) -> set[int]:
    """Hexes of ``inside`` connected to ``start`` through shared edges."""
    group = {start}
    todo = [start]
    while todo:
        for n in around(todo.pop()):
            if n in inside and n not in group:
                group.add(n)
                todo.append(n)
    return group


def groups(hexes: Iterable[int]) -> list[frozenset[int]]:
    """Edge-connected groups of hexes, ordered by lowest hex."""
    left = set(hexes)
    found = []
    while left:
        group = flood(min(left), left)
        left -= group
        found.append(frozenset(group))
    return found


def find_lagoons(land: Iterable[int]) -> list[frozenset[int]]:
    """Lagoons by flood fill: sea inside a hexagon two rings wider than the island that the
    sea at its rim cannot reach, in groups ordered by lowest hex."""
    land = set(land)
    if not land:
        return []
    radius = max(max(abs(q), abs(r), abs(q + r)) for q, r in map(coords, land)) + 2
    rim = hex_at(radius, 0)
    sea = {
        hex_at(q, r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if max(abs(q), abs(r), abs(q + r)) <= radius
    } - land
    return groups(sea - flood(rim, sea))


CORNER_STEPS = ((1, 1), (1, -1), (0, -2), (-1, -1), (-1, 1), (0, 2))
"""A pointy-top hex's corners on the lattice ``(x, y) = (2q + r + i, 3r + j)``, where the real
point is ``(x * sqrt(3) / 2, y / 2)`` for hexes of size 1."""


def lattice_corners(hexes: Sequence[int]) -> set[tuple[int, int]]:
    """Corners on a tile's outline: those not shared by all three hexes of a tile."""
    seen: dict[tuple[int, int], int] = {}
    for hex_ in hexes:
        q, r = coords(hex_)
        for i, j in CORNER_STEPS:
            corner = (2 * q + r + i, 3 * r + j)
            seen[corner] = seen.get(corner, 0) + 1
    return {corner for corner, count in seen.items() if count < 3}


def winding(point: tuple[float, float], polygon: Sequence[tuple[float, float]]) -> int:
    """Winding number of a polygon around a point (non-zero: inside)."""
    x, y = point
    turns = 0.0
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        a = math.atan2(y1 - y, x1 - x)
        b = math.atan2(y2 - y, x2 - x)
        turn = b - a
        while turn > math.pi:
            turn -= 2 * math.pi
        while turn < -math.pi:
            turn += 2 * math.pi
        turns += turn
    return round(turns / (2 * math.pi))


def on_edge(point: tuple[float, float], polygon: Sequence[tuple[float, float]]) -> bool:
    """Whether a point lies on the polygon's outline (within rounding)."""
    x, y = point
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        dx, dy = x2 - x1, y2 - y1
        t = max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)))
        if math.hypot(x - x1 - t * dx, y - y1 - t * dy) < 1e-7:
            return True
    return False


@cache
def outside(zone: str, corner: tuple[int, int]) -> bool:
    """Whether a lattice corner lies outside a zone's polygon; a corner on the outline does
    not stick out (the Beginner ellipse passes through corner 0,13, for one)."""
    point = (corner[0] * math.sqrt(3) / 2, corner[1] / 2)
    polygon = ZONES[zone].polygon
    return winding(point, polygon) == 0 and not on_edge(point, polygon)


def corners_outside(zone: Zone | str, hexes: Sequence[int]) -> int:
    """The independent count of a tile's outline corners outside a zone."""
    name = zone if isinstance(zone, str) else zone.name
    return sum(outside(name, corner) for corner in lattice_corners(hexes))


def footprint_of(move: Move, tile: str | None) -> tuple[list[int], list[int]]:
    """Hexes and terrains (indexes of ``VJCSRL``) a tile or double-hex move would cover."""
    if move.kind == DOUBLE:
        return [move.hex, step(move.hex, move.orientation)], [LETTERS.index(c) for c in move.tile]
    assert tile is not None
    hexes = [move.hex, step(move.hex, move.orientation), step(move.hex, move.orientation + 1)]
    return hexes, [0, LETTERS.index(tile[0]), LETTERS.index(tile[1])]


class Oracle:
    """docs/rules.md's legality of a move in a game's current position, from public accessors and
    flood fills only: no engine table, cache or generator. ``problem(move)`` names the rule a
    move breaks in a short phrase, or is None for a legal move."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.land = set(game.land())
        self.lagoons = find_lagoons(self.land)
        ships = game.ships()
        self.shipped = {lagoon: next((p for x, p in ships.items() if x in lagoon), None)
                        for lagoon in self.lagoons}  # fmt: skip
        owners: dict[int, list[int]] = {}
        for hex_, (player, _) in game.buildings().items():
            owners.setdefault(player, []).append(hex_)
        self.settlements = {p: groups(owners.get(p, [])) for p in range(game.player_count)}
        self.zone = game.zone

    def lagoon_of(self, hex_: int) -> frozenset[int] | None:
        """The lagoon holding a sea hex, None for land or open sea."""
        return next((lagoon for lagoon in self.lagoons if hex_ in lagoon), None)

    def problem(self, move: Move) -> str | None:
        """The rule ``move`` breaks now, or None if it is legal."""
        game = self.game
        if game.phase == "over":
            return "the game is over"
        if game.phase == "tile":
            return self.tile_problem(move)
        if move.kind in (TILE, DRAW, DOUBLE):
            return "a build is due"
        return self.build_problem(move)

    def tile_problem(self, move: Move) -> str | None:
        game = self.game
        if game.tile is None:
            if move.kind == DRAW:
                return None if game.tiles_left else "the pile is empty"
            if move.kind != DOUBLE:
                return "draw or take a double-hex tile first"
            if move.tile not in game.doubles:
                return "not face up"
        elif move.kind != TILE:
            return "the drawn tile must be placed"
        return self.placement_problem(*footprint_of(move, game.tile))

    def placement_problem(self, hexes: list[int], terrains: list[int]) -> str | None:
        game = self.game
        if self.zone is not None and corners_outside(self.zone, hexes) > 2:
            return "sticks out of the zone"
        volcanoes = [x for x, t in zip(hexes, terrains, strict=True) if t == 0]
        if not self.land:
            anchor = volcanoes if volcanoes else hexes
            return None if hex_at(0, 0) in anchor else "the first tile goes on 0,0"
        levels = {game.level(x) for x in hexes}
        if levels == {0}:
            for lagoon, owner in self.shipped.items():
                if owner is not None and lagoon & set(hexes):
                    return "a lagoon with a ship"
            if not any(n in self.land for x in hexes for n in around(x)):
                return "does not touch the island"
            return None
        if len(levels) > 1:
            return "not at one level"
        if not volcanoes:
            return "no volcano to erupt"
        if not any(game.terrain(x) == 0 for x in volcanoes):
            return "no volcano on a volcano"
        if len({game.tile_index(x) for x in hexes}) == 1:
            return "on a single tile"
        for x in hexes:
            piece = game.building(x)
            if piece is not None and piece[1] != "hut":
                return f"covers a {piece[1]}"
        for settlements in self.settlements.values():
            if any(group <= set(hexes) for group in settlements):
                return "wipes out a settlement"
        return None

    def build_problem(self, move: Move) -> str | None:
        game = self.game
        player = game.to_move
        supply = game.supply(player)
        own_groups = self.settlements[player]
        own = {x for group in own_groups for x in group}
        if move.kind == SHIP:
            if "ships" not in game.expansions or not supply["ships"]:
                return "no ship"
            lagoon = self.lagoon_of(move.hex)
            if lagoon is None:
                return "not a lagoon"
            if self.shipped[lagoon] is not None:
                return "the lagoon has a ship"
            if not any(n in own for x in lagoon for n in around(x)):
                return "no own settlement next to the lagoon"
            return None
        targets = list(move.hexes) if move.kind == EXPAND else [move.hex]
        for x in targets:
            if not game.level(x) or game.terrain(x) == 0 or game.building(x) is not None:
                return "not buildable"
        if move.kind == HUT:
            if not supply["huts"]:
                return "no hut"
            if game.level(move.hex) != 1:
                return "not level 1"
            return "next to own building" if any(n in own for n in around(move.hex)) else None
        if move.kind == EXPAND:
            for group in own_groups:
                field = {
                    n
                    for x in group
                    for n in around(x)
                    if game.terrain(n) == move.terrain and game.building(n) is None
                }
                if field == set(targets):
                    enough = sum(game.level(x) for x in targets) <= supply["huts"]
                    return None if enough else "not enough huts"
            return "not a whole field next to a settlement"
        next_to = [group for group in own_groups if any(n in group for n in around(move.hex))]
        kinds = [{game.building(x)[1] for x in group} for group in next_to]  # type: ignore[index]
        if move.kind == TEMPLE:
            if not supply["temples"]:
                return "no temple"
            big = [
                len(group) >= 3 and "temple" not in k
                for group, k in zip(next_to, kinds, strict=True)
            ]
            return None if any(big) else "no settlement of 3 hexes without a temple"
        if move.kind == TOWER:
            if not supply["towers"]:
                return "no tower"
            if game.level(move.hex) < 3:
                return "below level 3"
            return None if any("tower" not in k for k in kinds) else "no settlement without tower"
        return "unknown move"


def near_island(game: Game, distance: int) -> set[int]:
    """Land and sea within ``distance`` steps of the island (of 0,0 before the first tile)."""
    hexes = set(game.land()) or {hex_at(0, 0)}
    for _ in range(distance):
        hexes |= {n for x in hexes for n in around(x)}
    return hexes


def candidate_moves(game: Game, oracle: Oracle) -> set[Move]:
    """Every move a player might try: each tile placement, and each placement of the face-up
    double-hex tiles, with its hexes within two steps of the island; each single-hex build
    within one step (a ship named by its lagoon's lowest hex); each expansion into a whole
    terrain field next to a settlement (and the same field less a hex); and a few moves of
    the wrong phase or of a tile that is not face up."""
    moves = {Move.parse("draw"), Move.parse("tile 0,0 0"), Move.parse("hut 0,0")}
    moves.update(Move.place_double(code, hex_at(0, 0), 0) for code in DOUBLE_CODES)
    if game.phase == "tile":
        for hex_, k in product(near_island(game, 2), range(6)):
            moves.add(Move.place_tile(hex_, k))
            if game.tile is None:
                moves.update(Move.place_double(code, hex_, k) for code in game.doubles)
        return moves
    for hex_ in near_island(game, 1):
        moves.update(Move(kind, hex_) for kind in (HUT, TEMPLE, TOWER))
        lagoon = oracle.lagoon_of(hex_)
        moves.add(Move(SHIP, hex_ if lagoon is None else min(lagoon)))
    for settlements in oracle.settlements.values():
        for group, terrain in product(settlements, range(1, 6)):
            field = sorted({
                n
                for x in group
                for n in around(x)
                if game.terrain(n) == terrain and game.building(n) is None
            })  # fmt: skip
            if field:
                moves.add(Move.expand(terrain, field))
                if len(field) > 1:
                    moves.add(Move.expand(terrain, field[1:]))
    return moves


def cross_check(game: Game) -> Counter[str]:
    """The legal moves are exactly the candidates that explain() and the oracle both allow;
    every refusal names a rule; lagoons and ships agree with the flood fill. Returns what
    the position held, for the caller's tally."""
    oracle = Oracle(game)
    listed = game.legal_moves()
    legal_set = set(listed)
    assert len(legal_set) == len(listed), "a move is listed twice"
    candidates = candidate_moves(game, oracle)
    tally: Counter[str] = Counter(positions=1, candidates=len(candidates))
    by_explain: set[Move] = set()
    by_oracle: set[Move] = set()
    for move in candidates:
        reason = game.explain(move)
        if reason is None:
            by_explain.add(move)
        else:
            assert not reason.startswith("not a legal"), (str(move), reason)
            tally["zone refusals"] += "zone" in reason
        if oracle.problem(move) is None:
            by_oracle.add(move)
    unlisted = sorted(map(str, legal_set - candidates))
    assert not unlisted, f"legal moves no candidate covers: {unlisted}"
    assert by_explain == legal_set, sorted(map(str, by_explain ^ legal_set))
    assert by_oracle == legal_set, [(str(m), oracle.problem(m)) for m in by_oracle ^ legal_set]
    if "ships" in game.expansions:
        assert game.lagoons() == oracle.lagoons
        owners = {min(lag): owner for lag, owner in oracle.shipped.items() if owner is not None}
        assert game.ships() == owners
        for lagoon in oracle.lagoons:
            canonical = Move(SHIP, min(lagoon))
            for hex_ in lagoon:
                assert game.ship_at(hex_) == oracle.shipped[lagoon]
                if game.phase == "build":
                    assert (game.explain(Move(SHIP, hex_)) is None) == (canonical in legal_set)
        tally["lagoons"] += len(oracle.lagoons)
    tally["ship moves"] += sum(move.kind == SHIP for move in listed)
    tally["double choices"] += game.phase == "tile" and game.tile is None
    tally["eruptions"] += sum(move.is_tile_move and game.level(move.hex) > 0 for move in listed)
    return tally


# ----------------------------------------------------------------- policies that steer games


def hugging(game: Game, move: Move, land: set[int]) -> int:
    """How many land hexes a sea-level placement touches: high values enclose lagoons."""
    if move.kind not in (TILE, DOUBLE) or move.hex in land:
        return 0
    hexes, _ = footprint_of(move, game.tile or "JJ")
    return len({n for x in hexes for n in around(x) if n in land})


def steered_move(game: Game, rng: random.Random, builds: Sequence[str] = ("ship",)) -> Move:
    """A random move that leans towards closing lagoons, erupting sometimes, and the build
    kinds in ``builds`` (first found first); reproducible for a seeded ``rng``."""
    moves = sorted(game.legal_moves(), key=str)
    if game.phase == "tile":
        if rng.random() < 0.7:
            land = set(game.land())
            touching = {move: hugging(game, move, land) for move in moves}
            best = max(touching.values())
            return rng.choice([move for move in moves if touching[move] >= best - 1])
        return rng.choice(moves)
    for kind in builds:
        options = [move for move in moves if move.kind == kind]
        if options and rng.random() < 0.85:
            if kind == EXPAND:
                return max(options, key=lambda m: (sum(game.level(x) for x in m.hexes), str(m)))
            return rng.choice(options)
    return rng.choice(moves)


# ----------------------------------------------------------------- Ships

LAGOON_DECK = ["JC", "SR", "LL", "JS", "SC", "JR", "RC", "CJ", "SJ", "JC", "CR", "RJ"]
LAGOON_TURNS = [
    "tile 0,0 5; hut 1,0",  # player 1
    "tile 3,-1 4; hut 3,0",  # player 2
    "tile 4,0 4; hut 4,1",  # player 3
    "tile -1,3 0; expand sand 2,0",  # player 1: the bay at 1,1 2,1 1,2 is still open
    "tile 2,3 2; hut 0,3",  # player 2 closes it: a lagoon of three hexes
    "tile -1,0 3; hut -2,0",  # player 3
    "tile 1,-2 4; ship 1,1",  # player 1
    "tile 4,2 0; hut 5,2",  # player 2
    "tile -2,-1 0; hut -1,-2",  # player 3
    "tile -3,1 3",  # player 1, to build
]
"""Three players close a lagoon of three hexes (1,1 2,1 1,2) around which all settle."""
LAGOON = hexes_of("1,1", "2,1", "1,2")


def lagoon_game(turns: int, *extra: str) -> Game:
    """The game of LAGOON_TURNS after its first ``turns`` turns, then ``extra`` moves."""
    return play(new_game(LAGOON_TURNS[:turns], LAGOON_DECK, players=3), *extra)


def test_a_lagoon_is_the_sea_the_island_encloses_completely() -> None:
    open_bay = lagoon_game(4)
    assert open_bay.lagoons() == [] and find_lagoons(open_bay.land()) == []
    closed = lagoon_game(4, "tile 2,3 2")
    assert closed.lagoons() == [LAGOON] == find_lagoons(closed.land())


def test_a_ship_into_an_open_bay_is_refused() -> None:
    game = lagoon_game(3, "tile -1,3 0")
    assert refused(game, "ship 1,1") == (
        "1,1 is open sea, not a lagoon: the island must enclose it completely"
    )
    assert refused(game, "ship 1,0") == "1,0 is land: a ship goes into a lagoon"
    assert legal(game, "ship") == []


def test_a_ship_goes_into_a_lagoon_next_to_a_settlement_of_the_player() -> None:
    game = lagoon_game(4, "tile 2,3 2")
    assert game.to_move == 1 and legal(game, "ship") == ["ship 1,1"]
    game.play("ship 2,1")  # any hex of the lagoon names it; the record names its lowest hex
    assert str(game.moves[-1]) == "ship 1,1"
    assert game.ships() == {h("1,1"): 1}
    assert [game.ship_at(x) for x in sorted(LAGOON)] == [1, 1, 1]
    assert game.ship_at(h("1,0")) is None
    assert game.supply(1) == {"huts": 19, "temples": 3, "towers": 2, "ships": 1}
    assert game.to_move == 2 and game.phase == "tile"


def test_a_ship_into_a_lagoon_that_touches_no_settlement_of_the_player_is_refused() -> None:
    game = lagoon_game(5, "tile -1,0 3")
    assert game.to_move == 2 and game.settlements(2) == [hexes_of("4,1")]
    assert refused(game, "ship 1,1") == "the lagoon at 1,1 does not touch a settlement of yours"
    assert refused(game, "ship 2,1") == "the lagoon at 1,1 does not touch a settlement of yours"
    assert legal(game, "ship") == []


def test_a_second_ship_into_the_same_lagoon_is_refused() -> None:
    game = lagoon_game(7, "tile 4,2 0")
    assert game.to_move == 1 and game.ships() == {h("1,1"): 0}
    assert game.settlements(1) == [hexes_of("0,3"), hexes_of("3,0")]  # both touch the lagoon
    assert refused(game, "ship 1,2") == "the lagoon at 1,1 already holds a ship"
    assert legal(game, "ship") == []


def test_no_tile_may_cover_a_lagoon_holding_a_ship() -> None:
    game = lagoon_game(8, "tile -2,-1 0; hut -1,-2")
    reason = "1,1 is in a lagoon that holds a ship: no tile may cover it"
    assert refused(game, "tile 1,1 5") == reason
    assert (
        refused(game, "tile 1,2 1") == "1,2 is in a lagoon that holds a ship: no tile may cover it"
    )
    assert (
        refused(game, "tile 2,1 3") == "2,1 is in a lagoon that holds a ship: no tile may cover it"
    )


def test_a_tile_may_fill_a_lagoon_without_a_ship() -> None:
    game = lagoon_game(6)
    allowed(game, "tile 1,1 5")  # player 1 fills the lagoon instead of sailing into it
    assert [game.level(x) for x in sorted(LAGOON)] == [1, 1, 1]
    assert game.lagoons() == [] and legal(game, "ship") == []


def test_ships_are_not_part_of_a_settlement() -> None:
    game = lagoon_game(10)
    assert game.ships() == {h("1,1"): 0} and game.settlements(0) == [hexes_of("1,0", "2,0")]
    # the ship does not make the settlement three hexes large
    assert refused(game, "temple 0,1") == (
        "a temple needs an adjacent settlement of yours covering at least 3 hexes"
    )
    # expansions reach the hexes next to the settlement, not those beyond the ship's lagoon
    # (0,2 and 2,2 are sand, 1,3 clearing, 3,1 lake)
    assert legal(game, "expand") == ["expand clearing 1,-1", "expand jungle 0,1"]
    assert refused(game, "expand sand 0,2 2,2").startswith("no settlement of yours reaches")
    # a hut beside the ship's lagoon founds a new settlement: the ship joins nothing
    allowed(game, "hut 2,2")
    assert game.settlements(0) == [hexes_of("1,0", "2,0"), hexes_of("2,2")]


RANKING_TURNS = [
    "tile 0,0 5; hut 1,0",
    "tile 3,-1 4; hut 3,0",
    "tile 4,0 4; hut 4,1",
    "tile -1,3 0; hut 0,3",
    "tile 2,3 2; ship 1,1",
]


def test_ships_rank_players_equal_in_temples_towers_and_huts() -> None:
    game = new_game(RANKING_TURNS, LAGOON_DECK[:5])
    assert game.result is not None and game.result.reason == "tiles"
    assert [game.supply(p)["huts"] for p in (0, 1)] == [18, 18]
    assert game.result.ranking == ((0,), (1,))  # two huts each; the ship decides


def test_huts_rank_before_ships() -> None:
    game = new_game([*RANKING_TURNS, "tile -1,0 3; hut -2,0"], LAGOON_DECK[:6])
    assert game.result is not None and game.result.reason == "tiles"
    assert game.result.ranking == ((1,), (0,))  # three huts beat two huts and a ship
    assert [game.score(p) for p in (0, 1)] == [2, 3]  # ships score nothing on BGA's scale
    assert [game.placed(p) for p in (0, 1)] == [
        {"huts": 2, "temples": 0, "towers": 0, "ships": 1},
        {"huts": 3, "temples": 0, "towers": 0, "ships": 0},
    ]


def emptied(game: Game, player: int) -> list[str]:
    """The piece types a player has placed every piece of."""
    return [kind for kind, left in game.supply(player).items() if left == 0]


def test_the_last_ship_wins_when_it_completes_a_second_piece_type() -> None:
    record = fixture("victory_by_the_last_ship")
    before = replay(record, len(record["moves"]) - 1)
    winner = before.to_move
    assert before.result is None and before.phase == "build"
    assert before.supply(winner) == {"huts": 0, "temples": 2, "towers": 2, "ships": 1}
    assert emptied(replay(record, 46), winner) == ["huts"]  # eight plies played on since
    assert record["moves"][-1] == "ship 2,0"
    before.play("ship 2,0")
    assert before.result is not None and dict(before.result) == record["result"]
    assert before.result.reason == "victory" and before.result.winners == (winner,)
    assert emptied(before, winner) == ["huts", "ships"]


def test_both_ships_alone_do_not_win_but_count_as_one_completed_type() -> None:
    record = fixture("victory_after_both_ships")
    assert len(record["moves"]) == 56 and record["result"]["reason"] == "victory"
    winner = record["result"]["ranking"][0][0]
    assert emptied(replay(record, 51), winner) == []
    for ply in range(52, 56):  # the second ship is placed: the game goes on
        game = replay(record, ply)
        assert emptied(game, winner) == ["ships"] and game.result is None
    game = replay(record, 55)
    assert game.supply(winner)["huts"] == 2 and record["moves"][55].startswith("expand ")
    game.play(record["moves"][55])
    assert emptied(game, winner) == ["huts", "ships"]
    assert game.result is not None and game.result.reason == "victory"
    assert game.result.winners == (winner,) and game.supply(winner)["temples"] == 3


def test_a_possible_ship_placement_saves_a_player_from_elimination() -> None:
    record = fixture("ship_saves_from_elimination")
    game = Game.from_record(record)
    player = game.to_move
    assert game.phase == "build" and game.eliminated == ()
    assert [move.kind for move in game.legal_moves()] == [SHIP]
    assert game.supply(player)["ships"] == 2
    # the same moves without the Ships expansion leave the player no build: eliminated
    plain = replay(record, options={"expansions": []})
    assert plain.eliminated == (player,)
    assert plain.to_move != player or plain.phase == "over"


# ----------------------------------------------------------------- Double-Hex tiles

DOUBLE_DECK = ["JC", "SR", "LL", "JS"]


def double_game(turns: Sequence[str], deck: Sequence[str] = DOUBLE_DECK, players: int = 2,
                doubles: Sequence[str] = ("VL", "JJ")) -> Game:  # fmt: skip
    """A Double-Hex game with the given face-up tiles, after ``turns``."""
    return new_game(turns, deck, players, ("double_hex",), doubles)


def test_a_turn_starts_with_the_choice_between_drawing_and_a_face_up_double_hex_tile() -> None:
    game = double_game([])
    assert (game.phase, game.tile, game.doubles, game.tiles_left) == ("tile", None, ("VL", "JJ"), 4)
    assert legal(game) == [
        "double JJ -1,0 0", "double JJ -1,1 1", "double JJ 0,0 0", "double JJ 0,0 1",
        "double JJ 0,0 2", "double JJ 0,1 2",
        "double VL 0,0 0", "double VL 0,0 1", "double VL 0,0 2", "double VL 0,0 3",
        "double VL 0,0 4", "double VL 0,0 5", "draw",
    ]  # fmt: skip
    assert refused(game, "tile 0,0 0") == (
        "player 1 must first draw a tile or take a face-up double-hex tile"
    )
    assert refused(game, "hut 0,0") == "player 1 must place a tile before building"


def test_the_first_double_hex_tile_goes_with_a_volcano_on_0_0_and_jj_covers_it() -> None:
    game = double_game([])
    reason = "the first tile of the game goes with its volcano on 0,0"
    assert refused(game, "double VL 1,0 3") == reason  # lake on 0,0, volcano beside it
    assert refused(game, "double JJ 1,0 0") == reason
    assert (
        refused(game, "double VV 0,0 0") == "VV is not among the face-up double-hex tiles (VL JJ)"
    )
    allowed(game, "double JJ 0,0 3")  # JJ on 0,0 and -1,0, written from -1,0 with k in 0..2
    assert str(game.moves[-1]) == "double JJ -1,0 0"
    assert [game.level(x) for x in hexes_of("-1,0", "0,0")] == [1, 1]


def test_draw_reveals_the_tile_which_is_then_placed() -> None:
    game = double_game([])
    allowed(game, "draw")
    assert (game.tile, game.tiles_left, game.phase) == ("JC", 3, "tile")
    assert legal(game) == [f"tile 0,0 {k}" for k in range(6)]
    assert refused(game, "draw") == "player 1 has drawn already: place the drawn tile (JC)"
    assert refused(game, "double VL 0,0 0") == (
        "player 1 has drawn JC: a double-hex tile is taken instead of drawing"
    )
    allowed(game, "tile 0,0 0")
    assert game.phase == "build" and game.doubles == ("VL", "JJ")


def test_a_double_hex_tile_is_taken_instead_of_drawing() -> None:
    game = double_game([])
    allowed(game, "double VL 0,0 5")  # volcano on 0,0, lake on 0,1
    assert game.doubles == ("JJ",) and game.doubles_taken(0) == 1 and game.tiles_left == 4
    assert game.face_up_doubles == ("VL", "JJ")
    assert legal(game) == ["hut 0,1"]
    allowed(game, "hut 0,1")
    assert game.tile is None and "draw" in legal(game)  # player 2 chooses in turn
    allowed(game, "draw")
    assert game.tile == "JC"  # nobody drew a regular tile before


def test_a_second_double_hex_tile_is_refused_while_regular_tiles_remain() -> None:
    game = double_game(["double VL 0,0 5; hut 0,1", "draw; tile 1,-1 0; hut 2,-1"])
    assert game.to_move == 0 and game.tile == "SR"  # drawn at once: no choice left to make
    assert "draw" not in legal(game) and legal(game, "double") == []
    assert refused(game, "double JJ -1,0 0") == (
        "player 1 has taken a double-hex tile already (a second one only once the pile is empty)"
    )


PILE_EMPTY_TURNS = [
    "double VL 0,0 5; hut 0,1",  # player 1 takes a double-hex tile, then draws no more
    "draw; tile 1,-1 0; hut 2,-1",
    "draw; tile -1,0 1; hut -1,-1",  # the pile of two is empty now
]


def pile_empty_game(*turns: str) -> Game:
    """Three players, two regular tiles, VL JJ VS face up: player 1's turn with the pile empty."""
    return double_game([*PILE_EMPTY_TURNS, *turns], ["JC", "SR"], 3, ("VL", "JJ", "VS"))


def test_a_second_double_hex_tile_may_be_taken_once_the_pile_is_empty() -> None:
    game = pile_empty_game()
    assert game.tiles_left == 0 and game.to_move == 0 and game.tile is None
    assert refused(game, "draw") == "the draw pile is empty: take a face-up double-hex tile"
    assert {move.tile for move in game.legal_moves()} == {"JJ", "VS"}
    allowed(game, "double JJ 0,2 0")
    assert game.doubles_taken(0) == 2 and game.doubles == ("VS",)


def test_the_game_ends_when_the_player_to_move_can_take_no_tile() -> None:
    game = pile_empty_game("double JJ 0,2 0; hut 1,2")
    assert game.result is None and game.to_move == 1 and game.doubles == ("VS",)
    allowed(game, "double VS 1,1 0")
    game.play(legal(game)[0])
    assert game.doubles == () and game.tiles_left == 0
    assert game.result is not None and game.result.reason == "tiles" and game.phase == "over"
    assert game.legal_moves() == [] and game.tile is None


def double_choice() -> Game:
    """A five-player island at a double-hex choice point of player 3 (who has taken none)."""
    game = Game.from_record(fixture("double_choice"))
    assert game.to_move == 2 and game.tile is None and game.doubles_taken(2) == 0
    assert game.doubles == ("JJ", "VV", "VJ", "VS", "VL")
    return game


def test_jj_may_not_go_on_top() -> None:
    game = double_choice()
    # -3,2 (lake of tile 6) and -2,2 (volcano of tile 10), both at level 1, no buildings
    assert [(game.level(x), game.tile_index(x)) for x in (h("-3,2"), h("-2,2"))] == [
        (1, 6),
        (1, 10),
    ]
    assert refused(game, "double JJ -3,2 0") == "a tile without a volcano only goes on sea level"
    assert game.explain("double VV -3,2 0") is None


def test_vv_goes_on_top_with_one_of_its_volcanoes_on_a_volcano() -> None:
    game = double_choice()
    assert (game.terrain(h("-3,2")), game.terrain(h("-2,2"))) == (5, 0)  # lake, volcano
    allowed(game, "double VV -3,2 0")
    assert [(game.level(x), game.terrain(x)) for x in (h("-3,2"), h("-2,2"))] == [(2, 0), (2, 0)]
    assert game.phase == "build" and game.doubles_taken(2) == 1


def test_a_double_hex_tile_erupts_with_its_volcano_on_a_volcano_and_destroys_huts() -> None:
    game = double_choice()
    assert game.building(h("-2,0")) == (0, "hut") and game.terrain(h("-3,1")) == 0
    allowed(game, "double VL -3,1 1")
    assert game.building(h("-2,0")) is None and game.destroyed_huts(0) == 1
    assert (game.level(h("-2,0")), game.terrain(h("-2,0"))) == (2, 5)


def test_a_double_hex_tile_with_its_volcano_on_a_field_is_refused() -> None:
    game = double_choice()
    assert refused(game, "double VL -3,2 1") == (
        "the volcano would lie on lake at -3,2: an eruption must cover a volcano"
    )


def test_a_double_hex_tile_may_not_lie_on_a_single_tile() -> None:
    game = double_choice()
    assert game.tile_index(h("-3,1")) == game.tile_index(h("-2,1")) == 6
    single = "the tile would lie exactly on a single tile: turn it to cover at least two tiles"
    assert refused(game, "double VL -3,1 0") == single
    assert refused(game, "double VV -3,1 0") == single


def test_a_double_hex_tile_may_not_cover_a_temple() -> None:
    game = double_choice()
    assert game.building(h("0,-1")) == (1, "temple")
    assert refused(game, "double VL 1,-1 3") == "the tile would cover the temple at 0,-1"
    assert refused(game, "double VV 0,-1 0") == "the tile would cover the temple at 0,-1"


def test_a_double_hex_tile_may_not_wipe_out_a_settlement() -> None:
    game = double_choice()
    assert refused(game, "double VS 2,-3 2") == (
        "the tile would destroy every building of the settlement at 2,-4"
    )


def test_a_double_hex_tile_on_sea_level_must_touch_the_island() -> None:
    game = double_choice()
    assert refused(game, "double VL 20,0 0") == (
        "the tile does not touch the island: one of its hexes must share an edge with it"
    )


# ----------------------------------------------------------------- Fifth player


def test_five_players_bring_sixty_tiles_and_five_seats_of_pieces() -> None:
    game = Game.new(players=5, seed=5, expansions=("ships", "double_hex"))
    extra = Counter({"JC": 1, "CJ": 2, "JS": 2, "SJ": 2, "JL": 2, "CR": 2, "RC": 1})
    four = Game.new(players=4, seed=5)
    assert len(four.deck) == 48 and len(game.deck) == 60
    assert Counter(game.deck) == Counter(four.deck) + extra
    assert [game.supply(p) for p in range(5)] == [
        {"huts": 20, "temples": 3, "towers": 2, "ships": 2}
    ] * 5
    assert sorted(game.face_up_doubles) == sorted(DOUBLE_CODES)
    assert len(Game.new(players=5, seed=5, house_rules=["all_tiles"]).deck) == 60


def test_the_fifth_player_tiles_come_only_with_five_players() -> None:
    deck = ["JC"] * 7
    with pytest.raises(
        InvalidOption, match="the deck holds 7 JC tiles, but a 4-player box has only 6"
    ):
        Game.new(players=4, deck=deck)
    assert Game.new(players=5, deck=deck).deck == tuple(deck)


# ----------------------------------------------------------------- records


def state(game: Game) -> dict[str, Any]:
    """What a record must reproduce, expansions included."""
    return {
        "record": game.to_record(),
        "legal": sorted(map(str, game.legal_moves())),
        "land": {x: (game.level(x), game.terrain(x), game.tile_index(x)) for x in game.land()},
        "buildings": game.buildings(),
        "supplies": [game.supply(p) for p in range(game.player_count)],
        "ships": game.ships(),
        "lagoons": game.lagoons(),
        "doubles": (game.doubles, [game.doubles_taken(p) for p in range(game.player_count)]),
        "zone": game.zone,
        "result": None if game.result is None else dict(game.result),
    }


def test_records_with_expansions_save_load_and_replay(tmp_path: Path) -> None:
    expansions = ("ships", "double_hex", "board:intermediate-b")
    game = Game.new(players=4, seed=17, expansions=expansions)
    rng = random.Random(17)
    midway = None
    while not game.is_over:
        if "draw" in legal(game) and rng.random() < 0.6:
            game.play("draw")
        else:
            game.play(steered_move(game, rng, ("ship", "expand")))
        if game.ply == 40:
            midway = Game.from_record(json.dumps(game.to_record()))
            assert state(midway) == state(game)
    assert midway is not None
    record = game.to_record()
    assert record["options"]["expansions"] == list(expansions)
    assert record["doubles"] == list(game.face_up_doubles) and len(record["doubles"]) == 4
    kinds = {text.split()[0] for text in record["moves"]}
    assert {"draw", "double", "ship"} <= kinds
    assert all(str(Move.parse(text)) == text for text in record["moves"])
    game.save(tmp_path / "game.json")
    loaded = Game.load(tmp_path / "game.json")
    assert state(loaded) == state(game)
    for text in record["moves"][40:]:
        midway.play(text)
    assert state(midway) == state(game)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"doubles": "VL JJ"}, "record: doubles must be a list"),
        ({"doubles": ["VL", 7]}, "record: doubles must be a list of strings"),
        ({"doubles": ["VL", "XY"]}, "record: doubles[1] is 'XY', not one of VL VJ VS VV JJ"),
        ({"doubles": ["VL", "vl"]}, "record: doubles lists VL twice: there is one of each"),
        (
            {"doubles": ["VL"]},
            "record: 1 face-up double-hex tiles for 2 players: lay one per player",
        ),
        ({"doubles": []}, "record: 0 face-up double-hex tiles for 2 players: lay one per player"),
        (
            {"options": {"expansions": ["ships"]}},
            "record: face-up double-hex tiles need the double_hex expansion",
        ),
        (
            {"options": {"expansions": ["double_hex", "board:huge"]}},
            "record: unknown expansion 'board:huge': choose from ships, double_hex, "
            "board:beginner, board:intermediate-a, board:intermediate-b, board:expert",
        ),
        (
            {"options": {"expansions": ["double_hex", "board:expert", "board:beginner"]}},
            "record: choose one board zone, not board:expert and board:beginner",
        ),
        (
            {"moves": ["double VL 0,0 5", "hut 0,1", "ship 1,1"]},
            "record: moves[2] ship 1,1: player 2 must place a tile before building",
        ),
        (
            {"moves": ["double VV 0,0 0"]},
            "record: moves[0] double VV 0,0 0: VV is not among the face-up double-hex tiles "
            "(VL JJ)",
        ),
    ],
)
def test_malformed_expansion_records_are_rejected_with_a_clear_message(
    change: dict[str, Any], message: str
) -> None:
    record = Game.new(players=2, deck=DOUBLE_DECK, expansions=["double_hex"], doubles=["VL", "JJ"])
    text = record.to_record()
    options = {**text["options"], **change.pop("options", {})}
    with pytest.raises(InvalidRecord) as error:
        Game.from_record({**text, **change, "options": options})
    assert str(error.value) == message


def test_a_ship_move_needs_the_ships_expansion() -> None:
    game = new_game([*LAGOON_TURNS[:4], "tile 2,3 2"], LAGOON_DECK, players=3, expansions=())
    assert refused(game, "ship 1,1") == (
        "ships belong to the Ships expansion, which this game does not use"
    )
    assert refused(Game.new(deck=DOUBLE_DECK), "draw") == (
        "the engine draws the tile: 'draw' is a move of the Double-Hex expansion only"
    )


# ----------------------------------------------------------------- the cross-check


def cross_check_games(count: int, seed: int, share: float) -> Iterator[Game]:
    """Random games over every combination of expansions and 2-5 players, yielding a
    ``share`` of their positions, every double-hex choice point, every position with a ship
    to place and every end; the
    moves lean towards lagoons and ships half of the time, so that those rules are used."""
    for index in range(count):
        rng = random.Random(seed + index)
        expansions = COMBINATIONS[index % len(COMBINATIONS)]
        game = Game.new(players=2 + index % 4, seed=seed + index, expansions=expansions)
        while not game.is_over:
            choosing = game.phase == "tile" and game.tile is None
            sailing = game.phase == "build" and SHIP in {m.kind for m in game.legal_moves()}
            if choosing or sailing or rng.random() < share:
                yield game
            if rng.random() < 0.5:
                game.play(steered_move(game, rng, ("ship", "temple", "tower")))
            else:
                game.play(rng.choice(game.legal_moves()))
        yield game


def test_move_generation_equals_the_independent_oracle_with_every_expansion() -> None:
    tally: Counter[str] = Counter()
    for game in cross_check_games(len(COMBINATIONS), seed=9000, share=0.07):
        try:
            tally.update(cross_check(game))
        except AssertionError as error:
            raise AssertionError(f"{error}\nrecord: {json.dumps(game.to_record())}") from error
    assert tally["positions"] >= 120, tally
    assert tally["lagoons"] >= 50 and tally["ship moves"] >= 10, tally
    assert tally["double choices"] >= 25 and tally["zone refusals"] >= 5000, tally
    assert tally["eruptions"] >= 500, tally


# ----------------------------------------------------------------- perft


def perft_entries() -> list[dict[str, Any]]:
    """The table: one position a line, ``{"id", "record", "perft": {"1": n, ...}}``."""
    lines = PERFT_TABLE.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize("entry", perft_entries(), ids=lambda entry: entry["id"])
def test_perft_counts_of_the_expansion_positions(entry: dict[str, Any]) -> None:
    game = Game.from_record(entry["record"])
    assert game.expansions == tuple(entry["record"]["options"]["expansions"])
    for depth, count in entry["perft"].items():
        assert perft(game, int(depth)) == count, f"depth {depth}"
    assert brute_perft(game, 1) == entry["perft"]["1"]


def test_the_perft_table_covers_each_expansion_where_it_matters() -> None:
    entries = {entry["id"]: Game.from_record(entry["record"]) for entry in perft_entries()}
    ships = [g for g in entries.values() if "ships" in g.expansions and g.lagoons()]
    choice = [g for g in entries.values() if g.phase == "tile" and g.tile is None]
    edge = [
        g
        for g in entries.values()
        if g.zone and any("zone" in (g.explain(m) or "") for m in candidate_moves(g, Oracle(g)))
    ]
    assert ships and choice and edge


def brute_perft(game: Game, depth: int) -> int:
    """Perft by brute force: at every node, the candidates explain() allows (and the oracle
    must allow the same), played through the engine."""
    oracle = Oracle(game)
    candidates = candidate_moves(game, oracle)
    moves = [m for m in candidates if game.explain(m) is None]
    assert set(moves) == {m for m in candidates if oracle.problem(m) is None}
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        game.play(move)
        total += 1 if game.is_over else brute_perft(game, depth - 1)
        game.pop()
    return total


# ----------------------------------------------------------------- searching for fixtures


def _victory_with_ships(seeds: int, ship_last: bool) -> dict[str, Any]:
    """The shortest game found whose winner has placed both ships and all pieces of one
    more type: with the last ship (``ship_last``), or after the ships, by another build."""
    best: dict[str, Any] | None = None
    builds = ("tower", "temple", "expand", "ship") if ship_last else ("ship", "tower", "expand")
    for seed in range(seeds):
        rng = random.Random(seed)
        game = Game.new(players=2, seed=seed, tiles_per_player=24, expansions=("ships",))
        while not game.is_over:
            game.play(steered_move(game, rng, builds))
        if game.result is None or game.result.reason != "victory":
            continue
        winner = game.result.winners[0]
        fits = game.supply(winner)["ships"] == 0 and (game.moves[-1].kind == SHIP) == ship_last
        if fits and (best is None or game.ply < len(best["moves"])):
            best = game.to_record()
    assert best is not None, "no victory with ships found: search more seeds"
    return best


def _ship_saves(seeds: int) -> dict[str, Any]:
    """The shortest game found where a player's only build is a ship (no ship placed before),
    cut just after that player's tile move."""
    best: dict[str, Any] | None = None
    for seed in range(seeds):
        rng = random.Random(seed)
        game = Game.new(players=2 + seed % 3, seed=seed, expansions=("ships",))
        while not game.is_over:
            only_ships = game.phase == "build" and all(m.kind == SHIP for m in game.legal_moves())
            if only_ships and not any(m.kind == SHIP for m in game.moves):
                if best is None or game.ply < len(best["moves"]):
                    best = game.to_record()
                break
            game.play(steered_move(game, rng, ("expand", "hut", "temple", "tower")))
    assert best is not None, "no position found: search more seeds"
    return best


def _double_choice(seeds: int) -> dict[str, Any]:
    """The earliest five-player double-hex choice point where, among the placements on top,
    JJ is refused, one lies on a single tile, one covers a temple, VV has one volcano on a
    volcano, and one destroys a hut."""
    best: dict[str, Any] | None = None
    for seed in range(seeds):
        rng = random.Random(seed)
        game = Game.new(players=5, seed=seed, expansions=("double_hex",))
        while not game.is_over and (best is None or game.ply < len(best["moves"])):
            choice = game.ply and game.tile is None and set(game.doubles) >= {"VV", "JJ", "VL"}
            if choice and len(_on_top(game)) == 5:
                best = game.to_record()
                break
            if "draw" in legal(game):
                game.play("draw")
            elif game.phase == "tile" and rng.random() < 0.5 and game.tiles_left < 50:
                game.play(rng.choice([m for m in game.legal_moves() if game.level(m.hex)] or
                                     game.legal_moves()))  # fmt: skip
            else:
                game.play(steered_move(game, rng, ("temple", "tower", "expand")))
    assert best is not None
    return best


def _on_top(game: Game) -> set[str]:
    """Which double-hex placements on top this choice point shows (see _double_choice)."""
    seen = set()
    for hex_, k, code in product(game.land(), range(6), game.doubles):
        move = Move.place_double(code, hex_, k)
        hexes = footprint_of(move, None)[0]
        if not all(game.level(x) for x in hexes) or len({game.level(x) for x in hexes}) > 1:
            continue
        reason = game.explain(move)
        if reason is None:
            if code == "VV" and [game.terrain(x) for x in hexes].count(0) == 1:
                seen.add("VV on one volcano")
            if any(game.building(x) for x in hexes):
                seen.add("destroys a hut")
        elif "single tile" in reason:
            seen.add("single tile")
        elif "cover the temple" in reason:
            seen.add("temple")
        elif code == "JJ" and len({game.tile_index(x) for x in hexes}) == 2:
            seen.add("JJ on top")
    return seen


def _no_placement(seeds: int) -> dict[str, Any]:
    """The shortest game found that an Expert zone ends early: no placement fits."""
    best: dict[str, Any] | None = None
    for seed in range(seeds):
        rng = random.Random(seed)
        game = Game.new(players=5, seed=seed, expansions=("board:expert",))
        while not game.is_over:
            moves = sorted(game.legal_moves(), key=str)
            sea = [m for m in moves if m.kind == TILE and game.level(m.hex) == 0]
            game.play(rng.choice(sea or moves))
        early = game.result is not None and game.result.reason == "no-placement"
        if early and (best is None or game.ply < len(best["moves"])):
            best = game.to_record()
    assert best is not None
    return best


PERFT_POSITIONS: dict[str, tuple[str, int]] = {
    "ships-lagoon": ("lagoon", 3),
    "double-hex-choice": ("double_choice", 2),
    "double-hex-pile-empty": ("pile_empty", 3),
    "expert-zone-edge": ("zone_edge", 3),
    "all-expansions": ("all", 3),
}


def perft_record(source: str) -> dict[str, Any]:
    """The record of a perft position (see PERFT_POSITIONS)."""
    if source == "lagoon":
        record = lagoon_game(6, "tile 1,-2 4").to_record()  # player 1 may sail into the lagoon
    elif source == "pile_empty":
        record = pile_empty_game().to_record()
    elif source == "zone_edge":
        from test_zones import edge_game

        record = edge_game().to_record()
    elif source == "all":
        game = Game.new(players=3, seed=31, expansions=("ships", "double_hex", "board:expert"))
        rng = random.Random(31)
        while game.ply < 30:
            game.play(steered_move(game, rng, ("ship", "expand")))
        record = game.to_record()
    else:
        record = fixture(source)
    return record


def main(argv: Sequence[str]) -> None:
    """Search the fixtures again (unless told ``perft`` only), then recount the perft table,
    confirming depths 1 and 2 by the oracle's own brute force before writing anything."""
    if "perft" not in argv:
        FIXTURES.mkdir(parents=True, exist_ok=True)
        found = {
            "victory_by_the_last_ship": _victory_with_ships(300, ship_last=True),
            "victory_after_both_ships": _victory_with_ships(300, ship_last=False),
            "ship_saves_from_elimination": _ship_saves(400),
            "double_choice": _double_choice(60),
            "no_placement": _no_placement(40),
        }
        for name, record in found.items():
            (FIXTURES / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
            print(f"{name}: {len(record['moves'])} moves", file=sys.stderr)
    lines = []
    for name, (source, depth) in PERFT_POSITIONS.items():
        record = perft_record(source)
        game = Game.from_record(record)
        counts = {str(d): perft(game, d) for d in range(1, depth + 1)}
        for d in (1, 2):
            assert brute_perft(game, d) == counts[str(d)], (name, d)
        lines.append(json.dumps({"id": name, "record": record, "perft": counts}))
        print(f"{name}: {counts}", file=sys.stderr)
    PERFT_TABLE.parent.mkdir(parents=True, exist_ok=True)
    PERFT_TABLE.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
