"""The game page on a phone's screen: what a player watches (the board, the drawn tile, their
own clock) is on the first screen without scrolling, and the island's two small numbers, a
hex's level and a settlement's hut count, differ in shape, not only in colour."""

from __future__ import annotations

from typing import Any

from .people import People, create_game, open_seated

PHONE = (360, 740)
DESKTOP = (1280, 820)
BOARD_SHARE = 0.45
"""The least share of the screen's height the board keeps."""


def watched_boxes(page: Any, seat: int) -> dict[str, dict[str, float]]:
    """The screen boxes of the board, the drawn tile and the clock of ``seat``, once shown."""
    own_clock = f".clock-row[data-seat='{seat}']"
    page.wait_for_function(
        "s => document.querySelector(s + ' .clock-time')?.textContent", arg=own_clock
    )
    page.wait_for_selector(".tile-panel .drawn svg")
    page.wait_for_selector("svg.board .sea-grid")
    page.evaluate("document.fonts.ready")
    boxes = {}
    for name, selector in (
        ("board", "svg.board"),
        ("drawn tile", ".tile-panel .drawn"),
        ("own clock", own_clock),
    ):
        box = page.locator(selector).bounding_box()
        assert box is not None, f"{name} is not shown"
        boxes[name] = box
    return boxes


def test_the_board_the_drawn_tile_and_ones_clock_share_the_first_screen_of_a_phone(
    people: People, server_url: str, screenshot: Any
) -> None:
    seats = [
        {"kind": "human", "name": "Ana", "take": True},
        {"kind": "human", "name": "Ben", "take": True},
    ]
    game_id, tokens = create_game(
        server_url, seats, clock={"kind": "fischer", "base": 600, "increment": 20}
    )
    for seat, (width, height), phone in ((0, PHONE, True), (1, DESKTOP, False)):
        page = people.open(width, height, phone=phone, scale=2 if phone else None)
        open_seated(page, server_url, game_id, {seat: tokens[seat]})
        boxes = watched_boxes(page, seat)
        assert page.evaluate("window.scrollY") == 0
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for name, box in boxes.items():
            inside = (
                box["x"] >= 0
                and box["y"] >= 0
                and box["x"] + box["width"] <= width
                and box["y"] + box["height"] <= height
            )
            assert inside, f"at {width}x{height} the {name} is not on the screen: {box}"
        assert boxes["board"]["height"] >= BOARD_SHARE * height, boxes["board"]
        screenshot(page, f"phone-first-screen-{width}x{height}")


# A small island: a volcano tile raised to level 3 beside one at level 2, and two
# settlements of several huts, of the red seat (0) and of the black one (4), whose disc is
# as dark as a level badge.
ISLAND = {
    "ply": 9,
    "status": "live",
    "ships": [],
    "lagoons": [],
    "zone": None,
    "hexes": [
        [0, 0, 3, 0, 5],
        [1, 0, 3, 1, 5],
        [0, 1, 3, 2, 5],
        [-1, 0, 2, 3, 4],
        [-1, 1, 2, 4, 4],
        [-2, 1, 2, 0, 4],
        [2, -1, 1, 3, 1],
        [1, -1, 1, 0, 1],
        [2, 0, 1, 1, 1],
    ],
    "buildings": [[1, 0, 0, "hut", 3], [-1, 0, 4, "hut", 2], [2, -1, 0, "hut", 1]],
}

# For each raised hex, its level badge: how many plates and layers, each one's element and
# corners, and whether the layer lies under the plate; for each settlement, its seat, the
# element and colour of its count (none for one hut) and the polygons among its pieces.
SHAPES = """async (island) => {
    const { Board } = await import("/static/js/board.js");
    const host = document.createElement("div");
    document.body.append(host);
    Object.assign(host.style, { position: "fixed", left: "0", top: "0",
                                width: "360px", height: "420px" });
    const board = new Board(host);
    board.setState(island);
    const svg = board.svg;
    const corners = (node) => (node.getAttribute("points") || "").split(" ").length;
    const middle = (node) => { const b = node.getBBox(); return b.y + b.height / 2; };
    const raised = [...svg.querySelectorAll(".hex")].filter((g) => +g.dataset.level >= 2);
    const levels = raised.map((g) => {
        const [plate, layer] = [g.querySelector(".badge"), g.querySelector(".badge-layer")];
        return [g.querySelectorAll(".badge").length, g.querySelectorAll(".badge-layer").length,
                plate?.tagName, plate && corners(plate), layer?.tagName, layer && corners(layer),
                !!(plate && layer) && middle(layer) > middle(plate)];
    });
    const counts = [...svg.querySelectorAll(".piece.hut")].map((g) => {
        const disc = g.querySelector(".count-badge");
        return [g.dataset.player, disc ? disc.tagName : "", disc ? disc.getAttribute("fill") : "",
                g.querySelectorAll("polygon").length];
    });
    return { levels, counts };
}"""


def test_a_level_badge_and_a_hut_count_differ_in_shape_not_only_in_colour(
    people: People, server_url: str
) -> None:
    page = people.open(*PHONE, phone=True)
    page.goto(server_url + "/")
    found = page.evaluate(SHAPES, ISLAND)
    # Each raised hex (six of them): its level on a hexagon lying on a second one, a stack.
    assert found["levels"] == [[1, 1, "polygon", 6, "polygon", 6, True]] * 6
    # Each settlement of two huts or more: its count in a disc of its seat's colour, which
    # no hexagon is; one hut has no count.
    assert sorted(found["counts"]) == [
        ["0", "", "", 0],
        ["0", "circle", "#e53935", 0],
        ["4", "circle", "#212121", 0],
    ]
