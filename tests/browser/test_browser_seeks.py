"""Finding a game in Chromium, two accounts in two browser contexts: both click the same
quick pairing tile and land in the same live rated game, where the header tells the player to
move "Your move in 1 game"; a challenge sent from a profile is accepted from the other's
header badge; a rematch offered to you is in My games, played with one click."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_server_support import LiveServer

from .people import People, play_over_http

GAME_URL = re.compile(r".*#/game/([A-Za-z0-9_-]+)$")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """A server of this module's own: its sign-ups stay within the per-address limit."""
    with LiveServer() as server:
        server.start()
        yield server.url


def signed_up(people: People, url: str, name: str) -> tuple[Any, int]:
    """A new person's page, signed up as ``name`` with a suffix of its own (names are unique
    on the module's server); the page and the account's id."""
    page = people.open()
    answer = page.request.post(
        url + "/api/accounts",
        data={"name": f"{name} {secrets.token_hex(3)}", "password": "volcano-pass-1"},
    )
    assert answer.status == 201, answer.text()
    account: int = answer.json()["account"]["id"]
    return page, account


def game_of(page: Any) -> str:
    """The id of the game page ``page`` shows, once it shows one."""
    page.wait_for_url(GAME_URL)
    found = GAME_URL.match(page.url)
    assert found is not None
    return found.group(1)


def test_two_players_clicking_one_quick_pairing_tile_land_in_one_live_rated_game(
    people: People, url: str
) -> None:
    (ana, ana_id), (ben, ben_id) = signed_up(people, url, "Ana"), signed_up(people, url, "Ben")
    for page in (ana, ben):
        page.goto(url + "/")
    tile = "[data-tile='2p-10+20-rated']"
    ana.click(tile)
    ana.wait_for_selector(f"{tile}.waiting")
    ben.wait_for_selector("#seek-list .seek-entry:not(.yours) >> text=Ana")
    ben.click(tile)
    game_id = game_of(ben)
    assert game_of(ana) == game_id
    game = httpx.get(f"{url}/api/games/{game_id}").json()
    assert (game["game"]["status"], game["game"]["rated"]) == ("live", True)
    assert {p["account_id"] for p in game["game"]["players"]} == {ana_id, ben_id}
    to_move = game["state"]["players"][game["state"]["to_move"]]["account_id"]
    mover, other = (ana, ben) if to_move == ana_id else (ben, ana)
    mover.wait_for_selector("#inbox-badge:text-is('Your move in 1 game')")
    other.wait_for_selector("#inbox", state="hidden")  # nothing waits for the other player


def test_a_challenge_sent_from_a_profile_is_accepted_from_the_header_badge(
    people: People, url: str
) -> None:
    (ana, ana_id), (ben, ben_id) = signed_up(people, url, "Ana"), signed_up(people, url, "Ben")
    ben.goto(url + "/")
    ana.goto(f"{url}/#/player/{ben_id}")
    ana.click("#challenge-open")
    ana.click("#challenge-send")
    ana.wait_for_selector("#inbox-badge:text-is('Challenge sent')")
    ben.evaluate("window.dispatchEvent(new Event('focus'))")  # the player comes back to the tab
    badge = ben.locator("#inbox-badge")
    badge.wait_for()
    assert re.fullmatch(r"Ana \w+ challenges you", badge.inner_text())
    badge.click()
    words = ben.locator(".inbox-challenge p").inner_text()
    assert re.fullmatch(r"Ana \w+ \(1500\) challenges you: 2 players, 10\+20, rated", words)
    ben.click(".inbox-challenge .inbox-accept")
    game_id = game_of(ben)
    ana.evaluate("window.dispatchEvent(new Event('focus'))")
    assert game_of(ana) == game_id
    game = httpx.get(f"{url}/api/games/{game_id}").json()["game"]
    assert (game["status"], game["rated"]) == ("live", True)
    assert {p["account_id"] for p in game["players"]} == {ana_id, ben_id}


def test_my_games_shows_a_rematch_offered_to_you_and_plays_it(people: People, url: str) -> None:
    (ana, _ana_id), (ben, _ben_id) = signed_up(people, url, "Ana"), signed_up(people, url, "Ben")
    created = ana.request.post(
        url + "/api/games", data={"seats": [{"kind": "human", "take": True}, {"kind": "human"}]}
    ).json()
    game_id = created["game"]["id"]
    tokens = {0: created["tokens"][0]["token"]}
    tokens[1] = ben.request.post(f"{url}/api/games/{game_id}/seats/1", data={}).json()["token"]
    play_over_http(url, game_id, tokens)
    offered = ben.request.post(f"{url}/api/games/{game_id}/rematch")
    assert offered.status == 201, offered.text()
    rematch = offered.json()["game"]["id"]
    ana.goto(url + "/#/my")
    entry = ana.locator(f"#my-open-games .game-entry[data-game='{rematch}']")
    entry.wait_for()
    assert re.search(r"Ben \w+ offers a rematch", entry.inner_text())
    entry.locator("button:text-is('Play')").click()
    assert game_of(ana) == rematch
    assert httpx.get(f"{url}/api/games/{rematch}").json()["game"]["status"] == "live"
