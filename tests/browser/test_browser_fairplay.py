"""Fair play end to end, two accounts in two browser contexts: a quick pairing starts a rated
game in which neither player is offered a hint; one aborts it in its first turn and no rating
changes; a second pairing ends with a claimed win after the player to move closes their page;
the end screen shows both players' ratings before and after, and the leaderboard agrees."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_server_support import LiveServer

from .people import People

CLAIM_AFTER = 2
"""Seconds the player to move may be gone before the other may claim (short for the test)."""
TILE = "[data-tile='2p-10+20-rated']"
GAME_URL = re.compile(r".*#/game/([A-Za-z0-9_-]+)$")
MINUS = "\N{MINUS SIGN}"
"""How the end screen writes a rating that went down."""
CHANGE = re.compile(r"(?P<name>.+) 1500 → (?P<after>\d+)\? \((?P<change>[+" + MINUS + r"]\d+)\)")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with LiveServer("--claim-after", str(CLAIM_AFTER)) as server:
        server.start()
        yield server.url


def signed_up(people: People, url: str, name: str) -> tuple[Any, str]:
    page = people.open()
    full = f"{name} {secrets.token_hex(2)}"
    answer = page.request.post(
        url + "/api/accounts", data={"name": full, "password": "lava-pass-12"}
    )
    assert answer.status == 201, answer.text()
    return page, full


def paired(url: str, ana: Any, ben: Any) -> str:
    """Both click the same quick pairing tile; the id of the game they both land in."""
    for page in (ana, ben):
        page.goto(url + "/")
    ana.click(TILE)
    ana.wait_for_selector(f"{TILE}.waiting")
    ben.click(TILE)
    ids = set()
    for page in (ana, ben):
        page.wait_for_url(GAME_URL)
        found = GAME_URL.match(page.url)
        assert found is not None
        ids.add(found.group(1))
        page.wait_for_selector(".game-kind.rated")
        page.wait_for_selector(".leave-resign")  # welcomed: the server knows the seat is here
    assert len(ids) == 1
    return ids.pop()


def test_a_paired_rated_game_offers_no_hint_aborts_without_ratings_and_a_claim_rates_both(
    people: People, url: str
) -> None:
    (ana, ana_name), (ben, ben_name) = signed_up(people, url, "Ana"), signed_up(people, url, "Ben")
    first = paired(url, ana, ben)
    for page in (ana, ben):
        assert page.locator("button.hint").is_hidden()
        assert page.locator(".win-chance").count() == 0 or page.locator(".win-chance").is_hidden()
    state = httpx.get(f"{url}/api/games/{first}").json()["state"]
    mover = ana if state["players"][state["to_move"]]["name"] == ana_name else ben
    mover.click(".leave-abort")
    mover.click("text=Yes, abort it")
    for page in (ana, ben):
        page.wait_for_selector(".result-banner:has-text('aborted')")
    board = httpx.get(f"{url}/api/leaderboard").json()
    assert board == {"players": [], "provisional": []}  # the abort changed no rating

    second = paired(url, ana, ben)
    state = httpx.get(f"{url}/api/games/{second}").json()["state"]
    gone_name = state["players"][state["to_move"]]["name"]
    gone, stays = (ana, ben) if gone_name == ana_name else (ben, ana)
    gone.close()
    stays.wait_for_selector(".claim-wait")
    stays.click(".leave-claim")  # waits for the countdown to end and the button to come
    stays.wait_for_selector(f".result-banner:has-text('{gone_name} left the game')")
    stays.wait_for_selector(".rating-change[data-seat='1']")
    changes = {}
    for line in stays.locator(".rating-change").all_inner_texts():
        found = CHANGE.fullmatch(line)
        assert found, line
        changes[found["name"]] = (int(found["after"]), found["change"])
    winner = ben_name if gone is ana else ana_name
    gain = changes[winner][0] - 1500
    assert gain > 0 and changes[winner][1] == f"+{gain}"
    assert changes[gone_name] == (1500 - gain, f"{MINUS}{gain}")

    stays.goto(url + "/#/leaderboard")
    stays.wait_for_selector("#provisional-rows tr")
    rows = stays.locator("#provisional-rows tr[data-kind=account]")
    shown = {
        cells[1]: cells[2]
        for cells in (row.locator("td, th").all_inner_texts() for row in rows.all())
    }
    assert shown == {name: f"{after}?" for name, (after, _) in changes.items()}
    # the other player can be challenged from their line, oneself not
    challenge = rows.locator("button.challenge-open")
    assert challenge.count() == 1
    assert challenge.get_attribute("aria-label") == f"Challenge {gone_name}"
