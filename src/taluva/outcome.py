"""Deprecated alias of :mod:`taluva.engine.outcome`, kept for one release."""

from taluva._moved import moved

__getattr__ = moved(__name__, "taluva.engine.outcome", "taluva.engine.pieces")
