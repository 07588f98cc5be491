"""``taluva puzzle``: the full-screen puzzles driven by Textual's pilot as a person would (a
right turn wins and counts in the streak, a wrong one is taken back and answered with the
winning turn, n brings the next puzzle), the line mode through standard input, and the
command line's theme list and refusals."""

from __future__ import annotations

import io

import pytest
from test_puzzles import a_save
from test_terminal import run_async, settle, type_text

from taluva.cli import main
from taluva.engine.moves import TILE
from taluva.learn.puzzles import BLOCK, SAVE, SPOIL, THEMES, Puzzle, load_puzzles
from taluva.terminal.puzzle_app import PuzzleApp
from taluva.terminal.puzzle_plain import puzzle_order, run_plain_puzzles

SEED = 5
WINNING = [p for p in load_puzzles().puzzles if not {BLOCK, SAVE, SPOIL} & set(p.themes)]
"""The puzzles won at once, which these tests solve (the others are judged alike)."""


def first_puzzles() -> list[Puzzle]:
    return puzzle_order(WINNING, SEED)


def wrong_build(puzzle: Puzzle) -> str:
    """A legal build after the answer's tile that does not win."""
    game = puzzle.game()
    game.play(puzzle.answer[0])
    return next(str(m) for m in game.legal_moves() if str(m) != puzzle.answer[1])


async def type_move(pilot: object, text: str) -> None:
    await pilot.press("colon")  # type: ignore[attr-defined]
    await type_text(pilot, text)  # type: ignore[arg-type]
    await pilot.press("enter")  # type: ignore[attr-defined]


@run_async
async def test_a_right_turn_wins_and_counts_then_n_brings_the_next_puzzle() -> None:
    puzzle, following = first_puzzles()[:2]
    app = PuzzleApp(WINNING, seed=SEED)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.session.puzzle == puzzle and app.game.ply == len(puzzle.record["moves"])
        await type_move(pilot, puzzle.answer[0])
        await type_move(pilot, puzzle.answer[1])
        await settle(app, pilot)
        assert app.game.result is not None and app.game.result.winners == (puzzle.mover,)
        assert app.session.streak == 1 and app.session.verdict is not None
        assert app.session.verdict.right
        await pilot.press("n")
        await settle(app, pilot)
        assert app.session.puzzle == following and app.session.verdict is None
        assert [str(m) for m in app.game.moves] == following.record["moves"]


@run_async
async def test_a_wrong_build_is_taken_back_and_answered_with_the_winning_turn() -> None:
    puzzle = first_puzzles()[0]
    app = PuzzleApp(WINNING, seed=SEED)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        start = app.game.ply
        await type_move(pilot, puzzle.answer[0])
        await type_move(pilot, wrong_build(puzzle))
        await settle(app, pilot)
        verdict = app.session.verdict
        assert verdict is not None and not verdict.right and app.session.streak == 0
        assert app.game.ply == start and app.game.phase == "tile"
        assert puzzle.answer[1] in verdict.message
        assert app.ghost_move() is not None and app.ghost_move().kind == TILE


def test_plain_puzzles_judge_typed_turns_and_keep_the_streak() -> None:
    one, two, _ = first_puzzles()[:3]
    lines = [
        "temple 0,0",  # a build before the tile
        one.answer[0],
        one.answer[1],
        two.answer[0],
        wrong_build(two),
        "skip",
        "q",
    ]
    out = io.StringIO()
    code = run_plain_puzzles(WINNING, io.StringIO("\n".join(lines) + "\n"), out, seed=SEED)
    text = out.getvalue()
    assert code == 0
    assert "Not allowed: " in text
    assert "Right: that turn wins the game at once.\nStreak: 1. Solved: 1 of 1." in text
    assert f"The winning turn: {two.answer[0]}, then {two.answer[1]}" in text
    assert "Streak: 0. Solved: 1 of 2." in text


def plain(puzzle: Puzzle, lines: list[str]) -> str:
    """What line mode writes for one puzzle and these input lines."""
    out = io.StringIO()
    run_plain_puzzles([puzzle], io.StringIO("\n".join(lines) + "\n"), out, seed=None)
    return out.getvalue()


def test_plain_puzzles_judge_a_save_and_a_spoil_in_their_own_words() -> None:
    save, spoil = a_save(), load_puzzles().with_theme(SPOIL)[0]
    text = plain(save, [*save.answer, "q"])
    assert "find the turn after which no eruption can" in text
    assert "Right: no eruption can destroy any of your huts now." in text
    game = spoil.game()
    tile = next(str(m) for m in game.legal_moves() if game.level(m[1]) == 0)  # erupts on none
    game.play(tile)
    text = plain(spoil, [tile, str(game.legal_moves()[0]), "q"])
    assert "find the eruption that destroys the huts they need" in text
    assert f"{spoil.answer[0]}, erupting on their huts" in text


def test_puzzle_lists_its_themes_and_refuses_an_unknown_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["puzzle", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(theme in listed for theme in THEMES)
    assert main(["puzzle", "--theme", "knitting"]) == 2
    assert "no theme 'knitting'" in capsys.readouterr().err
