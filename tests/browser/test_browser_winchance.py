"""The win-chance bar in Chromium (js/winchance.js): off until turned on, then each player's
chance in words and colours after every move, remembered by the browser; never in rated games."""

from __future__ import annotations

from typing import Any

import pytest

from .people import People, create_game, open_seated

WORDS = ".win-chance-words .win-chance-player"


@pytest.fixture
def page(people: People) -> Any:
    """A phone-sized page whose script errors fail the test."""
    return people.open(360, 740)


def open_game(page: Any, url: str, seats: list[dict[str, Any]], **options: Any) -> str:
    """Create a game over HTTP in the page's session, keep its seat tokens where the lobby
    would, and open it."""
    game_id, tokens = create_game(url, seats, page=page, **options)
    open_seated(page, url, game_id, tokens)
    page.wait_for_selector(".player")
    return game_id


def shown_chances(page: Any) -> tuple[int, list[tuple[str, int]]]:
    """The ply of the chances on screen, and each player's name and percentage as written."""
    page.wait_for_selector(WORDS)
    ply = int(page.locator(".win-chance-words").get_attribute("data-ply"))
    shown = []
    for text in page.locator(WORDS).all_inner_texts():
        name, percent = text.strip().rstrip(",").strip().rsplit(" ", 1)
        assert percent.endswith("%"), text
        shown.append((name, int(percent[:-1])))
    return ply, shown


def play_first_legal(page: Any, ply: int) -> None:
    """Play the state's first legal move over the page's own socket, as its form would."""
    page.fill(
        "#move-input", page.evaluate("() => document.querySelector('#legal-moves option').value")
    )
    page.click(".move-form button[type=submit]")
    page.wait_for_function(
        "ply => Number(document.querySelector('.win-chance-words')?.dataset.ply) > ply", arg=ply
    )


def test_the_bar_is_off_until_turned_on_then_follows_each_move_and_is_remembered(
    page: Any, server_url: str, screenshot: Any
) -> None:
    open_game(
        page,
        server_url,
        [{"kind": "human", "name": "Ana", "take": True}, {"kind": "ai", "level": 1}],
    )
    page.wait_for_selector("#win-chance-toggle")
    assert not page.is_checked("#win-chance-toggle")
    assert page.locator(".win-chance-box").is_hidden()
    page.check("#win-chance-toggle")
    ply, shown = shown_chances(page)
    assert [name for name, _ in shown] == ["Ana", "AI level 1"]
    assert sum(percent for _, percent in shown) == 100
    assert page.locator(".win-chance-bar .win-chance-segment").count() == 2
    assert page.locator(".win-chance-words").get_attribute("aria-live") == "polite"
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "winchance-01-on")

    page.wait_for_function("() => document.title.startsWith('▶ Your turn')")
    ply, _ = shown_chances(page)
    play_first_legal(page, ply)
    after, shown = shown_chances(page)
    assert after > ply and sum(percent for _, percent in shown) == 100

    page.reload()
    page.wait_for_selector(WORDS)
    assert page.is_checked("#win-chance-toggle")


def test_neither_the_bar_nor_the_hint_is_offered_in_a_rated_game(
    page: Any, server_url: str
) -> None:
    page.goto(server_url + "/")
    signed = page.request.post(
        server_url + "/api/accounts", data={"name": "Winchance Ana", "password": "volcano-ana-7"}
    )
    assert signed.status == 201, signed.text()
    page.evaluate("() => localStorage.setItem('taluva.winChance', 'on')")
    rated = {"clock": {"kind": "turn", "per_turn": 86400}, "rated": True}
    open_game(
        page, server_url, [{"kind": "human", "take": True}, {"kind": "ai", "level": 1}], **rated
    )
    page.wait_for_selector(".player .tag.you")
    page.wait_for_selector(".game-kind.rated")
    page.wait_for_function(
        "() => document.querySelector('.status-line')?.textContent.includes('Your turn')"
    )
    assert page.locator(".win-chance").is_hidden()
    assert page.locator(WORDS).count() == 0
    assert page.locator("button.hint").is_hidden()
