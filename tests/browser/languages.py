"""What the language tests look for: the English sentences of the catalogs that a page in
another language must not show, and the languages shipped."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po

from taluva.lang import DEFAULT, LANGUAGES

LOCALE = Path(__file__).resolve().parents[2] / "src" / "taluva" / "lang" / "locale"
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
SHIPPED = [code for code in LANGUAGES if code != DEFAULT]
"""Every language but English, each tested as a player of it sees the site."""


def english_phrases(lang: str, *domains: str) -> set[str]:
    """The English stretches (three words or more, between placeholders) of the messages of
    ``domains`` that ``lang`` words differently: none may show on a page in ``lang``."""
    phrases: set[str] = set()
    for domain in domains:
        with (LOCALE / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as file:
            catalog = read_po(file, locale=lang)
        entries: list[Any] = list(catalog)  # Babel types a message's id and string loosely
        for message in entries:
            if not message.id or message.fuzzy:
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            words = message.string if isinstance(message.string, tuple) else (message.string,)
            for english in ids:
                for stretch in PLACEHOLDER.split(english):
                    stretch = stretch.strip(" .,:;!?()\u2013\u2014-\n")
                    if len(stretch.split()) >= 3 and not any(stretch in w for w in words):
                        phrases.add(stretch)
    return phrases


def english_shown(page: Any, phrases: set[str]) -> list[str]:
    """The phrases of ``phrases`` that the page's text shows."""
    text = page.locator("body").inner_text()
    return sorted(p for p in phrases if p in text)


def translated(lang: str, domain: str, english: str) -> str:
    """The words of one English message in ``lang``'s catalog of ``domain``."""
    with (LOCALE / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as file:
        words = read_po(file, locale=lang)[english]
    assert words is not None and isinstance(words.string, str) and words.string, english
    return words.string
