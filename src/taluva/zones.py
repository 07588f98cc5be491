"""Deprecated alias of :mod:`taluva.engine.expansions.board_zones`, kept for one release."""

from taluva._moved import moved

__getattr__ = moved(__name__, "taluva.engine.expansions.board_zones")
