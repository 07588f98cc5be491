"""The arena: seat rotations, deterministic results for a seed, records, reports, the CLI."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from taluva import Game
from taluva.ai import arena
from taluva.cli import main
from taluva.research import ray_backend


def test_each_deck_is_played_in_every_seat_rotation() -> None:
    tasks = arena.make_tasks(["mcts", "greedy", "random"], games=4, seed=7)
    assert len(tasks) == 6
    assert [t["agents"] for t in tasks[:3]] == [
        ["mcts", "greedy", "random"],
        ["greedy", "random", "mcts"],
        ["random", "mcts", "greedy"],
    ]
    assert {t["seed"] for t in tasks[:3]} == {"7:0"}
    assert {t["seed"] for t in tasks[3:]} == {"7:1"}


def test_a_task_plays_one_whole_game_from_its_deck() -> None:
    task = arena.make_tasks(["random", "greedy"], games=2, seed=3)[1]
    result = arena.play_task(task)
    game = Game.from_record(result["record"])
    assert game.result is not None
    assert result["ranking"] == [list(group) for group in game.result.ranking]
    assert game.deck == Game.new(players=2, seed="3:0").deck
    assert result["agents"] == ["greedy", "random"]
    assert sum(result["moves"]) == game.ply


def test_arena_output_is_deterministic_for_a_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(name: str) -> tuple[str, list[str]]:
        path = tmp_path / name
        # agents bound by no clock: a time limit (level 1 has one) can cut a move short on a
        # loaded machine, and then the games differ for a reason that is not the seed
        argv = ["arena", "random", "greedy", "--games", "2", "--seed", "5", "--workers", "1"]
        assert main([*argv, "--records", str(path), "--no-progress"]) == 0
        rows = capsys.readouterr().out.splitlines()
        return path.read_text(), [row[:60] for row in rows[:4]]  # not the timings

    first, second = run("a.jsonl"), run("b.jsonl")
    assert first == second
    assert len(first[0].splitlines()) == 2


def test_worker_processes_give_the_same_games_as_one_process() -> None:
    tasks = arena.make_tasks(["random", "greedy"], games=2, seed=9)
    alone = [r["record"] for r in arena.run_tasks(tasks, arena.local_map(1))]
    pooled = [r["record"] for r in arena.run_tasks(tasks, arena.local_map(2))]
    assert alone == pooled


def test_wilson_interval_matches_known_values() -> None:
    low, high = arena.wilson(190, 200)
    assert (round(low, 4), round(high, 4)) == (0.9104, 0.9726)
    assert arena.wilson(0, 0) == (0.0, 1.0)


def test_report_counts_a_shared_first_place_as_a_share() -> None:
    def result(index: int, agents: list[str], ranking: list[list[int]]) -> arena.TaskResult:
        return {
            "index": index, "deck": 0, "rotation": 0, "agents": agents, "ranking": ranking,
            "reason": "tiles", "error": None, "record": {}, "seconds": [1.0, 3.0],
            "longest": [0.5, 2.0], "moves": [10, 10],
        }  # fmt: skip

    summary = arena.report([result(0, ["a", "b"], [[0, 1]]), result(1, ["b", "a"], [[1], [0]])])
    by_agent = {s.agent: s for s in summary.standings}
    assert by_agent["a"].wins == 1.5 and by_agent["b"].wins == 0.5
    assert by_agent["a"].seats == 2
    assert summary.standings[0].agent == "a"
    assert by_agent["b"].longest == 2.0
    assert summary.reasons == {"tiles": 2}


def test_arena_command_prints_win_rates_and_writes_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "games.jsonl"
    code = main(
        ["arena", "greedy", "random", "--games", "2", "--seed", "4", "--workers", "1",
         "--records", str(records), "--no-progress"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "2 games" in out and "greedy" in out and "95% interval" in out
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    assert [line["agents"] for line in lines] == [["greedy", "random"], ["random", "greedy"]]
    for line in lines:
        assert Game.from_record(line["record"]).result is not None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["arena", "greedy"], "1 agents given: a game needs 2 to 5"),
        (["arena", "greedy", "nobody"], "unknown agent 'nobody'"),
        (["arena", "greedy", "random", "--expansions", "dragons"], "dragons"),
        (["arena", "greedy", "random", "--engine-timeout", "0"], "positive number of seconds"),
        (["arena", "greedy", "random", "--engine-timeout", "soon"], "'soon' is not a number"),
    ],
)
def test_arena_command_refuses_bad_requests_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_ray_flag_without_ray_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what "import ray" meets without Ray
    assert main(["arena", "random", "random", "--ray", "10.0.0.5:6379"]) == 2
    assert capsys.readouterr().err == (
        "taluva: error: Ray is not installed: pip install 'taluva[research]' (or pip install ray)\n"
    )


def test_ray_flag_runs_the_tasks_through_the_ray_backend(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = []

    def fake_ray_map(
        fn: Callable[[arena.Task], arena.TaskResult], tasks: Sequence[arena.Task], address: str
    ) -> list[arena.TaskResult]:
        calls.append((address, len(tasks)))
        return [fn(task) for task in tasks]

    monkeypatch.setattr(ray_backend, "ray_map", fake_ray_map)
    assert main(["arena", "random", "random", "--games", "2", "--ray", "10.0.0.5:6379"]) == 0
    assert calls == [("10.0.0.5:6379", 2)]
    assert "2 games" in capsys.readouterr().out
