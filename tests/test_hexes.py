"""Hex coordinates (docs/notation.md, "Hexes"): directions, packing, text and screen positions."""

from __future__ import annotations

import math

import pytest

from taluva import coords, format_hex, hex_at, parse_hex
from taluva.engine.hexes import (
    DELTAS,
    DIRECTION_NAMES,
    DIRECTIONS,
    LIMIT,
    ORIGIN,
    distance,
    neighbours,
    pixel_centre,
)

NOTATION_TABLE = [
    ("E", (1, 0)),
    ("NE", (1, -1)),
    ("NW", (0, -1)),
    ("W", (-1, 0)),
    ("SW", (-1, 1)),
    ("SE", (0, 1)),
]
"""The direction table of docs/notation.md, k = 0 to 5."""

SAMPLE = [(0, 0), (1, -2), (-2, 1), (7, 7), (-13, -4), (LIMIT, -LIMIT), (-LIMIT, LIMIT)]


def test_directions_are_the_notation_table_counter_clockwise_from_east() -> None:
    assert list(zip(DIRECTION_NAMES, DIRECTIONS, strict=True)) == NOTATION_TABLE


@pytest.mark.parametrize(("q", "r"), SAMPLE)
def test_packing_a_hex_and_unpacking_it_gives_its_coordinates(q: int, r: int) -> None:
    assert coords(hex_at(q, r)) == (q, r)


def test_the_origin_is_0_0() -> None:
    assert hex_at(0, 0) == ORIGIN
    assert coords(ORIGIN) == (0, 0)


@pytest.mark.parametrize(("q", "r"), SAMPLE)
def test_a_step_in_direction_k_adds_d_k(q: int, r: int) -> None:
    hex_ = hex_at(q, r)
    for k, (dq, dr) in enumerate(DIRECTIONS):
        assert coords(hex_ + DELTAS[k]) == (q + dq, r + dr)
    assert neighbours(hex_) == tuple(hex_at(q + dq, r + dr) for dq, dr in DIRECTIONS)


def test_packed_hexes_sort_by_q_then_r() -> None:
    pairs = [(q, r) for q in range(-4, 5) for r in range(-4, 5)]
    assert sorted(pairs) == [coords(h) for h in sorted(hex_at(q, r) for q, r in pairs)]


def test_distance_counts_steps_between_hexes() -> None:
    assert distance(ORIGIN, ORIGIN) == 0
    assert all(distance(ORIGIN, n) == 1 for n in neighbours(ORIGIN))
    assert distance(hex_at(0, 0), hex_at(2, -1)) == 2
    assert distance(hex_at(-2, 1), hex_at(1, -2)) == 3
    assert distance(hex_at(3, 0), hex_at(-3, 0)) == 6
    assert distance(hex_at(1, 1), hex_at(-1, -1)) == 4


@pytest.mark.parametrize(
    ("text", "q", "r"),
    [
        ("0,0", 0, 0),
        ("1,-2", 1, -2),
        (" -2, 1", -2, 1),
        ("(3 , -4)", 3, -4),
        ("+5,+6", 5, 6),
        ("200,-200", 200, -200),
    ],
)
def test_hex_text_is_read_leniently(text: str, q: int, r: int) -> None:
    assert parse_hex(text) == hex_at(q, r)


@pytest.mark.parametrize(("q", "r"), SAMPLE)
def test_hex_text_is_written_q_comma_r_without_spaces(q: int, r: int) -> None:
    assert format_hex(hex_at(q, r)) == f"{q},{r}"
    assert parse_hex(format_hex(hex_at(q, r))) == hex_at(q, r)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "'' is not a hex: expected Q,R such as 0,0 or -2,1"),
        ("1", "'1' is not a hex: expected Q,R such as 0,0 or -2,1"),
        ("1,2,3", "'1,2,3' is not a hex: expected Q,R such as 0,0 or -2,1"),
        ("1.5,0", "'1.5,0' is not a hex: expected Q,R such as 0,0 or -2,1"),
        ("q,r", "'q,r' is not a hex: expected Q,R such as 0,0 or -2,1"),
        ("201,0", "hex 201,0 is off the map: coordinates range from -200 to 200"),
        ("0,-201", "hex 0,-201 is off the map: coordinates range from -200 to 200"),
    ],
)
def test_bad_hex_text_is_refused_saying_why(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_hex(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(("q", "r"), SAMPLE)
@pytest.mark.parametrize("size", [1.0, 10.0, 0.5])
def test_pixel_centre_follows_the_notation_formula(q: int, r: int, size: float) -> None:
    x, y = pixel_centre(hex_at(q, r), size)
    assert math.isclose(x, size * math.sqrt(3) * (q + r / 2), abs_tol=1e-9)
    assert math.isclose(y, size * 1.5 * r, abs_tol=1e-9)


def test_pixel_centres_of_pointy_top_hexes_with_r_growing_downwards() -> None:
    root3 = math.sqrt(3)
    expected = [(root3, 0.0), (root3 / 2, -1.5), (-root3 / 2, -1.5), (-root3, 0.0)]
    expected += [(-root3 / 2, 1.5), (root3 / 2, 1.5)]
    for neighbour, (x, y) in zip(neighbours(ORIGIN), expected, strict=True):
        centre = pixel_centre(neighbour)
        assert math.isclose(centre[0], x, abs_tol=1e-12)
        assert math.isclose(centre[1], y, abs_tol=1e-12)
        assert math.isclose(math.hypot(*centre), root3)
    assert pixel_centre(ORIGIN, 3.0) == (0.0, 0.0)
