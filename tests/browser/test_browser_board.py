"""The board in Chromium: screenshots against reference images at three screen sizes, the
accessibility audit (axe-core), the camera, the previews, the log in words, the animations,
and a whole game against the AI played by tapping on a phone.

The positions are fixed games (``positions.py``) stored before the server starts, so every
run draws the same pixels. Set ``TALUVA_UPDATE_SCREENSHOTS=1`` to write the reference images
again (then look at them before committing them); a failed comparison leaves the new image
and a difference image in ``$TALUVA_SCREENSHOTS`` (or the temporary folder) to look at.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops
from test_server_support import free_port, start_server

from taluva import Game
from taluva.engine.moves import EXPAND

from .positions import Position, seed_positions, token_of

TIMEOUT_MS = 15000
REFERENCES = Path(__file__).resolve().parent / "screenshots"
SIZES = {"phone": (360, 740), "tablet": (768, 1024), "desktop": (1440, 900)}
PIXEL_TOLERANCE = 24
"""A pixel differs when one of its channels differs by more than this (anti-aliasing moves)."""
DIFFERING_SHARE = 0.004
"""At most this share of the pixels may differ."""


@pytest.fixture(scope="module")
def positions() -> Iterator[tuple[str, dict[str, Position]]]:
    """A server on a database holding the fixed positions: its URL and the positions."""
    folder = Path(tempfile.mkdtemp(prefix="taluva-board-"))
    database = f"sqlite:///{folder / 'games.sqlite3'}"
    stored = seed_positions(database)
    port = free_port()
    process = start_server(database, port)
    try:
        yield f"http://127.0.0.1:{port}", stored
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def open_position(
    browser: Any, url: str, game_id: str, size: str, *, motion: bool = False, seat: int = 0
) -> tuple[Any, Any]:
    """A page showing a stored position as the player of ``seat``, at one of SIZES."""
    width, height = SIZES[size]
    phone = size == "phone"
    context = browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=phone,
        has_touch=phone,
        reduced_motion="no-preference" if motion else "reduce",
    )
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(url + "/")
    page.evaluate(
        "t => localStorage.setItem('taluva.tokens', JSON.stringify(t))",
        {game_id: {str(seat): token_of(game_id, seat)}},
    )
    page.goto(f"{url}/#/game/{game_id}")
    page.wait_for_selector("svg.board .hex")
    page.wait_for_function("() => document.querySelector('.connection.connected')")
    page.evaluate("document.fonts.ready")
    return context, page


def compare_with_reference(page: Any, name: str) -> None:
    """The page's screenshot matches the reference image within the tolerances."""
    shot = Path(tempfile.mkdtemp(prefix="taluva-shot-")) / f"{name}.png"
    # The board's column (result banner, toolbar, island, build sheet, hint line), as far as
    # the screen shows it: the side panel holds other areas' controls too, whose texts the
    # browser tests check (a change of layout changes the picture's size, and it says so).
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    box = page.locator(".board-wrap").bounding_box()
    assert box is not None
    bottom = min(box["y"] + box["height"], height)
    clip = {
        "x": box["x"],
        "y": box["y"],
        "width": min(box["width"], width),
        "height": bottom - box["y"],
    }
    page.screenshot(path=str(shot), animations="disabled", caret="hide", clip=clip)
    reference = REFERENCES / f"{name}.png"
    if os.environ.get("TALUVA_UPDATE_SCREENSHOTS"):
        REFERENCES.mkdir(parents=True, exist_ok=True)
        Image.open(shot).save(reference, optimize=True)
    assert reference.exists(), f"no reference {reference}: run with TALUVA_UPDATE_SCREENSHOTS=1"
    actual = Image.open(shot).convert("RGB")
    expected = Image.open(reference).convert("RGB")
    assert actual.size == expected.size, f"{name}: {actual.size} against {expected.size}"
    difference = ImageChops.difference(actual, expected)
    channels = difference.split()
    mask = channels[0].point(lambda v: 255 if v > PIXEL_TOLERANCE else 0)
    for channel in channels[1:]:
        mask = ImageChops.lighter(mask, channel.point(lambda v: 255 if v > PIXEL_TOLERANCE else 0))
    differing = mask.histogram()[255]
    share = differing / (actual.size[0] * actual.size[1])
    if share > DIFFERING_SHARE:
        out = Path(os.environ.get("TALUVA_SCREENSHOTS") or tempfile.mkdtemp(prefix="taluva-diff-"))
        out.mkdir(parents=True, exist_ok=True)
        actual.save(out / f"{name}.actual.png")
        mask.save(out / f"{name}.diff.png")
        pytest.fail(f"{name}: {share:.2%} of the pixels differ (images in {out})")


def centre_of(locator: Any) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def tappable(page: Any, selector: str) -> tuple[float, float, str]:
    """The centre of the first element of ``selector`` that is on screen and not covered,
    and its hex."""
    found = page.evaluate(
        """selector => {
            for (const node of document.querySelectorAll(selector)) {
                const box = node.getBoundingClientRect();
                const x = box.x + box.width / 2;
                const y = box.y + box.height / 2;
                if (document.elementFromPoint(x, y) === node) return [x, y, node.dataset.hex];
            }
            return null;
        }""",
        selector,
    )
    assert found is not None, f"nothing of {selector} can be tapped"
    return found[0], found[1], found[2]


def tap_a_spot_until_placeable(page: Any, tries: int = 3) -> str:
    """Tap a legal tile spot until the tile may be placed there, as a person taps again when
    a tap did not take; the hex of the spot. Fails, saying what the page shows, if none
    takes in ``tries`` taps."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    for _ in range(tries):
        x, y, hex_ = tappable(page, ".marks .spot")
        page.touchscreen.tap(x, y)
        try:
            page.wait_for_selector("#place:enabled", timeout=TIMEOUT_MS / tries)
            return hex_
        except PlaywrightTimeoutError:
            continue
    status = page.locator(".status-line").inner_text()
    raise AssertionError(f"no tap on a spot made the tile placeable; the page says {status!r}")


def open_build_sheet(page: Any, hex_: str) -> None:
    """Tap the highlighted hex ``hex_`` and choose its expansion (its preview shows)."""
    target = page.locator(f'.marks polygon[fill^="rgba(0,229,255"][data-hex="{hex_}"]')
    page.touchscreen.tap(*centre_of(target))
    page.wait_for_selector(".build-menu[data-ready='true']")
    page.wait_for_function(
        "h => document.querySelector('.menu-title')?.textContent === 'Hex ' + h", arg=hex_
    )
    expand = page.locator(".build-menu .menu-item[data-move^='expand']").first
    if expand.get_attribute("aria-pressed") != "true":
        expand.click()
    page.wait_for_selector(".ghost .piece")


def widest_expansion(game: Game) -> tuple[str, list[str]]:
    """The expansion that adds most huts: the hex to tap and every hex it covers."""
    best = max(
        (m for m in game.legal_moves() if m.kind == EXPAND),
        key=lambda m: (len(str(m).split()), str(m)),
    )
    hexes = str(best).split()[2:]
    return hexes[0], hexes


# ---------------------------------------------------------------------- screenshots

SCENES = (
    [("island", "island3", size) for size in SIZES]
    + [("zone", "zone", size) for size in SIZES]
    + [("end", "finished", size) for size in SIZES]
)


@pytest.mark.parametrize(("scene", "game_id", "size"), SCENES)
def test_the_board_looks_like_its_reference_image(
    browser: Any, positions: tuple[str, dict[str, Position]], scene: str, game_id: str, size: str
) -> None:
    url, stored = positions
    context, page = open_position(browser, url, game_id, size)
    try:
        hexes = len(stored[scene if scene != "end" else "finished"].game.land())
        assert page.locator("svg.board .hex").count() == hexes
        assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size][0]
        if scene == "end":
            page.locator(".result-banner .headline").wait_for()
        if scene == "zone":
            assert page.locator(".zone .zone-line").count() == 1
        compare_with_reference(page, f"{scene}-{size}")
        assert page.errors == []
    finally:
        context.close()


def test_the_build_sheet_on_a_phone_looks_like_its_reference_and_hides_nothing_chosen(
    browser: Any, positions: tuple[str, dict[str, Position]]
) -> None:
    url, stored = positions
    context, page = open_position(browser, url, "build", "phone")
    try:
        tapped, covered = widest_expansion(stored["build"].game)
        open_build_sheet(page, tapped)
        sheet = page.locator(".build-menu").bounding_box()
        assert sheet is not None
        assert sheet["height"] < SIZES["phone"][1] / 3
        for hex_ in {tapped, *covered}:
            box = page.locator(f'.ghost polygon[data-hex="{hex_}"]').bounding_box()
            assert box is not None
            assert box["y"] + box["height"] <= sheet["y"], f"{hex_} is under the build sheet"
            assert box["y"] >= page.locator("svg.board").bounding_box()["y"]
        assert page.evaluate("document.documentElement.scrollWidth") <= SIZES["phone"][0]
        compare_with_reference(page, "build-sheet-phone")
    finally:
        context.close()


# ---------------------------------------------------------------------- accessibility


@pytest.mark.parametrize(("game_id", "size"), [("island3", "desktop"), ("build", "phone")])
def test_the_game_page_has_no_serious_or_critical_accessibility_findings(
    browser: Any, positions: tuple[str, dict[str, Position]], game_id: str, size: str
) -> None:
    from axe_playwright_python.sync_playwright import Axe

    url, stored = positions
    context, page = open_position(browser, url, game_id, size)
    try:
        if game_id == "build":
            open_build_sheet(page, widest_expansion(stored["build"].game)[0])
        results = Axe().run(page)
        assert results.response["testEngine"]["name"] == "axe-core"
        grave = [
            (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
            for v in results.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert grave == []
    finally:
        context.close()


def test_the_lobby_has_no_serious_or_critical_accessibility_findings(
    browser: Any, positions: tuple[str, dict[str, Position]]
) -> None:
    from axe_playwright_python.sync_playwright import Axe

    url, _ = positions
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    try:
        page.goto(url + "/")
        page.wait_for_selector(".game-entry")
        violations = Axe().run(page).response["violations"]
        assert [v["id"] for v in violations if v["impact"] in ("serious", "critical")] == []
    finally:
        context.close()


def run_on_site(browser: Any, server_url: str, script: str) -> Any:
    """What ``script`` (a function in JavaScript) returns on the site's start page, which
    lets it import the client's modules."""
    page = browser.new_page()
    try:
        page.goto(server_url + "/")
        return page.evaluate(script)
    finally:
        page.close()


def test_every_level_digit_and_terrain_letter_is_drawn_as_strokes_centred_on_its_place(
    browser: Any, server_url: str
) -> None:
    found = run_on_site(
        browser,
        server_url,
        """async () => {
                const { glyphPath } = await import("/static/js/glyphs.js");
                const { TERRAIN_LETTERS } = await import("/static/js/hex.js");
                // The points a path visits, its relative steps (m, l) added up.
                const visited = (d) => {
                    const at = [];
                    let [x, y] = [0, 0];
                    for (const [, c, a, b] of d.matchAll(/([MmLl])(-?[0-9.]+),(-?[0-9.]+)/g)) {
                        [x, y] = c === c.toUpperCase() ? [+a, +b] : [x + +a, y + +b];
                        at.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
                    }
                    return at;
                };
                const out = {};
                for (const c of "0123456789" + TERRAIN_LETTERS) {
                    const d = glyphPath(c, 100, 50, 1);
                    const at = visited(d);
                    const xs = at.map(p => p[0]);
                    const ys = at.map(p => p[1]);
                    out[c] = [d.length, Math.min(...xs), Math.max(...xs),
                              Math.min(...ys), Math.max(...ys)];
                }
                const two = visited(glyphPath("12", 100, 50, 1)).map(p => p[0]);
                return [out, Math.min(...two), Math.max(...two), glyphPath("?", 0, 0, 1)];
            }""",
    )
    strokes, left, right, unknown = found
    for character, (length, x0, x1, y0, y1) in strokes.items():
        assert length > 0, character
        assert x0 >= 98 and x1 <= 102, (character, x0, x1)  # 4 units wide around x = 100
        assert y0 >= 47 and y1 <= 53, (character, y0, y1)  # 6 units high around y = 50
    # "12": cells at 95.25-99.25 and 100.75-104.75 (9.5 units centred on 100); the "1" starts
    # 0.8 into its cell, the "2" fills its own (written to one decimal).
    assert left == pytest.approx(96.0, abs=0.06) and right == pytest.approx(104.75, abs=0.06)
    assert unknown == ""


def test_markup_layers_keep_text_and_attribute_values_as_text(
    browser: Any, server_url: str
) -> None:
    found = run_on_site(
        browser,
        server_url,
        """async () => {
                const { Markup, el, fill } = await import("/static/js/pieces.js");
                const layer = document.createElementNS("http://www.w3.org/2000/svg", "g");
                const markup = new Markup();
                const hostile = '<image href="x" onerror="window.pwned = 1"/>&amp;"';
                el("text", { "data-name": hostile }, markup).textContent = hostile;
                fill(layer, markup);
                const text = layer.firstChild;
                return [layer.childNodes.length, text.tagName, text.textContent,
                        text.getAttribute("data-name"), layer.querySelectorAll("image").length,
                        window.pwned === undefined];
            }""",
    )
    hostile = '<image href="x" onerror="window.pwned = 1"/>&amp;"'
    assert found == [1, "text", hostile, hostile, 0, True]


# ---------------------------------------------------------------------- camera and previews


def view_box(page: Any) -> list[float]:
    return [float(v) for v in page.locator("svg.board").get_attribute("viewBox").split()]


def test_the_view_turns_zooms_and_pans_by_keyboard_and_hexes_stay_where_they_are_drawn(
    browser: Any, positions: tuple[str, dict[str, Position]]
) -> None:
    url, _ = positions
    context, page = open_position(browser, url, "island-turn", "desktop")
    try:
        page.focus("svg.board")
        top = page.locator('.hex[data-hex="0,0"] polygon.top')
        before = top.get_attribute("points")
        page.keyboard.press("]")
        assert top.get_attribute("points") != before
        for _ in range(5):
            page.keyboard.press("]")
        assert top.get_attribute("points") == before  # six sixths make a whole turn
        page.keyboard.press("[")
        box = view_box(page)
        page.keyboard.press("Shift+ArrowRight")
        moved = view_box(page)
        assert moved[0] > box[0] and moved[1:] == box[1:]
        page.keyboard.press("+")
        assert view_box(page)[2] < moved[2]
        # The tile follows the pointer on the turned board: a legal spot is where it is drawn.
        x, y = centre_of(page.locator(".marks .spot").first)
        page.mouse.move(x, y)
        page.wait_for_selector(".ghost polygon[stroke='#00e676']")
        page.mouse.click(x, y)
        page.mouse.click(x, y)
        page.wait_for_function(
            "() => document.querySelector('.status-line').textContent.includes('build')"
        )
        assert page.errors == []
    finally:
        context.close()


def test_an_eruption_shows_the_huts_it_would_bury_before_it_is_placed(
    browser: Any, positions: tuple[str, dict[str, Position]]
) -> None:
    url, stored = positions
    game = stored["island"].game
    eruption, buried = next(
        (text, lost)
        for text in sorted(str(m) for m in game.legal_moves())
        if text.startswith("tile ") and (lost := huts_lost(game, text))
    )
    hex_, k = eruption.split()[1], int(eruption.split()[2])
    context, page = open_position(browser, url, "island-erupt", "desktop")
    try:
        page.focus("svg.board")
        for _ in range(k):
            page.keyboard.press("r")
        page.mouse.move(*centre_of(page.locator(f'.hex[data-hex="{hex_}"] polygon.top')))
        page.wait_for_selector(".ghost .buried")
        names = {0: "Ana", 1: "Ben"}
        expected = " and ".join(
            f"{n} hut{'s' if n > 1 else ''} of {names[seat]}" for seat, n in buried.items()
        )
        page.wait_for_function(
            "t => document.querySelector('.tooltip').textContent.includes(t)",
            arg=f"{eruption}: legal \u2013 destroys {expected}",
        )
        assert page.locator(".ghost .buried").count() == sum(
            1 for _ in buried_hexes(game, eruption)
        )
    finally:
        context.close()


def test_a_touch_beside_a_tile_spot_takes_that_spot(
    browser: Any, positions: tuple[str, dict[str, Position]]
) -> None:
    """A finger that lands just off a spot's dot, on another hex's face, takes the spot."""
    context, page = open_position(browser, positions[0], "island-erupt", "phone")
    try:
        found = page.evaluate(
            """() => {
                const spots = [...document.querySelectorAll('.marks .spot')];
                const centre = (node) => {
                    const box = node.getBoundingClientRect();
                    return [box.x + box.width / 2, box.y + box.height / 2];
                };
                const away = (node, px, py) => {
                    const [x, y] = centre(node);
                    return Math.hypot(x - px, y - py);
                };
                for (const spot of spots) {
                    const [x, y] = centre(spot);
                    for (let turn = 0; turn < 16; turn += 1) {
                        const angle = (turn * Math.PI) / 8;
                        const [px, py] = [x + 12 * Math.cos(angle), y + 12 * Math.sin(angle)];
                        const hit = document.elementFromPoint(px, py);
                        const face = hit?.matches('polygon.top') ? hit.closest('.hex') : null;
                        if (!face || face.dataset.hex === spot.dataset.hex) continue;
                        if (spots.every((other) => away(spot, px, py) <= away(other, px, py))) {
                            return [px, py, spot.dataset.hex, face.dataset.hex];
                        }
                    }
                }
                return null;
            }"""
        )
        assert found is not None, "no spot with another hex's top 12 px beside it"
        x, y, hex_, other = found
        page.touchscreen.tap(x, y)
        page.wait_for_selector("#place:enabled")
        page.wait_for_function(
            "h => document.querySelector('.tooltip').textContent.startsWith('tile ' + h + ' ')",
            arg=hex_,
        )
        assert other != hex_
        assert page.errors == []
    finally:
        context.close()


def huts_lost(game: Game, text: str) -> dict[int, int]:
    """Huts each seat loses if ``text`` is played (the engine's count of destroyed huts)."""
    trial = game.copy()
    trial.play(text)
    lost = {s: trial.destroyed_huts(s) - game.destroyed_huts(s) for s in range(2)}
    return {s: n for s, n in lost.items() if n}


def buried_hexes(game: Game, text: str) -> Iterator[int]:
    trial = game.copy()
    trial.play(text)
    for hex_ in game.buildings():
        if hex_ not in trial.buildings():
            yield hex_


def test_the_log_tells_each_move_in_words_with_the_notation_on_hover(
    browser: Any, positions: tuple[str, dict[str, Position]]
) -> None:
    url, stored = positions
    game = stored["finished"].game
    replay = Game.new(players=["Ana", "Ben"], deck=game.to_record()["deck"])
    eruptions: dict[int, str] = {}
    for ply, move in enumerate(game.moves):
        text = str(move)
        lost = huts_lost(replay, text) if text.startswith("tile ") else {}
        if lost:
            names = {0: "Ana", 1: "Ben"}
            victims = " and ".join(
                f"{n} hut{'s' if n > 1 else ''} of {names[s]}" for s, n in lost.items()
            )
            eruptions[ply] = f"destroying {victims}"
        replay.play(text)
    assert eruptions, "the fixed game has eruptions that bury huts"
    context, page = open_position(browser, url, "finished", "desktop")
    try:
        moves = page.locator(".log .log-move")
        assert moves.count() == len(game.moves)
        for ply, words in eruptions.items():
            entry = moves.nth(ply)
            assert entry.get_attribute("data-move") == str(game.moves[ply])
            said = entry.inner_text()
            assert " erupted at " in said and said.endswith(words), said
            assert str(game.moves[ply]) in entry.get_attribute("title")
        entry = moves.nth(0)
        assert entry.locator(".notation").is_hidden()
        entry.hover()
        assert entry.locator(".notation").inner_text() == str(game.moves[0])
    finally:
        context.close()


def test_the_log_counts_each_expansions_huts_as_the_engine_placed_them(
    browser: Any, positions: tuple[str, dict[str, Position]]
) -> None:
    """The huts of an expansion come from the server's ``effects``: the supply the engine took."""
    url, stored = positions
    game = stored["finished"].game
    replay = Game.new(players=["Ana", "Ben"], deck=game.to_record()["deck"])
    expected: dict[int, str] = {}
    for ply, move in enumerate(game.moves):
        seat, huts = replay.to_move, replay.supply(replay.to_move)["huts"]
        replay.play(move)
        if move.kind == EXPAND:
            placed = huts - replay.supply(seat)["huts"]
            count = len(move.hexes)
            expected[ply] = (
                f"{('Ana', 'Ben')[seat]} expanded into {str(move).split()[1]}: "
                f"{placed} hut{'s' if placed > 1 else ''} on {count} hex{'es' if count > 1 else ''}"
            )
    assert any("huts on 1 hex" in words for words in expected.values()), "a level above 1"
    context, page = open_position(browser, url, "finished", "desktop")
    try:
        moves = page.locator(".log .log-move")
        for ply, words in expected.items():
            assert moves.nth(ply).inner_text().startswith(words)
        assert page.errors == []
    finally:
        context.close()


def test_a_move_played_elsewhere_is_announced_in_words(
    browser: Any, positions: tuple[str, dict[str, Position]]
) -> None:
    """Ana's eruption, sent by another of her devices, buries a hut of each seat (said in the
    order of the hexes it covers), and her expansion then fills a level-2 hex with 2 huts."""
    url, _ = positions
    context, page = open_position(browser, url, "island-say", "desktop")
    try:
        plies = 36
        for move, words in [
            (
                "tile 0,0 1",
                "Ana erupted at 0,0, raising it to level 2, "
                "destroying 1 hut of Ben and 1 hut of Ana",
            ),
            ("expand jungle 3,-2", "Ana expanded into jungle: 2 huts on 1 hex"),
        ]:
            answer = context.request.post(
                f"{url}/api/games/island-say/moves",
                data={"state": plies, "move": move},
                headers={"authorization": f"Bearer {token_of('island-say', 0)}"},
            )
            assert answer.ok, answer.text()
            plies += 1
            page.wait_for_function(
                "t => document.querySelector('.tooltip').textContent === t", arg=words
            )
            assert page.locator(".log .log-move").nth(plies - 1).inner_text().startswith(words)
        assert page.errors == []
    finally:
        context.close()


def test_a_move_animates_unless_reduced_motion_and_a_key_skips_it(
    browser: Any, positions: tuple[str, dict[str, Position]]
) -> None:
    url, _ = positions
    for motion in (True, False):
        game_id = "zone-motion" if motion else "zone-still"
        context, page = open_position(browser, url, game_id, "tablet", motion=motion)
        try:
            page.evaluate(
                """() => { window.animated = 0; const seen = () => {
                    window.animated = Math.max(window.animated, document.getAnimations().length);
                    requestAnimationFrame(seen); }; seen(); }"""
            )
            x, y = centre_of(page.locator(".marks .spot").first)
            page.mouse.click(x, y)
            page.mouse.click(x, y)
            page.wait_for_function(
                "() => document.querySelector('.status-line').textContent.includes('build')"
            )
            if motion:
                page.wait_for_function("() => window.animated > 0")
                page.focus("svg.board")
                page.keyboard.press("Shift")
                assert page.evaluate("document.getAnimations().length") == 0
            else:
                page.wait_for_timeout(400)
                assert page.evaluate("window.animated") == 0
            # Only the hexes the move changed were drawn again, and that is the whole picture.
            redrawn = page.evaluate(
                """() => { const board = document.querySelector('svg.board').taluvaBoard;
                    const drawn = board.islandLayer.innerHTML;
                    board.draw();
                    return [board.redrawn, drawn === board.islandLayer.innerHTML]; }"""
            )
            assert redrawn == ["changed hexes", True]
        finally:
            context.close()


# ---------------------------------------------------------------------- a whole game


def test_a_whole_game_against_the_ai_is_played_by_tapping_on_a_phone(
    browser: Any, server_url: str
) -> None:
    context = browser.new_context(
        viewport={"width": 360, "height": 740},
        is_mobile=True,
        has_touch=True,
        reduced_motion="reduce",
    )
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(server_url + "/")
        page.locator(".seat-kind").nth(1).select_option("ai:1")
        page.locator("#create").tap()
        page.wait_for_selector("svg.board")
        turns = 0
        while True:
            page.wait_for_function(
                """() => document.querySelector('.result-banner .headline')
                    || /Your turn/.test(document.querySelector('.status-line').textContent)"""
            )
            if page.locator(".result-banner .headline").count():
                break
            if "place the tile" in page.locator(".status-line").inner_text():
                hex_ = tap_a_spot_until_placeable(page)
                x, y, _ = tappable(page, f'.marks .spot[data-hex="{hex_}"]')
                page.touchscreen.tap(x, y)
                page.wait_for_function(
                    "() => !/place the tile/.test("
                    "document.querySelector('.status-line').textContent)"
                )
                turns += 1
            else:
                x, y, _ = tappable(page, ".marks .targets polygon")
                page.touchscreen.tap(x, y)
                page.wait_for_selector(".build-menu[data-ready='true']")
                first = page.locator(".build-menu .menu-item").first
                if first.get_attribute("aria-pressed") != "true":
                    first.tap()
                page.locator(".build-menu .confirm").tap()
                page.wait_for_function(
                    "() => !/Your turn: build/.test("
                    "document.querySelector('.status-line').textContent)"
                )
        assert turns >= 1
        assert page.locator(".status-line").inner_text() == "Game over."
        assert page.locator(".result-banner .ranking li").count() == 2
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        assert errors == []
    finally:
        context.close()


def test_the_lobby_leaderboard_and_sign_up_fit_a_phone_without_scrolling_sideways(
    browser: Any, server_url: str
) -> None:
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
    )
    wide = "() => document.documentElement.scrollWidth"
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server_url + "/")
        page.wait_for_selector("form.create select")
        assert page.evaluate(wide) <= 360  # the new-game form's selects used to make it 412
        page.locator("#sign-up").tap()
        page.wait_for_selector("#account-submit")
        assert page.evaluate(wide) <= 360
        page.goto(server_url + "/#/leaderboard")
        page.get_by_role("heading", name="Leaderboard").wait_for()
        assert page.evaluate(wide) <= 360
    finally:
        context.close()
