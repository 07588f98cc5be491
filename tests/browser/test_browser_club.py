"""A club evening from end to end, in Chromium against a real server on a SQLite file: two
people sign up, play a rated game on a real-time clock until one runs out of time, find the
result in the banner, on the leaderboard and on both profiles, and find all of it again
after the server restarts; signed in on another browser, the winner sees the game in My
games, and the two start a rematch with a click each."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_server_support import LiveServer

from .people import People, create_game, open_seated

CLOCK = {"kind": "fischer", "base": 15, "increment": 1}
"""Short enough to run out within the test, long enough for Ana's first turn on a busy
machine (the lobby offers only longer clocks, so the game is created through the API)."""


@pytest.fixture
def timeout_ms() -> float:
    """The club's pages wait longer than others: for a clock to run out, a server restart."""
    return 20000


@pytest.fixture
def club() -> Iterator[LiveServer]:
    """A real server process on a SQLite file, which the test can restart on the same port."""
    with LiveServer() as club:
        club.start()
        yield club


MINUS = "\N{MINUS SIGN}"
"""How the end screen writes a rating that went down ("(\N{MINUS SIGN}24)")."""
UNRANKED = "\N{EN DASH}"
"""The leaderboard's rank of a provisional rating."""


def account_form(page: Any, button: str, name: str, password: str, shown: str = "") -> int:
    """Sign up or in through the header's dialog; return the account's id once the header
    shows the account's name (``shown``, by default ``name``)."""
    page.click(button)
    page.fill("#account-name-input", name)
    page.fill("#account-password", password)
    page.click("#account-submit")
    page.wait_for_selector(f"#account-name:text-is('{shown or name}')")
    href: str = page.get_attribute("#account-name", "href")
    return int(href.rsplit("/", 1)[1])


def play_first_legal_move(page: Any) -> None:
    """Type the first move the page offers into the move box and play it."""
    page.wait_for_selector("#move-input:visible")
    before = page.locator(".log .log-move").count()
    move = page.evaluate("document.querySelector('#legal-moves option').value")
    page.fill("#move-input", move)
    page.press("#move-input", "Enter")
    page.wait_for_function(
        "n => document.querySelectorAll('.log .log-move').length > n", arg=before
    )


def banner(page: Any) -> str:
    page.wait_for_selector(".result-banner .headline")
    text: str = page.locator(".result-banner .headline").inner_text()
    return text


def leaderboard(page: Any, url: str, rows: str = "#provisional-rows") -> list[list[str]]:
    """The accounts' lines of the leaderboard's ``rows`` (by default the provisional ones)."""
    page.goto(url + "/#/leaderboard")
    page.wait_for_selector(f"{rows} tr")
    lines = page.locator(f"{rows} tr[data-kind=account]")
    return [line.locator("td, th").all_inner_texts()[:4] for line in lines.all()]


def profile(page: Any, url: str, account: int) -> tuple[list[str], list[str]]:
    """A profile's figures (Games, Wins, ...) and its recent games, as the page shows them."""
    page.goto(f"{url}/#/player/{account}")
    page.wait_for_selector("#profile-summary")
    figures = page.locator("#profile-summary .figure").all_inner_texts()
    recent = page.locator("#profile-recent .game-entry").all_inner_texts()
    return [" ".join(f.split()) for f in figures], [" ".join(g.split()) for g in recent]


def test_a_rated_timed_game_survives_a_restart_on_the_leaderboard_profiles_and_my_games(
    club: LiveServer, people: People, screenshot: Any
) -> None:
    url = club.url
    ana, ben = people.open(1280, 900), people.open(1280, 900)
    for page in (ana, ben):
        page.goto(url + "/")
    ana_id = account_form(ana, "#sign-up", "Ana", "volcano-ana-1")
    ben_id = account_form(ben, "#sign-up", "Ben", "volcano-ben-1")

    seats = [{"kind": "human", "take": True}, {"kind": "human"}]
    game_id, tokens = create_game(url, seats, page=ana, name="Club night", clock=CLOCK)
    open_seated(ana, url, game_id, tokens)
    ben.goto(f"{url}/#/game/{game_id}")
    ben.click(".join-panel button[data-seat='1']")
    ana.wait_for_function("() => document.title.startsWith('▶ Your turn')")
    play_first_legal_move(ana)
    play_first_legal_move(ana)
    ben.wait_for_function("() => document.title.startsWith('▶ Your turn')")
    screenshot(ben, "club-01-ben-to-move")

    # Ben lets his clock run out: the server ends the game, and both pages say so.
    headline = banner(ben)
    assert headline.startswith("Ana wins") and "ran out of time" in headline, headline
    assert banner(ana) == headline
    # the end screen: each player's rating before and after, the winner's up by what the
    # loser's went down (both started at 1500)
    changes = {}
    ana.wait_for_selector(".rating-change[data-seat='1']")
    for line in ana.locator(".rating-change").all_inner_texts():
        name, before, _arrow, after, change = line.split()
        changes[name] = (before, after, change)
    gain = int(changes["Ana"][1].rstrip("?")) - 1500
    assert gain > 0 and changes["Ana"] == ("1500", f"{1500 + gain}?", f"(+{gain})")
    assert changes["Ben"] == ("1500", f"{1500 - gain}?", f"({MINUS}{gain})")
    ben.fill(".chat-input", "gg, my clock beat me")
    ben.press(".chat-input", "Enter")
    ana.wait_for_selector(".chat-message")
    screenshot(ana, "club-02-ana-wins")

    standings = leaderboard(ana, url)  # one rated game each: provisional, not ranked yet
    assert standings == [
        [UNRANKED, "Ana", changes["Ana"][1], "1"],
        [UNRANKED, "Ben", changes["Ben"][1], "1"],
    ]
    ana_profile = profile(ana, url, ana_id)
    ben_profile = profile(ben, url, ben_id)
    assert ana_profile[0][:2] == ["Games 1", "Wins 1"]
    assert ben_profile[0][:2] == ["Games 1", "Wins 0"]
    assert len(ana_profile[1]) == len(ben_profile[1]) == 1
    assert "Place 1 of 2 · rated" in ana_profile[1][0]
    assert "Place 2 of 2 · rated" in ben_profile[1][0]
    assert "Ended: time ran out" in ben_profile[1][0]

    club.restart()
    assert leaderboard(ben, url) == standings
    assert profile(ben, url, ana_id) == ana_profile
    assert profile(ana, url, ben_id) == ben_profile
    ana.goto(f"{url}/#/game/{game_id}")
    assert banner(ana) == headline
    ana.wait_for_selector(".chat-message")
    assert ana.locator(".chat-message .chat-text").all_inner_texts() == ["gg, my clock beat me"]

    elsewhere = people.open(1280, 900)
    elsewhere.goto(url + "/")
    assert account_form(elsewhere, "#sign-in", "ana", "volcano-ana-1", "Ana") == ana_id
    elsewhere.click("#my-games-link")
    entry = elsewhere.locator(f"#my-finished-games li[data-game='{game_id}']")
    entry.wait_for()
    assert "Club night" in entry.inner_text()
    assert "Ben" in entry.inner_text()
    screenshot(elsewhere, "club-03-my-games")

    # One more: Ana offers a rematch with one click, Ben takes his seat with one more.
    ben.goto(f"{url}/#/game/{game_id}")
    ben.wait_for_selector(".result-banner .headline")
    ana.click(".rematch-offer")
    ana.wait_for_function("old => !location.hash.endsWith(old)", arg=game_id)
    rematch_id = ana.evaluate("location.hash").split("/")[-1]
    ben.wait_for_selector(".rematch-take").click()
    ben.wait_for_function("id => location.hash.endsWith(id)", arg=rematch_id)
    ana.wait_for_function("() => document.title.startsWith('▶ Your turn')")
    screenshot(ben, "club-04-rematch")
    state = ana.request.get(f"{url}/api/games/{rematch_id}").json()["state"]
    assert [(p["name"], p["account_id"]) for p in state["players"]] == [
        ("Ana", ana_id),
        ("Ben", ben_id),
    ]
    assert (state["clock"]["base_ms"], state["clock"]["increment_ms"]) == (15_000, 1_000)
