"""Pictures of a position: the SVG and PNG writers, the shared drawing rules, ``taluva show``.

Drawings are compared with text snapshots in tests/snapshots/; after a deliberate change run
``TALUVA_UPDATE_SNAPSHOTS=1 pytest tests/test_render.py tests/test_terminal.py`` and review
the diff. (test_terminal.py imports ``check_snapshot`` and ``base_game`` from here.)
"""

from __future__ import annotations

import difflib
import json
import math
import os
import struct
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest

import taluva
from taluva.cli import main
from taluva.engine.hexes import format_hex
from taluva.render import style
from taluva.render.png import Canvas, png_board
from taluva.render.position import last_turn_hexes, position_at
from taluva.render.scene import board_scene
from taluva.render.svg import svg_board

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE_FLAG = "TALUVA_UPDATE_SNAPSHOTS"
SVG = "{http://www.w3.org/2000/svg}"


def check_snapshot(name: str, actual: str) -> None:
    """Fail with a diff unless ``actual`` equals the stored snapshot (rewritten on request)."""
    path = SNAPSHOTS / name
    if os.environ.get(UPDATE_FLAG) == "1":
        path.write_text(actual, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"no snapshot {path}: create it with {UPDATE_FLAG}=1, then review it")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "\n".join(
            difflib.unified_diff(
                expected.splitlines(), actual.splitlines(), "stored", "drawn", lineterm="", n=1
            )
        )
        pytest.fail(f"{name} differs from its snapshot ({UPDATE_FLAG}=1 if intended):\n{diff}")


def base_game() -> taluva.Game:
    """A three-player position after 60 plies with eruptions, temples and towers."""
    return taluva.Game.from_record((SNAPSHOTS / "position-base.json").read_text("utf-8"))


def hex_groups(svg_text: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg_text)
    return {
        group.get("data-hex", ""): group
        for group in root.iter(f"{SVG}g")
        if group.get("class") == "hex"
    }


def read_png(data: bytes) -> tuple[int, int, bytes]:
    """Width, height and raw RGB rows of an 8-bit RGB PNG, checking every chunk's CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, {}
    idat = b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        assert crc == zlib.crc32(kind + body), f"bad CRC in {kind!r}"
        chunks[kind] = body
        if kind == b"IDAT":
            idat += body
        position += 12 + length
    assert list(chunks) == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour, *_ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert (depth, colour) == (8, 2)
    raw = zlib.decompress(idat)
    assert len(raw) == height * (1 + 3 * width)
    rows = b"".join(raw[y * (1 + 3 * width) + 1 : (y + 1) * (1 + 3 * width)] for y in range(height))
    return width, height, rows


# ------------------------------------------------------------------------------------ SVG


def test_svg_parses_as_xml_and_holds_every_hex_with_its_level_and_terrain() -> None:
    game = base_game()
    groups = hex_groups(svg_board(game))
    assert set(groups) == {format_hex(h) for h in game.land()}
    for hex_ in game.land():
        group = groups[format_hex(hex_)]
        assert group.get("data-level") == str(game.level(hex_))
        terrain = game.terrain(hex_)
        assert terrain is not None
        assert group.get("data-terrain") == taluva.engine.tiles.TERRAIN_NAMES[terrain]
        labels = [t.text for t in group.iter(f"{SVG}text")]
        assert labels == [str(game.level(hex_)), format_hex(hex_)]


def test_svg_draws_each_building_in_its_owners_colour() -> None:
    game = base_game()
    groups = hex_groups(svg_board(game))
    buildings = game.buildings()
    assert {kind for _, kind in buildings.values()} == {"hut", "temple", "tower"}
    for hex_, (owner, kind) in buildings.items():
        group = groups[format_hex(hex_)]
        assert (group.get("data-building"), group.get("data-player")) == (kind, str(owner))
        fills = [p.get("fill") for p in group.iter(f"{SVG}polygon")]
        expected = game.level(hex_) if kind == "hut" else 1
        assert fills.count(style.player_colour(owner)) == expected


def test_svg_shades_hexes_by_level_and_rings_each_level_above_one() -> None:
    game = base_game()
    groups = hex_groups(svg_board(game))
    for hex_ in game.land():
        polygons = list(groups[format_hex(hex_)].iter(f"{SVG}polygon"))
        terrain = game.terrain(hex_)
        assert terrain is not None
        assert polygons[0].get("fill") == style.level_fill(terrain, game.level(hex_))
        rings = [p for p in polygons if p.get("fill") == "none"]
        assert len(rings) == min(game.level(hex_), 5) - 1


def test_svg_outlines_the_hexes_of_the_last_turn() -> None:
    game = base_game()
    marked = last_turn_hexes(game)
    assert marked == {taluva.parse_hex(t) for t in ("3,-1", "3,2", "4,1", "4,2")}
    root = ET.fromstring(svg_board(game))
    outline = [p for p in root.iter(f"{SVG}polyline") if p.get("stroke") == style.LAST_MOVE]
    # Three hexes of the tile share 3 inner edges: 18 - 6 = 12 outer edges, plus 6 of the hut.
    assert len(outline) == 12 + 6


def test_svg_of_an_earlier_ply_draws_that_position() -> None:
    game = base_game()
    groups = hex_groups(svg_board(game, ply=7))
    assert set(groups) == {format_hex(h) for h in position_at(game, 7).land()}
    assert len(groups) == 9
    assert game.ply == 60


@pytest.mark.parametrize("ply", [-1, 61])
def test_svg_refuses_a_ply_the_game_does_not_have(ply: int) -> None:
    with pytest.raises(ValueError, match=f"ply {ply} is out of range: this game has plies 0 to 60"):
        svg_board(base_game(), ply=ply)


def test_svg_of_the_base_position_matches_its_snapshot() -> None:
    check_snapshot("board-base.svg", svg_board(base_game(), size=30))


def test_svg_of_an_empty_board_is_a_valid_picture() -> None:
    game = taluva.Game.new(players=2, deck=["JC", "SR"])
    root = ET.fromstring(svg_board(game))
    assert hex_groups(svg_board(game)) == {}
    assert root.find(f"{SVG}title") is not None


def test_svg_draws_the_zone_outline_of_the_game_board_expansion() -> None:
    game = taluva.Game.new(players=2, seed=3, expansions=["board:expert"])
    game.play("tile 0,0 0")
    root = ET.fromstring(svg_board(game))
    dashed = [p for p in root.iter(f"{SVG}polygon") if p.get("stroke-dasharray")]
    assert len(dashed) == 1
    zone = taluva.engine.expansions.board_zones.ZONES["expert"]
    assert len(dashed[0].get("points", "").split()) == len(zone.polygon)


# ------------------------------------------------------------------------------------ PNG


def test_png_is_a_valid_image_the_size_of_the_scene() -> None:
    game = base_game()
    data = png_board(game, size=20)
    width, height, _ = read_png(data)
    scene = board_scene(game, 20)
    assert (width, height) == (math.ceil(scene.width), math.ceil(scene.height))


def test_png_paints_each_plain_hex_in_its_level_colour() -> None:
    game = base_game()
    size = 24.0
    width, _, rows = read_png(png_board(game, size=size))
    scene = board_scene(game, size)
    checked = 0
    for hex_ in game.land():
        if game.building(hex_) or game.terrain(hex_) == 0:
            continue
        x, y = scene.centre_of(hex_)
        sample_x, sample_y = int(x - 0.45 * size), int(y)
        offset = (sample_y * width + sample_x) * 3
        terrain = game.terrain(hex_)
        assert terrain is not None
        expected = style.parse_colour(style.level_fill(terrain, game.level(hex_)))
        assert tuple(rows[offset : offset + 3]) == expected, format_hex(hex_)
        checked += 1
    assert checked >= 10


def test_canvas_fills_a_polygon_by_pixel_centres_and_averages_when_downsampling() -> None:
    canvas = Canvas(4, 4, "#000000")
    canvas.fill_polygon([(0, 0), (2, 0), (2, 4), (0, 4)], "#ff0000")
    small = canvas.downsample(2)
    assert bytes(small.pixels) == bytes([255, 0, 0, 0, 0, 0] * 2)
    half = Canvas(2, 2, "#000000")
    half.fill_polygon([(0, 0), (1, 0), (1, 2), (0, 2)], "#ffffff")
    assert bytes(half.downsample(2).pixels) == bytes([128, 128, 128])


def test_png_refuses_absurd_sizes() -> None:
    with pytest.raises(ValueError, match="too large"):
        Canvas(100_000, 100_000, "#000000")
    with pytest.raises(ValueError, match="size 0 must be positive"):
        png_board(base_game(), size=0)


# ------------------------------------------------------------------------------------ rules


def test_level_fill_gets_lighter_with_each_level() -> None:
    for terrain in range(6):
        brightness = [
            sum(style.parse_colour(style.level_fill(terrain, lv))) for lv in (1, 2, 3, 4, 5)
        ]
        assert brightness == sorted(brightness) and len(set(brightness)) == 5


def test_drawing_rules_are_json_for_the_web_client() -> None:
    rules = json.loads(json.dumps(style.drawing_rules()))
    assert rules["terrains"]["volcano"] == style.TERRAIN_COLOURS["volcano"]
    assert rules["players"] == list(style.PLAYER_COLOURS)
    assert len(rules["level_lightness"]) == 5


def test_bad_colour_text_is_refused_with_the_text_named() -> None:
    with pytest.raises(ValueError, match="'#12' is not a colour"):
        style.parse_colour("#12")


# ------------------------------------------------------------------------------------ show


def run_taluva(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the ``taluva`` command line in this process: exit code, stdout, stderr."""
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def record(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    path.write_text((SNAPSHOTS / "position-base.json").read_text("utf-8"), "utf-8")
    return path


def test_show_writes_svg_and_png_of_the_chosen_ply(
    capsys: pytest.CaptureFixture[str], record: Path, tmp_path: Path
) -> None:
    svg, png = tmp_path / "board.svg", tmp_path / "board.png"
    done = run_taluva(
        capsys, "show", str(record), "--ply", "20", "--svg", str(svg), "--png", str(png)
    )
    assert done == (0, "", "")
    game = position_at(base_game(), 20)
    assert set(hex_groups(svg.read_text("utf-8"))) == {format_hex(h) for h in game.land()}
    read_png(png.read_bytes())


def test_show_without_a_picture_file_prints_the_board_as_text(
    capsys: pytest.CaptureFixture[str], record: Path
) -> None:
    code, out, _ = run_taluva(capsys, "show", str(record), "--ply", "8")
    assert code == 0
    assert out.splitlines()[-1] == "Ply 8 of 60, last move expand sand 0,1"
    check_snapshot("show-ply8.txt", out)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--ply", "99"], 2, "--ply 99 is out of range: this game has plies 0 to 60"),
        (["--size", "0", "--svg", "x.svg"], 2, "--size 0: choose a hex radius from 4 to 400"),
        (["--png", "-"], 2, "--png needs a file name"),
    ],
)
def test_show_reports_bad_options_in_one_line(
    capsys: pytest.CaptureFixture[str], record: Path, args: list[str], code: int, message: str
) -> None:
    done, _, err = run_taluva(capsys, "show", str(record), *args)
    assert done == code
    assert err.startswith("taluva: error: ") and message in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_show_names_a_missing_record(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_taluva(capsys, "show", str(tmp_path / "nope.json"), "--svg", "x.svg")
    assert code == 1
    assert "nope.json: cannot read" in err
