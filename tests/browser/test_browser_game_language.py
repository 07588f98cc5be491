"""The game page in German and French on a phone: its own words (the move log, the build
menu, the replay, the resign question, the player cards) are the language's, and none of
its texts runs out of its box (German words are long)."""

from __future__ import annotations

from typing import Any

import pytest

from .languages import SHIPPED, english_phrases, english_shown, translated
from .people import People, create_game, open_seated, play_over_http

FIRST_MOVE = "{who} placed a tile at {hex}"
"""How the move log says the game's first move (a tile on the empty sea), in English."""


def overflowing(page: Any) -> list[str]:
    """The boxes of the board's column and the side panel whose text is wider than they are."""
    found: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('aside.side *, .board-wrap *')]
            .filter((e) => e instanceof HTMLElement && !(e instanceof HTMLInputElement)
              && e.offsetWidth > 1 && getComputedStyle(e).display !== 'inline'
              && e.scrollWidth > e.clientWidth + 1)
            .map((e) => `${e.className}: ${e.textContent.slice(0, 60)}`)"""
    )
    return found


@pytest.mark.parametrize("lang", SHIPPED)
def test_the_game_page_on_a_phone_speaks_the_language_and_keeps_its_words_in_their_boxes(
    people: People, server_url: str, screenshot: Any, lang: str
) -> None:
    phrases = english_phrases(lang, "client-game")
    assert len(phrases) > 50  # the check has English to look for
    seats = [{"kind": "human", "name": name, "take": True} for name in ("Ana", "Ben")]
    game_id, tokens = create_game(server_url, seats, name="Insel")
    play_over_http(server_url, game_id, tokens, moves=7)  # Ben has placed his tile: he builds
    page = people.open(360, 740, phone=True, locale=lang)
    open_seated(page, server_url, game_id, tokens)
    page.wait_for_selector("svg.board .hex")
    page.wait_for_selector(".status-line:not(:empty)")
    assert page.get_attribute("html", "lang") == lang
    said = translated(lang, "client-game", FIRST_MOVE).replace("{who}", "Ana")
    assert said.split("{hex}")[0] in page.inner_text(".log")

    page.focus("svg.board")
    page.keyboard.press("Enter")  # the build menu of the first hex with a build
    page.wait_for_selector(".build-menu .menu-item")
    assert english_shown(page, phrases) == []
    assert overflowing(page) == []
    screenshot(page, f"game-language-{lang}-build")
    page.keyboard.press("Escape")

    page.click(".leave-resign")
    page.wait_for_selector(".confirm-leave")
    page.click("#replay-toggle")
    page.wait_for_selector(".replay-controls")
    assert english_shown(page, phrases) == []
    assert overflowing(page) == []
    screenshot(page, f"game-language-{lang}-replay")
