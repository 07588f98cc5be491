"""The terminal's shared words in the player's language: terrains and pieces by name, an error's
words (a lower layer's ``Text`` said now), the keys' descriptions said when a screen is made,
and the language carried into worker threads.

Needs nothing beyond ``taluva.lang``: the line modes use it without Textual.
"""

from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Callable
from typing import Any, Final

from taluva.engine.wording import T, Text
from taluva.lang import DEFAULT, _, current, say

TERRAIN_WORDS: Final = (
    T("volcano"),
    T("jungle"),
    T("clearing"),
    T("sand"),
    T("rock"),
    T("lake"),
)
"""Each terrain's name, in ``TERRAIN_NAMES`` order (those stay the notation's words)."""


def terrain_word(terrain: int) -> str:
    """A terrain's name in the player's language (``sand``, ``Sand``, ``sable``)."""
    return say(TERRAIN_WORDS[terrain])


def piece_of(kind: str, owner: str) -> str:
    """``hut of Ana``: a piece on the map and its owner, in the player's language."""
    if kind == "temple":
        return _("temple of {player}", player=owner)
    if kind == "tower":
        return _("tower of {player}", player=owner)
    if kind == "ship":
        return _("ship of {player}", player=owner)
    return _("hut of {player}", player=owner)


def decimal(value: float) -> str:
    """A number with two decimals as the player's language writes it (``0.50``, ``0,50``)."""
    lang = current()
    if lang == DEFAULT:
        return format(value, ".2f")
    try:
        from babel.numbers import format_decimal
    except ImportError:  # as taluva.lang.number: without Babel, the English form
        return format(value, ".2f")
    return str(format_decimal(value, format="0.00", locale=lang))


def error_words(error: BaseException) -> str:
    """An error's message in the player's language: a ``Text`` (an engine refusal, a record's
    fault) is said now; any other message is shown as it is."""
    if len(error.args) == 1 and isinstance(error.args[0], Text):
        return say(error.args[0])
    return str(error)


TEXTUAL_WORDS: Final = {
    "Quit": T("Quit"),
    "palette": T("palette"),
    "Quit the app and return to the command prompt.": T(
        "Quit the app and return to the command prompt."
    ),
    "Open the command palette": T("Open the command palette"),
}
"""The words of Textual's own keys on every app (quit, the command palette)."""


def _said(words: str) -> str:
    if isinstance(words, Text):
        return say(words)
    known = TEXTUAL_WORDS.get(words)
    return words if known is None else say(known)


def say_bindings(node: Any) -> None:
    """Say the descriptions of a screen's or app's keys (English ``T`` templates in its
    ``BINDINGS``, which are read when the module is imported, and Textual's own) in the
    language spoken now."""
    bindings = node._bindings.key_to_bindings
    for key, found in bindings.items():
        bindings[key] = [
            dataclasses.replace(
                binding, description=_said(binding.description), tooltip=_said(binding.tooltip)
            )
            for binding in found
        ]


def carried(work: Callable[[], None]) -> Callable[[], None]:
    """``work`` run in a worker thread in the language spoken here (a new thread starts in
    English, and so would the answers it hands back to the interface)."""
    context = contextvars.copy_context()
    return lambda: context.run(work)
