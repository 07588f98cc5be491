"""How to play in Chromium: the page reached from the header shows every section of the guide
with its pictures, each drawn by the game's own board (still, with the marks of the move it
shows) from a position the engine replayed, which tests/test_guide.py checks picture by
picture, and passes the accessibility audit; in a game, the "?" beside each build action and
after a refusal lead to the rule's section."""

from __future__ import annotations

from typing import Any

from taluva.learn.guide import load_guide

from .people import People, create_game, open_seated, play_over_http
from .test_browser_play import centre_of, wait_status

# Every picture scrolled to in turn (drawn when near the screen), and what its board then holds:
# its island's hexes, the marks of the move it shows, whether anything in it may take the
# focus, and its caption. One call: a round trip for each of them would be slow.
PICTURES_SEEN = """async () => {
  const seen = {};
  for (const figure of document.querySelectorAll('.rule-picture')) {
    figure.scrollIntoView({ block: 'center' });
    const host = figure.querySelector('.rule-board');
    for (let frame = 0; frame < 300 && host.dataset.drawn === 'no'; frame += 1) {
      await new Promise((done) => requestAnimationFrame(done));
    }
    const svg = host.querySelector('svg.board');
    const count = (selector) => (svg ? svg.querySelectorAll(selector).length : 0);
    const illegal = svg?.taluvaBoard.style.illegal;
    const red = svg ? [...svg.querySelectorAll('.ghost polygon, .refused-mark polygon')]
      .filter((n) => n.getAttribute('stroke') === illegal && n.getAttribute('stroke-dasharray'))
      .length : 0;
    seen[figure.dataset.picture] = {
      drawn: host.dataset.drawn,
      label: `${host.getAttribute('role')}: ${host.getAttribute('aria-label')}`,
      hexes: count('.island .hex'),
      yellow: count('.marks polygon'),
      ghost: count('.ghost .ghost-tile .ghost-hex'),
      pieces: count('.ghost .piece'),
      red,
      focusable: figure.querySelectorAll('[tabindex], a, button').length,
      hidden: svg?.getAttribute('aria-hidden'),
      caption: figure.querySelector('figcaption').innerText,
    };
  }
  return seen;
}"""


def test_how_to_play_draws_every_picture_on_the_board_still_and_passes_the_audit(
    people: People, server_url: str
) -> None:
    from axe_playwright_python.sync_playwright import Axe

    guide = load_guide()
    page = people.open()
    page.goto(server_url + "/")
    page.click("header .rules-nav")
    page.wait_for_selector(".rule-picture .rule-board")
    assert page.evaluate("location.hash") == "#/rules"
    shown = page.locator(".rule").evaluate_all("nodes => nodes.map(n => n.dataset.section)")
    assert shown == list(guide.ids)
    figures = page.locator(".rule-picture").evaluate_all(
        "nodes => nodes.map(n => n.dataset.picture)"
    )
    assert figures == [picture.id for section in guide.sections for picture in section.pictures]
    # The pictures far down are drawn only once scrolled near.
    assert page.locator(".rule-board[data-drawn='no']").count() > 0
    seen = page.evaluate(PICTURES_SEEN)
    for section in guide.sections:
        for picture in section.pictures:
            facts = seen[picture.id]
            drawing = picture.draw()
            marks = picture.marks()
            assert facts["drawn"] == "board", picture.id
            assert facts["label"] == f"img: {picture.alt}"
            assert facts["hexes"] == len(drawing.game.heights()), picture.id
            assert facts["focusable"] == 0 and facts["hidden"] == "true"
            if picture.refused is None:
                assert facts["yellow"] == len(marks["marked"]) and facts["red"] == 0, picture.id
            elif marks["tile"]:
                assert facts["ghost"] == len(marks["tile"]) and facts["red"] > 0, picture.id
            else:
                assert facts["pieces"] > 0 and facts["red"] == len(marks["marked"]), picture.id
            assert (drawing.refusal is not None) == ("The rules refuse" in facts["caption"])
            if drawing.refusal is not None:
                assert drawing.refusal in facts["caption"], picture.id
    # A picture is still: the wheel over it scrolls the page and leaves its view as it was.
    board = page.locator("[data-picture='eruption-1'] svg.board")
    board.scroll_into_view_if_needed()
    view = board.get_attribute("viewBox")
    scrolled = page.evaluate("scrollY")
    box = board.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, 300)
    page.wait_for_function("y => scrollY !== y", arg=scrolled)
    assert board.get_attribute("viewBox") == view
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
