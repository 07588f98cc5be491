"""Deprecated aliases for the engine modules that moved into ``taluva.engine`` (release 0.2).

``taluva.game`` and its siblings keep working for one release: reading a name from them warns
and returns the name from its new home.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any


def moved(old: str, new: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``old`` that forwards every name to module ``new``."""

    def forward(name: str) -> Any:
        target = importlib.import_module(new)
        if name.startswith("__") or not hasattr(target, name):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(
            f"{old} moved to {new}; the old name will be removed in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(target, name)

    return forward
