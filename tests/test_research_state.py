"""The OpenSpiel-style state: chance nodes for the draws, actions, returns, copies, text."""

from __future__ import annotations

import copy
import pickle
import random
from math import comb

import pytest

from taluva import Game, InvalidOption
from taluva.engine.tiles import tile_set
from taluva.research.actions import CHANCE_PLAYER, TERMINAL_PLAYER, TILE_CODES, returns_of
from taluva.research.state import TaluvaConfig, TaluvaState


def deal(code: str) -> int:
    return TILE_CODES.index(code)


def test_the_game_opens_with_a_draw_weighted_by_the_tiles_in_the_box() -> None:
    state = TaluvaState(TaluvaConfig(players=2))
    assert state.current_player() == CHANCE_PLAYER
    assert state.is_chance_node() and not state.is_terminal()
    outcomes = dict(state.chance_outcomes())
    assert outcomes[deal("JC")] == 6 / 48 and outcomes[deal("LL")] == 1 / 48
    assert sum(outcomes.values()) == pytest.approx(1.0)
    assert state.legal_actions() == sorted(outcomes)
    assert state.action_to_string(deal("JC")) == "deal JC"


def test_a_chance_outcome_is_the_tile_the_player_must_place() -> None:
    state = TaluvaState()
    state.apply_action(deal("SR"))
    assert state.current_player() == 0
    assert state.game is not None and state.game.tile == "SR"
    assert [state.action_to_string(a) for a in state.legal_actions()] == [
        f"tile 0,0 {k}" for k in range(6)
    ]
    state.apply_action(state.space.encode(None, "tile 0,0 2"))
    state.apply_action(state.legal_actions()[0])
    assert state.is_chance_node()
    outcomes = dict(state.chance_outcomes())
    assert outcomes[deal("SR")] == 1 / 47 and outcomes[deal("JC")] == 6 / 47


def test_dealing_the_record_deck_replays_the_engine_game() -> None:
    rng = random.Random(3)
    game = Game.new(players=3, seed=3)
    state = TaluvaState(TaluvaConfig(players=3))
    drawn = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(deal(game.deck[drawn]))
            drawn += 1
            assert state.game is not None and state.game.tile == game.tile
            continue
        action = rng.choice(state.legal_actions())
        assert state.current_player() == game.to_move
        game.play(state.space.decode(game, action))
        state.apply_action(action)
    assert state.current_player() == TERMINAL_PLAYER
    assert state.game is not None
    assert [str(m) for m in state.game.moves] == [str(m) for m in game.moves]
    assert state.outcome == game.result
    assert game.result is not None
    assert state.returns() == returns_of(game.result, 3)
    assert sum(state.returns()) == pytest.approx(0.0)


def test_double_hex_games_open_by_laying_the_face_up_tiles() -> None:
    state = TaluvaState(TaluvaConfig(players=3, expansions=("double_hex",)))
    outcomes = state.chance_outcomes()
    assert len(outcomes) == comb(5, 3) and outcomes[0][1] == pytest.approx(0.1)
    assert state.action_to_string(0) == "face up VL VJ VS"
    state.apply_action(0)
    assert state.game is not None and state.game.doubles == ("VL", "VJ", "VS")
    assert state.current_player() == 0
    draw = state.space.draw_action
    assert draw in state.legal_actions()
    state.apply_action(draw)
    assert state.is_chance_node()
    state.apply_action(deal("CC"))
    assert state.game.tile == "CC"


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    state = TaluvaState()
    state.apply_action(deal("JC"))
    before = state.serialize()
    hut = state.space.encode(None, "hut 1,0")
    with pytest.raises(ValueError, match=f"action {hut} \\(hut 1,0\\) is not legal here"):
        state.apply_action(hut)
    with pytest.raises(ValueError, match="chance outcome"):
        TaluvaState().apply_action(99)
    assert state.serialize() == before


def play_out(state: TaluvaState, seed: int, steps: int = 10_000) -> None:
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            return
        if state.is_chance_node():
            actions, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def test_clones_copies_and_pickles_are_independent_and_equal() -> None:
    state = TaluvaState(TaluvaConfig(players=2, expansions=("ships",)))
    play_out(state, seed=1, steps=21)
    for twin in (state.clone(), copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert str(twin) == str(state) and twin.history == state.history
        play_out(twin, seed=2)
        assert twin.is_terminal()
    assert not state.is_terminal() and len(state.history) == 21


def test_serialized_state_replays_to_the_same_position() -> None:
    state = TaluvaState(TaluvaConfig(players=4, house_rules=("adjacent_hut",)))
    play_out(state, seed=4, steps=60)
    text = state.serialize()
    again = TaluvaState.deserialize(text)
    assert again.history == state.history and str(again) == str(state)
    assert again.legal_actions() == state.legal_actions()
    with pytest.raises(ValueError, match="not a serialized Taluva state"):
        TaluvaState.deserialize('{"format": "other"}')
    with pytest.raises(ValueError, match=r"bad config .*players is 9"):
        TaluvaState.deserialize(text.replace('"players":4', '"players":9'))
    broken = text.replace('"history":[', '"history":[999,')
    with pytest.raises(ValueError, match=r"history\[0\]: chance outcome 999"):
        TaluvaState.deserialize(broken)


def test_config_checks_options_and_counts_the_pile() -> None:
    assert TaluvaConfig(players=3).deck_length == 36
    assert TaluvaConfig(players=5, house_rules=("all_tiles",)).deck_length == sum(
        tile_set(5).values()
    )
    assert TaluvaConfig(players=2, expansions=("double_hex",)).max_game_length == 3 * 26
    with pytest.raises(InvalidOption, match="players is 6"):
        TaluvaConfig(players=6)
    with pytest.raises(InvalidOption, match="radius is 1"):
        TaluvaConfig(radius=1)


def test_text_shows_the_board_and_whose_turn_it_is() -> None:
    state = TaluvaState()
    assert str(state) == "(no tiles yet)\nchance: deal tile"
    state.apply_action(deal("JC"))
    state.apply_action(state.space.encode(None, "tile 0,0 0"))
    assert str(state).splitlines()[-2:] == ["tiles left: 23", "to move: player 0 (build)"]
