"""Training the learned evaluation: soft targets from searched games, a model that loads,
and clear refusals of bad options."""

from __future__ import annotations

from pathlib import Path

import pytest

from taluva.ai.learned import INPUT_NAMES, LearnedEvaluator, load_network
from taluva.research.distill import export_positions, play_games
from taluva.research.value_fit import main, train


@pytest.fixture(scope="module")
def searched_positions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("searched")
    games = folder / "searched.jsonl"
    play_games(2, 12, seed=4, iterations=3, out=games, workers=1)
    export_positions([games], folder / "positions.npz")
    return folder / "positions.npz"


def test_a_network_trained_on_blended_targets_loads_and_is_reported_both_ways(
    searched_positions: Path, tmp_path: Path
) -> None:
    out = tmp_path / "model.npz"
    lines = train(searched_positions, out, (8,), seed=0, epochs=3, alpha=0.01, blend=0.5)
    assert lines[0].startswith("12 games, ")
    assert lines[0].endswith("target: 0.5 search + 0.5 result")
    assert any(line.startswith("against the result:") for line in lines)
    assert any(line.startswith("against the search:") for line in lines)
    network = load_network(out)
    # 8 hidden units, each reading a player's inputs as the pair's first and as its second
    assert [len(half) for half in network.first] == [8, 8]
    assert all(len(column) == len(INPUT_NAMES) for column in network.first[0])
    assert isinstance(LearnedEvaluator(network), LearnedEvaluator)


def test_training_the_same_data_with_the_same_seed_writes_the_same_weights(
    searched_positions: Path, tmp_path: Path
) -> None:
    for name in ("a.npz", "b.npz"):
        train(searched_positions, tmp_path / name, (8,), 0, 2, 0.01, blend=1.0, players=2)
    a, b = load_network(tmp_path / "a.npz"), load_network(tmp_path / "b.npz")
    assert a.first == b.first and a.last_bias == b.last_bias


def test_a_player_count_with_no_games_is_refused(searched_positions: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no position of a 4-player game"):
        train(searched_positions, tmp_path / "m.npz", (8,), 0, 2, 0.01, players=4)


def test_a_blend_outside_zero_to_one_is_refused_on_the_command_line(
    searched_positions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([str(searched_positions), "--out", str(tmp_path / "m.npz"), "--blend", "1.5"])
    assert code == 1
    assert "--blend 1.5: give a share from 0 to 1" in capsys.readouterr().err
    assert not (tmp_path / "m.npz").exists()
