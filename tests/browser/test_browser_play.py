"""People playing in Chromium: against the AI, against each other, on a phone, in replays."""

from __future__ import annotations

import random
import re
from typing import Any

import httpx

import taluva

from .people import People, create_game, open_seated, play_over_http


def status(page: Any) -> str:
    text: str = page.locator(".status-line").inner_text()
    return text


def wait_status(page: Any, words: str) -> None:
    page.wait_for_function(
        "words => document.querySelector('.status-line')?.textContent.includes(words)", arg=words
    )


def wait_moves(page: Any, count: int) -> None:
    page.wait_for_function(
        "n => document.querySelectorAll('.log .log-move').length >= n", arg=count
    )


def centre_of(locator: Any) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def place_tile_by_clicking(page: Any, tap: bool = False) -> None:
    """Point at the first highlighted spot, click to hold the tile there, click to place it."""
    x, y = centre_of(page.locator(".marks .spot").first)
    if tap:
        page.touchscreen.tap(x, y)
        page.touchscreen.tap(x, y)
    else:
        page.mouse.move(x, y)
        assert page.locator(".ghost polygon").count() > 0
        page.mouse.click(x, y)
        page.mouse.click(x, y)
    wait_status(page, "build")


def build_by_clicking(page: Any, tap: bool = False) -> None:
    """Click a highlighted hex, choose its first action (previewed), then confirm it."""
    target = page.locator('.marks polygon[fill^="rgba(0,229,255"]').first
    x, y = centre_of(target)
    if tap:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)
    choose_first_action(page)


def choose_first_action(page: Any, shot: Any = None) -> None:
    """Select the menu's first action (a single one is selected already: it is previewed),
    then confirm it."""
    page.wait_for_selector(".build-menu[data-ready='true']")
    first = page.locator(".build-menu .menu-item").first
    if first.get_attribute("aria-pressed") != "true":
        first.click()
    assert page.locator(".ghost .piece").count() > 0
    if shot is not None:
        shot()
    page.locator(".build-menu .confirm").click()


def create_from_lobby(page: Any, url: str, second_seat: str) -> str:
    page.goto(url + "/")
    page.fill(".seat-name", "Ana")
    page.locator(".seat-kind").nth(1).select_option(second_seat)
    page.click("#create")
    page.wait_for_selector("svg.board")
    page.wait_for_function("() => location.hash.startsWith('#/game/')")
    game_id: str = page.evaluate("location.hash").split("/")[-1]
    return game_id


def test_a_player_plays_the_ai_by_clicking_then_reloads_and_goes_on_by_keyboard(
    page: Any, server_url: str, screenshot: Any
) -> None:
    game_id = create_from_lobby(page, server_url, "ai:1")
    screenshot(page, "01-new-game")
    wait_status(page, "Your turn: place the tile")
    for card in range(2):
        assert page.locator(".player .supply").nth(card).locator("li").all_inner_texts() == [
            "Temples: 0 placed, 3 left",
            "Towers: 0 placed, 2 left",
            "Huts: 0 placed, 20 left",
        ]
    place_tile_by_clicking(page)
    page.mouse.move(5, 5)
    x, y = centre_of(page.locator('.marks polygon[fill^="rgba(0,229,255"]').first)
    page.mouse.click(x, y)
    choose_first_action(page, lambda: screenshot(page, "02-build-preview"))
    wait_moves(page, 4)
    wait_status(page, "Your turn: place the tile")
    assert page.locator(".log li").count() == 2
    assert "AI level 1" in page.locator(".log li").nth(1).inner_text()
    screenshot(page, "03-ai-answered")

    page.reload()
    wait_status(page, "Your turn: place the tile")
    assert page.locator(".log .log-move").count() == 4
    assert page.evaluate("location.hash") == f"#/game/{game_id}"
    page.focus("svg.board")
    page.keyboard.press("r")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    wait_status(page, "build")
    page.focus("svg.board")
    page.keyboard.press("Enter")
    page.wait_for_selector(".build-menu .menu-item:focus")
    if page.locator(".build-menu .menu-item").count() > 1:
        page.keyboard.press("Enter")
        page.wait_for_selector(".build-menu .menu-item.selected:focus")
    page.keyboard.press("Enter")
    wait_moves(page, 8)
    wait_status(page, "Your turn: place the tile")
    screenshot(page, "04-after-reload-keyboard")


def test_an_illegal_spot_explains_why_on_hover(page: Any, server_url: str) -> None:
    create_from_lobby(page, server_url, "ai:1")
    wait_status(page, "Your turn: place the tile")
    place_tile_by_clicking(page)
    page.mouse.move(5, 5)
    x, y = centre_of(page.locator('.marks polygon[fill^="rgba(0,229,255"]').first)
    page.mouse.click(x, y)
    choose_first_action(page)
    wait_moves(page, 4)
    wait_status(page, "Your turn: place the tile")
    # The top face, not the n-th polygon: how many walls a hex shows depends on its neighbours,
    # that is on where the AI put its tile.
    top = page.locator('svg.board .hex[data-hex="0,0"] polygon.top')
    x, y = centre_of(top)
    page.mouse.move(x, y)
    page.wait_for_selector(".tooltip.bad")
    assert page.locator(".tooltip").inner_text().startswith("Not here: ")
    assert page.locator(".ghost polygon[stroke-dasharray]").count() > 0


def test_the_hint_shows_a_placement_then_a_build_each_ready_to_confirm(
    page: Any, server_url: str
) -> None:
    create_from_lobby(page, server_url, "ai:1")
    wait_status(page, "Your turn: place the tile")
    page.click("button.hint")
    page.wait_for_function(
        "() => document.querySelector('.hint-text').textContent.startsWith('Hint: tile ')"
    )
    assert page.locator(".ghost polygon[stroke='#00e676']").count() == 3
    assert page.locator("#place").is_enabled()
    page.click("#place")
    wait_status(page, "build")
    page.click("button.hint")
    page.wait_for_function(
        "() => /^Hint: (hut|temple|tower|expand|ship) /.test("
        "document.querySelector('.hint-text').textContent)"
    )
    hinted = page.locator(".hint-text").inner_text().split(": ", 1)[1].rsplit(" (", 1)[0]
    chosen = page.locator(".build-menu .menu-item.selected")
    assert chosen.get_attribute("data-move") == hinted
    assert page.locator(".build-menu").get_attribute("data-ready") == "true"
    page.locator(".build-menu .confirm").click()
    wait_moves(page, 2)
    assert page.locator(".log .log-move").nth(1).get_attribute("data-move") == hinted


def test_two_players_in_two_browsers_and_a_spectator_see_every_move(
    people: People, server_url: str, screenshot: Any
) -> None:
    ana, ben, spectator = (people.open(1100, 760) for _ in range(3))
    game_id = create_from_lobby(ana, server_url, "human")
    wait_status(ana, "Waiting for players")
    ben.goto(f"{server_url}/#/game/{game_id}")
    ben.fill(".join-name", "Ben")
    ben.click(".join-panel button[data-seat='1']")
    spectator.goto(f"{server_url}/#/game/{game_id}")
    wait_status(ana, "Your turn: place the tile")
    wait_status(ben, "Waiting for Ana")
    place_tile_by_clicking(ana)
    build_by_clicking(ana)
    wait_status(ben, "Your turn: place the tile")
    place_tile_by_clicking(ben)
    build_by_clicking(ben)
    for page in (ana, ben, spectator):
        wait_moves(page, 4)
    log = spectator.locator(".log li")
    assert log.count() == 2
    assert log.nth(0).inner_text().startswith("Ana placed a tile at ")
    assert log.nth(1).inner_text().startswith("Ben placed a tile at ")
    assert spectator.locator(".hint").is_hidden()
    assert spectator.locator(".move-form").is_hidden()
    assert status(spectator) == "Waiting for Ana."
    screenshot(spectator, "05-spectator")


def test_a_game_is_playable_by_touch_on_a_phone_screen(
    people: People, server_url: str, screenshot: Any
) -> None:
    page = people.open(390, 844, phone=True, scale=2)
    create_from_lobby(page, server_url, "ai:1")
    wait_status(page, "Your turn: place the tile")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    place_tile_by_clicking(page, tap=True)
    build_by_clicking(page, tap=True)
    wait_moves(page, 4)
    wait_status(page, "Your turn: place the tile")
    screenshot(page, "06-phone")


def finished_game(server_url: str, name: str, seed: int) -> str:
    """Create a hot-seat game over HTTP and play random moves until it ends."""
    seats = [
        {"kind": "human", "name": "Ana", "take": True},
        {"kind": "human", "name": "Ben", "take": True},
    ]
    game_id, tokens = create_game(server_url, seats, name=name)
    play_over_http(server_url, game_id, tokens, rng=random.Random(seed))
    return game_id


def test_a_finished_game_shows_the_winner_banner_the_ranking_and_replays(
    page: Any, server_url: str, screenshot: Any
) -> None:
    game_id = finished_game(server_url, "Replay me", seed=5)
    with httpx.Client(base_url=server_url) as http:
        record = http.get(f"/api/games/{game_id}/record").json()
    game = taluva.Game.from_record(record)
    headline, lines = game.result_in_words()
    assert re.fullmatch(r"(Ana|Ben) wins[: ].+|Ana and Ben share first place: .+", headline)
    page.goto(f"{server_url}/#/game/{game_id}")
    banner = page.locator(".result-banner[role='status'][aria-live='polite']")
    banner.locator(".headline").wait_for()
    assert banner.locator(".headline").inner_text() == headline
    assert banner.locator(".ranking li").all_inner_texts() == lines
    line_format = r"(1st|2nd) (Ana|Ben): \d+ temples?, \d+ towers?, \d+ huts? placed.*"
    assert all(re.fullmatch(line_format, line) for line in lines), lines
    assert status(page) == "Game over."
    for seat in (0, 1):
        placed, left = game.placed(seat), game.supply(seat)
        assert page.locator(".player .supply").nth(seat).locator("li").all_inner_texts() == [
            f"{label}: {placed[kind]} placed, {left[kind]} left"
            for kind, label in (("temples", "Temples"), ("towers", "Towers"), ("huts", "Huts"))
        ]
    assert "score" not in page.locator("body").inner_text().lower()
    screenshot(page, "07-finished")
    total = page.locator(".log .log-move").count()
    page.click("#replay-toggle")
    page.click("button[aria-label='First position']")
    page.wait_for_function("() => document.querySelectorAll('svg.board .hex').length === 0")
    page.click("button[aria-label='Next move']")
    page.wait_for_function("() => document.querySelectorAll('svg.board .hex').length === 3")
    assert page.locator(".replay-ply").inner_text().startswith(f"Move 1 of {total}: tile 0,0 ")
    assert banner.inner_text() == ""  # the game is not over one move in
    page.click("button[aria-label='Last position']")
    banner.locator(".headline").wait_for()
    assert banner.locator(".headline").inner_text() == headline
    with page.expect_download() as download:
        page.click("a[download]")
    assert download.value.suggested_filename == f"taluva-{game_id}.json"
    # A move of the log shows the position after it. (The log used to shrink to nothing in
    # this long side column, under the column itself, so it could not be clicked.)
    page.locator(".log .log-move").nth(1).click()
    page.wait_for_function("() => document.querySelectorAll('svg.board .hex').length === 3")
    assert page.locator(".replay-ply").inner_text().startswith(f"Move 2 of {total}: ")
    # Playing the replay move by move, then leaving it, stops the playing: the replay opened
    # again stands still and offers to play.
    play = page.locator(".replay-controls button[title='Play the game move by move']")
    play.click()
    page.wait_for_function(
        "() => document.querySelector('.replay-ply').textContent.startsWith('Move 3 ')"
    )
    assert play.inner_text() == "Pause"
    page.click("#replay-toggle")
    assert page.locator(".replay").is_hidden()
    page.click("#replay-toggle")
    assert play.inner_text() == "Play"
    shown = page.locator(".replay-ply").inner_text()
    page.wait_for_timeout(1000)
    assert page.locator(".replay-ply").inner_text() == shown


def test_the_winner_banner_shows_the_servers_words_as_text_once(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/")
    page.wait_for_selector(".create")
    shown = page.evaluate(
        """async () => {
            const { showResult } = await import("/static/js/panels.js");
            const banner = document.createElement("section");
            document.body.append(banner);
            const result = {
                headline: "<b>Ana</b> wins by placing every one of their temples and towers",
                lines: ["1st <b>Ana</b>: 3 temples, 2 towers, 9 huts placed",
                        "2nd Ben: 1 temple, 0 towers, 20 huts placed, eliminated"],
                places: [{ seat: 0, place: 1, name: "1st" }, { seat: 1, place: 2, name: "2nd" }],
            };
            showResult(banner, result, (seat) => ["red", "white"][seat]);
            const first = banner.querySelector(".headline");
            showResult(banner, { ...result });
            return {
                headline: banner.querySelector(".headline").textContent,
                lines: [...banner.querySelectorAll(".ranking li")].map((li) => li.textContent),
                markup: banner.querySelectorAll("b").length,
                rewritten: banner.querySelector(".headline") !== first,
            };
        }"""
    )
    assert shown == {
        "headline": "<b>Ana</b> wins by placing every one of their temples and towers",
        "lines": [
            "1st <b>Ana</b>: 3 temples, 2 towers, 9 huts placed",
            "2nd Ben: 1 temple, 0 towers, 20 huts placed, eliminated",
        ],
        "markup": 0,
        "rewritten": False,
    }


def test_names_with_markup_are_shown_as_text(page: Any, server_url: str) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    name = '<img src=x onerror="alert(1)">'
    seats = [{"kind": "human", "name": name}, {"kind": "ai", "level": 1}]
    game_id, _ = create_game(server_url, seats, name=name)
    page.goto(f"{server_url}/#/game/{game_id}")
    page.wait_for_selector(".game-title")
    page.wait_for_function("n => document.querySelector('.game-title').textContent === n", arg=name)
    assert page.locator(".side img").count() == 0
    page.goto(f"{server_url}/")
    page.wait_for_selector(".game-entry")
    assert page.locator(".lists img").count() == 0
    assert dialogs == []


def test_a_double_hex_tile_is_taken_from_the_panel_or_a_tile_drawn(
    page: Any, server_url: str, screenshot: Any
) -> None:
    human = {"kind": "human", "take": True}
    game_id, tokens = create_game(server_url, [human, human], expansions=["double_hex"])
    open_seated(page, server_url, game_id, tokens)
    wait_status(page, "draw a tile or take a double-hex tile")
    take = page.locator(".tile-panel button", has_text="Take").first
    take.click()
    wait_status(page, "place the double-hex tile")
    place_tile_by_clicking(page)
    build_by_clicking(page)
    wait_moves(page, 2)
    first = page.locator(".log .log-move").first
    assert first.get_attribute("data-move").startswith("double ")
    assert first.inner_text().startswith("Player 1 placed the double-hex tile ")
    wait_status(page, "draw a tile or take a double-hex tile")
    page.locator(".tile-panel button", has_text="Draw a tile").click()
    wait_status(page, "place the tile")
    screenshot(page, "08-drawn-after-double")
    place_tile_by_clicking(page)
    log = page.locator(".log .log-move").all()
    assert [m.get_attribute("data-move") for m in log][2] == "draw"
    assert log[2].inner_text() == "Player 2 drew a tile"
