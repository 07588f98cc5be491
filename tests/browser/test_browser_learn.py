"""A newcomer's first minute and first game: the lobby's "Learn to play" and "Play the
computer" above the fold on every screen size, and the lesson followed to the end by doing
only what its steps say (clicking the outlined hexes, turning the tile until the page says it
is the spot, choosing the build the step names), going on where it was after a reload, with
no serious accessibility finding, to a won game, then the computer in one click."""

from __future__ import annotations

from typing import Any

import httpx

from taluva.ai.levels import LEVELS
from taluva.engine.hexes import format_hex
from taluva.learn.tutorial import Step, load_tutorial

BUILD_LABELS = {
    "hut": "Found a settlement",
    "expand": "Expand into",
    "temple": "Build a temple",
    "tower": "Build a tower",
}
"""The build menu's words for the action each kind of step names."""

SCREENS = ((1440, 900, False), (768, 1024, False), (360, 740, True))


def click_outlined(page: Any, hex_text: str) -> None:
    """Click the centre of an outlined hex of the step."""
    target = page.locator(f".lesson-marks polygon[data-hex='{hex_text}']").last
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.click(x, y)


def follow(page: Any, step: Step) -> None:
    """Do what the step says: a tile's volcano on the hex it names, turned until the page says
    it is the spot, then placed; a build on its outlined hex, chosen in the menu, confirmed."""
    outlined = page.locator(".lesson-marks polygon").evaluate_all(
        "nodes => [...new Set(nodes.map(n => n.dataset.hex))]"
    )
    assert sorted(outlined) == sorted(format_hex(h) for h in step.highlight)
    if step.kind == "tile":
        click_outlined(page, format_hex(step.move.hex))
        for _ in range(6):
            if "That is the spot" in page.inner_text(".lesson-status"):
                break
            page.keyboard.press("r")
        assert page.locator(".lesson-marks.ready").count() == 1
        page.keyboard.press("Enter")
        return
    click_outlined(page, format_hex(step.highlight[0]))
    page.wait_for_selector(".build-menu[data-ready='true']")
    item = page.locator(".build-menu .menu-item", has_text=BUILD_LABELS[step.kind])
    if item.get_attribute("aria-pressed") != "true":
        item.click()
    assert "That is the build" in page.inner_text(".lesson-status")
    page.locator(".build-menu .confirm").click()


def test_a_newcomer_follows_learn_to_play_to_a_won_game_then_plays_the_computer(
    page: Any, server_url: str, screenshot: Any
) -> None:
    from axe_playwright_python.sync_playwright import Axe

    tutorial = load_tutorial()
    page.goto(server_url + "/")
    page.click("#learn-to-play")
    page.wait_for_selector("#start-lesson")
    assert tutorial.intro[0] in page.inner_text(".lesson-card")
    page.click("#start-lesson")
    for step in tutorial.steps:
        page.wait_for_selector(f".lesson-card h2[data-step='{step.id}']")
        if step.id == "raise":  # a reload goes on from the step reached
            page.reload()
            page.wait_for_selector(f".lesson-card h2[data-step='{step.id}']")
        page.wait_for_selector(".lesson-marks polygon")
        assert " ".join(step.why) in page.inner_text(".lesson-card")
        if step.number == 0:  # an illegal move typed: refused in the engine's words
            game = tutorial.position(0)
            page.fill("#move-input", "hut 0,0")
            page.press("#move-input", "Enter")
            page.wait_for_selector(".lesson-status.bad")
            assert page.inner_text(".lesson-status") == f"Not allowed: {game.explain('hut 0,0')}."
            screenshot(page, "learn-01-first-step")
            violations = Axe().run(page).response["violations"]
            grave = [v["id"] for v in violations if v["impact"] in ("serious", "critical")]
            assert grave == []
        if step.id == "temple":  # another legal build: answered in one line, not played
            page.locator(".lesson-marks polygon").last.scroll_into_view_if_needed()
            click_outlined(page, format_hex(step.highlight[0]))
            page.wait_for_selector(".build-menu[data-ready='true']")
            page.locator(".build-menu .menu-item", has_text="Expand into").click()
            page.locator(".build-menu .confirm").click()
            page.wait_for_selector(".lesson-status.other")
            assert page.inner_text(".lesson-status") == step.other
        follow(page, step)
    page.wait_for_selector("#play-computer")
    headline = page.inner_text(".result-banner .headline")
    assert headline == tutorial.position(len(tutorial.steps)).result_in_words()[0]
    assert "eliminated" in page.inner_text(".result-banner")
    screenshot(page, "learn-02-won")
    page.click("#play-computer")
    page.wait_for_function("() => location.hash.startsWith('#/game/')")
    game_id = page.evaluate("location.hash").split("/")[-1]
    page.wait_for_selector("svg.board")
    game = httpx.get(f"{server_url}/api/games/{game_id}").json()["game"]
    assert game["rated"] is False
    assert [(p["kind"], p["level"]) for p in game["players"]] == [
        ("human", None),
        ("ai", min(LEVELS)),
    ]
    page.goto(server_url + "/")  # this browser has won the lesson: playing comes first now
    page.wait_for_selector(".first-game.done #play-computer.primary")
    assert page.locator("#learn-to-play.learn-again").count() == 1


def test_a_first_visit_shows_learn_to_play_and_play_the_computer_above_the_fold(
    people: Any, server_url: str
) -> None:
    for width, height, phone in SCREENS:
        page = people.open(width, height, phone=phone)
        page.goto(server_url + "/")
        page.wait_for_selector("#play-computer")
        assert page.locator(".first-game.done").count() == 0
        for selector in (".first-game h2", ".first-game p", "#learn-to-play", "#play-computer"):
            box = page.locator(selector).first.bounding_box()
            assert box is not None and box["y"] >= 0, (width, selector)
            assert box["y"] + box["height"] <= height, f"{selector} below the fold at {width}"
        if phone:  # the step and the board where it happens share a phone's first screen
            page.click("#learn-to-play")
            page.click("#start-lesson")
            page.wait_for_selector(".lesson-marks polygon")
            for selector in (".lesson-card h2", ".lesson-marks polygon"):
                box = page.locator(selector).last.bounding_box()
                assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height
            page.goto(server_url + "/")
            page.click("#play-computer")  # one click: a casual game against the first level
            page.wait_for_function("() => location.hash.startsWith('#/game/')")
            page.locator(".player .tag", has_text=f"AI {min(LEVELS)}").first.wait_for()
