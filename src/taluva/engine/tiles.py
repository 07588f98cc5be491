"""Terrains, the tile set of docs/rules.md, decks, and tile footprints.

A regular tile is a volcano plus two terrain hexes, written by its two terrain letters
(``JC``); it is chiral, so ``JC`` and ``CJ`` differ. Double-hex tiles (an expansion) are
written by both of their letters (``VL``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from enum import IntEnum
from typing import Final

from taluva.engine.hexes import DELTAS
from taluva.engine.refusals import refusal
from taluva.engine.wording import T

TERRAIN_LETTERS: Final = "VJCSRL"
TERRAIN_NAMES: Final = ("volcano", "jungle", "clearing", "sand", "rock", "lake")
"""The terrains' words in move text and data (machine-readable: never translated)."""
TERRAIN_WORDS: Final = (T("volcano"), T("jungle"), T("clearing"), T("sand"), T("rock"), T("lake"))
"""The same words as a sentence for people names the terrain (said in the reader's language)."""


class Terrain(IntEnum):
    """The terrain of a hex; the value is the engine's terrain code."""

    VOLCANO = 0
    JUNGLE = 1
    CLEARING = 2
    SAND = 3
    ROCK = 4
    LAKE = 5

    @property
    def letter(self) -> str:
        """The letter of tile codes: ``V J C S R L``."""
        return TERRAIN_LETTERS[self]

    @property
    def word(self) -> str:
        """The lower-case word of move text: ``jungle``, ``clearing``..."""
        return TERRAIN_NAMES[self]


VOLCANO: Final = 0
JUNGLE: Final = 1
CLEARING: Final = 2
SAND: Final = 3
ROCK: Final = 4
LAKE: Final = 5
"""Terrain codes as plain ints (``Terrain`` values), for the engine's hot loops."""

BASE_TILE_COUNTS: Final[dict[str, int]] = {
    "JC": 6, "CJ": 5, "JS": 4, "SJ": 4, "JL": 2, "CR": 2, "RC": 2, "JR": 2, "CS": 2,
    "SC": 2, "SR": 2, "RJ": 2,
    "JJ": 1, "CC": 1, "SS": 1, "RR": 1, "LL": 1, "CL": 1, "SL": 1, "RS": 1, "RL": 1,
    "LJ": 1, "LC": 1, "LS": 1, "LR": 1,
}  # fmt: skip
"""The 48 tiles of the base game, as Board Game Arena ships them."""

FIFTH_PLAYER_TILE_COUNTS: Final[dict[str, int]] = {
    "JC": 1, "CJ": 2, "JS": 2, "SJ": 2, "JL": 2, "CR": 2, "RC": 1,
}  # fmt: skip
"""The 12 tiles the fifth-player expansion adds (``expansions.fifth_player``)."""

FIFTH_PLAYER_COUNT: Final = 5
"""Five players bring in the fifth-player expansion's pieces and tiles."""

DOUBLE_HEX_TILES: Final = ("VL", "VJ", "VS", "VV", "JJ")
"""The five two-hex tiles of the Double-Hex expansion."""

TILES_PER_PLAYER_CHOICES: Final = (12, 18, 24)


def terrain_from_text(text: str) -> int:
    """Read a terrain given as a word or a letter, in any case.

    >>> terrain_from_text("Sand"), terrain_from_text("r")
    (3, 4)
    """
    word = text.strip().lower()
    if word in TERRAIN_NAMES:
        return TERRAIN_NAMES.index(word)
    if len(word) == 1 and word.upper() in TERRAIN_LETTERS:
        return TERRAIN_LETTERS.index(word.upper())
    raise ValueError(
        refusal("not-a-terrain", text=repr(text.strip()), terrains=", ".join(TERRAIN_NAMES[1:]))
    )


def tile_terrains(code: str) -> tuple[int, int, int]:
    """The terrains of a regular tile's hexes in footprint order: volcano, ``A``, ``B``.

    >>> tile_terrains("JC")
    (0, 1, 2)
    """
    return VOLCANO, TERRAIN_LETTERS.index(code[0]), TERRAIN_LETTERS.index(code[1])


TILE_TERRAINS: Final[dict[str, tuple[int, int, int]]] = {
    a + b: tile_terrains(a + b) for a in TERRAIN_LETTERS[1:] for b in TERRAIN_LETTERS[1:]
}
"""``tile_terrains`` of every regular tile code, looked up when a tile is laid."""


def double_terrains(code: str) -> tuple[int, int]:
    """The terrains of a double-hex tile's hexes: ``X``, then ``Y``.

    >>> double_terrains("VL")
    (0, 5)
    """
    return TERRAIN_LETTERS.index(code[0]), TERRAIN_LETTERS.index(code[1])


def is_regular_tile(code: str) -> bool:
    """Whether ``code`` names a three-hex tile (two terrain letters, no volcano letter)."""
    return len(code) == 2 and all(c in TERRAIN_LETTERS[1:] for c in code)


def tile_set(players: int) -> Counter[str]:
    """Every regular tile in the box for a game of ``players`` (five bring 12 more)."""
    counts = Counter(BASE_TILE_COUNTS)
    if players == FIFTH_PLAYER_COUNT:
        counts.update(FIFTH_PLAYER_TILE_COUNTS)
    return counts


def check_deck(deck: Iterable[str], players: int) -> list[str]:
    """Validate a draw pile against the tile set; return it as a list of upper-case codes."""
    codes = []
    for index, raw in enumerate(deck):
        if not isinstance(raw, str):
            raise ValueError(refusal("deck-not-text", index=str(index), value=repr(raw)))
        code = raw.strip().upper()
        if not is_regular_tile(code):
            raise ValueError(refusal("deck-not-tile", index=str(index), value=repr(raw)))
        codes.append(code)
    available = tile_set(players)
    for code, count in Counter(codes).items():
        if count > available[code]:
            raise ValueError(
                refusal(
                    "deck-too-many",
                    many=count,
                    tile=code,
                    players=players,
                    available=available[code],
                )
            )
    return codes


def shuffled_deck(
    players: int, tiles_per_player: int, rng: random.Random, all_tiles: bool = False
) -> list[str]:
    """Shuffle the box and keep ``tiles_per_player * players`` tiles (all with ``all_tiles``)."""
    box = sorted(tile_set(players).elements())
    rng.shuffle(box)
    return box if all_tiles else box[: tiles_per_player * players]


def shuffled_doubles(players: int, rng: random.Random) -> list[str]:
    """Lay as many double-hex tiles face up as there are players."""
    doubles = list(DOUBLE_HEX_TILES)
    rng.shuffle(doubles)
    return doubles[:players]


def footprint(volcano: int, orientation: int) -> tuple[int, int, int]:
    """Hexes a regular tile covers: volcano, then terrain ``A`` and terrain ``B``."""
    return (
        volcano,
        volcano + DELTAS[orientation],
        volcano + DELTAS[(orientation + 1) % 6],
    )


def double_footprint(hex_: int, orientation: int) -> tuple[int, int]:
    """Hexes a double-hex tile covers: ``X`` on ``hex_``, ``Y`` next to it."""
    return hex_, hex_ + DELTAS[orientation]


NEXT_DELTAS: Final = tuple(DELTAS[(k + 1) % 6] for k in range(6))
"""``D[k + 1]`` for each orientation ``k``: where terrain ``B`` of a tile lies."""


def _placements_over() -> tuple[tuple[int, int, int], ...]:
    """For a hex ``h``: (code offset, offsets of the other two hexes) of every placement over h."""
    rows = []
    for k in range(6):
        a, b = DELTAS[k], NEXT_DELTAS[k]
        rows.append((k, a, b))  # h is the volcano
        rows.append((-a * 8 + k, -a, b - a))  # h is terrain A
        rows.append((-b * 8 + k, -b, a - b))  # h is terrain B
    return tuple(rows)


PLACEMENTS_OVER: Final = _placements_over()
"""Placements are coded as ints ``volcano * 8 + orientation``; these 18 rows
``(code offset, other hex offset, other hex offset)`` list every three-hex placement whose
footprint holds a hex ``h``: ``code = h * 8 + offset``."""

CODE_OFFSETS_OVER: Final = tuple(row[0] for row in PLACEMENTS_OVER)

PAIRS_OVER: Final = tuple(
    row for k in range(6) for row in ((k, DELTAS[k]), (-DELTAS[k] * 8 + k, -DELTAS[k]))
)
"""12 rows ``(code offset, other hex offset)`` of the double-hex placements over a hex:
``code = h * 8 + offset`` with ``X`` on ``code >> 3`` and ``Y`` next to it in direction
``code & 7``."""

PAIR_OFFSETS_OVER: Final = tuple(row[0] for row in PAIRS_OVER)
