"""The words in the language being spoken now (``taluva.lang.speaking``): ``_`` and
``ngettext`` for literal text, ``say`` for a ``Text`` made by a lower layer (an engine
refusal, a lesson's step, an API error)."""

from __future__ import annotations

import logging
from typing import Any

from taluva.engine.wording import Text
from taluva.lang.catalogs import translations
from taluva.lang.formats import number
from taluva.lang.languages import DEFAULT
from taluva.lang.speaking import current

log = logging.getLogger("taluva.lang")


def _(message: str, /, **values: Any) -> str:
    """``message`` in the current language, its ``{name}`` placeholders filled from ``values``."""
    lang = current()
    words = translations(lang).gettext(message)
    return _fill(words, message, _values(values, lang)) if values else words


def ngettext(one: str, other: str, count: int, /, **values: Any) -> str:
    """The form for ``count`` in the current language (its CLDR plural rule), filled in."""
    lang = current()
    words = translations(lang).ngettext(one, other, count)
    return _fill(words, one if count == 1 else other, _values(values, lang))


def say(text: Any, lang: str | None = None) -> str:
    """A ``Text`` in ``lang`` (default: the current language), its values said too; any other
    value as ``str`` gives it."""
    if not isinstance(text, Text):
        return str(text)
    lang = current() if lang is None else lang
    if lang == DEFAULT:
        return str(text)
    tr = translations(lang)
    if text.plural is not None and text.quantity is not None:
        words = tr.ngettext(text.template, text.plural, text.quantity)
    else:
        words = tr.gettext(text.template)
    if not text.values:
        return words
    english = text.template if text.plural is None or text.quantity == 1 else text.plural
    return _fill(words, english, _values(text.values, lang))


def _values(values: Any, lang: str) -> dict[str, Any]:
    """The values said in ``lang``: Texts in its words, numbers in its form (English: as given)."""
    if lang == DEFAULT:
        return {k: str(v) if isinstance(v, Text) else v for k, v in values.items()}
    out: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, Text):
            out[key] = say(value, lang)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = number(value, lang)
        else:
            out[key] = value
    return out


def _fill(words: str, english: str, values: dict[str, Any]) -> str:
    try:
        return words.format_map(values)
    except (KeyError, IndexError, ValueError) as error:
        log.error("the words %r do not fit their values (%s): English is said", words, error)
        try:
            return english.format_map(values)
        except (KeyError, IndexError, ValueError):
            return english
