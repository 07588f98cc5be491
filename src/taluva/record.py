"""Deprecated alias of :mod:`taluva.engine.record`, kept for one release."""

from taluva._moved import moved

__getattr__ = moved(__name__, "taluva.engine.record", "taluva.engine.game")
