"""Self-play data for the learned evaluation: the tasks, the positions, the pairs trained on."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from taluva import Game
from taluva.ai.evaluation import DEFAULT_EVALUATOR, situation
from taluva.ai.learned import INPUT_NAMES
from taluva.research.selfplay import (
    MATCHUPS,
    done_games,
    export_positions,
    final_ranks,
    selfplay_tasks,
)
from taluva.research.value_fit import heuristic_chances, pairs, read_positions


def finished_record(seed: int, players: int) -> dict[str, object]:
    rng = random.Random(seed)
    game = Game.new(players=players, seed=seed, tiles_per_player=12)
    while game.result is None:
        game.play(game.random_move(rng))
    return game.to_record()


def records_file(tmp_path: Path, games: list[tuple[int, int]]) -> Path:
    path = tmp_path / "games.jsonl"
    lines = [
        {"game": i, "deck": f"0:{i}", "rotation": 0, "record": finished_record(seed, players)}
        for i, (seed, players) in enumerate(games)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_matchups_take_turns_so_a_stopped_run_has_some_of_each() -> None:
    tasks = selfplay_tasks(len(MATCHUPS) * 4, seed=1)
    first = tasks[: len(MATCHUPS)]
    assert [task["deck"] for task in first] == [f"{m}:0" for m in range(len(MATCHUPS))]
    assert [task["agents"] for task in first] == [list(agents) for agents in MATCHUPS]
    assert [task["index"] for task in tasks] == list(range(len(tasks)))


def test_a_smaller_run_plays_the_first_decks_of_a_bigger_one() -> None:
    small = {(t["deck"], t["rotation"], t["seed"]) for t in selfplay_tasks(16, seed=1)}
    big = {(t["deck"], t["rotation"], t["seed"]) for t in selfplay_tasks(64, seed=1)}
    assert small < big


def test_resuming_knows_the_games_written_by_deck_and_rotation(tmp_path: Path) -> None:
    path = records_file(tmp_path, [(1, 2), (2, 3)])
    assert done_games(path) == {("0:0", 0), ("0:1", 0)}
    assert done_games(tmp_path / "none.jsonl") == set()


def test_positions_hold_every_players_inputs_and_final_rank(tmp_path: Path) -> None:
    path = records_file(tmp_path, [(1, 2), (2, 3)])
    count = export_positions([path], tmp_path / "positions.npz")
    arrays = read_positions(tmp_path / "positions.npz")
    assert arrays["inputs"].shape[1] == len(INPUT_NAMES)
    assert int(arrays["position"].max()) + 1 == count
    for game_number, (seed, players) in enumerate([(1, 2), (2, 3)]):
        record = finished_record(seed, players)
        final = Game.from_record(record)
        assert final.result is not None
        ranks = arrays["rank"][arrays["game"] == game_number]
        rows = len(ranks)
        # one row a player before every move but the first, while the game runs
        assert rows == players * (len(final.moves) - 1)
        assert ranks[:players].tolist() == final_ranks(final.result, players)


def test_final_ranks_share_a_place_by_its_mean() -> None:
    shared = Game.from_record(finished_record(4, 2)).result
    won = Game.from_record(finished_record(1, 2)).result
    assert shared is not None and won is not None
    assert final_ranks(shared, 2) == [0.5, 0.5]
    assert final_ranks(won, 2) == [1.0, 0.0]


def test_the_baseline_of_the_pairs_is_the_heuristics_own_duel(tmp_path: Path) -> None:
    path = records_file(tmp_path, [(5, 2)])
    export_positions([path], tmp_path / "positions.npz")
    x, y, _ = pairs(read_positions(tmp_path / "positions.npz"))
    record = finished_record(5, 2)
    replay = Game.from_record({**record, "moves": [], "result": None})
    replay.play(Game.from_record(record).moves[0])
    assert situation(replay).eliminated == ()
    # the first pair: the first player over the second, after the first move
    assert x[0, INPUT_NAMES.index("moving")] == 1.0
    assert heuristic_chances(x[:1])[0] == pytest.approx(DEFAULT_EVALUATOR.results(replay)[0])
    assert sorted(set(y.tolist())) == [0.0, 1.0]
