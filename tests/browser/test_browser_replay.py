"""The replay in Chromium: the whole move log stays while a position is shown (the moves after
it dimmed but still a click away), the arrow keys, Home and End step it, and the address
carries the move shown (``?ply=N``), so that a copied link opens the replay there.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .people import People, create_game, open_seated, play_over_http

PLAYED = 12
"""Moves played in the game the replay steps through (six turns of two players)."""


@pytest.fixture(scope="module")
def game(server_url: str) -> tuple[str, dict[int, str]]:
    """A live hot-seat game of PLAYED moves: its id and both seats' tokens."""
    seats = [
        {"kind": "human", "name": "Ana", "take": True},
        {"kind": "human", "name": "Ben", "take": True},
    ]
    game_id, tokens = create_game(server_url, seats, name="Replay steps")
    play_over_http(server_url, game_id, tokens, moves=PLAYED)
    return game_id, tokens


def wait_move(page: Any, ply: int) -> None:
    """Wait until the replay shows the position after ``ply`` moves."""
    page.wait_for_selector(f".replay-ply:text-matches('^Move {ply} of {PLAYED}(:|$)')")


def log_marks(page: Any) -> list[str]:
    """Each move-log entry as "current", "later" or "" (in the order of the moves)."""
    return page.eval_on_selector_all(
        ".log .log-move",
        "buttons => buttons.map(b => b.classList.contains('current') ? 'current'"
        " : b.classList.contains('later') ? 'later' : '')",
    )


def shown_ply(page: Any) -> str | None:
    """The ``ply`` of the page's address, or None."""
    return page.evaluate("() => new URL(location.href).searchParams.get('ply')")


def test_the_replay_keeps_the_whole_log_and_steps_by_log_keys_and_address(
    people: People, server_url: str, game: tuple[str, dict[int, str]]
) -> None:
    game_id, tokens = game
    page = people.open()
    open_seated(page, server_url, game_id, tokens)
    page.wait_for_selector("svg.board .hex")
    page.click("#replay-toggle")
    wait_move(page, PLAYED - 1)
    assert log_marks(page) == [""] * (PLAYED - 2) + ["current", "later"]

    page.keyboard.press("Home")
    wait_move(page, 0)
    assert log_marks(page) == ["later"] * PLAYED
    page.click(".log .log-move[data-ply='7']")  # a move after the one shown
    wait_move(page, 7)
    assert log_marks(page) == [""] * 6 + ["current"] + ["later"] * (PLAYED - 7)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_move(page, 9)
    page.keyboard.press("ArrowLeft")
    wait_move(page, 8)
    assert shown_ply(page) == "8"
    assert re.search(rf"#/game/{game_id}$", page.url)

    page.fill(".chat-input", "hello")  # keys typed in a text field are the field's
    page.keyboard.press("Home")
    page.keyboard.press("ArrowLeft")
    page.focus(".log .log-move[data-ply='3']")
    page.keyboard.press("End")
    wait_move(page, PLAYED)
    assert page.input_value(".chat-input") == "hello"
    assert shown_ply(page) == str(PLAYED)

    page.click("#replay-toggle")  # back to the game: the address names no move
    page.wait_for_selector(".replay", state="hidden")
    assert shown_ply(page) is None
    assert log_marks(page) == [""] * PLAYED


def test_a_link_with_a_move_opens_the_replay_there_and_a_bad_one_the_game(
    people: People, server_url: str, game: tuple[str, dict[int, str]]
) -> None:
    game_id, _ = game
    page = people.open()
    page.goto(f"{server_url}/?ply=5#/game/{game_id}")
    wait_move(page, 5)
    assert page.inner_text(".connection") == "● replay"
    assert log_marks(page)[4] == "current"

    page.click("a.brand")  # leaving the game leaves its move behind
    page.wait_for_selector(".lobby, [data-page='lobby']", state="attached")
    assert shown_ply(page) is None

    for bad in ("-1", str(PLAYED + 1), "abc", "2.5", ""):
        page.goto(f"{server_url}/?ply={bad}#/game/{game_id}")
        page.wait_for_selector(".connection.connected")
        page.wait_for_selector("svg.board .hex")
        assert page.inner_text(".connection") == "● live", bad
        assert page.locator(".replay").is_hidden(), bad
        assert page.inner_text("#replay-toggle") == "Replay", bad
        assert shown_ply(page) is None, bad
