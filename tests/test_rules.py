"""The base-game rules of docs/rules.md, each shown allowing and forbidding, from real moves.

Every position is played from a new game with a chosen deck (tiles in draw order), or replayed
from a record in tests/data/rules/ when it is too long to play by hand (scenarios.py finds
those). A refusal is checked by its reason, which names the rule; an allowed move by its exact
effect on the board, the supplies and the turn.
"""

from __future__ import annotations

from collections import Counter

import pytest
from reference_engine import ref_from_record
from scenarios import (
    FIXTURES,
    allowed,
    board,
    buildings_of,
    cell,
    changes,
    fixture,
    legal,
    movers,
    position,
    refused,
    replay,
    settlements,
)

from taluva import Game, InvalidMove, InvalidOption, Outcome, Reason, hex_at
from taluva.engine.moves import EXPAND
from taluva.engine.tiles import tile_set

# ----------------------------------------------------------------- positions played by hand

STACK_DECK = ["JC", "SJ", "CS", "RJ", "LS", "CR", "JS", "SC", "JR", "CJ", "LL", "RR"]
STACK_TURNS = [
    "tile 0,0 0; hut 1,-1",  # P1: volcano 0,0, jungle 1,0, clearing 1,-1
    "tile -1,1 5; hut -1,2",  # P2: volcano -1,1, sand -1,2, jungle 0,1
    "tile -3,2 0; expand jungle 1,0",  # P1: volcano -3,2, clearing -2,2, sand -2,1
    "tile 0,0 5; expand rock 0,1",  # P2 erupts to level 2 over two tiles: rock 0,1, jungle 1,0
    "tile -1,1 3; expand jungle 1,0",  # P1 erupts to level 2: lake -2,1, sand -2,2
    "tile 0,0 4",  # P2 erupts to level 3 over the two level-2 tiles: clearing -1,1, rock 0,1
]
"""A stack rising to level 3 around 0,0, with huts destroyed on the way."""


def stack(turns: int, tile_only: bool = False) -> Game:
    """The stack position after ``turns`` turns (and the tile of the next one, if asked)."""
    moves = STACK_TURNS[:turns]
    if tile_only:
        moves = [*moves, STACK_TURNS[turns].split(";")[0]]
    return position(moves, STACK_DECK)


SPLIT_DECK = ["JC", "RS", "SJ", "LL", "CJ", "JS"]
SPLIT_TURNS = [
    "tile 0,0 5; hut 1,0",  # P1: volcano 0,0, jungle 0,1, clearing 1,0
    "tile 2,-2 4; hut 0,1",  # P2: volcano 2,-2, rock 1,-1, sand 2,-1
    "tile 1,2 2; expand sand 1,1 2,-1",  # P1: volcano 1,2, sand 1,1, jungle 0,2; a line of 3
]
"""Player 1's settlement 2,-1 / 1,0 / 1,1 is a line whose middle hut an eruption can cover."""

WIPE_DECK = ["JC", "JC", "SR", "LL", "CJ", "JS"]
WIPE_TURNS = [
    "tile 0,0 0; hut 1,-1",  # P1: volcano 0,0, jungle 1,0, clearing 1,-1
    "tile -1,1 5; hut -1,2",  # P2: volcano -1,1, jungle -1,2, clearing 0,1
    "tile -3,2 0; hut -2,1",  # P1: volcano -3,2, sand -2,2, rock -2,1
]
"""Single huts next to the volcanoes 0,0 and -1,1, ready to be wiped out."""

TEMPLE_DECK = ["JC", "SJ", "LR", "CS", "RS", "JC", "LJ", "SC", "JR", "CJ"]
TEMPLE_TURNS = [
    "tile 0,0 0; hut 1,-1",  # P1: jungle 1,0, clearing 1,-1
    "tile -1,1 5; hut -1,2",  # P2: sand -1,2, jungle 0,1
    "tile 0,0 5; expand rock 1,0",  # P1 erupts (lake 0,1, rock 1,0), 2 huts on level 2
    "tile -2,2 3; hut -3,3",  # P2: clearing -3,2, sand -3,3
    "tile 3,-2 3; expand rock 2,-2",  # P1: rock 2,-2, sand 2,-1; now 3 hexes
    "tile 4,-1 3; hut 3,0",  # P2: jungle 3,-1, clearing 3,0
    "tile -3,5 1; temple 2,-1",  # P1: jungle -3,4, lake -2,4; temple on level 1
    "tile -5,4 0; hut -2,4",  # P2: sand -4,4, clearing -4,3
]
"""Player 1 grows a settlement from 1 to 3 hexes next to the stack at 0,0 and builds a temple."""


def temple(turns: int, tile_only: bool = False) -> Game:
    """The temple position after ``turns`` turns (and the tile of the next one, if asked)."""
    moves = TEMPLE_TURNS[:turns]
    if tile_only:
        moves = [*moves, TEMPLE_TURNS[turns].split(";")[0]]
    return position(moves, TEMPLE_DECK)


# ----------------------------------------------------------------- Pieces


def test_each_player_starts_with_20_huts_3_temples_and_2_towers() -> None:
    game = Game.new(players=5, seed=3)
    for player in range(5):
        assert game.supply(player) == {"huts": 20, "temples": 3, "towers": 2, "ships": 0}
        assert game.score(player) == 0


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_two_to_five_players_may_play(players: int) -> None:
    game = Game.new(players=players, seed=1)
    assert game.player_count == players
    assert game.players == tuple(f"Player {i + 1}" for i in range(players))


@pytest.mark.parametrize(
    ("players", "reason"),
    [
        (1, "players is 1: Taluva is for 2 to 5 players"),
        (6, "players is 6: Taluva is for 2 to 5 players"),
        (["Ana"], "1 players named: Taluva is for 2 to 5 players"),
        (["a", "b", "c", "d", "e", "f"], "6 players named: Taluva is for 2 to 5 players"),
    ],
)
def test_fewer_than_two_or_more_than_five_players_are_refused(
    players: int | list[str], reason: str
) -> None:
    with pytest.raises(InvalidOption) as caught:
        Game.new(players=players)
    assert str(caught.value) == reason


def test_a_player_with_no_huts_left_may_place_no_hut() -> None:
    """The expansion that used the last 3 huts leaves player 2 with temples and a tower only."""
    game = replay(fixture("expansion_short_of_huts"))
    allowed(game, "expand clearing 1,0")
    assert game.supply(1) == {"huts": 0, "temples": 3, "towers": 1, "ships": 0}
    for text in ("tile -1,-4 0", "hut 0,-5", "tile 3,-1 0"):
        game.play(text)
    assert cell(game, "4,-1") == (1, "jungle", None)
    assert refused(game, "hut 4,-1") == "player 2 has no huts left"
    assert refused(game, "expand jungle 1,1") == "player 2 has no huts left"
    assert legal(game) == ["temple -1,0", "temple 1,1", "tower -1,0", "tower 1,1"]


def test_a_player_with_no_temples_left_may_place_no_temple() -> None:
    """Player 2's settlement 1,-2 2,-3 3,-4 covers 3 hexes without a temple, but all 3 temples
    stand elsewhere."""
    game = replay(fixture("no_temples_left"))
    assert game.to_move == 1
    assert game.supply(1)["temples"] == 0
    assert ["1,-2", "2,-3", "3,-4"] in settlements(game, 1)
    assert buildings_of(game, ["1,-2", "2,-3", "3,-4", "3,-5"]) == ["hut", "hut", "hut", ""]
    assert refused(game, "temple 3,-5") == "player 2 has no temples left"
    assert "expand jungle 3,-5" in legal(game)


def test_a_player_with_no_towers_left_may_place_no_tower() -> None:
    """Player 2's single hut at 1,-2 has the free level-3 hex 1,-1 beside it."""
    game = replay(fixture("no_towers_left"))
    assert game.to_move == 1
    assert game.supply(1)["towers"] == 0
    assert ["1,-2"] in settlements(game, 1)
    assert cell(game, "1,-1") == (3, "sand", None)
    assert refused(game, "tower 1,-1") == "player 2 has no towers left"
    assert "temple 1,-1" in legal(game)


# ----------------------------------------------------------------- Tiles


def test_a_tile_is_a_volcano_and_two_terrains_placed_counter_clockwise() -> None:
    game = allowed(position([], ["JC", "SR"]), "tile 0,0 0")
    assert cell(game, "0,0") == (1, "volcano", None)
    assert cell(game, "1,0") == (1, "jungle", None)
    assert cell(game, "1,-1") == (1, "clearing", None)
    assert game.land() == [hex_at(0, 0), hex_at(1, -1), hex_at(1, 0)]


def test_tiles_are_chiral_so_jc_and_cj_differ() -> None:
    jc = position(["tile 0,0 2"], ["JC", "SR"])
    cj = position(["tile 0,0 2"], ["CJ", "SR"])
    assert [cell(jc, "0,-1")[1], cell(jc, "-1,0")[1]] == ["jungle", "clearing"]
    assert [cell(cj, "0,-1")[1], cell(cj, "-1,0")[1]] == ["clearing", "jungle"]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_keeps_12_tiles_per_player_from_the_box(players: int) -> None:
    deck = Game.new(players=players, seed=11).deck
    assert len(deck) == 12 * players
    assert not Counter(deck) - tile_set(players)


@pytest.mark.parametrize("tiles_per_player", [18, 24])
def test_two_players_may_choose_18_or_24_tiles_each(tiles_per_player: int) -> None:
    game = Game.new(players=2, seed=5, tiles_per_player=tiles_per_player)
    assert len(game.deck) == 2 * tiles_per_player
    assert game.options["tiles_per_player"] == tiles_per_player
    assert not Counter(game.deck) - tile_set(2)


@pytest.mark.parametrize(("players", "tiles_per_player"), [(3, 18), (4, 24), (5, 18)])
def test_18_or_24_tiles_each_are_for_two_players_only(players: int, tiles_per_player: int) -> None:
    with pytest.raises(InvalidOption) as caught:
        Game.new(players=players, tiles_per_player=tiles_per_player)
    assert str(caught.value) == (
        f"{tiles_per_player} tiles per player is for two players only; "
        f"a {players}-player game uses 12"
    )


def test_other_numbers_of_tiles_per_player_are_refused() -> None:
    with pytest.raises(InvalidOption) as caught:
        Game.new(players=2, tiles_per_player=13)
    assert str(caught.value) == "tiles_per_player is 13: choose 12, 18 or 24"


def test_the_same_seed_shuffles_the_same_deck_and_other_seeds_others() -> None:
    decks = [Game.new(players=3, seed=seed).deck for seed in range(5)]
    assert decks == [Game.new(players=3, seed=seed).deck for seed in range(5)]
    assert len(set(decks)) == 5


def test_tiles_left_in_the_box_stay_unseen() -> None:
    game = Game.new(players=2, seed=8)
    assert game.tile == game.deck[0]
    assert game.tiles_left == 23
    unseen = tile_set(2)
    unseen.subtract([game.deck[0]])
    assert game.unseen_tiles() == +unseen
    assert sum(game.unseen_tiles().values()) == 47


def test_a_chosen_deck_must_fit_in_the_box() -> None:
    with pytest.raises(InvalidOption) as caught:
        Game.new(players=2, deck=["JC"] * 7)
    assert str(caught.value) == "the deck holds 7 JC tiles, but a 2-player box has only 6"
    assert Game.new(players=5, deck=["JC"] * 7).deck == ("JC",) * 7


# ----------------------------------------------------------------- A turn


def test_the_first_tile_goes_on_0_0_in_any_of_six_orientations() -> None:
    game = Game.new(players=2, deck=["JC", "SR"])
    assert legal(game) == [f"tile 0,0 {k}" for k in range(6)]
    assert refused(game, "tile 1,0 0") == "the first tile of the game goes with its volcano on 0,0"
    jungle = ["1,0", "1,-1", "0,-1", "-1,0", "-1,1", "0,1"]
    for k in range(6):
        placed = allowed(Game.new(players=2, deck=["JC", "SR"]), f"tile 0,0 {k}")
        assert cell(placed, jungle[k]) == (1, "jungle", None)
        assert cell(placed, jungle[(k + 1) % 6]) == (1, "clearing", None)


def test_a_turn_starts_with_placing_the_drawn_tile() -> None:
    game = Game.new(players=2, deck=["JC", "SR", "LL"])
    assert (game.phase, game.to_move, game.tile, game.tiles_left) == ("tile", 0, "JC", 2)
    assert refused(game, "hut 1,0") == "player 1 must place a tile before building"
    allowed(game, "tile 0,0 0")
    assert (game.phase, game.to_move, game.tile) == ("build", 0, None)


def test_after_the_tile_the_player_must_build_before_anything_else() -> None:
    game = position(["tile 0,0 0"], ["JC", "SR", "LL"])
    assert refused(game, "tile 2,-1 0") == "player 1 has placed a tile and must now build"
    assert legal(game) == ["hut 1,-1", "hut 1,0"]


def test_one_building_action_ends_the_turn() -> None:
    game = position(["tile 0,0 0"], ["JC", "SR", "LL"])
    allowed(game, "hut 1,0")
    assert (game.phase, game.to_move, game.tile, game.tiles_left) == ("tile", 1, "SR", 1)
    assert refused(game, "hut 1,-1") == "player 2 must place a tile before building"


def test_the_base_game_has_no_draw_double_hex_or_ship_moves() -> None:
    game = Game.new(players=2, deck=["JC", "SR"])
    assert refused(game, "draw") == (
        "the engine draws the tile: 'draw' is a move of the Double-Hex expansion only"
    )
    assert (
        refused(game, "double VL 0,0 0") == "this game is played without the Double-Hex expansion"
    )
    game.play("tile 0,0 0")
    assert refused(game, "ship 2,0") == (
        "ships belong to the Ships expansion, which this game does not use"
    )


ELIMINATION_DECK = ["SR", "CJ", "JL", "JC"]
ELIMINATION_TURNS = ["tile 0,0 4; hut -1,1", "tile 2,-1 3; hut 0,1"]
"""After two turns every free hex lies on the second tile, which an eruption can bury."""


def test_a_player_who_cannot_build_after_the_tile_is_eliminated() -> None:
    game = position(ELIMINATION_TURNS, ELIMINATION_DECK)
    allowed(game, "tile 0,0 0")  # level 2 on 1,0 and 1,-1: nothing free on level 1 remains
    assert game.eliminated == (0,)
    assert game.supply(0) == {"huts": 19, "temples": 3, "towers": 2, "ships": 0}
    assert game.building(hex_at(-1, 1)) == (0, "hut")  # the pieces stay on the board
    assert game.phase == "over"
    assert game.result == Outcome(((1,), (0,)), Reason.LAST_STANDING)
    assert game.legal_moves() == []
    assert refused(game, "hut 1,0") == "the game is over"


def test_a_player_who_can_build_after_the_tile_is_not_eliminated() -> None:
    game = position(ELIMINATION_TURNS, ELIMINATION_DECK)
    allowed(game, "tile 1,1 0")
    assert game.eliminated == ()
    assert (game.phase, game.to_move) == ("build", 0)
    assert legal(game) == ["hut 1,-1", "hut 1,0", "hut 2,0", "hut 2,1"]


def test_a_three_player_game_goes_on_without_the_eliminated_player() -> None:
    """Player 3 erupts onto the first tile on their first turn and is left without a build; the
    other two play on until player 1 is eliminated too."""
    record = fixture("two_players_eliminated")
    assert replay(record, 4).eliminated == ()
    game = replay(record, 5)
    assert game.eliminated == (2,)
    assert (game.phase, game.to_move) == ("tile", 0)
    seats = movers(record)
    assert seats[:5] == [0, 0, 1, 1, 2]
    assert seats[5:] == [0, 0, 1, 1] * 8 + [0]  # player 3 never moves again
    assert replay(record, 37).eliminated == (2,)
    game = replay(record)
    assert game.eliminated == (2, 0)
    assert game.result == Outcome(((1,), (0,), (2,)), Reason.LAST_STANDING)


# ----------------------------------------------------------------- Placing a tile on sea level


def test_a_sea_tile_must_touch_the_island() -> None:
    game = position(["tile 0,0 0; hut 1,0"], ["JC", "SR", "LL"])
    assert refused(game, "tile 3,-2 0") == (
        "the tile does not touch the island: one of its hexes must share an edge with it"
    )
    before = board(game)
    allowed(game, "tile 3,-2 3")  # only sand 2,-2 touches clearing 1,-1
    assert changes(before, game) == {
        "2,-2": (1, "sand", None),
        "2,-1": (1, "rock", None),
        "3,-2": (1, "volcano", None),
    }
    assert game.tile_index(hex_at(2, -1)) == 1
    assert (game.phase, game.to_move) == ("build", 1)


def test_a_tile_partly_on_sea_and_partly_on_land_is_refused() -> None:
    game = position(["tile 0,0 0; hut 1,0"], ["JC", "SR", "LL"])
    assert refused(game, "tile 1,-1 0") == (
        "the tile would overhang: 2,-1 is sea but 1,-1 is at level 1"
    )
    assert refused(game, "tile 0,0 1") == (
        "the tile would overhang: 0,-1 is sea but 0,0 is at level 1"
    )


# ----------------------------------------------------------------- Volcanic eruption


def test_an_eruption_covers_three_hexes_at_one_level_from_two_tiles() -> None:
    game = stack(3)
    before = board(game)
    allowed(game, "tile 0,0 5")
    assert changes(before, game) == {
        "0,0": (2, "volcano", None),
        "0,1": (2, "rock", None),
        "1,0": (2, "jungle", None),  # player 1's hut there is destroyed
    }
    assert [game.tile_index(hex_at(*h)) for h in ((0, 0), (0, 1), (1, 0))] == [3, 3, 3]
    assert (game.phase, game.to_move, game.result) == ("build", 1, None)


def test_an_eruption_over_uneven_heights_is_refused() -> None:
    game = stack(4, tile_only=False)
    assert cell(game, "-1,1")[0] == 1
    assert cell(game, "0,1")[0] == 2
    assert refused(game, "tile -1,1 0") == (
        "the hexes below are not at one level: -1,1 is at level 1, 0,1 at level 2"
    )
    assert refused(game, "tile 0,0 1") == (
        "the tile would overhang: 0,-1 is sea but 0,0 is at level 2"
    )
    before = board(game)
    allowed(game, "tile -1,1 3")
    assert changes(before, game) == {
        "-2,1": (2, "lake", None),
        "-2,2": (2, "sand", None),
        "-1,1": (2, "volcano", None),
    }


def test_an_eruption_onto_level_two_rises_to_level_three() -> None:
    game = stack(5)
    before = board(game)
    allowed(game, "tile 0,0 4")
    assert changes(before, game) == {
        "-1,1": (3, "clearing", None),  # over the level-2 volcano there
        "0,0": (3, "volcano", None),
        "0,1": (3, "rock", None),  # over player 2's two huts
    }


def test_the_new_volcano_must_lie_on_a_volcano() -> None:
    game = stack(2)
    assert refused(game, "tile 0,1 1") == (
        "the volcano would lie on jungle at 0,1: an eruption must cover a volcano"
    )


def test_an_eruption_may_not_lie_exactly_on_a_single_tile() -> None:
    game = stack(2)
    single = "the tile would lie exactly on a single tile: turn it to cover at least two tiles"
    assert refused(game, "tile 0,0 0") == single
    assert refused(game, "tile -1,1 5") == single
    assert "tile 0,0 5" in legal(game)  # the same volcano, turned onto two tiles


def test_an_eruption_may_not_cover_a_temple() -> None:
    game = temple(7)
    assert refused(game, "tile 3,-2 4") == "the tile would cover the temple at 2,-1"


def test_an_eruption_may_not_cover_a_tower() -> None:
    game = replay(fixture("eruption_over_tower"))
    assert game.building(hex_at(0, 1)) == (1, "tower")
    assert refused(game, "tile 0,0 5") == "the tile would cover the tower at 0,1"
    before = board(game)
    allowed(game, "tile 0,0 0")  # the same volcano, away from the tower: level 4
    assert changes(before, game) == {
        "0,0": (4, "volcano", None),
        "1,-1": (4, "rock", None),
        "1,0": (4, "clearing", None),
    }


def test_an_eruption_may_not_wipe_out_a_settlement_of_the_player_or_another() -> None:
    game = position(WIPE_TURNS, WIPE_DECK)
    assert game.to_move == 1
    wipe = "the tile would destroy every building of the settlement at {}"
    assert refused(game, "tile -1,1 4") == wipe.format("-1,2")  # player 2's own only hut
    assert refused(game, "tile -1,1 3") == wipe.format("-2,1")  # one of player 1's two
    allowed(game, "tile 0,0 5")
    allowed(game, "expand sand -2,2")
    assert settlements(game, 1) == [["-2,2", "-1,2"]]
    assert refused(game, "tile -1,1 4") == wipe.format("-2,2")  # both huts at once


def test_an_eruption_destroys_covered_huts_without_returning_them() -> None:
    game = stack(3)
    assert game.building(hex_at(1, 0)) == (0, "hut")
    allowed(game, "tile 0,0 5")
    assert game.building(hex_at(1, 0)) is None
    assert game.destroyed_huts(0) == 1
    assert game.supply(0)["huts"] == 18
    assert settlements(game, 0) == [["1,-1"]]


def test_an_eruption_destroys_every_hut_on_a_covered_level_two_hex() -> None:
    game = stack(5)
    assert cell(game, "0,1") == (2, "rock", (1, "hut"))
    assert game.supply(1)["huts"] == 17
    allowed(game, "tile 0,0 4")
    assert game.destroyed_huts(1) == 2
    assert game.supply(1)["huts"] == 17
    assert settlements(game, 1) == [["-1,2"]]


def test_a_settlement_split_by_an_eruption_becomes_two() -> None:
    game = position(SPLIT_TURNS, SPLIT_DECK)
    assert settlements(game, 0) == [["1,0", "1,1", "2,-1"]]
    before = board(game)
    allowed(game, "tile 0,0 0")  # lake over the middle hut 1,0 and rock 1,-1
    assert changes(before, game) == {
        "0,0": (2, "volcano", None),
        "1,-1": (2, "lake", None),
        "1,0": (2, "lake", None),
    }
    assert settlements(game, 0) == [["1,1"], ["2,-1"]]
    assert game.destroyed_huts(0) == 1
    assert game.supply(0)["huts"] == 17
    assert (game.phase, game.to_move) == ("build", 1)


# ----------------------------------------------------------------- Settlements


def test_buildings_joined_by_an_edge_form_one_settlement_whatever_their_levels() -> None:
    game = stack(3, tile_only=True)
    before = board(game)
    allowed(game, "expand rock 0,1")  # level 2 next to the level-1 hut at -1,2
    assert changes(before, game) == {"0,1": (2, "rock", (1, "hut"))}
    assert cell(game, "-1,2") == (1, "sand", (1, "hut"))
    assert settlements(game, 1) == [["-1,2", "0,1"]]


def test_buildings_not_joined_by_an_edge_are_separate_settlements() -> None:
    game = position(DEDUPE_TURNS, DEDUPE_DECK)
    assert settlements(game, 0) == [["0,1"], ["1,-1"]]
    assert settlements(game, 1) == [["-5,3"], ["-1,2"]]


def test_two_settlements_grown_together_may_hold_two_temples() -> None:
    """Player 1 expands into clearing 0,3 (level 2), between two settlements with a temple."""
    record = fixture("grown_together_with_two_temples")
    game = replay(record, 29)
    assert settlements(game, 0) == [["-1,4"], ["0,1", "1,0", "1,1", "1,2", "1,3"]]
    assert buildings_of(game, ["-1,4", "1,3"]) == ["temple", "temple"]
    before = board(game)
    allowed(game, "expand clearing 0,3")
    assert changes(before, game) == {"0,3": (2, "clearing", (0, "hut"))}
    assert settlements(game, 0) == [["-1,4", "0,1", "0,3", "1,0", "1,1", "1,2", "1,3"]]
    assert game.supply(0) == {"huts": 13, "temples": 1, "towers": 2, "ships": 0}


def test_two_settlements_grown_together_may_hold_two_towers() -> None:
    """Player 2 expands into lake -2,-1 (level 3), between two settlements with a tower and a
    temple each."""
    game = replay(fixture("grown_together_with_two_towers"), 43)
    assert settlements(game, 1) == [
        ["-4,-1", "-4,0", "-3,-1"],
        ["-3,2", "-2,0", "-2,2", "-1,0", "-1,1"],
    ]
    assert buildings_of(game, ["-4,-1", "-3,-1", "-3,2", "-1,0"]) == [
        "temple",
        "tower",
        "temple",
        "tower",
    ]
    before = board(game)
    allowed(game, "expand lake -2,-1")
    assert changes(before, game) == {"-2,-1": (3, "lake", (1, "hut"))}
    assert settlements(game, 1) == [
        ["-4,-1", "-4,0", "-3,-1", "-3,2", "-2,-1", "-2,0", "-2,2", "-1,0", "-1,1"]
    ]
    assert game.supply(1) == {"huts": 6, "temples": 1, "towers": 0, "ships": 0}


def test_a_temple_may_join_a_settlement_that_has_one_to_another_that_has_none() -> None:
    """A temple between a 3-hex settlement and a settlement whose only building is a temple."""
    record = fixture("settlement_with_two_temples")
    game = replay(record, 21)
    assert settlements(game, 0) == [["-2,0", "-2,1", "-1,1"], ["0,2"]]
    assert game.building(hex_at(0, 2)) == (0, "temple")
    allowed(game, "temple -1,2")
    assert settlements(game, 0) == [["-2,0", "-2,1", "-1,1", "-1,2", "0,2"]]
    assert buildings_of(game, ["-1,2", "0,2"]) == ["temple", "temple"]


def test_a_tower_may_join_a_settlement_that_has_one_to_another_that_has_none() -> None:
    """A tower between a lone hut and a settlement that already has a tower."""
    game = replay(fixture("settlement_with_two_towers"), 21)
    assert settlements(game, 0) == [["-1,1"], ["0,-1", "1,-2"], ["5,-5"]]
    assert game.building(hex_at(0, -1)) == (0, "tower")
    allowed(game, "tower 0,0")
    assert settlements(game, 0) == [["-1,1", "0,-1", "0,0", "1,-2"], ["5,-5"]]
    assert buildings_of(game, ["0,-1", "0,0"]) == ["tower", "tower"]
    assert game.supply(0)["towers"] == 0


# ----------------------------------------------------------------- Building actions

FOUND_DECK = ["JC", "SC", "JR", "CS"]
FOUND_TURNS = ["tile 0,0 0; hut 1,0", "tile -1,1 5; hut 1,-1", "tile -2,2 3"]
"""Player 1's hut at 1,0 has player 2's hut at 1,-1 and the free clearing 0,1 beside it."""

DEDUPE_DECK = ["JC", "SC", "JR", "CS", "LL", "RR"]
DEDUPE_TURNS = [
    "tile 0,0 0; hut 1,-1",  # P1: jungle 1,0, clearing 1,-1
    "tile -1,1 5; hut -1,2",  # P2: sand -1,2, clearing 0,1
    "tile -2,2 3; hut 0,1",  # P1: a second settlement; both touch jungle 1,0
    "tile -4,3 3; hut -5,3",
    "tile -3,0 4",
]
"""Two settlements of player 1 that can only expand into the same jungle hex."""

EXPAND_DECK = ["JC", "SC", "JJ", "CS", "LL"]
EXPAND_TURNS = ["tile 0,0 0; hut 1,-1", "tile -1,1 5; hut -1,2", "tile 3,-2 4"]
"""Jungle 1,0 and 2,-1 touch player 1's hut at 1,-1; jungle 3,-1 lies one hex further."""


def test_a_hut_founds_a_settlement_on_a_free_level_1_hex() -> None:
    game = position(FOUND_TURNS, FOUND_DECK)
    before = board(game)
    allowed(game, "hut -3,3")
    assert changes(before, game) == {"-3,3": (1, "rock", (0, "hut"))}
    assert settlements(game, 0) == [["-3,3"], ["1,0"]]
    assert game.supply(0)["huts"] == 18


def test_a_hut_may_stand_next_to_another_players_building() -> None:
    game = position(FOUND_TURNS[:1], FOUND_DECK)
    allowed(game, "tile -1,1 5")
    allowed(game, "hut 1,-1")  # next to player 1's hut at 1,0
    assert settlements(game, 1) == [["1,-1"]]


def test_a_new_hut_may_not_touch_the_players_own_buildings() -> None:
    game = position(FOUND_TURNS, FOUND_DECK)
    assert refused(game, "hut 0,1") == (
        "0,1 is next to your building at 1,0: a new settlement may not touch your own "
        "buildings (expand instead)"
    )


def test_with_adjacent_hut_a_new_hut_next_to_own_buildings_joins_their_settlement() -> None:
    game = position(FOUND_TURNS, FOUND_DECK, house_rules=["adjacent_hut"])
    assert game.options["house_rules"] == ["adjacent_hut"]
    allowed(game, "hut 0,1")
    assert settlements(game, 0) == [["0,1", "1,0"]]
    assert game.supply(0)["huts"] == 18


def test_a_hut_stands_only_on_a_free_land_hex_that_is_no_volcano() -> None:
    game = position(FOUND_TURNS, FOUND_DECK)
    assert refused(game, "hut 0,0") == "0,0 is a volcano: nothing is built on a volcano"
    assert refused(game, "hut 1,-1") == "1,-1 already holds a building"
    assert refused(game, "hut 4,4") == "4,4 is sea: buildings stand on land"


def test_a_new_settlement_is_founded_on_level_1_only() -> None:
    game = stack(3, tile_only=True)
    assert refused(game, "hut 0,1") == ("a new settlement is founded on level 1; 0,1 is at level 2")
    assert "hut -2,1" in legal(game)


def test_an_expansion_fills_every_free_hex_of_its_terrain_next_to_the_settlement() -> None:
    game = position(EXPAND_TURNS, EXPAND_DECK)
    assert legal(game, "expand") == ["expand jungle 1,0 2,-1"]
    missing = "expanding into jungle fills every such hex next to the settlement: {} missing"
    assert refused(game, "expand jungle 1,0") == missing.format("2,-1")
    assert refused(game, "expand jungle 2,-1") == missing.format("1,0")
    before = board(game)
    allowed(game, "expand jungle 2,-1 1,0")
    assert changes(before, game) == {
        "1,0": (1, "jungle", (0, "hut")),
        "2,-1": (1, "jungle", (0, "hut")),
    }
    assert settlements(game, 0) == [["1,-1", "1,0", "2,-1"]]
    assert game.supply(0)["huts"] == 17
    assert (game.phase, game.to_move) == ("tile", 1)


def test_an_expansion_reaches_only_hexes_directly_next_to_the_settlement() -> None:
    game = position(EXPAND_TURNS, EXPAND_DECK)
    further = (
        "no settlement of yours reaches exactly these jungle hexes "
        "(every hex must be next to the same settlement)"
    )
    assert refused(game, "expand jungle 1,0 2,-1 3,-1") == further
    assert refused(game, "expand jungle 3,-1") == further
    game.play("expand jungle 1,0 2,-1")
    game.play("tile -2,2 3")
    game.play("hut -3,3")
    game.play("tile -1,3 0")
    assert "expand jungle 3,-1" in legal(game)  # the settlement now reaches it


def test_an_expansion_names_one_terrain_and_no_volcano_or_sea() -> None:
    game = position(EXPAND_TURNS, EXPAND_DECK)
    assert refused(game, "expand clearing 1,0") == "1,0 is jungle, not clearing"
    assert refused(game, "expand sand 0,0") == "0,0 is a volcano: nothing is built on a volcano"
    assert refused(game, "expand jungle 5,5") == "5,5 is sea: buildings stand on land"


def test_an_expansion_names_at_least_one_hex() -> None:
    game = position(EXPAND_TURNS, EXPAND_DECK)
    reason = "'expand jungle': expected 'expand TERRAIN Q,R ...' (a terrain and at least one hex)"
    assert game.explain("expand jungle") == reason
    with pytest.raises(InvalidMove) as caught:
        game.play("expand jungle")
    assert str(caught.value) == reason
    assert all(move.hexes for move in game.legal_moves() if move.kind == EXPAND)


def test_an_expansion_places_as_many_huts_on_a_hex_as_its_level() -> None:
    game = stack(3, tile_only=True)
    assert game.supply(1)["huts"] == 19
    allowed(game, "expand rock 0,1")
    assert game.supply(1)["huts"] == 17
    game = stack(5, tile_only=True)
    allowed(game, "tower -1,1")
    game.play("tile -1,3 0")
    game.play("hut 0,3")
    game.play("tile -3,1 1")
    assert game.supply(1)["huts"] == 17
    allowed(game, "expand sand -2,2 0,2")  # level 2 and level 1: 3 huts
    assert game.supply(1)["huts"] == 14


def test_an_expansion_needing_more_huts_than_are_left_is_refused() -> None:
    """Player 2 holds 3 huts: jungle on levels 4 and 3 needs 7, clearing on level 3 needs 3."""
    game = replay(fixture("expansion_short_of_huts"))
    assert (game.to_move, game.supply(1)["huts"]) == (1, 3)
    assert [cell(game, h)[:2] for h in ("-1,0", "1,1", "1,0")] == [
        (4, "jungle"),
        (3, "jungle"),
        (3, "clearing"),
    ]
    assert refused(game, "expand jungle -1,0 1,1") == (
        "this expansion needs 7 huts and player 2 has 3"
    )
    assert refused(game, "expand jungle -1,0") == "this expansion needs 4 huts and player 2 has 3"
    allowed(game, "expand clearing 1,0")
    assert cell(game, "1,0") == (3, "clearing", (1, "hut"))
    assert game.supply(1)["huts"] == 0


def test_two_ways_of_expanding_into_the_same_hexes_are_one_move() -> None:
    game = position(DEDUPE_TURNS, DEDUPE_DECK)
    texts = [str(move) for move in game.legal_moves()]
    assert texts.count("expand jungle 1,0") == 1
    assert legal(game, "expand") == ["expand jungle 1,0"]
    allowed(game, "expand jungle 1,0")
    assert settlements(game, 0) == [["0,1", "1,-1", "1,0"]]


def test_a_temple_needs_an_adjacent_settlement_covering_three_hexes() -> None:
    """Two hexes holding three huts (one hex on level 2) are not enough."""
    game = temple(4, tile_only=True)
    assert settlements(game, 0) == [["1,-1", "1,0"]]
    assert game.supply(0)["huts"] == 17
    needs = "a temple needs an adjacent settlement of yours covering at least 3 hexes"
    assert refused(game, "temple 2,-1") == needs
    assert refused(game, "temple 0,1") == needs


def test_a_temple_may_stand_on_any_level_next_to_a_settlement_of_three_hexes() -> None:
    game = temple(6, tile_only=True)
    assert settlements(game, 0) == [["1,-1", "1,0", "2,-2"]]
    assert legal(game, "temple") == ["temple 0,1", "temple 2,-1"]
    on_level_two = allowed(temple(6, tile_only=True), "temple 0,1")
    assert cell(on_level_two, "0,1") == (2, "lake", (0, "temple"))
    before = board(game)
    allowed(game, "temple 2,-1")
    assert changes(before, game) == {"2,-1": (1, "sand", (0, "temple"))}
    assert game.supply(0) == {"huts": 16, "temples": 2, "towers": 2, "ships": 0}
    assert settlements(game, 0) == [["1,-1", "1,0", "2,-2", "2,-1"]]


def test_a_settlement_with_a_temple_may_not_get_another() -> None:
    game = temple(8)
    game.play("tile 2,-4 4")
    assert refused(game, "temple 0,1") == (
        "every adjacent settlement of yours that is large enough already has a temple"
    )
    assert refused(game, "temple -3,4") == "-3,4 is not next to any settlement of yours"


def test_a_tower_stands_next_to_a_settlement_of_the_player() -> None:
    """After the eruption to level 4, player 2's towered hut 0,1 touches 1,0 but not 1,-1."""
    game = replay(fixture("eruption_over_tower"))
    game.play("tile 0,0 0")
    assert settlements(game, 1) == [["0,1"]]
    assert refused(game, "tower 1,-1") == "1,-1 is not next to any settlement of yours"
    assert refused(game, "tower 1,0") == "every adjacent settlement of yours already has a tower"
    assert legal(game) == ["expand clearing 1,0", "hut 3,-3"]


def test_a_tower_needs_level_3() -> None:
    game = stack(3, tile_only=True)
    assert refused(game, "tower 0,1") == "a tower stands on level 3 or higher; 0,1 is at level 2"


def test_a_tower_may_stand_on_level_3_next_to_a_settlement_without_one() -> None:
    game = stack(5, tile_only=True)
    assert legal(game, "tower") == ["tower -1,1", "tower 0,1"]
    before = board(game)
    allowed(game, "tower -1,1")
    assert changes(before, game) == {"-1,1": (3, "clearing", (1, "tower"))}
    assert game.supply(1) == {"huts": 17, "temples": 3, "towers": 1, "ships": 0}
    assert settlements(game, 1) == [["-1,1", "-1,2"]]


def test_a_settlement_with_a_tower_may_not_get_another() -> None:
    game = stack(6)
    game.play("tower -1,1")
    game.play("tile -1,3 0")
    game.play("hut 0,3")
    game.play("tile -3,1 1")
    assert refused(game, "tower 0,1") == "every adjacent settlement of yours already has a tower"
    assert refused(game, "tower 0,0") == "0,0 is a volcano: nothing is built on a volcano"


# ----------------------------------------------------------------- End of the game


def test_placing_every_piece_of_two_kinds_wins_at_once() -> None:
    record = fixture("victory_before_the_end")
    game = replay(record, 41)
    assert game.supply(0) == {"huts": 8, "temples": 1, "towers": 0, "ships": 0}
    assert (game.result, game.phase) == (None, "build")  # no towers left is one kind only
    allowed(game, "temple -5,3")
    assert game.supply(0) == {"huts": 8, "temples": 0, "towers": 0, "ships": 0}
    assert game.result == Outcome(((0,), (1,)), Reason.VICTORY)
    assert (game.phase, game.tiles_left, game.legal_moves()) == ("over", 3, [])
    assert refused(game, "tile 0,0 0") == "the game is over"


def test_an_early_victory_on_the_last_tile_is_a_victory_not_the_end_of_the_tiles() -> None:
    game = replay(fixture("victory_on_last_tile"), 47)
    assert (game.phase, game.tiles_left, game.to_move) == ("build", 0, 1)
    assert game.supply(1) == {"huts": 0, "temples": 2, "towers": 1, "ships": 0}
    allowed(game, "tower -2,6")
    assert game.result == Outcome(((1,), (0,)), Reason.VICTORY)


def test_after_an_early_victory_the_others_rank_by_pieces_placed() -> None:
    """Player 3 (1 temple, 1 tower placed) ranks above player 2 (huts only)."""
    game = replay(fixture("victory_three_players"), 62)
    assert game.supply(0) == {"huts": 0, "temples": 2, "towers": 1, "ships": 0}
    assert game.supply(1) == {"huts": 18, "temples": 3, "towers": 2, "ships": 0}
    assert game.supply(2) == {"huts": 1, "temples": 2, "towers": 1, "ships": 0}
    allowed(game, "tower -6,0")
    assert game.result == Outcome(((0,), (2,), (1,)), Reason.VICTORY)


def test_the_last_player_standing_wins_and_the_later_eliminated_ranks_higher() -> None:
    record = fixture("two_players_eliminated")
    game = replay(record, 37)
    assert (game.eliminated, game.to_move, game.phase) == ((2,), 0, "tile")
    allowed(game, record["moves"][37])
    assert game.eliminated == (2, 0)
    assert game.result == Outcome(((1,), (0,), (2,)), Reason.LAST_STANDING)
    assert game.tiles_left == 16


def test_the_game_ends_after_the_turn_that_placed_the_last_tile() -> None:
    record = fixture("tiles_out_temples_first")
    game = replay(record, 47)
    assert (game.phase, game.tiles_left, game.result) == ("build", 0, None)
    allowed(game, "hut -4,1")
    assert game.phase == "over"
    assert game.result == Outcome(((1,), (0,)), Reason.TILES)


def test_when_tiles_run_out_most_temples_rank_first_whatever_the_huts() -> None:
    game = replay(fixture("tiles_out_temples_first"))
    assert game.supply(0) == {"huts": 4, "temples": 2, "towers": 2, "ships": 0}
    assert game.supply(1) == {"huts": 7, "temples": 1, "towers": 2, "ships": 0}
    assert game.result == Outcome(((1,), (0,)), Reason.TILES)


def test_when_tiles_run_out_with_equal_temples_most_towers_rank_first() -> None:
    game = replay(fixture("tiles_out_towers_next"))
    assert game.supply(0) == {"huts": 8, "temples": 2, "towers": 1, "ships": 0}
    assert game.supply(1) == {"huts": 5, "temples": 2, "towers": 2, "ships": 0}
    assert game.result == Outcome(((0,), (1,)), Reason.TILES)


def test_when_tiles_run_out_with_equal_temples_and_towers_most_huts_rank_first() -> None:
    game = replay(fixture("tiles_out_huts_last"))
    assert game.supply(0) == {"huts": 4, "temples": 2, "towers": 2, "ships": 0}
    assert game.supply(1) == {"huts": 7, "temples": 2, "towers": 2, "ships": 0}
    assert game.result == Outcome(((0,), (1,)), Reason.TILES)


def huts_on_board(game: Game, player: int) -> int:
    """Huts standing on the board: one per level of each hex holding the player's huts."""
    return sum(
        game.level(h)
        for h, (owner, kind) in game.buildings().items()
        if (owner, kind) == (player, "hut")
    )


def test_players_equal_on_all_counts_share_a_place_destroyed_huts_included() -> None:
    game = replay(fixture("tiles_out_shared_place"))
    assert game.supply(0) == game.supply(1) == {"huts": 5, "temples": 2, "towers": 2, "ships": 0}
    assert [huts_on_board(game, p) for p in (0, 1)] == [15, 14]
    assert [game.destroyed_huts(p) for p in (0, 1)] == [0, 1]
    assert game.result == Outcome(((0, 1),), Reason.TILES)
    assert game.result.winners == (0, 1)


def test_eliminated_players_rank_below_every_remaining_player() -> None:
    """Player 3 is eliminated on the last tile with more placed than the others."""
    game = replay(fixture("elimination_three_players"))
    assert game.eliminated == (2,)
    assert [game.score(p) for p in range(3)] == [1015, 1014, 1120]
    assert game.result == Outcome(((0,), (1,), (2,)), Reason.TILES)


def test_the_score_counts_1000_a_temple_100_a_tower_and_1_a_hut_placed() -> None:
    game = replay(fixture("victory_before_the_end"))
    assert game.supply(0) == {"huts": 8, "temples": 0, "towers": 0, "ships": 0}
    assert game.destroyed_huts(0) == 4
    assert huts_on_board(game, 0) == 8
    assert game.score(0) == 3 * 1000 + 2 * 100 + 12
    assert game.score(1) == 0 * 1000 + 1 * 100 + 11


def test_pieces_placed_count_destroyed_huts_and_the_end_says_so_in_words() -> None:
    game = replay(fixture("victory_before_the_end"))
    assert game.placed(0) == {"huts": 12, "temples": 3, "towers": 2, "ships": 0}
    assert game.placed(1) == {"huts": 11, "temples": 0, "towers": 1, "ships": 0}
    assert game.result_in_words() == (
        "Player 1 wins by placing every one of their temples and towers",
        [
            "1st Player 1: 3 temples, 2 towers, 12 huts placed",
            "2nd Player 2: 0 temples, 1 tower, 11 huts placed",
        ],
    )


# ----------------------------------------------------------------- House rules


@pytest.mark.parametrize(("players", "tiles"), [(2, 48), (3, 48), (4, 48), (5, 60)])
def test_the_all_tiles_house_rule_plays_every_tile_in_the_box(players: int, tiles: int) -> None:
    game = Game.new(players=players, seed=2, house_rules=["all_tiles"])
    assert len(game.deck) == tiles
    assert Counter(game.deck) == tile_set(players)
    assert game.options["house_rules"] == ["all_tiles"]


def test_without_all_tiles_a_three_player_game_leaves_tiles_in_the_box() -> None:
    game = Game.new(players=3, seed=2)
    assert len(game.deck) == 36
    assert sum(game.unseen_tiles().values()) == 47


def test_an_unknown_house_rule_is_refused() -> None:
    with pytest.raises(InvalidOption) as caught:
        Game.new(players=2, house_rules=["free_towers"])
    assert str(caught.value) == (
        "unknown house rule 'free_towers': choose from adjacent_hut, all_tiles"
    )


# ----------------------------------------------------------------- Cross-check


FIXTURE_NAMES = [
    "elimination_three_players",
    "eruption_over_tower",
    "expansion_short_of_huts",
    "grown_together_with_two_temples",
    "grown_together_with_two_towers",
    "no_temples_left",
    "no_towers_left",
    "settlement_with_two_temples",
    "settlement_with_two_towers",
    "tiles_out_huts_last",
    "tiles_out_shared_place",
    "tiles_out_temples_first",
    "tiles_out_towers_next",
    "two_players_eliminated",
    "victory_before_the_end",
    "victory_on_last_tile",
    "victory_three_players",
]


def test_every_fixture_is_checked() -> None:
    assert sorted(path.stem for path in FIXTURES.glob("*.json")) == FIXTURE_NAMES


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_the_reference_engine_agrees_with_each_fixture(name: str) -> None:
    """Each record replays in the independent engine to the same legal moves and result."""
    record = fixture(name)
    game = replay(record)
    reference = ref_from_record(record)
    assert reference.result == record["result"]
    assert (None if game.result is None else dict(game.result)) == record["result"]
    assert sorted(reference.legal_moves()) == legal(game)


HAND_PLAYED = {
    "stack": (STACK_DECK, [*STACK_TURNS, "tower -1,1", "tile -1,3 0; hut 0,3", "tile -3,1 1"]),
    "split": (SPLIT_DECK, [*SPLIT_TURNS, "tile 0,0 0"]),
    "wipe": (WIPE_DECK, [*WIPE_TURNS, "tile 0,0 5; expand sand -2,2"]),
    "temple": (TEMPLE_DECK, [*TEMPLE_TURNS, "tile 2,-4 4"]),
    "found": (FOUND_DECK, FOUND_TURNS),
    "dedupe": (DEDUPE_DECK, DEDUPE_TURNS),
    "expand": (EXPAND_DECK, EXPAND_TURNS),
    "elimination": (ELIMINATION_DECK, [*ELIMINATION_TURNS, "tile 0,0 0"]),
}


@pytest.mark.parametrize("name", sorted(HAND_PLAYED))
def test_the_reference_engine_agrees_with_each_hand_played_position(name: str) -> None:
    """After every move of the sequences above, both engines list the same legal moves."""
    deck, turns = HAND_PLAYED[name]
    game = Game.new(players=2, deck=deck)
    record = game.to_record()
    texts = [text.strip() for turn in turns for text in turn.split(";") if text.strip()]
    for ply in range(len(texts) + 1):
        reference = ref_from_record({**record, "moves": texts[:ply]})
        assert sorted(reference.legal_moves()) == legal(game), f"after {texts[:ply]}"
        if ply < len(texts):
            game.play(texts[ply])
    assert reference.result == (None if game.result is None else dict(game.result))
