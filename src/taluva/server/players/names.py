"""Player and game names: any printable Unicode, counted as people see it, that cannot hide
text or pass for another name.

A name is normalized to NFC with runs of white space made one space, then refused if it
 - is longer than the limit in user-perceived characters (grapheme clusters: an emoji
   ZWJ sequence such as 👩‍💻 or a flag counts as one), or than ``STORED_CODE_POINTS``;
 - holds an invisible character: a control, format (bidi controls, zero-width space,
   joiners) or private-use code point, an unassigned one, a default-ignorable one (variation
   selectors, Hangul fillers) or the blank braille pattern; the zero-width joiner, the
   variation selectors and tag characters are allowed only inside an emoji sequence;
 - stacks more than ``MAX_MARKS`` combining marks on one character;
 - mixes scripts so that a letter of one of them looks like a letter of another ("Ana"
   written with a Cyrillic capital A, "Paul" with a Greek capital rho), after Unicode's
   confusables as listed by ``confusable_homoglyphs``. Mixing scripts without look-alikes is fine
   (``Müller 李``, ``Kim 김민수``), as is any name in one script.

Names are stored and sent as given: clients must show them as text, never as markup.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import regex
from confusable_homoglyphs import categories, confusables  # type: ignore[import-untyped]

from taluva.engine.wording import T, Text, Tn
from taluva.server.errors import ApiError

STORED_CODE_POINTS = 80
"""The width of the name columns of the database."""
MAX_MARKS = 4

_GRAPHEME = regex.compile(r"\X")
_EMOJI = regex.compile(
    r"^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[0-9#*]\uFE0F?\u20E3)"
)
_EMOJI_GLUE = regex.compile(r"[\u200D\uFE0E\uFE0F\U000E0020-\U000E007F]")
_INVISIBLE = regex.compile(
    r"[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}\u2800]"
)
_STACKED_MARKS = regex.compile(rf"[\p{{Mn}}\p{{Me}}]{{{MAX_MARKS + 1},}}")
_SCRIPTLESS = {"COMMON", "INHERITED", "Unknown"}


def refuse(words: Text) -> ApiError:
    """The error for a refused name (``words``: the whole sentence, naming the field)."""
    return ApiError(422, "bad-request", words)


def _scripts_words(scripts: list[str]) -> Any:
    """Script names joined as "Latin and Cyrillic" (each join said in the reader's language)."""
    if len(scripts) == 1:
        return scripts[0]
    return T("{first} and {second}", first=_scripts_words(scripts[:-1]), second=scripts[-1])


def graphemes(text: str) -> list[str]:
    """The user-perceived characters of ``text`` (extended grapheme clusters, UAX #29).

    >>> graphemes("ab👩‍👩‍👧🇫🇷")
    ['a', 'b', '👩\\u200d👩\\u200d👧', '🇫🇷']
    """
    found: list[str] = _GRAPHEME.findall(text)
    return found


def invisible_in(cluster: str) -> str | None:
    """The first invisible character of a grapheme cluster, if it has one (the glue of an
    emoji sequence excepted).

    >>> invisible_in("👩\\u200d💻"), invisible_in("a\\u200d"), invisible_in("\\u202e")
    (None, '\\u200d', '\\u202e')
    """
    if _EMOJI.match(cluster):
        cluster = _EMOJI_GLUE.sub("", cluster)
    found = _INVISIBLE.search(cluster)
    return found.group() if found else None


def scripts_of(text: str) -> set[str]:
    """The scripts of the letters of ``text`` (Common and Inherited characters left out).

    >>> sorted(scripts_of("Ana Борис 1"))
    ['CYRILLIC', 'LATIN']
    """
    return {categories.alias(char) for char in text} - _SCRIPTLESS


def look_alikes(text: str) -> list[str]:
    """The letters of ``text`` that look like a letter of another script ``text`` uses.

    >>> look_alikes("\\u0410na"), look_alikes("Müller 李"), look_alikes("Борис")
    (['\\u0410', 'a'], [], [])
    """
    scripts = scripts_of(text)
    if len(scripts) < 2:
        return []
    found: list[str] = []
    for script in sorted(scripts):
        for item in confusables.is_confusable(text, greedy=True, preferred_aliases=[script]) or []:
            if item["alias"] in scripts and item["character"] not in found:
                found.append(item["character"])
    return sorted(found, key=text.index)


def clean_name(value: Any, limit: int, what: str, default: str = "") -> str:
    """A player or game name, normalized, or ApiError 422 ``bad-request`` saying why not.

    >>> clean_name("  Ana   <b>Lee</b> ", 32, "name")
    'Ana <b>Lee</b>'
    >>> clean_name("", 32, "name", "Player 2")
    'Player 2'
    >>> clean_name("Zoe\\u0308 👩🏽‍💻", 5, "name")
    'Zoë 👩🏽\\u200d💻'
    """
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise refuse(T("{field} must be text", field=what))
    text = " ".join(unicodedata.normalize("NFC", value).split())
    clusters = graphemes(text)
    if len(clusters) > limit:
        raise refuse(
            Tn(
                "{field} is longer than {limit} character",
                "{field} is longer than {limit} characters",
                limit,
                field=what,
                limit=limit,
            )
        )
    if len(text) > STORED_CODE_POINTS:
        raise refuse(
            T("{field} is longer than {limit} code points", field=what, limit=STORED_CODE_POINTS)
        )
    for cluster in clusters:
        hidden = invisible_in(cluster)
        if hidden is not None:
            raise refuse(
                T(
                    "{field} contains an invisible or control character ({character})",
                    field=what,
                    character=f"U+{ord(hidden):04X}",
                )
            )
        if _STACKED_MARKS.search(cluster):
            raise refuse(
                T(
                    "{field} stacks more than {marks} marks on one character",
                    field=what,
                    marks=MAX_MARKS,
                )
            )
    alike = look_alikes(text)
    if alike:
        scripts = _scripts_words(sorted(script.title() for script in scripts_of(text)))
        raise refuse(
            T(
                "{field} mixes the {scripts} scripts with look-alike letters ({letters}): "
                "write it in one script",
                field=what,
                scripts=scripts,
                letters=", ".join(alike[:6]),
            )
        )
    return text or default
