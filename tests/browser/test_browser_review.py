"""A finished game's review in Chromium: the Review button, the winning-chance graph whose
points show the replay, keyboard use, the blunder of tests/data/review_blunder.json with the
better move drawn on the board, an early mistake framed large in the middle of the board (and
the view given back after it), and the panel on a phone (no sideways scrolling, no serious
accessibility findings).

The server searches 3 iterations a position (``--review-iterations 3``): enough to find the
blunder at move 42, where Ana could win at once with ``expand rock 1,0``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_server_support import LiveServer

from taluva import Game
from taluva.server.players.standings import settle
from taluva.server.storage.store import Store

from .people import People
from .positions import store_position

BLUNDER_GAME = Path(__file__).resolve().parents[1] / "data" / "review_blunder.json"
GAME_ID = "blunder"
BLUNDER_PLY = 41
"""The blunder is move 42: the position before it is the one after 41 moves."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A server whose database holds the finished game of review_blunder.json."""
    with LiveServer("--review-iterations", "3") as live:
        store = Store(live.database, game_end=settle)
        store.migrate()
        store_position(store, GAME_ID, Game.load(BLUNDER_GAME), "A win given away")
        store.close()
        live.start()
        yield live.url


@pytest.fixture
def timeout_ms() -> float:
    """The review's pages wait longer than others: the AI workers review the whole game."""
    return 30000


def open_game(people: People, url: str, width: int, height: int) -> Any:
    """A page showing the finished game at this size (a phone's below 500 pixels wide)."""
    page = people.open(width, height, phone=width < 500, still=True)
    page.goto(f"{url}/#/game/{GAME_ID}")
    page.wait_for_selector("svg.board .hex")
    page.wait_for_function("() => document.querySelector('.connection.connected')")
    return page


def open_review(page: Any) -> None:
    """Press Review and wait for the finished review's graph."""
    page.click("#review-toggle")
    page.wait_for_selector(".review-graph .review-point")
    status = page.inner_text(".review-status")
    assert re.fullmatch(r"Review ready: Ana \d+ blunders?, \d+ mistakes?; Ben .+\.", status)


def test_the_graph_shows_each_position_and_a_point_shows_the_replay_there(
    people: People, server: str
) -> None:
    page = open_game(people, server, 1280, 820)
    assert page.inner_text(".connection") == "● finished"  # a finished game is not "live"
    assert page.inner_text("#review-toggle") == "Review"
    open_review(page)
    assert page.locator(".review-point").count() == 49  # the start and 48 moves
    point = page.locator(".review-point[data-ply='20']")
    label = point.get_attribute("aria-label")
    assert label.startswith("After move 20: ")
    assert "Ana " in label and "Ben " in label and "%" in label
    point.click()
    page.wait_for_selector(".replay-ply:has-text('Move 20 of 48')")
    assert "current" in (point.get_attribute("class") or "")
    assert page.inner_text(".connection") == "● replay"


def test_the_blunder_shows_its_position_with_the_winning_move_drawn_on_the_board(
    people: People, server: str, screenshot: Any
) -> None:
    page = open_game(people, server, 1280, 820)
    open_review(page)
    blunder = page.locator(f".review-player:first-of-type .review-move[data-ply='{BLUNDER_PLY}']")
    assert "blunder" in (blunder.get_attribute("class") or "").split()
    text = blunder.inner_text()
    assert "Move 42 · blunder" in text
    assert "Ana expanded into clearing" in text
    assert "Better: Ana expanded into rock" in text
    blunder.click()
    page.wait_for_selector(f".replay-ply:has-text('Move {BLUNDER_PLY} of 48')")
    page.wait_for_selector("svg.board .ghost.suggested polygon[data-hex='1,0']")
    assert blunder.get_attribute("aria-pressed") == "true"
    assert "Better: Ana expanded into rock" in page.inner_text(".review-detail")
    screenshot(page, "review-blunder")
    page.click("text=Back to the game")
    page.wait_for_function("() => !document.querySelector('svg.board .ghost.suggested')")


def test_on_a_phone_the_review_fits_works_by_keyboard_and_passes_the_audit(
    people: People, server: str, screenshot: Any
) -> None:
    from axe_playwright_python.sync_playwright import Axe

    page = open_game(people, server, 360, 740)
    open_review(page)
    wide = page.evaluate(
        "() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
    )
    assert wide <= 0
    graph = page.locator(".review-graph").bounding_box()
    assert graph is not None and graph["x"] >= 0 and graph["x"] + graph["width"] <= 360
    page.focus(".review-point[data-ply='0']")
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    focused = page.evaluate("() => document.activeElement.dataset.ply")
    assert focused == "47"
    page.keyboard.press("Enter")
    page.wait_for_selector(".replay-ply:has-text('Move 47 of 48')")
    page.locator(".review").scroll_into_view_if_needed()
    screenshot(page, "review-phone")
    results = Axe().run(page)
    grave = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert grave == []


EARLY_MISTAKE = 23
"""Ben's mistake, move 24 (``hut 4,0`` where ``expand rock 2,0`` was better): the earliest
the review finds, on an island half the size of the final one."""

FRAMED = """([board, played, better]) => {
  const hexes = `${played} ${better}`.match(/-?\\d+,-?\\d+/g);
  const boxes = hexes.map(
    (hex) => board.querySelector(`.island [data-hex='${hex}']`).getBoundingClientRect());
  const view = board.getBoundingClientRect();
  const left = Math.min(...boxes.map((b) => b.left)) - view.left;
  const right = Math.max(...boxes.map((b) => b.right)) - view.left;
  const top = Math.min(...boxes.map((b) => b.top)) - view.top;
  const bottom = Math.max(...boxes.map((b) => b.bottom)) - view.top;
  return {
    x: (left + right) / 2 / view.width, y: (top + bottom) / 2 / view.height,
    w: (right - left) / view.width, h: (bottom - top) / view.height,
  };
}"""
"""Where the hexes of a mistake's played and better moves (named in the notation) are on the
board: their bounding box's centre and size as fractions of the board's."""


def test_a_mistake_is_framed_large_and_centred_and_leaving_it_restores_the_view(
    people: People, server: str
) -> None:
    page = open_game(people, server, 1280, 820)
    open_review(page)
    page.click(".review-point[data-ply='20']")  # the replay's panel takes its room first
    page.wait_for_selector(".replay-ply:has-text('Move 20 of 48')")
    whole = page.get_attribute("svg.board", "viewBox")
    mistake = page.locator(f".review-move[data-ply='{EARLY_MISTAKE}']")
    played, better = (mistake.locator(".notation").nth(i).inner_text() for i in range(2))
    mistake.click()
    page.wait_for_selector(f".replay-ply:has-text('Move {EARLY_MISTAKE} of 48')")
    page.wait_for_selector("svg.board .ghost.suggested polygon")
    board = page.locator("svg.board").element_handle()
    box = page.evaluate(FRAMED, [board, played, better])
    assert abs(box["x"] - 0.5) < 0.08 and abs(box["y"] - 0.5) < 0.08, box
    assert max(box["w"], box["h"]) > 0.35, box  # the whole game's view: 0.28
    page.click("button[aria-label='Previous move']")
    page.wait_for_selector(f".replay-ply:has-text('Move {EARLY_MISTAKE - 1} of 48')")
    assert page.get_attribute("svg.board", "viewBox") == whole
