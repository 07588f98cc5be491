"""Observation planes and scalars, and the six rotations as exact symmetries."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_research_actions import ship_position

from taluva import Game, Move, parse_hex
from taluva.research.actions import TILE_CODES, action_space
from taluva.research.observations import Observer, channel_names, scalar_names
from taluva.research.symmetry import (
    mirror_hex,
    rotate_action,
    rotate_game,
    rotate_hex,
    rotate_move,
    rotate_policy,
)


def test_channels_and_scalars_are_named_and_sized_by_player_count() -> None:
    observer = Observer(players=3, radius=4)
    assert observer.planes_shape == (31 + 4 * 3, 9, 9)
    assert observer.scalars_shape == (6 * 3 + 59,)
    assert channel_names(2)[:8] == (
        "window", "level_1", "level_2", "level_3", "level_4", "level_5", "level_6+",
        "terrain_volcano",
    )  # fmt: skip
    assert channel_names(2)[19:25] == (
        "lagoon",
        "zone",
        "p0_hut",
        "p0_temple",
        "p0_tower",
        "p0_ship",
    )
    assert scalar_names(2)[-8:] == (
        "phase_choose", "phase_tile", "phase_build",
        "face_up_VL", "face_up_VJ", "face_up_VS", "face_up_VV", "face_up_JJ",
    )  # fmt: skip
    assert int(observer.observe(Game.new(players=3, seed=1))[0][0].sum()) == 61


def test_first_position_offers_the_six_orientations_at_the_origin() -> None:
    observer = Observer(players=2, radius=3)
    planes, scalars = observer.observe(Game.new(players=2, deck=["SL", "JC"]))
    row, column = observer.cell(parse_hex("0,0"))
    for k in range(6):
        plane = planes[observer.channel(f"legal_tile_k{k}")]
        assert plane.sum() == 1 and plane[row, column] == 1
    assert scalars[observer.scalar("drawn_SL")] == 1
    assert scalars[observer.scalar("unseen_SL")] == 0
    assert scalars[observer.scalar("unseen_JC")] == 6
    assert scalars[observer.scalar("tiles_left")] == 1
    assert scalars[observer.scalar("phase_tile")] == 1
    assert scalars[observer.scalar("p0_huts_left")] == 20


def test_planes_show_the_island_and_pieces_relative_to_the_observer() -> None:
    observer = Observer(players=2, radius=3)
    game = Game.new(players=2, deck=["JC", "SR", "LL"])
    game.play("tile 0,0 0")
    game.play("hut 1,0")
    mine, _ = observer.observe(game, perspective=0)
    theirs, scalars = observer.observe(game)  # player 1 is to move
    at = observer.cell(parse_hex("1,0"))
    assert mine[observer.channel("p0_hut")][at] == 1 and mine[observer.channel("p1_hut")][at] == 0
    assert theirs[observer.channel("p1_hut")][at] == 1
    assert theirs[observer.channel("p0_hut")].sum() == 0
    assert scalars[observer.scalar("p1_huts_left")] == 19
    assert scalars[observer.scalar("p0_huts_left")] == 20
    assert theirs[observer.channel("terrain_jungle")][at] == 1
    assert theirs[observer.channel("level_1")].sum() == 3
    volcano = observer.cell(parse_hex("0,0"))
    edges = [theirs[observer.channel(f"edge_{d}")][volcano] for d in ("e", "ne", "nw", "w")]
    assert edges == [0, 0, 1, 1]


def positions(expansions: tuple[str, ...], players: int, seed: int) -> list[Game]:
    """Every third position of a random game."""
    rng = random.Random(seed)
    game = Game.new(players=players, seed=seed, expansions=expansions)
    found = []
    while not game.is_over:
        if game.ply % 3 == 1:
            found.append(Game.from_record(game.to_record()))
        game.play(rng.choice(game.legal_moves()))
    return found


@pytest.mark.parametrize(
    ("expansions", "players", "seed"), [((), 2, 11), ((), 4, 12), (("double_hex",), 3, 13)]
)
def test_a_turned_position_is_observed_as_the_turned_observation(
    expansions: tuple[str, ...], players: int, seed: int
) -> None:
    observer = Observer(players)
    space = observer.space
    for game in positions(expansions, players, seed)[::4]:
        planes, scalars = observer.observe(game)
        actions = space.legal_actions(game)
        for k in (1, 2, 5):
            turned = rotate_game(game, k)
            turned_planes, turned_scalars = observer.observe(turned)
            assert np.array_equal(observer.rotate_planes(planes, k), turned_planes)
            assert np.array_equal(scalars, turned_scalars)
            assert sorted(rotate_action(game, a, k, space) for a in actions) == (
                space.legal_actions(turned)
            )


def test_ship_and_expansion_actions_turn_with_their_lagoon_and_settlement() -> None:
    game = ship_position()
    space = action_space()
    observer = Observer(players=2)
    rng = random.Random(5)
    checked = {"ship": 0, "expand": 0}
    while not game.is_over and min(checked.values()) < 3:
        actions = space.legal_actions(game)
        kinds = {space.kind(a) for a in actions}
        if kinds & set(checked):
            planes, _ = observer.observe(game, legal_actions=actions)
            for k in (1, 3):
                turned = rotate_game(game, k)
                assert sorted(rotate_action(game, a, k, space) for a in actions) == (
                    space.legal_actions(turned)
                )
                assert np.array_equal(
                    observer.rotate_planes(planes, k), observer.observe(turned)[0]
                )
            for kind in kinds & set(checked):
                checked[kind] += 1
        game.play(space.decode(game, rng.choice(actions)))
    assert min(checked.values()) >= 1


def test_rotate_policy_moves_mass_to_the_turned_actions() -> None:
    space = action_space()
    game = Game.new(players=2, deck=["JC", "SR"])
    policy = np.zeros(space.size, np.float32)
    policy[space.encode(game, "tile 0,0 0")] = 0.75
    policy[space.encode(game, "tile 0,0 4")] = 0.25
    turned = rotate_policy(game, policy, 1, space)
    assert turned[space.encode(game, "tile 0,0 1")] == 0.75
    assert turned[space.encode(game, "tile 0,0 5")] == 0.25
    assert turned.sum() == 1.0


def test_six_turns_are_the_identity_and_a_turn_maps_directions_forward() -> None:
    hex_ = parse_hex("3,-1")
    assert rotate_hex(hex_, 6) == hex_
    assert rotate_hex(parse_hex("1,0"), 1) == parse_hex("1,-1")
    assert str(rotate_move(Move.parse("tile 2,0 5"), 1)) == "tile 2,-2 0"
    assert str(rotate_move(Move.parse("double VV 0,0 2"), 1)) == "double VV -1,0 0"
    assert str(rotate_move(Move.parse("expand sand 1,0 2,-1"), 2)) == "expand sand -1,-1 0,-1"


def test_a_reflection_is_no_symmetry_because_tiles_are_chiral() -> None:
    placed = Game.new(players=2, deck=["JC", "SR"])
    placed.play("tile 0,0 0")
    mirrored = {mirror_hex(h): placed.terrain(h) for h in placed.land()}
    for k in range(6):
        game = Game.new(players=2, deck=["JC", "SR"])
        game.play(f"tile 0,0 {k}")
        assert {h: game.terrain(h) for h in game.land()} != mirrored
    flipped = Game.new(players=2, deck=["CJ", "SR"])
    flipped.play("tile 0,0 5")
    assert {h: flipped.terrain(h) for h in flipped.land()} == mirrored


def test_a_game_on_a_board_zone_shows_the_zone_and_cannot_be_turned() -> None:
    from taluva.engine.expansions.board_zones import ZONES

    game = Game.new(players=2, seed=1, expansions=("board:expert",))
    observer = Observer(players=2)
    zone = observer.observe(game)[0][observer.channel("zone")]
    assert zone.sum() == len(ZONES["expert"].hexes) > 0
    assert zone[observer.cell(parse_hex("0,0"))] == 1
    assert observer.observe(Game.new(players=2, seed=1))[0][observer.channel("zone")].sum() == 0
    with pytest.raises(ValueError, match="board:expert cannot be turned"):
        rotate_game(game, 1)


def test_the_tile_to_come_can_be_hidden_for_chance_nodes() -> None:
    observer = Observer(players=2, radius=3)
    game = Game.new(players=2, deck=["SL", "JC"])
    planes, scalars = observer.observe(game, hide_tile=True)
    assert planes[observer.channel("legal_tile_k0")].sum() == 0
    assert scalars[observer.scalar("unseen_SL")] == 1
    assert scalars[observer.scalar("tiles_left")] == 2
    assert all(scalars[observer.scalar(f"drawn_{code}")] == 0 for code in TILE_CODES)
    assert scalars[observer.scalar("phase_tile")] == 0
