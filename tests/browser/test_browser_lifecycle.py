"""Clocks, resigning, cancelling, aborting and claiming in Chromium: the lobby offers clocks,
the game page shows ticking clocks, resigning asks first, the host may cancel a game before it
starts, a player may abort one in its first turns, and one whose opponent left on their turn
counts down to claiming the win, then claims it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_server_support import LiveServer

from .people import People, create_game, open_seated

CLAIM_AFTER = 3
"""The claim time of the claiming test's server, in seconds: long enough to see the countdown."""


@pytest.fixture(scope="module")
def claims_url() -> Iterator[str]:
    """A server whose players may claim the win against one gone for ``CLAIM_AFTER`` seconds."""
    with LiveServer("--claim-after", str(CLAIM_AFTER)) as server:
        server.start()
        yield server.url


def test_a_timed_game_from_the_lobby_shows_ticking_clocks_and_resigning_asks_first(
    page: Any, server_url: str
) -> None:
    page.goto(server_url + "/")
    page.select_option("#clock", label="10 minutes + 20 seconds")
    page.locator(".seat-kind").nth(1).select_option("human")
    page.locator(".seat-name").nth(1).fill("Ben")
    page.click("#create")
    page.wait_for_selector(".leave-cancel")
    game_id = page.url.rsplit("/", 1)[1]
    summary = httpx.get(f"{server_url}/api/games/{game_id}").json()["game"]
    assert summary["clock"] == {"kind": "fischer", "base_ms": 600000, "increment_ms": 20000}
    join = httpx.post(f"{server_url}/api/games/{game_id}/seats/1", json={"name": "Ben"})
    assert join.status_code == 200
    page.wait_for_selector(".clock-row.running")
    first = page.inner_text(".clock-row.running .clock-time")
    page.wait_for_timeout(1300)
    assert page.inner_text(".clock-row.running .clock-time") != first
    assert page.inner_text(".clocks h3") == "Clock: 10:00 + 20 s a turn"
    page.click(".leave-resign")
    page.wait_for_selector("[role=alertdialog]")
    page.click("text=Keep playing")
    assert httpx.get(f"{server_url}/api/games/{game_id}").json()["state"]["status"] == "live"
    page.click(".leave-resign")
    page.click("text=Yes, resign")
    page.wait_for_selector(".result-banner:has-text('Ben wins')")
    state = httpx.get(f"{server_url}/api/games/{game_id}").json()["state"]
    assert state["result"]["headline"].startswith("Ben wins: ")
    assert state["result"]["headline"].endswith(" resigned")


def test_the_host_cancels_an_open_game_from_its_page(page: Any, server_url: str) -> None:
    page.goto(server_url + "/")
    page.locator(".seat-kind").nth(1).select_option("human")
    page.click("#create")
    page.click(".leave-cancel")
    page.click("text=Yes, cancel it")
    page.wait_for_selector(".status-line:has-text('cancelled by its host')")
    game_id = page.url.rsplit("/", 1)[1]
    state = httpx.get(f"{server_url}/api/games/{game_id}").json()["state"]
    assert state["status"] == "cancelled"
    open_games = httpx.get(f"{server_url}/api/games?status=open").json()["games"]
    assert game_id not in [game["id"] for game in open_games]


def test_a_player_aborts_a_game_in_its_first_turns_after_saying_yes(
    page: Any, server_url: str
) -> None:
    page.goto(server_url + "/")
    page.locator(".seat-kind").nth(1).select_option("human")
    page.locator(".seat-name").nth(1).fill("Ben")
    page.click("#create")
    page.wait_for_selector(".leave-cancel")
    game_id = page.url.rsplit("/", 1)[1]
    join = httpx.post(f"{server_url}/api/games/{game_id}/seats/1", json={"name": "Ben"})
    assert join.status_code == 200
    page.wait_for_selector(".leave-abort")
    page.click(".leave-abort")
    page.wait_for_selector("[role=alertdialog]")
    page.click("text=Keep playing")
    assert httpx.get(f"{server_url}/api/games/{game_id}").json()["state"]["status"] == "live"
    page.click(".leave-abort")
    page.click("text=Yes, abort it")
    page.wait_for_selector(".result-banner:has-text('aborted')")
    state = httpx.get(f"{server_url}/api/games/{game_id}").json()["state"]
    assert (state["status"], state["result"]["reason"]) == ("finished", "aborted")
    assert page.locator(".leave-abort").count() == 0


def test_when_the_opponent_on_move_closes_their_page_the_other_counts_down_and_claims_the_win(
    people: People, claims_url: str
) -> None:
    game_id, tokens = create_game(
        claims_url,
        [
            {"kind": "human", "name": "Ben", "take": True},
            {"kind": "human", "name": "Ana", "take": True},
        ],
    )
    ben, ana = people.open(), people.open()
    for page, seat in ((ben, 0), (ana, 1)):
        open_seated(page, claims_url, game_id, {seat: tokens[seat]})
        page.wait_for_selector(".leave-resign")  # welcomed: the server knows the seat is here
    # Ben, to move, is here: Ana sees no countdown.
    assert ana.locator(".claim-wait, .leave-claim").count() == 0
    ben.close()
    notice = ana.wait_for_selector(".claim-wait")
    assert re.fullmatch(r"Ben has left: claim the win in 0:0[1-3]", notice.inner_text())
    ana.click(".leave-claim")  # waits for the countdown to end and the button to come
    assert ana.locator(".claim-wait").count() == 0
    ana.wait_for_selector(".result-banner:has-text('Ana wins')")
    state = httpx.get(f"{claims_url}/api/games/{game_id}").json()["state"]
    assert (state["status"], state["resignations"]) == (
        "finished",
        [{"ply": 0, "player": 0, "reason": "left"}],
    )
