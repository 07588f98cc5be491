"""Deprecated aliases for the engine modules that moved into ``taluva.engine`` (release 0.2).

``taluva.game`` and its siblings keep working for one release: reading a name from them warns
and returns the name from its new home.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any


def moved(old: str, *new: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``old`` that finds every name in the modules ``new``."""

    def forward(name: str) -> Any:
        for home in new:
            target = importlib.import_module(home)
            if not name.startswith("__") and hasattr(target, name):
                warnings.warn(
                    f"{old}.{name} moved to {home}; the old name will be removed in the next "
                    "release",
                    DeprecationWarning,
                    stacklevel=2,
                )
                return getattr(target, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r}")

    return forward
