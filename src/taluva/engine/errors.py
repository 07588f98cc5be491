"""The engine's exceptions: all ``ValueError`` subclasses whose message says what and where.

A message the engine builds is a ``Text`` (``str(error)`` gives its English words): ``text``
gives it back with its meaning, ``code`` the stable refusal code (docs/engine.md,
"Refusals"), so that an interface can say it in its player's language.
"""

from __future__ import annotations

from taluva.engine.wording import Text


class _Explained(ValueError):
    """An error whose first argument may be a ``Text``."""

    @property
    def text(self) -> Text:
        """The message as a ``Text`` (a plain message becomes one without a code)."""
        message = self.args[0] if self.args else ""
        return message if isinstance(message, Text) else Text(str(message))

    @property
    def code(self) -> str | None:
        """The stable code of the refusal, or None for a message without one."""
        return self.text.code

    @property
    def refusal(self) -> Text:
        """The refusal itself, without what the message says around it (the move refused, the
        record's name): its ``code`` and ``values`` are the table's (docs/engine.md)."""
        text = self.text
        while text.code is not None:
            inner = next(
                (v for v in text.values.values() if isinstance(v, Text) and v.code == text.code),
                None,
            )
            if inner is None:
                break
            text = inner
        return text


class IllegalMove(_Explained):
    """A move the rules forbid in this position (or text that is no move at all)."""


class InvalidMove(IllegalMove):
    """Move text that does not parse: it names no move in any position."""


class InvalidRecord(_Explained):
    """A game record that is malformed or does not replay."""


class InvalidOption(_Explained):
    """A game option (players, tiles per player, expansion, house rule) that does not exist."""
