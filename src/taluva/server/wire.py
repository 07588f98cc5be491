"""How the server writes a message for its clients: one line of compact JSON, in the language
of whoever reads it.

Every move is written once for all of a game's sockets, so this is on the hot path of a
busy server; orjson writes a state about ten times faster than the standard library. A
message may hold ``Text`` objects (``taluva.engine.wording``): written as they are, they are
the English words; ``in_language`` writes the same message again for a socket that speaks
another language, once per language however many sockets speak it.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from taluva.engine.wording import Text
from taluva.lang import DEFAULT, say

MEANING = "\x00text"
"""The key that marks a ``Text`` written with its meaning (``meaning_of``), where no message
of a client can put it (the server refuses text that is not JSON it could have written)."""


class Wire(str):
    """The JSON text of a message (its English words), keeping the message itself so that it
    can be written again in another language (``in_language``)."""

    message: Any
    said: dict[str, str]
    """The message written in each other language it was asked in."""
    plain: bool
    """Whether the message holds no Text (found on the first other language asked for)."""


def _dumps(message: Any) -> str:
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        # What JSON allows and orjson refuses: a lone surrogate, an integer beyond 64 bits.
        return json.dumps(message, separators=(",", ":"))


def to_json(message: Any) -> Wire:
    """The compact JSON text of ``message`` (UTF-8 characters as they are, keys of any
    simple type written as strings, as ``json.dumps`` does), its Texts in English."""
    text = Wire(_dumps(message))
    text.message = message
    text.said = {}
    text.plain = False
    return text


def spoken(value: Any, lang: str) -> Any:
    """``value`` with every Text in it said in ``lang`` (walking dicts, lists and tuples);
    the very same object when it holds no Text or ``lang`` is English."""
    if lang == DEFAULT:
        return value
    return _say_all(value, lang)


def _say_all(value: Any, lang: str) -> Any:
    if isinstance(value, Text):
        return say(value, lang)
    if isinstance(value, dict):
        changed = False
        out = {}
        for key, item in value.items():
            said = _say_all(item, lang)
            changed = changed or said is not item
            out[key] = said
        return out if changed else value
    if isinstance(value, (list, tuple)):
        items = [_say_all(item, lang) for item in value]
        if any(said is not item for said, item in zip(items, value, strict=True)):
            return items
        return value
    return value


def to_json_in(message: Any, lang: str) -> str:
    """The compact JSON text of ``message`` with its Texts said in ``lang``."""
    return _dumps(spoken(message, lang))


def in_language(text: str, lang: str) -> str:
    """A message written by ``to_json``, in ``lang``: the same text when it holds no Text (or
    ``lang`` is English), else written once more per language and kept for the next reader."""
    if lang == DEFAULT or not isinstance(text, Wire) or text.plain:
        return text
    found = text.said.get(lang)
    if found is None:
        said = spoken(text.message, lang)
        if said is text.message:
            text.plain = True
            return text
        found = text.said[lang] = _dumps(said)
    return found


def meaning_of(text: str) -> Any:
    """The message of ``text`` with its Texts written as their meaning (template, plural,
    count, code, values) for another server process, or None when it holds no Text: a text
    passed between processes as JSON would otherwise arrive as English words only."""
    if not isinstance(text, Wire):
        return None
    found = _meaning(text.message)
    return None if found is text.message else found


def _meaning(value: Any) -> Any:
    if isinstance(value, Text):
        values = {key: _meaning(item) for key, item in value.values.items()}
        return {MEANING: [value.template, value.plural, value.quantity, value.code, values]}
    if isinstance(value, dict):
        out = {key: _meaning(item) for key, item in value.items()}
        return value if all(out[k] is value[k] for k in value) else out
    if isinstance(value, (list, tuple)):
        items = [_meaning(item) for item in value]
        if any(said is not item for said, item in zip(items, value, strict=True)):
            return items
        return value
    return value


def rebuilt(text: str, meaning: Any) -> str:
    """The text another process wrote, able again to be said in any language when it came
    with its ``meaning`` (``meaning_of``); as it came otherwise."""
    if meaning is None:
        return text
    wire = Wire(text)
    wire.message = _texts(meaning)
    wire.said = {}
    wire.plain = False
    return wire


def _texts(value: Any) -> Any:
    if isinstance(value, dict):
        if MEANING in value and len(value) == 1:
            template, plural, count, code, values = value[MEANING]
            kept = {key: _texts(item) for key, item in values.items()}
            return Text(template, kept, plural=plural, count=count, code=code)
        return {key: _texts(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_texts(item) for item in value]
    return value


SYNC_WORDS = "words"
"""The field of a relayed broadcast's ``sync`` (``games.cluster``) that carries the meaning of
its Texts to the other server processes."""


def with_meaning(sync: dict[str, Any], text: str) -> dict[str, Any]:
    """``sync`` for relaying ``text`` to the other processes, with the meaning of its Texts
    when it holds any (``meaning_of``)."""
    meaning = meaning_of(text)
    if meaning is None:
        return sync
    try:
        orjson.dumps(meaning, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # a value JSON cannot carry: the others say it in English
        return sync
    return {**sync, SYNC_WORDS: meaning}


def relayed(text: str, sync: dict[str, Any]) -> str:
    """A broadcast another process relayed, able to be said in every socket's language when
    its ``sync`` carried its Texts' meaning."""
    return rebuilt(text, sync.get(SYNC_WORDS))
