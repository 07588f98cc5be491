"""The learned evaluation: the shipped model, its values of fixed positions, the agent spec."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import numpy as np
import pytest

from taluva import Game
from taluva.ai import InvalidAgentSpec, make_agent
from taluva.ai.evaluation import DEFAULT_EVALUATOR, Situation, situation
from taluva.ai.learned import (
    INPUT_NAMES,
    MODEL_FILE,
    MODEL_FORMAT,
    LearnedEvaluator,
    ModelError,
    load_network,
    model_file,
    position_inputs,
)
from taluva.ai.mcts import MctsAgent


def played(seed: int, players: int, plies: int) -> Game:
    """A position reached by seeded random play."""
    rng = random.Random(seed)
    game = Game.new(players=players, seed=seed)
    while game.result is None and game.ply < plies:
        game.play(game.random_move(rng))
    return game


FIXED = [
    # (seed, players, plies): the shipped models' results there, to 1e-9 (a model trained
    # again must give these, or the test's numbers are renewed with it); two- and four-player
    # games are valued by learned_value_2p.npz and learned_value_4p.npz, the others by
    # learned_value.npz
    ((3, 2, 20), [0.7351115030, 0.2648884970]),
    ((5, 2, 41), [0.8383924947, 0.1616075053]),
    ((7, 4, 50), [0.7248671306, 0.4935950248, 0.4470559254, 0.3344819193]),
    ((9, 3, 40), [0.7188240898, 0.1539276970, 0.6272482132]),
]


def test_the_shipped_model_loads_with_this_versions_inputs() -> None:
    network = load_network()
    assert network.width == len(INPUT_NAMES)
    as_first, as_second = network.first
    assert len(as_first) == len(as_second) == len(network.first_bias)
    assert all(len(column) == len(INPUT_NAMES) for column in as_first + as_second)


@pytest.mark.parametrize(("where", "expected"), FIXED)
def test_the_shipped_model_values_fixed_positions_exactly(
    where: tuple[int, int, int], expected: list[float]
) -> None:
    game = played(*where)
    assert game.result is None
    assert LearnedEvaluator().results(game) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("where", "expected"), FIXED)
def test_expected_results_add_up_as_places_do(
    where: tuple[int, int, int], expected: list[float]
) -> None:
    results = LearnedEvaluator().results(played(*where))
    players = len(results)
    assert sum(results) == pytest.approx(players / 2)
    assert all(0.0 <= r <= 1.0 for r in results)


def test_the_chances_of_a_pair_add_up_to_one_and_to_the_counts() -> None:
    game = played(7, 4, 50)
    features = [DEFAULT_EVALUATOR.features(game, p) for p in range(4)]
    rows = position_inputs(features, situation(game), game.phase != "tile")
    network = load_network()
    ahead = network.ahead(rows)
    for p in range(4):
        assert ahead[p][p] == 0.5
        for o in range(4):
            assert ahead[p][o] + ahead[o][p] == pytest.approx(1.0, abs=1e-12)
    assert network.ahead_counts(rows) == pytest.approx([sum(row) - 0.5 for row in ahead])


def reference_logit(
    arrays: dict[str, np.ndarray], first: list[float], second: list[float]
) -> float:
    """The network's logit for a pair, computed from the file's arrays with NumPy as the
    training wrote them: standardise the pair's inputs, then the layers."""
    potentials = 3.0 * (
        first[INPUT_NAMES.index("potential")] - second[INPUT_NAMES.index("potential")]
    )
    weights = DEFAULT_EVALUATOR.weights
    tiles = round(first[INPUT_NAMES.index("tiles_left")] * 24.0)
    duel = (weights.scale + weights.late_scale / max(1.0, tiles)) * potentials
    x = (np.array([*first, *second, duel]) - arrays["mean"]) / arrays["scale"]
    layers = int(arrays["layers"])
    for i in range(layers):
        x = x @ arrays[f"w{i}"].astype(np.float64) + arrays[f"b{i}"]
        if i < layers - 1:
            x = np.maximum(x, 0.0)
    return float(x[0])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_plain_python_network_computes_what_numpy_does_with_the_files_arrays(
    players: int,
) -> None:
    name = model_file(players) if players in (2, 4) else MODEL_FILE
    with np.load(Path(__file__).parents[1] / "src" / "taluva" / "ai" / name) as data:
        arrays = {key: data[key] for key in data.files}
    game = played(7, players, 30)
    features = [DEFAULT_EVALUATOR.features(game, p) for p in range(players)]
    rows = position_inputs(features, situation(game), game.phase != "tile")
    ahead = load_network(players=players).ahead(rows)
    for p in range(players):
        for o in range(players):
            if p != o:
                forward = 1 / (1 + np.exp(-reference_logit(arrays, rows[p], rows[o])))
                backward = 1 / (1 + np.exp(-reference_logit(arrays, rows[o], rows[p])))
                assert ahead[p][o] == pytest.approx((forward + 1 - backward) / 2, abs=1e-12)


def test_two_and_four_player_games_have_networks_of_their_own() -> None:
    assert load_network(players=2) is not load_network(players=4)
    assert load_network(players=4) is not load_network()
    assert load_network(players=3) is load_network(players=5) is load_network()


def test_an_evaluator_for_some_player_counts_leaves_the_others_to_the_heuristic() -> None:
    only_two = LearnedEvaluator(players=frozenset({2}))
    four = played(7, 4, 50)
    assert only_two.results(four) == DEFAULT_EVALUATOR.results(four)
    two = played(5, 2, 41)
    assert only_two.results(two) == LearnedEvaluator().results(two)
    assert only_two.results(two) != DEFAULT_EVALUATOR.results(two)


def test_a_finished_game_is_valued_by_its_outcome() -> None:
    rng = random.Random(2)
    game = Game.new(players=2, seed=2)
    while game.result is None:
        game.play(game.random_move(rng))
    assert LearnedEvaluator().results(game) == DEFAULT_EVALUATOR.results(game)


def test_players_out_rank_below_those_in_and_the_first_out_lowest() -> None:
    game = played(7, 4, 30)
    features = [DEFAULT_EVALUATOR.features(game, p) for p in range(4)]
    where = Situation(mover=0, eliminated=(3, 1), turns=(3, 0, 3, 0), tiles_left=4)
    results = LearnedEvaluator().learned_results(features, where, building=False)
    assert results[3] == 0.0
    assert results[1] == pytest.approx(1 / 3)
    assert results[0] + results[2] == pytest.approx((2 + 2 + 1) / 3)
    assert min(results[0], results[2]) >= 2 / 3


def test_inputs_follow_the_names_and_see_whose_move_it_is() -> None:
    game = played(5, 2, 41)
    features = [DEFAULT_EVALUATOR.features(game, p) for p in range(2)]
    rows = position_inputs(features, situation(game), game.phase != "tile")
    assert [len(row) for row in rows] == [len(INPUT_NAMES)] * 2
    moving = INPUT_NAMES.index("moving")
    assert [row[moving] for row in rows] == [float(p == game.to_move) for p in range(2)]


def test_a_model_of_another_format_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "other.npz"
    np.savez(path, format=np.array("something-else/1"))
    with pytest.raises(ModelError, match=r"other\.npz: not a learned value model"):
        load_network(path)


def test_a_model_of_other_inputs_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.npz"
    np.savez(path, format=np.array(MODEL_FORMAT), names=np.array(["huts_left"]))
    with pytest.raises(ModelError, match="are not this version's"):
        load_network(path)


def test_a_missing_model_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"missing\.npz: cannot read the model"):
        load_network(tmp_path / "missing.npz")


def test_the_spec_eval_learned_makes_a_search_with_the_learned_evaluation() -> None:
    agent = make_agent("mcts:iterations=4,eval=learned", seed=1)
    assert isinstance(agent, MctsAgent)
    assert isinstance(agent.evaluator, LearnedEvaluator)
    assert (agent.name, agent.iterations, agent.seconds) == (
        "mcts:iterations=4,eval=learned",
        4,
        None,
    )
    game = played(3, 2, 20)
    move = agent.choose(game.copy())
    assert game.is_legal(move)
    again = make_agent("mcts:iterations=4,eval=learned", seed=1).choose(game.copy())
    assert again == move


def test_eval_learned_alone_searches_with_the_top_levels_budget() -> None:
    agent = make_agent("mcts:eval=learned")
    assert isinstance(agent, MctsAgent) and isinstance(agent.evaluator, LearnedEvaluator)
    assert (agent.iterations, agent.seconds) == (800, 8.0)


def test_eval_heuristic_is_the_default_search() -> None:
    agent = make_agent("mcts:iterations=4,eval=heuristic")
    assert isinstance(agent, MctsAgent) and agent.evaluator is DEFAULT_EVALUATOR


def test_eval_learned_own_values_the_searcher_by_the_network_and_the_others_by_the_heuristic() -> (
    None
):
    game = played(7, 4, 50)
    agent = make_agent("mcts:iterations=4,eval=learned-own", seed=1)
    assert isinstance(agent, MctsAgent) and isinstance(agent.evaluator, LearnedEvaluator)
    learned, heuristic = LearnedEvaluator().results(game), DEFAULT_EVALUATOR.results(game)
    for player in range(4):
        seen = agent.evaluator.seen_by(player)
        expected = [*heuristic[:player], learned[player], *heuristic[player + 1 :]]
        assert seen.results(game) == pytest.approx(expected, abs=1e-12)
    assert agent.evaluator.results(game) == pytest.approx(learned, abs=1e-12)
    assert LearnedEvaluator().seen_by(2).results(game) == pytest.approx(learned, abs=1e-12)
    assert game.is_legal(agent.choose(game.copy()))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "mcts:iterations=4,eval=neural",
            "eval='neural' is not an evaluation; use eval=heuristic, eval=learned or "
            "eval=learned-own",
        ),
        ("mcts:iterations=4,processes=2,eval=learned", "eval=learned searches in one process"),
        ("mcts:eval", "'eval' is not an option"),
        ("greedy:eval=learned", "unknown agent"),
    ],
)
def test_bad_eval_specs_are_refused_saying_why(spec: str, message: str) -> None:
    with pytest.raises(InvalidAgentSpec, match=message):
        make_agent(spec)


def test_the_spec_model_option_searches_with_the_network_of_that_file(tmp_path: Path) -> None:
    path = tmp_path / "copy.npz"
    source = Path(__file__).parents[1] / "src" / "taluva" / "ai" / "learned_value.npz"
    path.write_bytes(source.read_bytes())
    agent = make_agent(f"mcts:iterations=4,eval=learned,model={path}", seed=1)
    assert isinstance(agent, MctsAgent) and isinstance(agent.evaluator, LearnedEvaluator)
    assert agent.evaluator.network is not None
    assert agent.evaluator.network.first == load_network(path).first


def test_the_spec_model_option_needs_the_learned_evaluation_and_a_model_file(
    tmp_path: Path,
) -> None:
    with pytest.raises(InvalidAgentSpec, match="model= is the learned evaluation's"):
        make_agent(f"mcts:iterations=4,model={tmp_path / 'm.npz'}")
    with pytest.raises(InvalidAgentSpec, match=r"missing\.npz: cannot read the model"):
        make_agent(f"mcts:iterations=4,eval=learned,model={tmp_path / 'missing.npz'}")


def test_every_shipped_network_is_package_data() -> None:
    # a model file left out of the package data would be missing from an installed copy,
    # which would then value those games with the general network instead
    root = Path(__file__).parents[1]
    with (root / "pyproject.toml").open("rb") as handle:
        declared = tomllib.load(handle)["tool"]["setuptools"]["package-data"]["taluva.ai"]
    shipped = sorted(path.name for path in (root / "src" / "taluva" / "ai").glob("*.npz"))
    assert sorted(declared) == shipped
    assert {MODEL_FILE, model_file(2), model_file(4)} <= set(shipped)
