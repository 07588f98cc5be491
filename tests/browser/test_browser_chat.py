"""The chat and the your-turn signals in Chromium: text stays text, mutes are remembered,
and the tab's title and icon follow whose move it is."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

TIMEOUT_MS = 15000
MARKUP = '<img src=x onerror="window.pwned=1"><b>bold</b> & <script>window.pwned=2</script>'


@pytest.fixture
def people(browser: Any) -> Iterator[Any]:
    """Pages in browser contexts of their own (separate storage, as separate people)."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_page() -> Any:
        context = browser.new_context(viewport={"width": 1280, "height": 820})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert errors == []


def seat(page: Any, url: str, game_id: str, tokens: dict[int, str]) -> None:
    """Open the game as the holder of ``tokens`` (kept in this browser, as the page keeps them)."""
    page.goto(url + "/")
    page.evaluate(
        "([id, held]) => localStorage.setItem('taluva.tokens', JSON.stringify({[id]: held}))",
        [game_id, {str(k): v for k, v in tokens.items()}],
    )
    page.goto(f"{url}/#/game/{game_id}")
    page.wait_for_selector(".chat")


def two_people(url: str) -> tuple[str, str, str]:
    """A live game of Ana (seat 0) and Ben (seat 1); its id and their tokens."""
    created = httpx.post(
        url + "/api/games",
        json={
            "name": "Chat night",
            "seats": [{"kind": "human", "name": "Ana", "take": True}, {"kind": "human"}],
        },
    ).json()
    game_id = created["game"]["id"]
    ben = httpx.post(f"{url}/api/games/{game_id}/seats/1", json={"name": "Ben"}).json()
    return game_id, created["tokens"][0]["token"], ben["token"]


def play(url: str, game_id: str, token: str, count: int) -> None:
    """Play the first legal move ``count`` times over HTTP as the holder of ``token``."""
    for _ in range(count):
        state = httpx.get(f"{url}/api/games/{game_id}").json()["state"]
        answer = httpx.post(
            f"{url}/api/games/{game_id}/moves",
            json={"state": state["ply"], "move": state["legal"][0]},
            headers={"authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200, answer.text


def test_chat_text_is_shown_as_text_and_a_muted_player_stays_muted(
    people: Any, server_url: str, screenshot: Any
) -> None:
    game_id, ana_token, ben_token = two_people(server_url)
    ana, ben, spectator = people(), people(), people()
    seat(ana, server_url, game_id, {0: ana_token})
    seat(ben, server_url, game_id, {1: ben_token})
    seat(spectator, server_url, game_id, {})
    ana.fill(".chat-input", MARKUP)
    ana.click(".chat-form button[type=submit]")
    for page in (ana, ben, spectator):
        page.wait_for_selector(".chat-message")
        assert page.locator(".chat-message .chat-text").inner_text() == MARKUP
        assert page.locator(".chat-message .chat-name").inner_text().strip() == "Ana:"
        assert page.locator(".chat-log img, .chat-log b, .chat-log script").count() == 0
        assert page.evaluate("window.pwned") is None
    assert ana.input_value(".chat-input") == ""
    screenshot(ben, "chat-01-markup-as-text")

    assert spectator.locator(".chat-form").is_hidden()
    assert spectator.locator(".chat-note").inner_text() == (
        "Only the players write here; you are watching."
    )
    ben.click("text=Mute Ana")
    assert ben.locator(".chat-message").count() == 0
    assert ben.locator(".chat-hidden").inner_text() == "1 message from muted players hidden."
    ben.reload()
    ben.wait_for_selector(".chat-mute[aria-pressed=true]")
    assert ben.locator(".chat-message").count() == 0
    assert json.loads(ben.evaluate("localStorage.getItem('taluva.chat.muted')")) == ["ana"]
    ben.fill(".chat-input", "I hear nothing")
    ben.click(".chat-form button[type=submit]")
    ana.wait_for_function("() => document.querySelectorAll('.chat-message').length === 2")
    assert ana.locator(".chat-message .chat-text").all_inner_texts() == [MARKUP, "I hear nothing"]

    ana.click(".chat-switch")
    assert ana.locator(".chat-log").is_hidden()
    assert ana.locator(".chat-switch").inner_text() == "Unmute chat"
    ana.reload()
    ana.wait_for_selector(".chat-switch[aria-pressed=true]")
    assert ana.locator(".chat-log").is_hidden()


def test_the_title_and_icon_say_whose_move_it_is(people: Any, server_url: str) -> None:
    game_id, ana_token, ben_token = two_people(server_url)
    ana, ben = people(), people()
    seat(ana, server_url, game_id, {0: ana_token})
    seat(ben, server_url, game_id, {1: ben_token})
    ana.wait_for_function("() => document.title === '▶ Your turn \u2013 Chat night \u2013 Taluva'")
    ben.wait_for_function("() => document.title === 'Chat night \u2013 Taluva'")
    icon = "() => document.querySelector('link[rel=icon]').getAttribute('href')"
    assert (ana.evaluate(icon), ben.evaluate(icon)) == ("/static/icon-turn.svg", "/static/icon.svg")
    assert ben.evaluate("document.body.dataset.turnRings") is None

    play(server_url, game_id, ana_token, 2)
    ana.wait_for_function("() => document.title === 'Chat night \u2013 Taluva'")
    ben.wait_for_function("() => document.title.startsWith('▶ Your turn')")
    assert (ana.evaluate(icon), ben.evaluate(icon)) == ("/static/icon.svg", "/static/icon-turn.svg")
    assert ben.evaluate("document.body.dataset.turnRings") == "1"
    assert ben.locator(".signal-sound").is_checked() is False
    assert ben.locator(".signal-notify").is_checked() is False
    ben.check(".signal-sound")
    ben.reload()
    ben.wait_for_selector(".chat")
    assert ben.locator(".signal-sound").is_checked() is True
