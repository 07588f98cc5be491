"""The Game Board expansion: the zones as data, the two-corner rule and the early end.

Zone geometry is checked against the corner count and point-in-polygon test that the oracle of
test_expansions.py uses (corners on an integer lattice, winding numbers), written without the
engine's; the rules are played from real move sequences and from
``tests/data/expansions/no_placement.json``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from scenarios import allowed, legal, refused
from test_expansions import (
    Oracle,
    candidate_moves,
    corners_outside,
    fixture,
    lattice_corners,
    replay,
    step,
    winding,
)

from taluva import Game, Move, coords, hex_at
from taluva.engine.expansions.board_zones import ZONES
from taluva.engine.moves import DOUBLE, TILE

ORDER = ("beginner", "intermediate-a", "intermediate-b", "expert")
EDGE_DECK = ["CJ", "RJ", "RR", "CC", "JR", "JS", "SC", "LJ"]
EDGE_TURNS = ["tile 0,0 0; hut 1,0", "tile 3,-2 2; hut 1,-1", "tile 5,-4 3; hut 3,-3"]
"""Three tiles that reach the north-east edge of the Expert zone (found by a seeded search)."""


def covered(text: str) -> list[int]:
    """The hexes a tile or double-hex move covers."""
    move = Move.parse(text)
    hexes = [move.hex, step(move.hex, move.orientation)]
    return hexes if move.kind == DOUBLE else [*hexes, step(move.hex, move.orientation + 1)]


def ring_of(radius: int) -> list[int]:
    """Every hex within ``radius`` steps of 0,0."""
    return [
        hex_at(q, r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if max(abs(q), abs(r), abs(q + r)) <= radius
    ]


def edge_game(expansions: Sequence[str] = ("board:expert",)) -> Game:
    """The Expert-zone game of EDGE_TURNS: player 1 to place CC next to the zone's edge."""
    game = Game.new(players=2, deck=EDGE_DECK, expansions=expansions)
    for turn in EDGE_TURNS:
        for text in turn.split(";"):
            game.play(text.strip())
    return game


# ----------------------------------------------------------------- zones as data


def test_the_four_zones_go_from_the_largest_to_the_smallest() -> None:
    assert tuple(ZONES) == ORDER
    areas = {name: ZONES[name].area for name in ORDER}
    assert areas["beginner"] > max(areas["intermediate-a"], areas["intermediate-b"])
    assert min(areas["intermediate-a"], areas["intermediate-b"]) > areas["expert"]
    assert ZONES["intermediate-a"].polygon != ZONES["intermediate-b"].polygon
    assert areas["expert"] >= 100  # cramped, yet room for 30 tiles and more


@pytest.mark.parametrize("name", ORDER)
def test_a_zone_area_counts_the_hexes_whose_centre_lies_inside(name: str) -> None:
    zone = ZONES[name]
    inside = {
        hex_
        for hex_ in ring_of(20)
        if winding((math.sqrt(3) * (coords(hex_)[0] + coords(hex_)[1] / 2), 1.5 * coords(hex_)[1]),
                   zone.polygon) != 0
    }  # fmt: skip
    assert zone.hexes == inside and zone.area == len(inside)
    assert set(ring_of(4)) <= inside  # centred on 0,0 with room around the first tile


@pytest.mark.parametrize("name", ORDER)
def test_corners_out_agrees_with_an_independent_count(name: str) -> None:
    zone = ZONES[name]
    counts = set()
    for hex_ in ring_of(14):
        for k in range(6):
            three = [hex_, step(hex_, k), step(hex_, k + 1)]
            two = three[:2]
            assert len(lattice_corners(three)) == 12 and len(lattice_corners(two)) == 10
            expected = corners_outside(zone, three)
            assert zone.corners_out(three) == expected, (name, three)
            assert zone.allows(three) == (expected <= 2)
            assert zone.corners_out(two) == corners_outside(zone, two), (name, two)
            counts.add(expected)
    assert {0, 2, 3, 12} <= counts  # inside, at the edge on both sides, far out


def test_the_first_tile_fits_every_zone() -> None:
    for name in ORDER:
        game = Game.new(players=2, seed=1, expansions=[f"board:{name}"])
        assert legal(game) == [f"tile 0,0 {k}" for k in range(6)]
        assert game.zone == name and game.expansions == (f"board:{name}",)


# ----------------------------------------------------------------- the two-corner rule


def test_a_tile_sticking_out_by_three_corners_is_refused() -> None:
    game = edge_game()
    hexes = covered("tile 5,-5 2")
    assert ZONES["expert"].corners_out(hexes) == 3 == corners_outside(ZONES["expert"], hexes)
    assert refused(game, "tile 5,-5 2") == (
        "the tile would stick out of the Expert zone by 3 corners (at most 2 may)"
    )
    assert edge_game(expansions=()).explain("tile 5,-5 2") is None  # legal without a board


def test_a_tile_sticking_out_by_two_corners_is_allowed() -> None:
    game = edge_game()
    hexes = covered("tile 7,-4 3")
    assert ZONES["expert"].corners_out(hexes) == 2 == corners_outside(ZONES["expert"], hexes)
    allowed(game, "tile 7,-4 3")
    assert game.level(hex_at(7, -4)) == 1


def double_edge_game() -> Game:
    """EDGE_TURNS with the Double-Hex expansion: player 2 chooses next to the zone's edge."""
    game = Game.new(
        players=2, deck=EDGE_DECK, expansions=("board:expert", "double_hex"), doubles=("VL", "JJ")
    )
    for turn in EDGE_TURNS:
        game.play("draw")
        for text in turn.split(";"):
            game.play(text.strip())
    return game


def test_a_double_hex_tile_may_stick_out_by_two_of_its_ten_corners_not_three() -> None:
    game = double_edge_game()
    zone = ZONES["expert"]
    assert zone.corners_out(covered("double VL 5,-5 2")) == 3
    assert refused(game, "double VL 5,-5 2") == (
        "the tile would stick out of the Expert zone by 3 corners (at most 2 may)"
    )
    assert zone.corners_out(covered("double VL 7,-4 3")) == 2
    allowed(game, "double VL 7,-4 3")


def test_every_placement_sticking_out_by_more_than_two_corners_is_refused() -> None:
    zone = ZONES["expert"]
    game = edge_game()
    for move in candidate_moves(game, Oracle(game)):
        if move.kind == TILE and zone.corners_out(covered(str(move))) > 2:
            assert "stick out of the Expert zone" in (game.explain(move) or "")
            assert move not in game.legal_moves()


# ----------------------------------------------------------------- the early end


def test_the_game_ends_when_no_placement_fits_the_zone() -> None:
    record = fixture("no_placement")
    game = Game.from_record(record)
    assert game.result is not None and game.result.reason == "no-placement"
    assert game.phase == "over" and game.tiles_left > 0 and game.eliminated == ()
    drawn = game.deck[len(game.deck) - game.tiles_left - 1]
    # the tile drawn last fits nowhere in the zone: no placement of it is legal by the oracle
    before = replay(record, options={"expansions": []})
    assert before.tile == drawn and before.phase == "tile"
    zone = ZONES["expert"]
    fits = [str(move) for move in before.legal_moves() if zone.allows(covered(str(move)))]
    assert fits == []
    assert before.legal_moves()  # without the board the game would go on


def test_an_early_end_ranks_like_tiles_running_out() -> None:
    game = Game.from_record(fixture("no_placement"))
    assert game.result is not None

    def placed(player: int) -> tuple[int, int, int]:
        left = game.supply(player)
        return (3 - left["temples"], 2 - left["towers"], 20 - left["huts"])

    keys = [{placed(p) for p in group} for group in game.result.ranking]
    assert all(len(key) == 1 for key in keys)
    ordered = [key.pop() for key in keys]
    assert ordered == sorted(ordered, reverse=True) and len(set(ordered)) == len(ordered)
    assert sorted(p for group in game.result.ranking for p in group) == list(range(5))


def test_a_tile_move_text_placing_far_out_of_every_zone_is_refused() -> None:
    for name in ORDER:
        game = Game.new(players=2, seed=3, expansions=[f"board:{name}"])
        game.play("tile 0,0 0")
        game.play(legal(game)[0])
        assert "stick out" in refused(game, str(Move.place_tile(hex_at(30, 0), 0)))
