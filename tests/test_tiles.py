"""The tile set, terrains, decks and footprints (docs/rules.md and docs/notation.md, "Tiles")."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from taluva import hex_at
from taluva.engine.hexes import DELTAS, distance
from taluva.engine.tiles import (
    BASE_TILE_COUNTS,
    DOUBLE_HEX_TILES,
    FIFTH_PLAYER_TILE_COUNTS,
    TERRAIN_LETTERS,
    TERRAIN_NAMES,
    TILES_PER_PLAYER_CHOICES,
    check_deck,
    double_footprint,
    double_terrains,
    footprint,
    is_regular_tile,
    shuffled_deck,
    shuffled_doubles,
    terrain_from_text,
    tile_set,
    tile_terrains,
)

RULES_BASE_SET = {
    "JC": 6, "CJ": 5, "JS": 4, "SJ": 4, "JL": 2, "CR": 2, "RC": 2, "JR": 2, "CS": 2, "SC": 2,
    "SR": 2, "RJ": 2, "JJ": 1, "CC": 1, "SS": 1, "RR": 1, "LL": 1, "CL": 1, "SL": 1, "RS": 1,
    "RL": 1, "LJ": 1, "LC": 1, "LS": 1, "LR": 1,
}  # fmt: skip
"""The base set as docs/rules.md's table and the line below it list it."""

RULES_FIFTH_PLAYER = {"JC": 1, "CJ": 2, "JS": 2, "SJ": 2, "JL": 2, "CR": 2, "RC": 1}


def test_the_base_set_is_the_48_tiles_of_the_rules() -> None:
    assert BASE_TILE_COUNTS == RULES_BASE_SET
    assert sum(BASE_TILE_COUNTS.values()) == 48


def test_the_fifth_player_expansion_adds_the_12_tiles_of_the_rules() -> None:
    assert FIFTH_PLAYER_TILE_COUNTS == RULES_FIFTH_PLAYER
    assert sum(FIFTH_PLAYER_TILE_COUNTS.values()) == 12


@pytest.mark.parametrize("players", [2, 3, 4])
def test_up_to_four_players_use_the_base_set(players: int) -> None:
    assert tile_set(players) == Counter(RULES_BASE_SET)


def test_five_players_use_60_tiles() -> None:
    box = tile_set(5)
    assert sum(box.values()) == 60
    assert box == Counter(RULES_BASE_SET) + Counter(RULES_FIFTH_PLAYER)
    assert (box["JC"], box["CJ"], box["JS"], box["RC"], box["LL"]) == (7, 7, 6, 3, 1)


def test_every_tile_is_two_terrain_letters_and_chiral_pairs_are_different_tiles() -> None:
    for code in tile_set(5):
        assert is_regular_tile(code)
        assert len(code) == 2 and set(code) <= set("JCSRL")
    assert BASE_TILE_COUNTS["JC"] != BASE_TILE_COUNTS["CJ"]
    assert tile_terrains("JC") != tile_terrains("CJ")


@pytest.mark.parametrize(("code", "regular"), [("JC", True), ("LL", True), ("VL", False)])
def test_regular_tiles_hold_no_volcano_letter(code: str, regular: bool) -> None:
    assert is_regular_tile(code) is regular


@pytest.mark.parametrize("code", ["J", "JCS", "JX", "jc", ""])
def test_other_codes_are_no_regular_tiles(code: str) -> None:
    assert not is_regular_tile(code)


def test_terrains_are_volcano_and_the_five_of_the_rules() -> None:
    assert TERRAIN_LETTERS == "VJCSRL"
    assert TERRAIN_NAMES == ("volcano", "jungle", "clearing", "sand", "rock", "lake")


def test_terrain_text_is_a_word_or_a_letter_in_any_case() -> None:
    for index, (letter, word) in enumerate(zip(TERRAIN_LETTERS, TERRAIN_NAMES, strict=True)):
        for text in (letter, letter.lower(), word, word.upper(), f" {word.title()} "):
            assert terrain_from_text(text) == index


@pytest.mark.parametrize("text", ["mud", "x", "", "jung"])
def test_unknown_terrain_text_is_refused(text: str) -> None:
    with pytest.raises(ValueError) as caught:
        terrain_from_text(text)
    assert str(caught.value) == (
        f"{text!r} is not a terrain: expected one of jungle, clearing, sand, rock, lake"
    )


def test_a_tile_lists_its_volcano_then_terrain_a_then_terrain_b() -> None:
    assert tile_terrains("JC") == (0, 1, 2)
    assert tile_terrains("CJ") == (0, 2, 1)
    assert tile_terrains("LR") == (0, 5, 4)


def test_a_double_hex_tile_lists_x_then_y() -> None:
    assert DOUBLE_HEX_TILES == ("VL", "VJ", "VS", "VV", "JJ")
    assert [double_terrains(code) for code in DOUBLE_HEX_TILES] == [
        (0, 5),
        (0, 1),
        (0, 3),
        (0, 0),
        (1, 1),
    ]


@pytest.mark.parametrize("k", range(6))
def test_a_footprint_is_the_volcano_then_d_k_then_d_k_plus_1(k: int) -> None:
    volcano = hex_at(2, -3)
    hexes = footprint(volcano, k)
    assert hexes == (volcano, volcano + DELTAS[k], volcano + DELTAS[(k + 1) % 6])
    assert [distance(a, b) for a, b in ((hexes[0], hexes[1]), (hexes[1], hexes[2]))] == [1, 1]
    assert distance(hexes[0], hexes[2]) == 1  # three mutually adjacent hexes


def test_footprints_of_the_first_tile_follow_notation() -> None:
    assert footprint(hex_at(0, 0), 0) == (hex_at(0, 0), hex_at(1, 0), hex_at(1, -1))
    assert footprint(hex_at(0, 0), 5) == (hex_at(0, 0), hex_at(0, 1), hex_at(1, 0))
    assert footprint(hex_at(1, -2), 3) == (hex_at(1, -2), hex_at(0, -2), hex_at(0, -1))


@pytest.mark.parametrize("k", range(6))
def test_a_double_footprint_is_x_then_the_neighbour_in_direction_k(k: int) -> None:
    assert double_footprint(hex_at(-1, 4), k) == (hex_at(-1, 4), hex_at(-1, 4) + DELTAS[k])


def test_tiles_per_player_may_be_12_18_or_24() -> None:
    assert TILES_PER_PLAYER_CHOICES == (12, 18, 24)


@pytest.mark.parametrize(("players", "per_player"), [(2, 12), (2, 24), (3, 12), (5, 12)])
def test_a_shuffled_deck_keeps_tiles_per_player_times_players(
    players: int, per_player: int
) -> None:
    deck = shuffled_deck(players, per_player, random.Random(4))
    assert len(deck) == players * per_player
    assert not Counter(deck) - tile_set(players)


@pytest.mark.parametrize(("players", "tiles"), [(3, 48), (5, 60)])
def test_a_shuffled_deck_with_all_tiles_keeps_the_whole_box(players: int, tiles: int) -> None:
    deck = shuffled_deck(players, 12, random.Random(4), all_tiles=True)
    assert len(deck) == tiles
    assert Counter(deck) == tile_set(players)


def test_shuffling_depends_only_on_the_seed() -> None:
    first = shuffled_deck(2, 12, random.Random("seed"))
    assert first == shuffled_deck(2, 12, random.Random("seed"))
    assert first != shuffled_deck(2, 12, random.Random("other seed"))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_as_many_double_hex_tiles_lie_face_up_as_there_are_players(players: int) -> None:
    doubles = shuffled_doubles(players, random.Random(9))
    assert len(doubles) == len(set(doubles)) == players
    assert set(doubles) <= set(DOUBLE_HEX_TILES)


def test_a_checked_deck_is_upper_case_codes() -> None:
    assert check_deck([" jc", "Sr", "LL"], players=2) == ["JC", "SR", "LL"]


@pytest.mark.parametrize(
    ("deck", "players", "message"),
    [
        (["JC", 5], 2, "deck[1] is 5, not a tile code such as 'JC'"),
        (["VL"], 2, "deck[0] is 'VL', not a tile code: two of the letters J C S R L"),
        (["JC", "JCS"], 2, "deck[1] is 'JCS', not a tile code: two of the letters J C S R L"),
        (["LL", "LL"], 4, "the deck holds 2 LL tiles, but a 4-player box has only 1"),
        (["RC"] * 4, 5, "the deck holds 4 RC tiles, but a 5-player box has only 3"),
    ],
)
def test_a_deck_that_is_not_from_the_box_is_refused(
    deck: list[object], players: int, message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        check_deck(deck, players)  # type: ignore[arg-type]
    assert str(caught.value) == message
