"""The language being spoken now: a context variable, so that each request, socket, mail or
terminal program speaks its own player's language."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from taluva.lang.languages import DEFAULT

_speaking: ContextVar[str] = ContextVar("taluva_lang", default=DEFAULT)


def current() -> str:
    """The language code being spoken in this context ("en" unless set)."""
    return _speaking.get()


@contextlib.contextmanager
def use(lang: str) -> Iterator[str]:
    """Speak ``lang`` inside the block (a request, a socket's message, a mail)."""
    token = _speaking.set(lang)
    try:
        yield lang
    finally:
        _speaking.reset(token)


def speak(lang: str) -> None:
    """Speak ``lang`` from now on in this context (a terminal program's start)."""
    _speaking.set(lang)
