"""Deprecated alias of :mod:`taluva.engine.game`, kept for one release."""

from taluva._moved import moved

__getattr__ = moved(__name__, "taluva.engine.game", "taluva.engine.position")
