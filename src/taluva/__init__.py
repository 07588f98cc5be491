"""taluva: a complete, exact and fast implementation of the board game Taluva.

>>> import taluva
>>> game = taluva.Game.new(players=2, seed=7)
>>> game.phase, len(game.legal_moves())
('tile', 6)
"""

from __future__ import annotations

from taluva.engine.errors import (
    IllegalMove,
    InvalidMove,
    InvalidOption,
    InvalidRecord,
)
from taluva.engine.game import Game
from taluva.engine.hexes import coords, format_hex, hex_at, parse_hex
from taluva.engine.moves import Move, MoveKind
from taluva.engine.options import Options
from taluva.engine.outcome import Outcome, Reason
from taluva.engine.pieces import Colour, Piece
from taluva.engine.position import Phase, Position
from taluva.engine.tiles import Terrain

__version__ = "0.1.0"

__all__ = [
    "Colour",
    "Game",
    "IllegalMove",
    "InvalidMove",
    "InvalidOption",
    "InvalidRecord",
    "Move",
    "MoveKind",
    "Options",
    "Outcome",
    "Phase",
    "Piece",
    "Position",
    "Reason",
    "Terrain",
    "__version__",
    "coords",
    "format_hex",
    "hex_at",
    "parse_hex",
]
