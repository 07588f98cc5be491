"""The player's language: the catalogs (gettext, managed with Babel), the language of the
current player or request, and saying a ``Text`` of the engine (or any layer) in it.

English is the source: every message id is the English sentence, and a language without a
word falls back to it. ``docs/translating.md`` says how a language is added.
"""

from __future__ import annotations

from taluva.lang.choice import from_accept_language, from_environment, pick
from taluva.lang.formats import duration, listing, number
from taluva.lang.languages import DEFAULT, LANGUAGES
from taluva.lang.speaking import current, speak, use
from taluva.lang.words import _, ngettext, say

__all__ = [
    "DEFAULT",
    "LANGUAGES",
    "_",
    "current",
    "duration",
    "from_accept_language",
    "from_environment",
    "listing",
    "ngettext",
    "number",
    "pick",
    "say",
    "speak",
    "use",
]
