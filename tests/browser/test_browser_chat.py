"""The chat and the your-turn signals in Chromium: text stays text, mutes are remembered,
and the tab's title and icon follow whose move it is."""

from __future__ import annotations

import json
from typing import Any

import httpx

from .people import People, create_game, open_seated, play_over_http

MARKUP = '<img src=x onerror="window.pwned=1"><b>bold</b> & <script>window.pwned=2</script>'


def seat(page: Any, url: str, game_id: str, tokens: dict[int, str]) -> None:
    """Open the game as the holder of ``tokens`` (kept in this browser, as the page keeps them)."""
    open_seated(page, url, game_id, tokens)
    page.wait_for_selector(".chat")


def two_people(url: str) -> tuple[str, str, str]:
    """A live game of Ana (seat 0) and Ben (seat 1); its id and their tokens."""
    ana = {"kind": "human", "name": "Ana", "take": True}
    game_id, tokens = create_game(url, [ana, {"kind": "human"}], name="Chat night")
    ben = httpx.post(f"{url}/api/games/{game_id}/seats/1", json={"name": "Ben"}).json()
    return game_id, tokens[0], ben["token"]


def test_chat_text_is_shown_as_text_and_a_muted_player_stays_muted(
    people: People, server_url: str, screenshot: Any
) -> None:
    game_id, ana_token, ben_token = two_people(server_url)
    ana, ben, spectator = people.open(), people.open(), people.open()
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


def test_the_title_and_icon_say_whose_move_it_is(people: People, server_url: str) -> None:
    game_id, ana_token, ben_token = two_people(server_url)
    ana, ben = people.open(), people.open()
    seat(ana, server_url, game_id, {0: ana_token})
    seat(ben, server_url, game_id, {1: ben_token})
    ana.wait_for_function("() => document.title === '▶ Your turn \u2013 Chat night \u2013 Taluva'")
    ben.wait_for_function("() => document.title === 'Chat night \u2013 Taluva'")
    icon = "() => document.querySelector('link[rel=icon]').getAttribute('href')"
    assert (ana.evaluate(icon), ben.evaluate(icon)) == ("/static/icon-turn.svg", "/static/icon.svg")
    assert ben.evaluate("document.body.dataset.turnRings") is None

    play_over_http(server_url, game_id, {0: ana_token}, moves=2)
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
