"""Teaching the learned evaluation to rank a turn's plans: the turns replayed from searched
games, the loss's gradient, and a short fine-tuning run end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from taluva import Game
from taluva.ai.evaluation import DEFAULT_EVALUATOR, situation
from taluva.ai.learned import INPUT_NAMES, load_network, position_inputs
from taluva.engine.moves import Move
from taluva.research.distill import distill_tasks, export_positions, play_searched
from taluva.research.rank_fit import (
    Network,
    Turns,
    main,
    make_batch,
    turn_groups,
    write_siblings,
)

MODEL = Path(__file__).parents[1] / "src" / "taluva" / "ai" / "learned_value_2p.npz"


def write_searched(folder: Path, players: int, games: int, seed: int) -> Path:
    """Tiny searched games (two iterations a turn), as ``distill games`` writes them."""
    path = folder / "searched.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for task in distill_tasks(players, games, seed=seed, iterations=2):
            out.write(json.dumps(play_searched(task)) + "\n")
    return path


@pytest.fixture(scope="module")
def searched(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seven tiny searched two-player games."""
    return write_searched(tmp_path_factory.mktemp("rank"), 2, 7, seed=5)


def test_each_turn_starts_with_the_position_the_searchs_plan_led_to(searched: Path) -> None:
    entry = json.loads(searched.read_text().splitlines()[0])
    groups = turn_groups(entry, 0)
    assert len(groups) > 10
    game = Game.new(players=["search 1", "search 2"], seed=entry["seed"])
    moves = [Move.parse(text) for text in entry["moves"]]
    # the first turn: the search's tile and build, then the inputs the model sees there
    mover, rows = groups[0]
    assert mover == game.to_move == 0
    game.play(moves[0])
    game.play(moves[1])
    features = [DEFAULT_EVALUATOR.features(game, p) for p in range(2)]
    assert rows[0] == position_inputs(features, situation(game), False)
    assert 2 <= len(rows) <= 33
    assert all(len(r) == 2 and len(r[0]) == len(INPUT_NAMES) for r in rows)
    # the first turn's plans all look alike; later ones differ from the search's
    assert any(other != rest[0] for _, rest in groups for other in rest[1:])


@pytest.fixture(scope="module")
def searched_four(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three tiny searched four-player games."""
    return write_searched(tmp_path_factory.mktemp("rank4"), 4, 3, seed=6)


@pytest.mark.parametrize(
    ("players", "fixture", "games"), [(2, "searched", 7), (4, "searched_four", 3)]
)
def test_the_choice_gradient_is_the_losss_slope(
    players: int, fixture: str, games: int, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    out = tmp_path / "siblings.npz"
    assert write_siblings([request.getfixturevalue(fixture)], out)[0] == games
    turns = Turns.read(out)
    assert turns.players == players
    batch = make_batch(turns, np.arange(8))
    network = Network(MODEL)
    x, y = batch.ahead[:40], (np.arange(40) % 2).astype(np.float64)

    def loss() -> float:
        return network.choice(batch) + 0.7 * network.result(x, y)

    grads = network.zero()
    network.choice(batch, grads)
    network.result(x, y, grads, 0.7)
    for key in ("w0", "b0", "w1", "b1", "sharpness"):
        flat = network.params[key].reshape(-1)
        for i in (0, len(flat) - 1):
            kept = flat[i]
            flat[i] = kept + 1e-6
            up = loss()
            flat[i] = kept - 1e-6
            down = loss()
            flat[i] = kept
            assert (up - down) / 2e-6 == pytest.approx(grads[key].reshape(-1)[i], abs=1e-6)


def test_training_writes_a_model_the_search_reads_and_reports_the_heuristic(
    searched: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    siblings, positions, out = tmp_path / "s.npz", tmp_path / "p.npz", tmp_path / "m.npz"
    assert main(["siblings", str(searched), "--out", str(siblings)]) == 0
    export_positions([searched], positions)
    args = ["train", str(siblings), "--positions", str(positions), "--start", str(MODEL)]
    assert main([*args, "--out", str(out), "--epochs", "2"]) == 0
    report = capsys.readouterr().out
    assert "heuristic" in report and "epoch" in report

    assert load_network(out).width == len(INPUT_NAMES)


def test_bad_files_and_options_are_refused_with_what_was_wrong(
    searched: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["siblings", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "s")]) == 1
    assert "none.jsonl" in capsys.readouterr().err
    few = tmp_path / "few.jsonl"
    few.write_text(searched.read_text().splitlines()[0] + "\n")
    assert main(["siblings", str(few), "--out", str(tmp_path / "few.npz")]) == 0
    positions = tmp_path / "p.npz"
    export_positions([few], positions)
    short = ["train", str(tmp_path / "few.npz"), "--positions", str(positions)]
    assert main([*short, "--start", str(MODEL), "--out", str(tmp_path / "m.npz")]) == 1
    assert "1 games; training needs at least 7" in capsys.readouterr().err
    args = ["train", str(searched), "--positions", str(searched), "--start", str(MODEL)]
    assert main([*args, "--out", str(tmp_path / "m.npz")]) == 1
    assert "error:" in capsys.readouterr().err
    assert main([*args, "--out", str(tmp_path / "m.npz"), "--epochs", "0"]) == 1
    assert "--epochs 0" in capsys.readouterr().err
