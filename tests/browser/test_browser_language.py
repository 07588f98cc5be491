"""The site in German and French: Chromium's language chooses it, the header's switch
changes it, and a whole game against the AI (a refused move, the end screen) shows no
English sentence of the client's or the server's catalogs."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from taluva.ai.levels import LEVELS

from .languages import SHIPPED, english_phrases, english_shown
from .people import People, create_game, open_seated

SHOWN_DOMAINS = ("client-site", "client-game", "server", "engine")
"""The catalogs of the words a browser shows: the client's own and those the server sends."""


def grave_violations(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    return [v["id"] for v in violations if v["impact"] in ("serious", "critical")]


def play_for_seat(url: str, game_id: str, seat: int, token: str, deadline_s: float) -> None:
    """Play the first legal move whenever ``seat`` is to move, until the game ends (the AI
    answers for the other seat)."""
    end = time.monotonic() + deadline_s
    with httpx.Client(base_url=url) as http:
        while time.monotonic() < end:
            state = http.get(f"/api/games/{game_id}").json()["state"]
            if state["result"] is not None:
                return
            if state["to_move"] != seat:
                time.sleep(0.05)
                continue
            reply = http.post(
                f"/api/games/{game_id}/moves",
                json={"state": state["ply"], "move": state["legal"][0]},
                headers={"authorization": f"Bearer {token}"},
            )
            assert reply.status_code in (200, 409), reply.text
    raise AssertionError(f"the game did not end within {deadline_s} s")


@pytest.mark.parametrize("lang", SHIPPED)
def test_a_game_against_the_ai_in_the_browsers_language_shows_no_english(
    people: People, server_url: str, screenshot: Any, lang: str
) -> None:
    phrases = english_phrases(lang, *SHOWN_DOMAINS)
    assert len(phrases) > 100  # the check has English to look for
    page = people.open(1440, 900, locale=lang)
    page.goto(server_url + "/")
    page.wait_for_selector(".create")
    assert page.get_attribute("html", "lang") == lang
    assert english_shown(page, phrases) == []
    assert grave_violations(page) == []
    screenshot(page, f"language-{lang}-lobby")

    seats = [{"kind": "human", "name": "Ana", "take": True}, {"kind": "ai", "level": min(LEVELS)}]
    game_id, tokens = create_game(server_url, seats, name="Insel")
    open_seated(page, server_url, game_id, tokens)
    page.wait_for_selector("svg.board")
    page.wait_for_selector(".status-line:not(:empty)")
    # a refused move, typed: the engine's refusal in the page's language
    page.fill("#move-input", "hut 0,0")
    page.press("#move-input", "Enter")
    page.wait_for_selector("#toast.show")
    refusal = page.inner_text("#toast")
    assert refusal and not any(p in refusal for p in phrases), refusal
    assert english_shown(page, phrases) == []
    assert grave_violations(page) == []
    screenshot(page, f"language-{lang}-game")

    play_for_seat(server_url, game_id, 0, tokens[0], deadline_s=120)
    banner = page.locator(".result-banner .headline")
    banner.wait_for()
    assert english_shown(page, phrases) == []
    assert grave_violations(page) == []
    screenshot(page, f"language-{lang}-end")


SPEAKS_AND_DRAWS = """([lang, drawn]) =>
    document.documentElement.lang === lang && document.querySelector(drawn) !== null"""


def test_the_header_switch_changes_the_language_and_remembers_it(
    people: People, server_url: str
) -> None:
    page = people.open(360, 740, phone=True, locale="en-US")
    page.goto(server_url + "/")
    page.wait_for_selector(".create")
    assert page.get_attribute("html", "lang") == "en"
    switch = page.locator("header select")
    assert switch.is_visible()
    switch.select_option("de")  # the page loads again, in German
    page.wait_for_function(SPEAKS_AND_DRAWS, arg=["de", ".create"])
    assert english_shown(page, english_phrases("de", *SHOWN_DOMAINS)) == []
    page.goto(server_url + "/#/rules")  # another page, another visit: still German
    page.reload()
    page.wait_for_selector("main h1, main h2")
    assert page.get_attribute("html", "lang") == "de"
    page.locator("header select").select_option("fr")
    page.wait_for_function(SPEAKS_AND_DRAWS, arg=["fr", "main .rule"])
