"""The words of an engine's refusal kept as said: an exception made from a ``Text`` gives
that Text back, so that the reader's language says it at the edge (``taluva.lang.say``)."""

from __future__ import annotations

from taluva.engine.wording import Text


def reason_of(error: Exception) -> str:
    """The ``Text`` an exception was raised with, else its message as ``str`` gives it."""
    first = error.args[0] if len(error.args) == 1 else None
    return first if isinstance(first, Text) else str(error)
