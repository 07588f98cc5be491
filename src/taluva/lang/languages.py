"""The one table of the languages the project speaks: code, and the language's own name as
the language switch shows it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

DEFAULT: Final = "en"
"""The source language: every message id is English, so English needs no catalog."""

LANGUAGES: Final[Mapping[str, str]] = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
}
"""Each shipped language by its code (ISO 639-1), named in itself; English first."""

DOMAINS: Final = ("engine", "learn", "server", "terminal")
"""The Python side's catalogs, one per area of the code, looked up in this order."""

CLIENT_DOMAINS: Final = ("client-site", "client-game")
"""The web client's catalogs, merged into the one catalog the browser loads."""
