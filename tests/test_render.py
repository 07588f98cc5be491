"""Pictures of a position: the SVG writer, its PNG by resvg, the drawing rules, ``taluva show``.

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
import sys
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest

import taluva
from taluva.cli import main
from taluva.engine.hexes import format_hex
from taluva.render import style
from taluva.render.position import last_turn_hexes, position_at
from taluva.render.raster import PngUnavailable, png_board, svg_to_png
from taluva.render.scene import Group, Item, Label, Scene, board_scene
from taluva.render.svg import scene_svg, svg_board

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


class Picture:
    """A decoded 8-bit RGB or RGBA PNG (every chunk's CRC checked, every row filter undone)."""

    def __init__(self, data: bytes) -> None:
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        position, kinds, header, idat = 8, [], b"", b""
        while position < len(data):
            (length,) = struct.unpack(">I", data[position : position + 4])
            kind = data[position + 4 : position + 8]
            body = data[position + 8 : position + 8 + length]
            (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
            assert crc == zlib.crc32(kind + body), f"bad CRC in {kind!r}"
            kinds.append(kind)
            header = body if kind == b"IHDR" else header
            idat += body if kind == b"IDAT" else b""
            position += 12 + length
        assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds
        self.width, self.height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
        assert depth == 8 and colour in (2, 6) and interlace == 0
        self.channels = 3 if colour == 2 else 4
        stride = self.width * self.channels
        raw = zlib.decompress(idat)
        assert len(raw) == self.height * (stride + 1)
        self.rows: list[bytes] = []
        previous = bytearray(stride)
        for y in range(self.height):
            kind = raw[y * (stride + 1)]
            row = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
            self._unfilter(kind, row, previous)
            self.rows.append(bytes(row))
            previous = row

    def _unfilter(self, kind: int, row: bytearray, up: bytearray) -> None:
        """Undo a row's filter in place (PNG specification, section 9.2)."""
        step = self.channels
        if kind == 0:
            return
        if kind == 1:
            for i in range(step, len(row)):
                row[i] = (row[i] + row[i - step]) & 255
        elif kind == 2:
            row[:] = bytes((a + b) & 255 for a, b in zip(row, up, strict=True))
        elif kind == 3:
            for i in range(step):
                row[i] = (row[i] + up[i] // 2) & 255
            for i in range(step, len(row)):
                row[i] = (row[i] + (row[i - step] + up[i]) // 2) & 255
        else:
            assert kind == 4, f"unknown PNG filter {kind}"
            for i in range(step):  # no left neighbour: the Paeth guess is the byte above
                row[i] = (row[i] + up[i]) & 255
            for i in range(step, len(row)):
                a, b, c = row[i - step], up[i], up[i - step]
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                guess = a if pa <= pb and pa <= pc else b if pb <= pc else c
                row[i] = (row[i] + guess) & 255

    def rgb(self, x: int, y: int) -> tuple[int, int, int]:
        """The colour of a pixel (an RGBA picture must be opaque there)."""
        start = x * self.channels
        pixel = self.rows[y][start : start + self.channels]
        assert self.channels == 3 or pixel[3] == 255, (x, y)
        return pixel[0], pixel[1], pixel[2]


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


def labels_of(items: list[Item]) -> list[Label]:
    """Every label of a scene, groups opened."""
    found: list[Label] = []
    for item in items:
        if isinstance(item, Group):
            found.extend(labels_of(list(item.items)))
        elif isinstance(item, Label):
            found.append(item)
    return found


def without_labels(items: list[Item]) -> list[Item]:
    """The same items with every label taken out (a group keeps its shapes)."""
    kept: list[Item] = []
    for item in items:
        if isinstance(item, Group):
            shapes = [i for i in item.items if not isinstance(i, Label)]
            kept.append(Group(item.attrs, list(shapes)))
        elif not isinstance(item, Label):
            kept.append(item)
    return kept


def label_box(label: Label, margin: float) -> tuple[int, int, int, int]:
    """Pixels a label can cover (x0, y0, x1, y1, ends excluded): at most 0.8 em a letter."""
    width = 0.8 * label.size * len(label.text)
    left = label.x - width / 2 if label.anchor == "middle" else label.x
    top = label.y - label.size / 2
    return (
        math.floor(left - margin),
        math.floor(top - margin),
        math.ceil(left + width + margin),
        math.ceil(top + label.size + margin),
    )


def colour_distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> int:
    return sum(abs(x - y) for x, y in zip(a, b, strict=True))


def test_png_has_the_size_of_the_svg() -> None:
    game = base_game()
    root = ET.fromstring(svg_board(game, size=20))
    picture = Picture(png_board(game, size=20))
    width, height = float(root.get("width", "0")), float(root.get("height", "0"))
    assert (picture.width, picture.height) == (math.ceil(width), math.ceil(height))


def test_png_paints_each_plain_hex_in_its_level_colour_at_its_centre() -> None:
    game = base_game()
    size = 24.0
    picture = Picture(png_board(game, size=size))
    scene = board_scene(game, size)
    checked = 0
    for hex_ in game.land():
        terrain = game.terrain(hex_)
        if game.building(hex_) or terrain is None or terrain == 0:
            continue
        x, y = scene.centre_of(hex_)
        expected = style.parse_colour(style.level_fill(terrain, game.level(hex_)))
        assert picture.rgb(int(x), int(y)) == expected, format_hex(hex_)
        checked += 1
    assert checked >= 10


def test_png_draws_every_label_as_text_and_nothing_else_where_no_label_is() -> None:
    """Against the same SVG with its text taken out: every label's box holds pixels turned
    halfway or more to the label's colour, and outside the boxes not one pixel differs."""
    game = base_game()
    scene = board_scene(game, 40.0)
    labels = labels_of(scene.items)
    assert len(labels) == 2 * len(game.land()) + 4
    bare = Scene(scene.width, scene.height, scene.background, without_labels(scene.items))
    assert labels_of(bare.items) == []
    drawn, blank = Picture(png_board(game, size=40.0)), Picture(svg_to_png(scene_svg(bare)))
    assert (drawn.width, drawn.height) == (blank.width, blank.height)
    covered = set()
    for label in labels:
        x0, y0, x1, y1 = label_box(label, 0)
        ink = style.parse_colour(label.fill)
        turned = sum(
            2 * colour_distance(drawn.rgb(x, y), ink) <= colour_distance(blank.rgb(x, y), ink)
            for x in range(x0, x1)
            for y in range(y0, y1)
        )
        assert turned >= len(label.text.replace(" ", "")), label
        x0, y0, x1, y1 = label_box(label, 2)
        covered.update((x, y) for x in range(x0, x1) for y in range(y0, y1))
    changed = {
        (x, y)
        for y in range(drawn.height)
        if drawn.rows[y] != blank.rows[y]
        for x in range(drawn.width)
        if drawn.rgb(x, y) != blank.rgb(x, y)
    }
    assert changed and changed <= covered


def test_png_refuses_a_bad_size_before_rasterizing() -> None:
    with pytest.raises(ValueError, match="size 0 must be positive"):
        png_board(base_game(), size=0)
    with pytest.raises(ValueError, match="too large"):
        png_board(base_game(), size=5000)


def test_png_without_resvg_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "resvg_py", None)  # import resvg_py now fails
    with pytest.raises(PngUnavailable, match=r"the 'png' extra .*: pip install 'taluva\[png\]'"):
        png_board(base_game())
    record = tmp_path / "game.json"
    record.write_text((SNAPSHOTS / "position-base.json").read_text("utf-8"), "utf-8")
    code, out, err = run_taluva(capsys, "show", str(record), "--png", str(tmp_path / "b.png"))
    assert (code, out) == (2, "")
    assert err.startswith("taluva: error: ") and "pip install 'taluva[png]'" in err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert not (tmp_path / "b.png").exists()


def test_png_without_any_font_says_which_package_gives_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """resvg draws no text without a font: that is an error, not a picture without labels."""
    import resvg_py

    real = resvg_py.svg_to_bytes

    def fontless(svg_string: str) -> bytes:
        return real(svg_string=svg_string, skip_system_fonts=True)

    monkeypatch.setattr(resvg_py, "svg_to_bytes", fontless)
    with pytest.raises(PngUnavailable, match=r"found none on this system.*fonts-dejavu-core"):
        png_board(base_game())


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
    root = ET.fromstring(svg.read_text("utf-8"))
    picture = Picture(png.read_bytes())
    size = (float(root.get("width", "0")), float(root.get("height", "0")))
    assert (picture.width, picture.height) == tuple(math.ceil(v) for v in size)


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
