"""The research action space: fixed size, one action per move text, and the window's edge."""

from __future__ import annotations

import itertools
import random

import pytest

from taluva import Game, IllegalMove, Move, format_hex, parse_hex
from taluva.engine.moves import EXPAND, SHIP
from taluva.engine.outcome import Reason
from taluva.research.actions import (
    ActionSpace,
    OutsideWindow,
    action_space,
    expansion_settlements,
    returns_of,
    window_hexes,
)
from taluva.research.state import TaluvaConfig, TaluvaState

# Two of player 1's settlements (the huts at -4,0 and at -2,0) both reach the one clearing
# hex -3,0: "expand clearing -3,0" is one move, so it must be one action.
SHARED_FIELD_DECK = ["SL", "JC", "SR", "CS", "CJ", "RL", "CJ", "JC"]
SHARED_FIELD_MOVES = [
    "tile 0,0 1", "hut 0,-1", "tile -2,-1 5", "hut -1,-1", "tile 0,-2 0", "hut -2,0",
    "tile -4,1 1", "hut 1,-2", "tile 2,-1 1", "hut -4,0", "tile -2,-2 2", "hut -2,-3",
    "tile 5,-3 2",
]  # fmt: skip


def play_random(game: Game, space: ActionSpace, rng: random.Random, plies: int) -> None:
    """Play up to ``plies`` random legal actions."""
    for _ in range(plies):
        actions = space.legal_actions(game)
        if game.is_over or not actions:
            return
        game.play(space.decode(game, rng.choice(actions)))


def test_action_space_size_does_not_depend_on_the_position() -> None:
    space = action_space(12)
    assert (space.hex_count, space.size) == (469, 18292)
    assert ActionSpace(radius=2).size == 39 * 19 + 1
    blocks = [
        space.tile_base,
        space.draw_action,
        space.double_base,
        space.hut_base,
        space.expand_base,
        space.temple_base,
        space.tower_base,
        space.ship_base,
        space.size,
    ]
    assert [b - a for a, b in itertools.pairwise(blocks)] == [
        6 * 469, 1, 24 * 469, 469, 5 * 469, 469, 469, 469,
    ]  # fmt: skip


def test_window_is_the_hexagon_of_the_radius_in_move_text_order() -> None:
    assert [format_hex(h) for h in window_hexes(1)] == [
        "-1,0", "-1,1", "0,-1", "0,0", "0,1", "1,-1", "1,0",
    ]  # fmt: skip
    assert len(window_hexes(12)) == 469
    with pytest.raises(ValueError, match="radius is 0"):
        window_hexes(0)


def test_every_action_but_expand_names_one_move_text_and_back() -> None:
    space = ActionSpace(radius=3)
    texts = {}
    for action in range(space.size):
        if space.kind(action) == EXPAND:
            assert space.describe(action).startswith("expand ")
            continue
        text = str(space.decode(None, action))
        assert Move.parse(text).kind == space.kind(action)
        assert space.encode(None, text) == action
        texts[text] = action
    assert len(texts) == space.size - 5 * space.hex_count
    assert space.encode(None, "double VV 0,0 4") == space.encode(None, "double VV -1,1 1")
    assert str(space.decode(None, space.draw_action)) == "draw"


@pytest.mark.parametrize(
    ("players", "expansions", "seed"),
    [(2, (), 1), (3, (), 2), (5, (), 3), (2, ("ships", "double_hex"), 4), (4, ("ships",), 5)],
)
def test_legal_actions_and_legal_moves_map_one_to_one(
    players: int, expansions: tuple[str, ...], seed: int
) -> None:
    space = action_space(12)
    rng = random.Random(seed)
    game = Game.new(players=players, seed=seed, expansions=expansions)
    kinds = set()
    while not game.is_over:
        moves = game.legal_moves()
        kinds.update(move.kind for move in moves)
        actions = space.legal_actions(game, moves)
        assert actions == sorted(set(actions))
        assert sorted(space.encode(game, m) for m in moves if space.fits(m)) == actions
        for action in actions:
            move = space.decode(game, action)
            assert game.is_legal(move)
            assert space.encode(game, str(move)) == action
        game.play(space.decode(game, rng.choice(actions)))
    expected = {"tile", "hut", "expand"} | (
        {"draw", "double"} if expansions[:2] == ("ships", "double_hex") else set()
    )
    assert expected <= kinds


def ship_position() -> Game:
    """A Ships game (seed 0, random moves) at the first position where a ship may sail."""
    rng = random.Random(0)
    game = Game.new(players=2, seed=0, expansions=("ships", "double_hex"))
    while not any(move.kind == SHIP for move in game.legal_moves()):
        game.play(rng.choice(game.legal_moves()))
    return game


def test_a_ship_action_names_its_lagoon_by_the_lowest_hex() -> None:
    space = action_space()
    game = ship_position()
    assert [sorted(format_hex(h) for h in lagoon) for lagoon in game.lagoons()] == [["1,1"]]
    action = space.encode(game, "ship 1,1")
    assert action == space.ship_base + space.hex_index(parse_hex("1,1"))
    assert action in space.legal_actions(game)
    assert str(space.decode(game, action)) == "ship 1,1"


def test_expansion_anchor_is_the_lowest_hex_of_the_settlement() -> None:
    space = action_space()
    game = Game.new(players=2, deck=["JC", "SR", "LL"])
    for text in ("tile 0,0 0", "hut 1,0", "tile -2,1 0", "hut -1,1", "tile 2,0 0"):
        game.play(text)
    expansions = [m for m in game.legal_moves() if m.kind == EXPAND]
    assert [str(m) for m in expansions] == ["expand clearing 1,-1"]
    action = space.encode(game, expansions[0])
    assert space.describe(action) == "expand clearing from 1,0"
    assert str(space.decode(game, action)) == "expand clearing 1,-1"


def test_two_settlements_that_fill_the_same_hexes_share_one_action() -> None:
    space = action_space()
    game = Game.new(players=2, deck=SHARED_FIELD_DECK)
    for text in SHARED_FIELD_MOVES:
        game.play(text)
    groups = expansion_settlements(game)[(2, (parse_hex("-3,0"),))]
    assert [sorted(format_hex(h) for h in g) for g in groups] == [["-4,0"], ["-2,0"]]
    shared = space.encode(game, "expand clearing -3,0")
    assert space.describe(shared) == "expand clearing from -4,0"
    other = space.expand_base + 5 * space.hex_index(parse_hex("-2,0")) + 1
    assert str(space.decode(game, other)) == "expand clearing -3,0"
    legal = space.legal_actions(game)
    assert shared in legal and other not in legal
    assert len(legal) == len(game.legal_moves())


def test_a_move_outside_the_window_has_no_action() -> None:
    space = ActionSpace(radius=2)
    with pytest.raises(OutsideWindow, match="hex 3,0 lies outside the action window of radius 2"):
        space.encode(None, "hut 3,0")
    assert not space.fits(Move.parse("tile 2,0 0"))
    assert space.fits(Move.parse("tile 1,0 3"))


def test_decode_rejects_what_is_no_action() -> None:
    space = action_space()
    with pytest.raises(ValueError, match=r"action 18292 is outside the action space 0\.\.18291"):
        space.decode(None, space.size)
    with pytest.raises(ValueError, match="needs the game"):
        space.decode(None, space.expand_base)
    game = Game.new(players=2, deck=["JC", "SR"])
    game.play("tile 0,0 0")
    with pytest.raises(ValueError, match="0,0 is not the lowest hex of a settlement"):
        space.decode(game, space.expand_base + 5 * space.hex_index(0))
    with pytest.raises(IllegalMove, match="no settlement of player 1 expands"):
        space.encode(game, "expand sand 1,0")


def test_placements_leaving_the_window_are_not_offered() -> None:
    space = ActionSpace(radius=2)
    game = Game.new(players=2, deck=["JC", "SR", "LL"])
    game.play("tile 0,0 0")
    game.play("hut 1,0")
    inside = space.legal_actions(game)
    assert len(inside) < len(game.legal_moves())
    assert all(space.fits(space.decode(game, a)) for a in inside)
    assert len(inside) == len([m for m in game.legal_moves() if space.fits(m)])


def test_island_filling_the_window_ends_the_game_as_no_placement() -> None:
    rng = random.Random(7)
    config = TaluvaConfig(players=2, radius=2, tiles_per_player=24)
    state = TaluvaState(config)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state.outcome is not None
    assert state.outcome.reason == Reason.NO_PLACEMENT
    game = state.game
    assert game is not None and game.result is None and game.tiles_left > 0
    assert all(state.space.contains(h) for h in game.land())
    assert any(not state.space.fits(m) for m in game.legal_moves())
    assert sum(state.returns()) == 0.0


def test_returns_are_zero_sum_with_shared_places() -> None:
    from taluva import Outcome

    assert returns_of(Outcome(((0,), (1,)), Reason.TILES), 2) == [1.0, -1.0]
    assert returns_of(Outcome(((0, 1),), Reason.TILES), 2) == [0.0, 0.0]
    assert returns_of(Outcome(((2,), (0, 3), (1,)), Reason.VICTORY), 4) == [0.0, -1.0, 1.0, 0.0]
