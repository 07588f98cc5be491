"""The engine's exceptions: all ``ValueError`` subclasses whose message says what and where."""

from __future__ import annotations


class IllegalMove(ValueError):
    """A move the rules forbid in this position (or text that is no move at all)."""


class InvalidMove(IllegalMove):
    """Move text that does not parse: it names no move in any position."""


class InvalidRecord(ValueError):
    """A game record that is malformed or does not replay."""


class InvalidOption(ValueError):
    """A game option (players, tiles per player, expansion, house rule) that does not exist."""


