"""The learned-against-heuristic match (``taluva.research.learned_match``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from taluva.research.learned_match import main, match_agents, run_match


def test_the_learned_search_takes_the_first_seat_and_the_heuristic_the_others() -> None:
    assert match_agents(4, 0.3) == [
        "mcts:time=0.3,eval=learned",
        "mcts:time=0.3",
        "mcts:time=0.3",
        "mcts:time=0.3",
    ]
    assert match_agents(2, 0.5, iterations=40, own=True) == [
        "mcts:time=0.5,iterations=40,eval=learned-own",
        "mcts:time=0.5,iterations=40",
    ]


def test_a_bad_player_count_or_a_missing_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="players is 6: a game of Taluva has 2 to 5 players"):
        match_agents(6, 0.3)
    with pytest.raises(ValueError, match=r"--model .*none\.npz: no such file"):
        match_agents(2, 0.3, model=tmp_path / "none.npz")


def test_each_game_is_written_as_it_ends_and_resume_plays_only_the_rest(tmp_path: Path) -> None:
    records = tmp_path / "match.jsonl"
    agents = match_agents(2, 5.0, iterations=2, own=True)
    first = run_match(agents, 2, 7, records, workers=1, resume=False)  # one deck, both orders
    assert first.games == 2
    lines = records.read_text().splitlines()
    assert sorted(json.loads(line)["game"] for line in lines) == [0, 1]
    assert {agent for line in lines for agent in json.loads(line)["agents"]} == set(agents)
    with pytest.raises(FileExistsError, match="pass --resume"):
        run_match(agents, 2, 7, records, workers=1, resume=False)
    kept = next(line for line in lines if json.loads(line)["game"] == 1)
    records.write_text(kept + "\n")
    again = run_match(agents, 2, 7, records, workers=1, resume=True)
    assert again.games == 2
    replayed = records.read_text().splitlines()
    assert replayed[0] == kept and json.loads(replayed[1])["game"] == 0
    assert sum(s.seats for s in again.standings if s.agent == agents[0]) == 2


def test_the_command_reports_win_rates_or_says_what_was_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "match.jsonl"
    argv = ["--players", "2", "--time", "5", "--iterations", "2", "--games", "2"]
    assert main([*argv, "--records", str(records)]) == 0
    out = capsys.readouterr().out
    assert "2 games; ended by" in out and "mcts:time=5,iterations=2,eval=learned " in out
    assert main([*argv, "--records", str(records)]) == 1
    assert "exists: pass --resume" in capsys.readouterr().err
