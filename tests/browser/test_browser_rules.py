"""How to play in Chromium: the page reached from the header shows every section of the guide
with its pictures (each drawn by the server from a position the engine replayed, which
tests/test_guide.py checks picture by picture) and passes the accessibility audit; in a game,
the "?" beside each build action and after a refusal lead to the rule's section."""

from __future__ import annotations

from typing import Any

from taluva.learn.guide import load_guide

from .people import People, create_game, open_seated, play_over_http
from .test_browser_play import centre_of, wait_status


def test_how_to_play_shows_every_section_with_its_pictures_and_passes_the_audit(
    people: People, server_url: str
) -> None:
    from axe_playwright_python.sync_playwright import Axe

    guide = load_guide()
    page = people.open()
    page.goto(server_url + "/")
    page.click("header .rules-nav")
    page.wait_for_selector(".rule-picture img")
    assert page.evaluate("location.hash") == "#/rules"
    shown = page.locator(".rule").evaluate_all("nodes => nodes.map(n => n.dataset.section)")
    assert shown == list(guide.ids)
    figures = page.locator(".rule-picture").evaluate_all(
        "nodes => nodes.map(n => n.dataset.picture)"
    )
    assert figures == [picture.id for section in guide.sections for picture in section.pictures]
    # Every picture is the server's drawing, loaded (the lazy ones too, once scrolled to).
    page.locator(".rule-picture img").evaluate_all(
        "imgs => imgs.forEach(i => (i.loading = 'eager'))"
    )
    page.wait_for_function(
        "() => [...document.querySelectorAll('.rule-picture img')]"
        ".every(i => i.complete && i.naturalWidth > 0)"
    )
    for section in guide.sections:
        for picture in section.pictures:
            caption = page.locator(f"[data-picture='{picture.id}'] figcaption").inner_text()
            refusal = picture.draw().refusal
            assert (refusal is not None) == ("The rules refuse" in caption), picture.id
            if refusal is not None:
                assert refusal in caption
    violations = Axe().run(page).response["violations"]
    assert [v["id"] for v in violations if v["impact"] in ("serious", "critical")] == []


def test_in_a_game_the_question_marks_lead_to_the_rules_of_the_builds_and_the_refusals(
    people: People, server_url: str
) -> None:
    human = {"kind": "human", "take": True}
    game_id, tokens = create_game(server_url, [human, human], expansions=["ships"])
    play_over_http(server_url, game_id, tokens, moves=1)
    page = people.open()
    open_seated(page, server_url, game_id, tokens)
    wait_status(page, "build")
    assert page.locator(".rules-button").get_attribute("href") == "#/rules?with=ships"
    # A hex where nothing may be built: the refusal, and a "?" to its rule.
    page.mouse.move(*centre_of(page.locator('.hex[data-hex="0,0"] polygon.top')))
    page.wait_for_selector(".tooltip.bad .rule-link")
    assert page.locator(".tooltip").inner_text().startswith("Not here: ")
    assert page.locator(".tooltip .rule-link").get_attribute("href") == "#/rules/for/hut"
    # A typed move the server refuses: its reason, and a "?" to its rule.
    page.fill("#move-input", "temple 0,0")
    page.press("#move-input", "Enter")
    page.wait_for_function(
        "() => document.querySelector('.tooltip').textContent.startsWith('Not played: temple 0,0')"
    )
    assert page.locator(".tooltip .rule-link").get_attribute("href") == "#/rules/for/temple"
    # The build menu: a "?" beside each action, to the section on that kind of build.
    page.focus("svg.board")
    page.keyboard.press("Enter")
    page.wait_for_selector(".build-menu[data-ready='true'] .menu-entry .rule-link")
    entries = page.locator(".build-menu .menu-entry").evaluate_all(
        "nodes => nodes.map(n => [n.querySelector('.menu-item').dataset.move,"
        " n.querySelector('.rule-link').getAttribute('href')])"
    )
    assert entries and all(href == f"#/rules/for/{move.split()[0]}" for move, href in entries)
    with page.context.expect_page() as opened:
        page.locator(".build-menu .rule-link").first.click()
    rules: Any = opened.value
    rules.wait_for_function("() => document.activeElement?.id === 'rule-found-title'")
    assert rules.evaluate("document.body.dataset.page") == "rules"
    # The game's own page stays as it was, its build menu open.
    assert page.locator(".build-menu .menu-entry").count() == len(entries)
