"""Taluva registered with OpenSpiel: pyspiel's own consistency test and MCTS bot."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts
from open_spiel.python.observation import make_observation

import taluva.research.spiel  # noqa: F401 (registers python_taluva)
from taluva.research.actions import TILE_CODES
from taluva.research.observations import Observer


def test_load_game_reads_the_parameters() -> None:
    game = pyspiel.load_game("python_taluva")
    assert (game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()) == (
        2,
        18292,
        25,
    )
    assert game.max_game_length() == 72
    bigger = pyspiel.load_game("python_taluva(players=4,expansions=ships+double_hex,radius=8)")
    assert bigger.num_players() == 4 and bigger.num_distinct_actions() == 39 * 217 + 1
    assert bigger.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    with pytest.raises(ValueError, match="unknown expansion 'moon'"):
        pyspiel.load_game("python_taluva(expansions=moon)")


@pytest.mark.parametrize(
    "name",
    [
        "python_taluva",
        "python_taluva(players=3,expansions=ships+double_hex)",
        "python_taluva(players=2,radius=3,tiles_per_player=24)",
    ],
)
def test_random_play_passes_openspiel_consistency_checks(name: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=2, serialize=True, verbose=False)


def test_openspiel_mcts_bot_plays_legal_moves_against_chance() -> None:
    game = pyspiel.load_game("python_taluva(radius=6)")
    random_state = np.random.RandomState(3)
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=6,
        evaluator=mcts.RandomRolloutEvaluator(1, random_state),
        random_state=random_state,
    )
    state = game.new_initial_state()
    moves = []
    while len(moves) < 6:
        if state.is_chance_node():
            actions, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(random_state.choice(actions, p=weights)))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        moves.append(state.action_to_string(state.current_player(), action))
        state.apply_action(action)
    assert moves[0].startswith("tile 0,0 ") and moves[1].startswith("hut ")


def test_observation_tensor_is_the_planes_and_scalars_of_the_player() -> None:
    game = pyspiel.load_game("python_taluva(radius=4)")
    state = game.new_initial_state()
    observation = make_observation(game)
    observer = Observer(players=2, radius=4)
    observation.set_from(state, 0)
    scalars = observation.dict["scalars"]
    assert scalars[observer.scalar("unseen_JC")] == 6
    assert scalars[observer.scalar("tiles_left")] == 24
    state.apply_action(TILE_CODES.index("RL"))
    observation.set_from(state, 0)
    planes = observation.dict["planes"]
    assert planes.shape == observer.planes_shape
    assert planes[observer.channel("legal_tile_k3")].sum() == 1
    assert observation.dict["scalars"][observer.scalar("drawn_RL")] == 1
    assert "chance: deal tile" in observation.string_from(game.new_initial_state(), 0)
