"""Searched self-play: every turn's inputs with the search's values, and the soft targets
the learned evaluation is trained on from them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from processes import group_members

from taluva.ai.learned import INPUT_NAMES
from taluva.research.distill import (
    DISTILL_FORMAT,
    distill_tasks,
    done_games,
    export_positions,
    play_games,
    play_searched,
)
from taluva.research.value_fit import pairs, read_positions, search_chance


def test_tasks_give_every_seat_its_own_seed_and_refuse_a_bad_budget() -> None:
    tasks = distill_tasks(4, 3, seed=7, iterations=20)
    assert [t["index"] for t in tasks] == [0, 1, 2]
    assert len(set(tasks[0]["agent_seeds"])) == 4
    assert tasks == distill_tasks(4, 3, seed=7, iterations=20)
    with pytest.raises(ValueError, match="players is 6"):
        distill_tasks(6, 3, seed=7, iterations=20)
    with pytest.raises(ValueError, match="iterations is 0"):
        distill_tasks(2, 3, seed=7, iterations=0)


def test_a_searched_game_keeps_each_turns_inputs_and_the_searchs_values() -> None:
    game = play_searched(distill_tasks(2, 1, seed=3, iterations=4)[0])
    assert game["format"] == DISTILL_FORMAT
    turns = len(game["values"])
    assert turns == len(game["inputs"]) == len(game["eliminated"]) > 10
    # a turn is a placement and a build: two moves each, the last turn perhaps shorter
    assert 2 * turns - 1 <= len(game["moves"]) <= 2 * turns
    for rows, values in zip(game["inputs"], game["values"], strict=True):
        assert [len(row) for row in rows] == [len(INPUT_NAMES)] * 2
        assert sum(values) == pytest.approx(1.0, abs=1e-5)  # two players: one's chance each
    assert sorted(game["ranks"]) == [0.0, 1.0]
    assert play_searched(distill_tasks(2, 1, seed=3, iterations=4)[0]) == game


def test_a_stopped_run_goes_on_with_the_games_it_lacks(tmp_path: Path) -> None:
    out = tmp_path / "searched.jsonl"
    assert play_games(2, 2, seed=1, iterations=3, out=out, workers=1) == 2
    assert done_games(out) == {0, 1}
    with pytest.raises(FileExistsError, match="--resume"):
        play_games(2, 3, seed=1, iterations=3, out=out, workers=1)
    assert play_games(2, 3, seed=1, iterations=3, out=out, workers=1, resume=True) == 1
    assert done_games(out) == {0, 1, 2}


def test_ctrl_c_keeps_the_games_finished_and_says_how_to_go_on(tmp_path: Path) -> None:
    out = tmp_path / "searched.jsonl"
    command = [sys.executable, "-m", "taluva.research.distill", "games", "--games", "500"]
    command += ["--iterations", "3", "--workers", "2", "--seed", "1", "--out", str(out)]
    run = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # Ctrl-C reaches the whole group: the run and its workers
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while len(done_games(out) if out.exists() else ()) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(run.pid, signal.SIGINT)
    _, errors = run.communicate(timeout=60)
    assert run.returncode == 130
    assert "interrupted: the games finished are in" in errors and "--resume" in errors
    assert "Traceback" not in errors  # neither the run's nor its workers'
    deadline = time.monotonic() + 15
    while group_members(run.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert group_members(run.pid) == []  # no worker left behind
    finished = done_games(out)  # every line whole
    assert finished == set(range(len(finished))) and 2 <= len(finished) < 500
    more = len(finished) + 1
    assert play_games(2, more, seed=1, iterations=3, out=out, workers=1, resume=True) == 1


def test_positions_carry_the_search_values_and_two_player_targets_are_them(
    tmp_path: Path,
) -> None:
    out = tmp_path / "searched.jsonl"
    play_games(2, 1, seed=2, iterations=3, out=out, workers=1)
    entry = json.loads(out.read_text(encoding="utf-8"))
    count = export_positions([out], tmp_path / "positions.npz")
    assert count == len(entry["values"])
    arrays = read_positions(tmp_path / "positions.npz")
    assert arrays["search"].tolist() == pytest.approx([v for vs in entry["values"] for v in vs])
    y = pairs(arrays, blend=1.0)[1]
    # every ordered pair of every position: the first player's value, then the second's
    assert len(y) == 2 * count
    assert y[0] == pytest.approx(np.clip(entry["values"][0][0], 0.01, 0.99))
    assert y[1] == pytest.approx(np.clip(entry["values"][0][1], 0.01, 0.99))
    results = pairs(arrays, blend=0.5)[1]
    winner = entry["ranks"][0] < entry["ranks"][1]
    assert results[0] == pytest.approx(0.5 * y[0] + 0.5 * winner)


def test_blending_needs_positions_with_search_values(tmp_path: Path) -> None:
    arrays = {"inputs": np.zeros((2, len(INPUT_NAMES)))}
    with pytest.raises(ValueError, match="--blend needs positions with the search's values"):
        pairs(arrays, blend=0.5)


def test_the_searchs_chance_of_finishing_ahead_from_expected_results() -> None:
    chances = search_chance(
        np.array([0.7, 0.6, 0.999]), np.array([0.3, 0.4, 0.001]), np.array([2, 4, 2])
    )
    assert chances.tolist() == pytest.approx([0.7, 0.5 + 0.2 * 3 / 4, 0.99])


def test_a_file_of_other_lines_is_refused_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text('{"format": "something/1"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"other\.jsonl:1: not a searched game"):
        export_positions([path], tmp_path / "out.npz")
