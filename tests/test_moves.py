"""Move text (docs/notation.md, "Moves"): lenient parsing, one canonical text, clear errors."""

from __future__ import annotations

import pytest

from taluva import IllegalMove, InvalidMove, Move, hex_at
from taluva.engine import moves as moves_module
from taluva.engine.moves import DOUBLE, DRAW, EXPAND, HUT, SHIP, TEMPLE, TILE, TOWER, move_texts
from taluva.engine.tiles import CLEARING, JUNGLE, LAKE, ROCK, SAND

CANONICAL = [
    "tile 1,-2 3",
    "tile 0,0 0",
    "tile -12,7 5",
    "draw",
    "double VL 2,0 5",
    "double VJ -1,3 0",
    "double VS 0,0 4",
    "double VV 3,-1 2",
    "double JJ 0,-4 0",
    "hut 1,0",
    "expand sand 1,0 2,-1",
    "expand jungle -3,2 -3,3 0,-1 0,1 4,-5",
    "expand clearing 0,0",
    "expand rock -1,1",
    "expand lake 7,-7 7,-6",
    "temple 0,1",
    "tower -1,2",
    "ship 3,-1",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_text_survives_a_round_trip(text: str) -> None:
    move = Move.parse(text)
    assert str(move) == text
    assert Move.parse(str(move)) == move
    assert repr(move) == f"Move.parse({text!r})"


def test_each_kind_of_move_carries_its_fields() -> None:
    tile = Move.parse("tile 1,-2 3")
    assert (tile.kind, tile.hex, tile.orientation, tile.is_tile_move) == (
        TILE,
        hex_at(1, -2),
        3,
        True,
    )
    expand = Move.parse("expand sand 1,0 2,-1")
    assert (expand.kind, expand.terrain, expand.hexes) == (
        EXPAND,
        SAND,
        (hex_at(1, 0), hex_at(2, -1)),
    )
    assert not expand.is_tile_move
    double = Move.parse("double VL 2,0 5")
    assert (double.kind, double.tile, double.hex, double.orientation) == (
        DOUBLE,
        "VL",
        hex_at(2, 0),
        5,
    )
    assert Move.parse("draw").kind == DRAW
    assert Move.parse("draw").is_tile_move
    for kind in (HUT, TEMPLE, TOWER, SHIP):
        move = Move.parse(f"{kind} -1,2")
        assert (move.kind, move.hex, move.is_tile_move) == (kind, hex_at(-1, 2), False)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("TILE 1,-2 3", "tile 1,-2 3"),
        ("  tile   1 , -2   3  ", "tile 1,-2 3"),
        ("tile (1,-2) 3", "tile 1,-2 3"),
        ("tile +1,-2 3", "tile 1,-2 3"),
        ("Hut 1,0", "hut 1,0"),
        ("TEMPLE 0, 1", "temple 0,1"),
        ("tower\t-1,2", "tower -1,2"),
        ("Ship 3 ,-1", "ship 3,-1"),
        ("DRAW", "draw"),
        (" draw ", "draw"),
        ("double vl 2,0 5", "double VL 2,0 5"),
        ("EXPAND SAND 1,0 2,-1", "expand sand 1,0 2,-1"),
        ("expand s 1,0 2,-1", "expand sand 1,0 2,-1"),
        ("expand S 2,-1 1,0", "expand sand 1,0 2,-1"),
        ("expand Jungle 0,1 -3,3 0,-1", "expand jungle -3,3 0,-1 0,1"),
        ("expand c 0,0", "expand clearing 0,0"),
        ("expand R -1,1", "expand rock -1,1"),
        ("expand l 7,-6 7,-7", "expand lake 7,-7 7,-6"),
    ],
)
def test_parsing_is_lenient_and_printing_canonical(text: str, canonical: str) -> None:
    assert str(Move.parse(text)) == canonical
    assert Move.parse(text) == Move.parse(canonical)


def test_expansion_hexes_are_sorted_by_q_then_r() -> None:
    move = Move.parse("expand jungle 2,-1 -1,5 1,0 -1,-3")
    assert move.hexes == (hex_at(-1, -3), hex_at(-1, 5), hex_at(1, 0), hex_at(2, -1))
    assert move.hex == hex_at(-1, -3)
    assert Move.expand(JUNGLE, [hex_at(2, -1), hex_at(1, 0)]) == Move.parse(
        "expand jungle 1,0 2,-1"
    )


def test_every_terrain_word_and_letter_is_understood() -> None:
    words = {"jungle": JUNGLE, "clearing": CLEARING, "sand": SAND, "rock": ROCK, "lake": LAKE}
    for word, terrain in words.items():
        for spelling in (word, word.upper(), word.capitalize(), word[0], word[0].upper()):
            assert Move.parse(f"expand {spelling} 1,0").terrain == terrain


@pytest.mark.parametrize("code", ["VV", "JJ"])
def test_symmetric_double_hex_tiles_are_written_with_orientation_0_to_2(code: str) -> None:
    """Orientation k + 3 from the other hex names the same two hexes."""
    assert str(Move.parse(f"double {code} 0,0 3")) == f"double {code} -1,0 0"
    assert str(Move.parse(f"double {code} 0,0 4")) == f"double {code} -1,1 1"
    assert str(Move.parse(f"double {code} 0,0 5")) == f"double {code} 0,1 2"
    assert Move.parse(f"double {code} 2,-1 3") == Move.parse(f"double {code} 1,-1 0")
    assert Move.place_double(code, hex_at(0, 0), 4) == Move.parse(f"double {code} -1,1 1")
    for k in range(3):
        assert str(Move.parse(f"double {code} 0,0 {k}")) == f"double {code} 0,0 {k}"


def test_other_double_hex_tiles_keep_their_orientation() -> None:
    for code in ("VL", "VJ", "VS"):
        assert str(Move.parse(f"double {code} 0,0 3")) == f"double {code} 0,0 3"
        assert Move.parse(f"double {code} 0,0 3") != Move.parse(f"double {code} -1,0 0")


def test_moves_compare_and_hash_by_value() -> None:
    assert Move.parse("expand s 2,-1 1,0") == Move.parse("expand sand 1,0 2,-1")
    assert len({Move.parse("hut 1,0"), Move.parse("HUT 1 , 0"), Move.parse("temple 1,0")}) == 2
    assert Move.place_tile(hex_at(1, -2), 3) == Move.parse("tile 1,-2 3")


def test_move_texts_writes_each_move_canonically_in_order() -> None:
    """The fast bulk form the server uses for every legal move gives exactly ``str`` of each,
    for moves written before and moves it has never seen."""
    moves = [Move.parse(text) for text in reversed(CANONICAL)]
    fresh = [Move.place_tile(hex_at(q, 40), q % 6) for q in range(-30, 30)]
    assert move_texts(moves) == list(reversed(CANONICAL))
    assert move_texts([*fresh, *moves]) == [str(move) for move in [*fresh, *moves]]
    assert move_texts([]) == []


def test_remembered_move_texts_stay_bounded() -> None:
    """The texts kept for speed are forgotten all at once when there are too many, and the
    texts written afterwards are still right."""
    many = [Move.place_tile(hex_at(q, r), 0) for q in range(-300, 300) for r in range(0, 120)]
    assert len(many) > moves_module._TEXTS_KEPT
    texts = move_texts(many)
    assert len(moves_module._TEXTS) <= moves_module._TEXTS_KEPT
    assert texts[-1] == "tile 299,119 0" and str(many[0]) == "tile -300,0 0"


KINDS = "tile, draw, double, hut, expand, temple, tower, ship"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty move text: expected e.g. 'tile 0,0 3' or 'hut 1,0'"),
        ("   ", "empty move text: expected e.g. 'tile 0,0 3' or 'hut 1,0'"),
        ("build 1,0", f"'build 1,0': unknown move 'build', expected one of {KINDS}"),
        ("tile 1,0", "'tile 1,0': expected 'tile Q,R K' (volcano hex, orientation 0-5)"),
        ("tile 1,0 2 3", "'tile 1,0 2 3': expected 'tile Q,R K' (volcano hex, orientation 0-5)"),
        ("tile 0,0 6", "'tile 0,0 6': orientation '6' must be a whole number from 0 to 5"),
        ("tile 0,0 -1", "'tile 0,0 -1': orientation '-1' must be a whole number from 0 to 5"),
        ("tile 0,0 x", "'tile 0,0 x': orientation 'x' must be a whole number from 0 to 5"),
        ("tile 1 0", "'tile 1 0': '1' is not a hex: expected Q,R such as 0,0 or -2,1"),
        ("hut 1;0", "'hut 1;0': '1;0' is not a hex: expected Q,R such as 0,0 or -2,1"),
        ("hut 1,0,2", "'hut 1,0,2': '1,0,2' is not a hex: expected Q,R such as 0,0 or -2,1"),
        ("hut a,b", "'hut a,b': 'a,b' is not a hex: expected Q,R such as 0,0 or -2,1"),
        (
            "hut 300,0",
            "'hut 300,0': hex 300,0 is off the map: coordinates range from -200 to 200",
        ),
        ("hut", "'hut': expected 'hut Q,R' (one hex)"),
        ("temple 1,0 2,0", "'temple 1,0 2,0': expected 'temple Q,R' (one hex)"),
        ("tower", "'tower': expected 'tower Q,R' (one hex)"),
        ("ship 1,0 5", "'ship 1,0 5': expected 'ship Q,R' (one hex)"),
        ("draw 1", "'draw 1': expected 'draw' with nothing after it"),
        (
            "double VL 0,0",
            "'double VL 0,0': expected 'double XY Q,R K' with XY one of VL VJ VS VV JJ",
        ),
        (
            "double VC 0,0 1",
            "'double VC 0,0 1': 'VC' is not a double-hex tile: one of VL VJ VS VV JJ",
        ),
        (
            "double VL 0,0 7",
            "'double VL 0,0 7': orientation '7' must be a whole number from 0 to 5",
        ),
        (
            "expand sand",
            "'expand sand': expected 'expand TERRAIN Q,R ...' (a terrain and at least one hex)",
        ),
        (
            "expand 1,0",
            "'expand 1,0': expected 'expand TERRAIN Q,R ...' (a terrain and at least one hex)",
        ),
        (
            "expand mud 1,0",
            "'expand mud 1,0': 'mud' is not a terrain: expected one of jungle, clearing, "
            "sand, rock, lake",
        ),
        (
            "expand volcano 1,0",
            "'expand volcano 1,0': a settlement cannot expand onto volcanoes",
        ),
        ("expand v 1,0", "'expand v 1,0': a settlement cannot expand onto volcanoes"),
        ("expand sand 1,0 1,0", "'expand sand 1,0 1,0': a hex is listed twice"),
        ("expand sand 1,0 1, 0", "'expand sand 1,0 1, 0': a hex is listed twice"),
        (
            "expand sand 1,0 x",
            "'expand sand 1,0 x': 'x' is not a hex: expected Q,R such as 0,0 or -2,1",
        ),
    ],
)
def test_malformed_text_is_refused_saying_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(InvalidMove) as caught:
        Move.parse(text)
    assert str(caught.value) == message


def test_a_move_must_be_text() -> None:
    with pytest.raises(InvalidMove) as caught:
        Move.parse(5)  # type: ignore[arg-type]
    assert str(caught.value) == "a move is text such as 'tile 0,0 3', not int"


def test_invalid_move_is_an_illegal_move_and_a_value_error() -> None:
    assert issubclass(InvalidMove, IllegalMove)
    assert issubclass(IllegalMove, ValueError)
