"""The move value object: one ply, with exactly one canonical text (docs/notation.md, "Moves")."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from enum import StrEnum
from operator import itemgetter
from typing import Any, Final

from taluva.engine.errors import InvalidMove
from taluva.engine.hexes import DELTAS, format_hex, parse_hex
from taluva.engine.refusals import refusal, refused_move
from taluva.engine.tiles import DOUBLE_HEX_TILES, TERRAIN_NAMES, VOLCANO, terrain_from_text
from taluva.engine.wording import Text


class MoveKind(StrEnum):
    """What a move does; the value is the first word of its text."""

    TILE = "tile"
    DRAW = "draw"
    DOUBLE = "double"
    HUT = "hut"
    EXPAND = "expand"
    TEMPLE = "temple"
    TOWER = "tower"
    SHIP = "ship"

    # hash like the text, so that a move made with "tile" finds one made with MoveKind.TILE
    __hash__ = str.__hash__

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:  # shows as the text it equals, as before it was an enum
        return repr(self.value)


TILE: Final = MoveKind.TILE
DRAW: Final = MoveKind.DRAW
DOUBLE: Final = MoveKind.DOUBLE
HUT: Final = MoveKind.HUT
EXPAND: Final = MoveKind.EXPAND
TEMPLE: Final = MoveKind.TEMPLE
TOWER: Final = MoveKind.TOWER
SHIP: Final = MoveKind.SHIP

KINDS: Final = (TILE, DRAW, DOUBLE, HUT, EXPAND, TEMPLE, TOWER, SHIP)
TILE_KINDS: Final = frozenset({TILE, DRAW, DOUBLE})
BUILD_KINDS: Final = frozenset({HUT, EXPAND, TEMPLE, TOWER, SHIP})
_SINGLE_HEX_BUILDS: Final = frozenset({HUT, TEMPLE, TOWER, SHIP})
_SYMMETRIC_DOUBLES: Final = frozenset({"VV", "JJ"})
_COMMA = re.compile(r"\s*,\s*")


class Move(tuple[MoveKind, int, int, tuple[int, ...], str]):
    """One ply: ``(kind, hex, arg, hexes, tile)`` with hexes in the engine's int form.

    ``arg`` is the orientation of a tile or the terrain of an expansion; ``hexes`` lists the
    hexes an expansion fills (sorted); ``tile`` is the code of a double-hex tile. Being a
    tuple, a move is hashable and compares by value.

    >>> move = Move.parse("EXPAND  s 2,-1 1,0")
    >>> str(move), move.kind
    ('expand sand 1,0 2,-1', 'expand')
    >>> Move.parse(str(move)) == move
    True
    """

    __slots__ = ()

    kind: MoveKind = property(itemgetter(0))  # type: ignore[assignment]
    hex: int = property(itemgetter(1))  # type: ignore[assignment]
    arg: int = property(itemgetter(2))  # type: ignore[assignment]
    hexes: tuple[int, ...] = property(itemgetter(3))  # type: ignore[assignment]
    tile: str = property(itemgetter(4))  # type: ignore[assignment]

    def __new__(
        cls,
        kind: MoveKind,
        hex_: int = 0,
        arg: int = 0,
        hexes: tuple[int, ...] = (),
        tile: str = "",
    ) -> Move:
        return tuple.__new__(cls, (kind, hex_, arg, hexes, tile))

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)

    @property
    def orientation(self) -> int:
        """The orientation ``k`` of a tile or double-hex move."""
        return self[2]

    @property
    def terrain(self) -> int:
        """The terrain an expansion fills."""
        return self[2]

    @property
    def is_tile_move(self) -> bool:
        """Whether the move belongs to the tile phase (``tile``, ``draw``, ``double``)."""
        return self[0] in TILE_KINDS

    @classmethod
    def place_tile(cls, volcano: int, orientation: int) -> Move:
        """Place the drawn tile with its volcano on ``volcano``."""
        return cls(TILE, volcano, orientation)

    @classmethod
    def place_double(cls, code: str, hex_: int, orientation: int) -> Move:
        """Place a double-hex tile, normalising the symmetric ``VV`` and ``JJ`` to k in 0..2."""
        if code in _SYMMETRIC_DOUBLES and orientation >= 3:
            hex_, orientation = hex_ + DELTAS[orientation], orientation - 3
        return cls(DOUBLE, hex_, orientation, (), code)

    @classmethod
    def expand(cls, terrain: int, hexes: tuple[int, ...] | list[int]) -> Move:
        """Expand a settlement into ``hexes`` of ``terrain`` (sorted for the canonical form)."""
        ordered = tuple(sorted(hexes))
        return cls(EXPAND, ordered[0], terrain, ordered)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read move text leniently (case, spacing, terrain letters); raise InvalidMove."""
        if not isinstance(text, str):
            raise InvalidMove(refusal("move-not-text", type=type(text).__name__))
        cleaned = _COMMA.sub(",", text.strip()).replace("(", "").replace(")", "")
        words = cleaned.split()
        if not words:
            raise InvalidMove(refusal("empty-move"))
        args = words[1:]
        try:
            return _PARSERS[words[0].lower()](args)
        except KeyError:
            raise InvalidMove(
                refusal(
                    "unknown-move",
                    text=repr(text.strip()),
                    word=repr(words[0]),
                    kinds=", ".join(KINDS),
                )
            ) from None
        except (ValueError, IndexError) as error:
            reason = error.args[0] if error.args and isinstance(error.args[0], Text) else None
            if reason is None:
                raise InvalidMove(f"{text.strip()!r}: {error}") from None
            raise InvalidMove(refused_move(repr(text.strip()), reason)) from None

    def __str__(self) -> str:
        return _TEXTS.get(self) or _remember(self)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


_TEXTS: dict[Move, str] = {}
"""Canonical texts already written: the server writes the same moves again and again (every
legal move of every position it sends, and each game's moves so far)."""
_TEXTS_KEPT: Final = 1 << 16


def move_texts(moves: Iterable[Move]) -> list[str]:
    """The canonical texts of ``moves``, in order: ``[str(move) for move in moves]``, about
    three times faster on moves written before."""
    texts = _TEXTS
    try:
        return [texts[move] for move in moves]
    except KeyError:
        return [texts.get(move) or _remember(move) for move in moves]


def _remember(move: Move) -> str:
    """Write a move's canonical text and keep it (forgetting them all when there are many)."""
    if len(_TEXTS) >= _TEXTS_KEPT:
        _TEXTS.clear()
    text = _TEXTS[move] = _write(move)
    return text


def _write(move: Move) -> str:
    kind = move[0]
    if kind == TILE:
        return f"tile {format_hex(move[1])} {move[2]}"
    if kind == EXPAND:
        return f"expand {TERRAIN_NAMES[move[2]]} " + " ".join(map(format_hex, move[3]))
    if kind == DOUBLE:
        return f"double {move[4]} {format_hex(move[1])} {move[2]}"
    if kind == DRAW:
        return "draw"
    return f"{kind} {format_hex(move[1])}"


def _orientation(text: str) -> int:
    if text not in ("0", "1", "2", "3", "4", "5"):
        raise ValueError(refusal("bad-orientation", text=repr(text)))
    return int(text)


def _arity(args: list[str], count: int, usage: str, **values: str) -> None:
    """Refuse move text with the wrong number of words after the kind (``usage``: the
    refusal's code, saying what is expected)."""
    if len(args) != count:
        raise ValueError(refusal(usage, **values))


def _parse_tile(args: list[str]) -> Move:
    _arity(args, 2, "tile-usage")
    return Move.place_tile(parse_hex(args[0]), _orientation(args[1]))


def _parse_draw(args: list[str]) -> Move:
    _arity(args, 0, "draw-usage")
    return Move(DRAW)


def _parse_double(args: list[str]) -> Move:
    _arity(args, 3, "double-usage", tiles=_DOUBLES)
    code = args[0].upper()
    if code not in DOUBLE_HEX_TILES:
        raise ValueError(refusal("not-a-double-tile", text=repr(args[0]), tiles=_DOUBLES))
    return Move.place_double(code, parse_hex(args[1]), _orientation(args[2]))


_DOUBLES: Final = " ".join(DOUBLE_HEX_TILES)


def _single_hex(kind: MoveKind) -> Callable[[list[str]], Move]:
    word = str(kind)

    def parse(args: list[str]) -> Move:
        _arity(args, 1, "one-hex-usage", kind=word)
        return Move(kind, parse_hex(args[0]))

    return parse


def _parse_expand(args: list[str]) -> Move:
    if len(args) < 2:
        raise ValueError(refusal("expand-usage"))
    terrain = terrain_from_text(args[0])
    if terrain == VOLCANO:
        raise ValueError(refusal("expand-onto-volcano"))
    hexes = [parse_hex(arg) for arg in args[1:]]
    if len(set(hexes)) != len(hexes):
        raise ValueError(refusal("hex-twice"))
    return Move.expand(terrain, hexes)


_PARSERS: Final[dict[str, Callable[[list[str]], Move]]] = {
    TILE: _parse_tile,
    DRAW: _parse_draw,
    DOUBLE: _parse_double,
    EXPAND: _parse_expand,
    **{kind: _single_hex(kind) for kind in _SINGLE_HEX_BUILDS},
}


class _TileMoves(dict[int, Move]):
    """Interned tile moves by placement code, made on first use."""

    def __missing__(self, code: int) -> Move:
        move = self[code] = Move(TILE, code >> 3, code & 7)
        return move


class _HexMoves(dict[int, Move]):
    """Interned single-hex builds of one kind by hex, made on first use."""

    def __init__(self, kind: MoveKind) -> None:
        super().__init__()
        self.kind = kind

    def __missing__(self, hex_: int) -> Move:
        move = self[hex_] = Move(self.kind, hex_)
        return move


class _DoubleMoves(dict[tuple[str, int], Move]):
    """Interned double-hex moves by (tile code, placement code), made on first use."""

    def __missing__(self, key: tuple[str, int]) -> Move:
        code, placement = key
        move = self[key] = Move.place_double(code, placement >> 3, placement & 7)
        return move


TILE_MOVES: Final = _TileMoves()
DOUBLE_MOVES: Final = _DoubleMoves()
DRAW_MOVE: Final = Move(DRAW)
HUT_MOVES: Final = _HexMoves(HUT)
TEMPLE_MOVES: Final = _HexMoves(TEMPLE)
TOWER_MOVES: Final = _HexMoves(TOWER)
SHIP_MOVES: Final = _HexMoves(SHIP)
"""The engine makes each move object once and hands out the same one again: move lists are
cheap to build and identical moves compare by identity first."""
