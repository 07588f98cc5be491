"""Numbers, durations and lists in the locale's own form (CLDR data through Babel); without
Babel installed, the English forms."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from taluva.lang.languages import DEFAULT
from taluva.lang.speaking import current


def _lang(lang: str | None) -> str:
    return current() if lang is None else lang


def number(value: float, lang: str | None = None) -> str:
    """``1234`` as the locale writes it ("1,234", "1.234", "1 234")."""
    lang = _lang(lang)
    try:
        from babel.numbers import format_decimal
    except ImportError:
        return str(value)
    return str(format_decimal(value, locale=lang))


def duration(seconds: float, lang: str | None = None, *, threshold: float = 0.85) -> str:
    """A length of time in words, rounded to its largest unit ("3 days", "3 Tage", "3 jours")."""
    lang = _lang(lang)
    try:
        from babel.dates import format_timedelta
    except ImportError:
        return _english_duration(seconds)
    return str(format_timedelta(timedelta(seconds=seconds), locale=lang, threshold=threshold))


def listing(items: Sequence[Any], lang: str | None = None) -> str:
    """Several things in one phrase ("Ana, Ben and Cleo", "Ana, Ben und Cleo")."""
    lang = _lang(lang)
    parts = [str(item) for item in items]
    try:
        from babel.lists import format_list
    except ImportError:
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return str(format_list(parts, locale=lang)) if parts else ""


def _english_duration(seconds: float) -> str:
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute"), (1, "second")):
        if seconds >= size:
            n = round(seconds / size)
            return f"{n} {unit}{'' if n == 1 else 's'}"
    return "0 seconds"


__all__ = ["DEFAULT", "duration", "listing", "number"]
