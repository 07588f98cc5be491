"""Puzzles in the browser, as a guest: the header's "Puzzles" link opens a puzzle on the
board; a tile placed and a wrong build are answered with the winning turn in words and on the
board, the streak at 0; the next puzzle solved right counts in the streak, which this browser
keeps; signed in, the player's puzzle rating rises after a right answer and falls after a
wrong one."""

from __future__ import annotations

import secrets
from typing import Any

from taluva.learn.puzzles import load_puzzles


def play(page: Any, move: str) -> None:
    page.fill("#move-input", move)
    page.press("#move-input", "Enter")


def shown_puzzle(page: Any, phase: str) -> Any:
    page.wait_for_selector(f".puzzle-card[data-phase='{phase}']")
    return load_puzzles().by_id(page.get_attribute(".puzzle-card", "data-puzzle"))


def wrong_build(puzzle: Any) -> str:
    """A legal build after the answer's tile other than the answer's."""
    game = puzzle.game()
    game.play(puzzle.answer[0])
    return next(str(m) for m in game.legal_moves() if str(m) != puzzle.answer[1])


def test_a_guest_misses_one_puzzle_then_solves_the_next_and_keeps_the_streak(
    page: Any, server_url: str, screenshot: Any
) -> None:
    # the theme a winning turn answers (a guest's puzzle is drawn at random among the chosen
    # theme's, and a block or spoil puzzle words its task otherwise)
    page.add_init_script("localStorage.setItem('taluva.puzzles.theme', 'huts')")
    page.goto(server_url + "/")
    page.click("#puzzles-nav")
    puzzle = shown_puzzle(page, "tile")
    assert puzzle.themes[0] == "huts"
    assert "Find the turn that wins the game at once" in page.inner_text(".puzzle-card")
    assert page.locator("svg.board").count() == 1
    play(page, puzzle.answer[0])
    page.wait_for_selector("#take-back")
    play(page, wrong_build(puzzle))
    page.wait_for_selector("#puzzle-verdict")
    assert page.inner_text("#puzzle-verdict") == "Not this time"
    assert f"{puzzle.answer[0]}, then {puzzle.answer[1]}" in page.inner_text("#puzzle-message")
    assert page.inner_text("#puzzle-streak") == "Streak 0"
    screenshot(page, "puzzles-01-wrong")
    page.click("#next-puzzle")
    page.wait_for_function(  # another puzzle comes
        "id => document.querySelector('.puzzle-card')?.dataset.puzzle !== id", arg=puzzle.id
    )
    following = shown_puzzle(page, "tile")
    play(page, following.answer[0])
    page.wait_for_selector("#take-back")
    play(page, following.answer[1])
    page.wait_for_selector("#puzzle-verdict")
    assert page.inner_text("#puzzle-verdict") == "Right!"
    assert page.inner_text("#puzzle-streak") == "Streak 1"
    page.reload()
    shown_puzzle(page, "tile")
    assert page.inner_text("#puzzle-streak") == "Streak 1"


def test_a_signed_in_players_puzzle_rating_rises_after_a_right_answer_and_falls_after_a_wrong_one(
    page: Any, server_url: str
) -> None:
    # winning puzzles, whose answer's tile always leaves other builds to get wrong
    page.add_init_script("localStorage.setItem('taluva.puzzles.theme', 'huts')")
    name = f"Solver {secrets.token_hex(2)}"
    answer = page.request.post(
        server_url + "/api/accounts", data={"name": name, "password": "lava-pass-12"}
    )
    assert answer.status == 201, answer.text()
    page.goto(server_url + "/#/puzzles")
    puzzle = shown_puzzle(page, "tile")
    assert page.inner_text("#puzzle-rating") == "Puzzle rating 1500"
    play(page, puzzle.answer[0])
    page.wait_for_selector("#take-back")
    play(page, puzzle.answer[1])
    page.wait_for_selector("#puzzle-verdict")
    verdict = page.inner_text("#puzzle-verdict")
    gain = int(verdict.removeprefix("Right! (+").removesuffix(")"))
    assert gain > 0
    assert page.inner_text("#puzzle-rating") == f"Puzzle rating {1500 + gain}"
    assert page.inner_text("#puzzle-streak") == "Streak 1"
    page.click("#next-puzzle")
    page.wait_for_function(  # another puzzle comes, and this one is missed
        "id => document.querySelector('.puzzle-card')?.dataset.puzzle !== id", arg=puzzle.id
    )
    missed = shown_puzzle(page, "tile")
    play(page, missed.answer[0])
    page.wait_for_selector("#take-back")
    play(page, wrong_build(missed))
    page.wait_for_selector("#puzzle-verdict")
    verdict = page.inner_text("#puzzle-verdict")
    loss = int(verdict.removeprefix("Not this time (").removesuffix(")"))
    assert loss < 0
    assert page.inner_text("#puzzle-rating") == f"Puzzle rating {1500 + gain + loss}"
    assert page.inner_text("#puzzle-streak") == "Streak 0"
