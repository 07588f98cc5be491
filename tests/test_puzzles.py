"""The shipped puzzles (``taluva.learn.puzzles``, ``src/taluva/learn/puzzles.json``): every one
replays and its answer does what its theme says; a sample is checked again exactly for a
unique answer; the first self-play games screened again give the same puzzles; attempts are
judged in the engine's words; the next puzzle is drawn near the player's rating."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from taluva.cli import main
from taluva.learn.puzzle_check import Work, survey_blocks, survey_wins
from taluva.learn.puzzle_maker import MAX_WIN_SHARE
from taluva.learn.puzzles import (
    BLOCK,
    DIFFICULTIES,
    THEMES,
    Puzzle,
    PuzzleError,
    PuzzleSet,
    check_attempt,
    load_puzzles,
    next_puzzle,
    read_puzzles,
)

SHIPPED = load_puzzles()
WINS = [p for p in SHIPPED.puzzles if BLOCK not in p.themes]
BLOCKS = [p for p in SHIPPED.puzzles if BLOCK in p.themes]
MINIMUM = 300
"""The issue's floor for the number of shipped puzzles."""


def other_build(puzzle: Puzzle) -> str:
    """A legal build after the answer's tile other than the answer's."""
    game = puzzle.game()
    game.play(puzzle.answer[0])
    return next(str(m) for m in game.legal_moves() if str(m) != puzzle.answer[1])


def test_enough_puzzles_ship_of_every_theme_and_difficulty_with_the_command_that_made_them() -> (
    None
):
    assert len(SHIPPED.puzzles) >= MINIMUM
    assert len({p.id for p in SHIPPED.puzzles}) == len(SHIPPED.puzzles)
    assert all(SHIPPED.theme_counts().values()), SHIPPED.theme_counts()
    assert {p.difficulty for p in SHIPPED.puzzles} == set(DIFFICULTIES)
    assert SHIPPED.made_by.startswith("taluva puzzles make --games ")
    assert SHIPPED.figures["kept"] == len(SHIPPED.puzzles)
    assert SHIPPED.figures["kept_blocks"] == len(BLOCKS)


def test_every_winning_puzzle_replays_and_its_answer_wins_at_once() -> None:
    for puzzle in WINS:
        verdict = check_attempt(puzzle, *puzzle.answer)
        assert verdict.right, puzzle.id
        assert puzzle.figures["winning_turns"] <= MAX_WIN_SHARE * puzzle.figures["turns"]


def test_a_sample_of_winning_puzzles_has_one_winning_build_on_a_fresh_check() -> None:
    for puzzle in random.Random(7).sample(WINS, 30):
        survey = survey_wins(puzzle.game())
        assert survey.winning_builds == (puzzle.answer[1],), puzzle.id
        assert survey.turns == puzzle.figures["turns"]
        assert len(survey.wins) == puzzle.figures["winning_turns"]


def test_block_answers_leave_the_opponent_no_win_and_one_block_is_unique_again() -> None:
    sample = random.Random(7).sample(BLOCKS, min(len(BLOCKS), 4))
    for puzzle in sample:
        assert check_attempt(puzzle, *puzzle.answer).right, puzzle.id
    survey = survey_blocks(sample[0].game(), Work(10**6))
    assert list(survey.blocks) == [sample[0].answer[1]]
    assert survey.refuted == sample[0].figures["refuted"]


def test_the_command_screening_the_first_games_again_writes_the_shipped_puzzles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = int(SHIPPED.made_by.split("--seed ")[1].split()[0])
    out = tmp_path / "again.json"
    assert main(["puzzles", "make", "--games", "6", "--seed", str(seed), "--out", str(out)]) == 0
    again = read_puzzles(out)
    shipped = [
        p
        for p in WINS
        if p.id.startswith(f"s{seed}g") and int(p.id.split("g")[1].split("p")[0]) < 6
    ]
    assert list(again.puzzles) == shipped and again.figures["games"] == 6
    assert "games 6, turn starts" in capsys.readouterr().err


def test_the_check_command_counts_right_answers_and_what_a_level_solves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    PuzzleSet(tuple(WINS[:3]), "test").save(good)
    assert main(["puzzles", "check", "--file", str(good), "--level", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 puzzles replayed, 3 answers right" in out and "level 2 solves 3/3" in out
    broken = tmp_path / "broken.json"
    wrong = dataclasses.replace(WINS[0], answer=(WINS[0].answer[0], other_build(WINS[0])))
    PuzzleSet((wrong,), "test").save(broken)
    assert main(["puzzles", "check", "--file", str(broken)]) == 1
    assert "1 puzzles replayed, 0 answers right" in capsys.readouterr().out


def test_a_wrong_turn_is_answered_with_what_it_misses_and_the_answer() -> None:
    puzzle = WINS[0]
    wrong = check_attempt(puzzle, puzzle.answer[0], other_build(puzzle))
    assert not wrong.right and "does not win: you would still hold" in wrong.message
    assert f"{puzzle.answer[0]}, then {puzzle.answer[1]}" in wrong.message
    illegal = check_attempt(puzzle, "tile 40,40 0", puzzle.answer[1])
    assert (
        not illegal.right and "not allowed: the tile does not touch the island" in illegal.message
    )
    with pytest.raises(PuzzleError, match="not a move"):
        check_attempt(puzzle, "tile here", puzzle.answer[1])


def test_a_wrong_block_names_the_tile_and_turn_with_which_the_opponent_wins() -> None:
    puzzle = BLOCKS[0]
    wrong = check_attempt(puzzle, puzzle.answer[0], other_build(puzzle))
    assert not wrong.right and "your opponent wins at once if they draw" in wrong.message


def test_the_next_puzzle_is_near_the_rating_and_new_to_the_player() -> None:
    puzzles = SHIPPED.with_theme("tower")
    assert all("tower" in p.themes for p in puzzles)
    hard = max(DIFFICULTIES)
    for _ in range(5):
        chosen = next_puzzle(puzzles, 1800, rng=random.Random(_))
        assert chosen.difficulty == hard or not any(p.difficulty == hard for p in puzzles)
    seen = {p.id for p in puzzles[:-1]}
    assert next_puzzle(puzzles, 1500, skip=seen).id == puzzles[-1].id
    with pytest.raises(PuzzleError, match="no theme"):
        SHIPPED.with_theme("knitting")
    assert set(THEMES) >= {t for p in SHIPPED.puzzles for t in p.themes}
