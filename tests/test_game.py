"""The public surface of ``taluva.Game``: setting a game up, reading it, records, undo, and the
hidden-information helpers (``unseen_tiles``, ``redeal``) that an AI relies on."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

import taluva
from taluva import Game, IllegalMove, InvalidOption, Move, Outcome, Reason
from taluva.engine import game as engine_game
from taluva.engine import moves as engine_moves
from taluva.engine.hexes import parse_hex
from taluva.engine.tiles import VOLCANO

Observe = Callable[[Game], dict[str, Any]]

BASE_BOX = Counter(
    {"JC": 6, "CJ": 5, "JS": 4, "SJ": 4, "JL": 2, "CR": 2, "RC": 2, "JR": 2, "CS": 2, "SC": 2,
     "SR": 2, "RJ": 2, "JJ": 1, "CC": 1, "SS": 1, "RR": 1, "LL": 1, "CL": 1, "SL": 1, "RS": 1,
     "RL": 1, "LJ": 1, "LC": 1, "LS": 1, "LR": 1}
)  # fmt: skip
"""docs/rules.md's table of the 48 base tiles, written out again so the engine's copy is checked."""
FIFTH_PLAYER_BOX = BASE_BOX + Counter(
    {"JC": 1, "CJ": 2, "JS": 2, "SJ": 2, "JL": 2, "CR": 2, "RC": 1}
)
DECK = ["JC", "SR", "LL"]
MOVES = ["tile 0,0 0", "hut 1,0", "tile -1,0 3", "hut -2,0"]


def played(moves: list[str], deck: list[str] = DECK) -> Game:
    """A game between Ana and Ben on the given deck after the given moves."""
    game = Game.new(players=["Ana", "Ben"], deck=deck)
    for move in moves:
        game.play(move)
    return game


def sorted_first_moves(game: Game, plies: int) -> Game:
    """Play the first move in sorted order ``plies`` times (or until the game ends)."""
    for _ in range(plies):
        if game.phase == "over":
            break
        game.play(sorted(game.legal_moves())[0])
    return game


# ------------------------------------------------------------------ Game.new


def test_a_new_game_waits_for_the_first_player_to_place_the_first_tile() -> None:
    """Defaults: two players named Player 1 and 2, 12 tiles each, the first tile drawn."""
    game = Game.new(seed=3)
    assert game.players == ("Player 1", "Player 2") and game.player_count == 2
    assert (game.phase, game.to_move, game.tile, game.result) == ("tile", 0, game.deck[0], None)
    assert (game.ply, game.moves, game.tiles_left, game.eliminated) == (0, [], 23, ())
    assert game.options == {"tiles_per_player": 12, "expansions": [], "house_rules": []}
    assert len(game.deck) == 24
    assert sorted(str(move) for move in game.legal_moves()) == [f"tile 0,0 {k}" for k in range(6)]
    for player in (0, 1):
        assert game.supply(player) == {"huts": 20, "temples": 3, "towers": 2, "ships": 0}
        assert game.score(player) == 0 and game.destroyed_huts(player) == 0
        assert game.settlements(player) == []
    assert game.land() == [] and game.buildings() == {}


@pytest.mark.parametrize(
    ("kwargs", "tiles"),
    [
        ({"players": 2}, 24),
        ({"players": 2, "tiles_per_player": 18}, 36),
        ({"players": 2, "tiles_per_player": 24}, 48),
        ({"players": 3}, 36),
        ({"players": 4}, 48),
        ({"players": 5}, 60),
        ({"players": 2, "house_rules": ["all_tiles"]}, 48),
        ({"players": 3, "house_rules": ["all_tiles"]}, 48),
        ({"players": 5, "house_rules": ["all_tiles"]}, 60),
    ],
)
def test_the_draw_pile_holds_tiles_per_player_times_players_from_the_box(
    kwargs: dict[str, Any], tiles: int
) -> None:
    """The shuffled pile has the right size and only tiles of the box (60 with five players)."""
    game = Game.new(seed=11, **kwargs)
    box = FIFTH_PLAYER_BOX if kwargs["players"] == 5 else BASE_BOX
    assert len(game.deck) == tiles
    assert not Counter(game.deck) - box
    if tiles == sum(box.values()):
        assert Counter(game.deck) == box


def test_the_same_seed_deals_the_same_pile_and_other_seeds_differ() -> None:
    """A seed (int or text) fixes the shuffle, so games can be replayed and shared."""
    assert Game.new(players=3, seed=42).deck == Game.new(players=3, seed=42).deck
    assert Game.new(seed="taluva").deck == Game.new(seed="taluva").deck
    decks = {Game.new(seed=seed).deck for seed in range(10)}
    assert len(decks) == 10


def test_named_players_and_a_given_deck_are_used_as_given() -> None:
    """Names keep their seat order; a given deck is the draw order (letters in any case)."""
    game = Game.new(players=["Ana", "Ben", "Cy"], deck=["jc", " SR ", "LL"])
    assert game.players == ("Ana", "Ben", "Cy") and game.player_count == 3
    assert game.deck == ("JC", "SR", "LL") and game.tile == "JC"


def test_a_five_player_deck_may_use_the_fifth_player_tiles() -> None:
    """Seven JC tiles exist only in the five-player box."""
    assert Game.new(players=5, deck=["JC"] * 7).deck == ("JC",) * 7
    with pytest.raises(InvalidOption, match="7 JC"):
        Game.new(players=4, deck=["JC"] * 7)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 1}, "players is 1: Taluva is for 2 to 5 players"),
        ({"players": 6}, "players is 6"),
        ({"players": True}, "players must be a count or a list of names"),
        ({"players": "Ana"}, "players must be a count or a list of names"),
        ({"players": ["Ana"]}, "1 players named"),
        ({"players": ["Ana", ""]}, "player 2's name ''"),
        ({"players": ["Ana", None]}, "player 2's name None"),
        ({"tiles_per_player": 13}, "tiles_per_player is 13: choose 12, 18 or 24"),
        ({"tiles_per_player": "12"}, "tiles_per_player is '12'"),
        ({"players": 3, "tiles_per_player": 18}, "18 tiles per player is for two players"),
        ({"players": 5, "tiles_per_player": 24}, "a 5-player game uses 12"),
        ({"house_rules": ["free_towers"]}, "unknown house rule 'free_towers'"),
        ({"expansions": ["pirates"]}, "unknown expansion 'pirates'"),
        ({"deck": ["JC", "XX"]}, "deck[1] is 'XX'"),
        ({"deck": ["JC", 7]}, "deck[1] is 7"),
        ({"deck": ["SR", "SR", "SR"]}, "3 SR tiles"),
    ],
)
def test_options_that_do_not_exist_raise_invalid_option(
    kwargs: dict[str, Any], message: str
) -> None:
    """Every bad argument of Game.new is an InvalidOption (a ValueError) saying which."""
    with pytest.raises(InvalidOption) as error:
        Game.new(**kwargs)
    assert message in str(error.value)
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize(
    "expansion",
    ["ships", "double_hex", "board:beginner", "board:intermediate-a", "board:expert"],
)
def test_every_documented_expansion_is_accepted(expansion: str) -> None:
    """The expansion names of the API are options of one engine, listed in the record."""
    game = Game.new(players=3, seed=1, expansions=[expansion])
    assert game.options["expansions"] == [expansion]
    assert game.to_record()["options"]["expansions"] == [expansion]


def test_house_rules_are_kept_once_in_the_options() -> None:
    """A house rule named twice counts once."""
    game = Game.new(house_rules=["adjacent_hut", "adjacent_hut", "all_tiles"])
    assert game.options["house_rules"] == ["adjacent_hut", "all_tiles"]


# ------------------------------------------------------------------ reading a game as it goes


def test_a_turn_is_a_tile_then_a_build_and_passes_to_the_next_player() -> None:
    """phase, to_move, tile, ply and tiles_left follow the two plies of each turn."""
    game = played([])
    seen = [(game.phase, game.to_move, game.tile, game.ply, game.tiles_left)]
    for move in MOVES:
        game.play(move)
        seen.append((game.phase, game.to_move, game.tile, game.ply, game.tiles_left))
    assert seen == [
        ("tile", 0, "JC", 0, 2),
        ("build", 0, None, 1, 2),
        ("tile", 1, "SR", 2, 1),
        ("build", 1, None, 3, 1),
        ("tile", 0, "LL", 4, 0),
    ]
    assert [str(move) for move in game.moves] == MOVES
    assert game.buildings() == {Move.parse("hut 1,0").hex: (0, "hut"),
                                Move.parse("hut -2,0").hex: (1, "hut")}  # fmt: skip
    assert game.score(0) == game.score(1) == 1
    assert game.supply(1)["huts"] == 19


def test_heights_terrains_tiles_and_buildable_hexes_read_the_board_as_it_is_now() -> None:
    """Views for search: levels, terrain codes and tile indexes of the land, and the hexes a
    building may use;
    a view keeps showing its own position after later moves, and cannot be written to."""
    game = played(["tile 0,0 0"])
    volcano, jungle, clearing = (parse_hex(text) for text in ("0,0", "1,-1", "1,0"))
    heights, terrains = game.heights(), game.terrains()
    assert dict(heights) == {volcano: 1, jungle: 1, clearing: 1}
    assert terrains[volcano] == VOLCANO and {terrains[jungle], terrains[clearing]} != {VOLCANO}
    assert [game.terrain(h) for h in (volcano, jungle, clearing)] == [
        terrains[volcano],
        terrains[jungle],
        terrains[clearing],
    ]
    assert game.buildable() == {jungle, clearing}
    game.play("hut 1,0")
    assert game.buildable() == {jungle}
    tiles = game.tile_indexes()
    game.play("tile -1,0 3")
    assert len(game.heights()) == 6 and len(heights) == 3
    assert dict(tiles) == {volcano: 0, jungle: 0, clearing: 0}
    assert {h: game.tile_index(h) for h in game.land()} == dict(game.tile_indexes())
    assert set(game.tile_indexes().values()) == {0, 1}
    with pytest.raises(TypeError):
        heights[volcano] = 2  # type: ignore[index]


def test_a_position_left_behind_forgets_its_legal_moves_until_taken_back() -> None:
    """A long game keeps no list of legal moves per move played (a server holds hundreds of
    games), and taking a move back still offers exactly the moves it offered before."""
    game = Game.new(players=2, seed=4)
    rng = random.Random(4)
    offered = []
    for _ in range(12):
        offered.append(sorted(map(str, game.legal_moves())))
        game.play(rng.choice(game.legal_moves()))
    past = [position for position, _move in game._history]
    assert all(p.tile_moves is None and p.builds is None for p in past)
    for before in reversed(offered):
        game.pop()
        assert sorted(map(str, game.legal_moves())) == before


def test_the_game_ends_when_the_last_tile_has_been_built_on() -> None:
    """After the turn that placed the last tile, the result ranks the players by pieces."""
    game = played([*MOVES, "tile 2,-1 1", "expand clearing 1,-1"])
    assert game.phase == "over" and game.tile is None and game.legal_moves() == []
    result = game.result
    assert isinstance(result, Outcome)
    assert result.reason is Reason.TILES and result.ranking == ((0,), (1,))
    assert result.winners == (0,)
    assert dict(result) == {"ranking": [[0], [1]], "reason": "tiles"}
    assert game.to_record()["result"] == {"ranking": [[0], [1]], "reason": "tiles"}
    with pytest.raises(IllegalMove, match="over"):
        game.play("hut 0,1")


def test_moves_may_be_given_as_text_or_as_move_objects() -> None:
    """play() takes Move objects and lenient text alike."""
    by_text = played(["TILE 0,0 0", "Hut 1 , 0"])
    by_object = played([])
    by_object.play(Move.parse("tile 0,0 0"))
    by_object.play(Move.parse("hut 1,0"))
    assert by_text.to_record() == by_object.to_record()


# ------------------------------------------------------------------ records


def test_to_record_has_exactly_the_shape_of_notation_md() -> None:
    """Keys, their order and the value types are those of docs/notation.md's example record."""
    game = played(MOVES)
    expected = {
        "format": "taluva-record/1",
        "players": ["Ana", "Ben"],
        "options": {"tiles_per_player": 12, "expansions": [], "house_rules": []},
        "deck": ["JC", "SR", "LL"],
        "doubles": [],
        "moves": MOVES,
        "result": None,
    }
    assert json.dumps(game.to_record()) == json.dumps(expected)


def test_from_record_replays_a_record_given_as_object_or_json_text(state_of: Observe) -> None:
    """Both forms give the game that was recorded; the record itself is not changed."""
    game = sorted_first_moves(Game.new(players=3, seed=8, house_rules=["adjacent_hut"]), 30)
    record = game.to_record()
    text = json.dumps(record)
    assert state_of(Game.from_record(record)) == state_of(game)
    assert state_of(Game.from_record(text)) == state_of(game)
    assert json.dumps(record) == text


# ------------------------------------------------------------------ undo


def test_undo_on_a_fresh_game_raises_illegal_move() -> None:
    """There is nothing to take back before the first move."""
    with pytest.raises(IllegalMove, match="no move to take back"):
        Game.new(seed=1).pop()


def test_undo_returns_the_move_and_puts_the_tile_back_in_hand(state_of: Observe) -> None:
    """Taking back a tile move returns it and shows the same drawn tile again."""
    game = played(MOVES[:2])
    after_one = state_of(played(MOVES[:1]))
    assert str(game.pop()) == "hut 1,0"
    assert state_of(game) == after_one
    assert str(game.pop()) == "tile 0,0 0"
    assert (game.phase, game.tile, game.land()) == ("tile", "JC", [])
    with pytest.raises(IllegalMove):
        game.pop()


# ------------------------------------------------------------------ hidden information


def test_unseen_tiles_are_the_box_minus_the_tiles_drawn() -> None:
    """Unseen = the rest of the pile and the tiles left in the box; the drawn tile is seen."""
    game = Game.new(players=2, seed=5)
    assert game.unseen_tiles() == BASE_BOX - Counter(game.deck[:1])
    assert sum(game.unseen_tiles().values()) == 47
    sorted_first_moves(game, 6)
    drawn = len(game.deck) - game.tiles_left
    assert drawn == 4
    assert game.unseen_tiles() == BASE_BOX - Counter(game.deck[:drawn])
    five = Game.new(players=5, seed=5)
    assert five.unseen_tiles() == FIFTH_PLAYER_BOX - Counter(five.deck[:1])
    assert all(count > 0 for count in game.unseen_tiles().values())


def test_redeal_keeps_the_past_and_reshuffles_only_unseen_tiles(state_of: Observe) -> None:
    """A redeal has the same history, position and drawn tile; only the tiles still to come
    change, drawn from the unseen ones (the box included); the original is untouched."""
    game = sorted_first_moves(Game.new(players=2, seed=9), 11)
    assert game.phase == "build"
    before = state_of(game)
    drawn = len(game.deck) - game.tiles_left
    futures = set()
    for seed in range(8):
        guess = game.redeal(random.Random(seed))
        assert guess.deck[:drawn] == game.deck[:drawn]
        assert len(guess.deck) == len(game.deck)
        assert not Counter(guess.deck[drawn:]) - game.unseen_tiles()
        same = {**state_of(guess), "record": None}
        assert same == {**before, "record": None}
        assert guess.to_record()["moves"] == before["record"]["moves"]
        sorted_first_moves(guess, 4)
        futures.add(guess.deck[drawn:])
    assert state_of(game) == before
    assert len(futures) == 8
    in_box = Counter(game.unseen_tiles()) - Counter(game.deck[drawn:])
    assert any(Counter(future) & in_box for future in futures)


def test_redeal_with_the_same_rng_seed_is_the_same_guess() -> None:
    """Determinized search is reproducible for a seed."""
    game = sorted_first_moves(Game.new(players=4, seed=2), 9)
    assert game.redeal(random.Random(4)).deck == game.redeal(random.Random(4)).deck


def test_the_package_exports_the_engine_types() -> None:
    """``import taluva`` gives the engine's own classes, not copies."""
    assert taluva.Game is engine_game.Game and taluva.Move is engine_moves.Move
    assert taluva.Phase.TILE == "tile" and taluva.MoveKind.EXPAND == "expand"


def test_huts_placed_counts_a_hut_per_level_of_each_hex_of_a_build() -> None:
    game = Game.new(players=["Ana", "Ben"], deck=["JC", "SJ", "CS", "RJ", "LS", "CR", "JS", "SC"])
    for move in ["tile 0,0 0", "hut 1,-1", "tile -1,1 5", "hut -1,2", "tile -3,2 0"]:
        game.play(move)
    assert game.huts_placed("expand jungle 1,0") == 1  # level 1
    assert game.huts_placed("hut 1,0") == 1
    assert game.huts_placed("temple 1,0") == 0 and game.huts_placed("tile 0,0 1") == 0
    game.play("expand jungle 1,0")
    game.play("tile 0,0 5")
    assert game.huts_placed("expand rock 0,1") == 2  # on the level-2 tile
    assert game.effects(len(game.moves) - 1)[0].level == 2
