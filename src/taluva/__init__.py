"""taluva: a complete, exact and fast implementation of the board game Taluva.

>>> import taluva
>>> game = taluva.Game.new(players=2, seed=7)
>>> game.phase, len(game.legal_moves())
('tile', 6)
"""

from __future__ import annotations

from taluva.engine.errors import (
    IllegalMove,
    IllegalMoveError,
    InvalidMove,
    InvalidMoveError,
    InvalidOption,
    InvalidRecord,
    InvalidRecordError,
)
from taluva.engine.game import Game
from taluva.engine.hexes import coords, format_hex, hex_at, parse_hex
from taluva.engine.moves import Move
from taluva.engine.outcome import Outcome, Reason

__version__ = "0.1.0"

__all__ = [
    "Game",
    "IllegalMove",
    "IllegalMoveError",
    "InvalidMove",
    "InvalidMoveError",
    "InvalidOption",
    "InvalidRecord",
    "InvalidRecordError",
    "Move",
    "Outcome",
    "Reason",
    "__version__",
    "coords",
    "format_hex",
    "hex_at",
    "parse_hex",
]
