"""The players' pieces: the kinds of buildings and ships, the supply each player starts with,
and the colours of the seats.

A building on the board is stored as the int ``player * 4 + kind``; a supply is the tuple of
pieces a player still holds, indexed by the same kinds.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Final

from taluva.engine.wording import T, Text, Tn


class Piece(IntEnum):
    """A kind of piece; its value indexes supplies and building codes."""

    HUT = 0
    TEMPLE = 1
    TOWER = 2
    SHIP = 3

    @property
    def word(self) -> str:
        """The piece's name in move text and messages: ``hut``, ``temple``..."""
        return BUILDING_NAMES[self] if self != Piece.SHIP else "ship"

    @property
    def plural(self) -> str:
        """The name of a pile of them: ``huts``, ``temples``..."""
        return PIECE_NAMES[self]

    def count(self, number: int) -> Text:
        """``number`` of them in words: ``1 tower``, ``2 towers``, ``0 temples``."""
        return piece_count(self, number)


HUT_KIND: Final = 0
TEMPLE_KIND: Final = 1
TOWER_KIND: Final = 2
"""Building kinds as plain ints (``Piece`` values), for the engine's hot loops."""

HUTS: Final = 0
TEMPLES: Final = 1
TOWERS: Final = 2
SHIPS: Final = 3
"""Indexes into a supply tuple (``Piece`` values)."""

BUILDING_NAMES: Final = ("hut", "temple", "tower")
PIECE_NAMES: Final = ("huts", "temples", "towers", "ships")
"""The pieces' words in move text and data (machine-readable: never translated)."""
PILE_WORDS: Final = (T("huts"), T("temples"), T("towers"), T("ships"))
"""A pile of each kind as a sentence for people names it (said in the reader's language)."""


def piece_count(kind: int, number: int) -> Text:
    """``number`` pieces of ``kind`` in words, in the reader's plural: ``1 tower``, ``2 huts``."""
    if kind == HUTS:
        return Tn("{n} hut", "{n} huts", number, n=number)
    if kind == TEMPLES:
        return Tn("{n} temple", "{n} temples", number, n=number)
    if kind == TOWERS:
        return Tn("{n} tower", "{n} towers", number, n=number)
    return Tn("{n} ship", "{n} ships", number, n=number)


STARTING_SUPPLY: Final = (20, 3, 2, 2)
"""Pieces per player: huts, temples, towers, ships (ships only with the Ships expansion)."""

BASE_PIECE_TYPES: Final = 3
"""Huts, temples and towers: the kinds that count for an early victory in the base game."""


class Colour(StrEnum):
    """The colour of each seat's pieces, in seat order; black is the fifth player's."""

    RED = "red"
    WHITE = "white"
    PURPLE = "purple"
    ORANGE = "orange"
    BLACK = "black"

    @classmethod
    def of(cls, player: int) -> Colour:
        """The colour of seat ``player`` (0-based)."""
        return SEAT_COLOURS[player]


SEAT_COLOURS: Final = tuple(Colour)
"""Colours by seat index."""


def starting_supply(ships: bool) -> tuple[int, int, int, int]:
    """What one player holds at the start: ships only with the Ships expansion."""
    huts, temples, towers, boats = STARTING_SUPPLY
    return huts, temples, towers, boats if ships else 0
