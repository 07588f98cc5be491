"""Which language to speak: the first wanted one that is shipped, else English. A request
asks by its account's setting, a cookie or ``Accept-Language``; a terminal by ``--lang`` or
the usual environment (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from taluva.lang.languages import DEFAULT, LANGUAGES


def shipped(tag: str | None) -> str | None:
    """The shipped language a tag names ("de", "de-AT", "fr_FR.UTF-8", "DE"), or None."""
    if not tag:
        return None
    code = re.split(r"[-_.@]", tag.strip(), maxsplit=1)[0].lower()
    return code if code in LANGUAGES else None


def pick(*wanted: str | None) -> str:
    """The first of ``wanted`` (language tags, best first; None skipped) that is shipped."""
    for tag in wanted:
        code = shipped(tag)
        if code is not None:
            return code
    return DEFAULT


def from_accept_language(header: str | None) -> str | None:
    """The shipped language an ``Accept-Language`` header prefers most, or None.

    >>> from_accept_language("en-GB;q=0.5, fr-CH, de;q=0.9")
    'fr'
    """
    if not header:
        return None
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        if match:
            try:
                quality = float(match.group(1))
            except ValueError:
                continue
        if quality > 0 and shipped(tag):
            ranked.append((-quality, i, tag))
    return shipped(min(ranked)[2]) if ranked else None


def from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """The shipped language the environment asks for, as gettext reads it, or None.

    ``LANGUAGE`` (a colon-separated list) counts only when a locale is set at all, as in
    gettext; ``C`` and ``POSIX`` mean English.
    """
    env = os.environ if environ is None else environ
    chosen = _first(env.get(name) for name in ("LC_ALL", "LC_MESSAGES", "LANG"))
    if chosen is None or chosen.split(".")[0] in ("C", "POSIX"):
        return None
    for tag in env.get("LANGUAGE", "").split(":"):
        if shipped(tag):
            return shipped(tag)
    return shipped(chosen)


def _first(values: Iterable[str | None]) -> str | None:
    for value in values:
        if value:
            return value
    return None
