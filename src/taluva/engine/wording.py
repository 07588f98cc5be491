"""Words for people that keep their meaning: a ``Text`` is the English sentence (what ``str``
gives, exactly as before) and also the template and values it was made from, so that every
interface above the engine can say it again in its player's language (``taluva.lang.say``).

The engine stays free of any translation machinery: it only marks its English templates
(``N_``, ``T``, ``Tn``) so that the catalogs' extraction finds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["N_", "T", "Text", "Tn"]


def N_(template: str) -> str:
    """Marks an English template for the catalogs without saying it yet (gettext's ``N_``)."""
    return template


class Text(str):
    """An English sentence made from a template with named placeholders and their values.

    It is a ``str`` (the English words, unchanged for every caller that only prints it) and
    keeps ``template``, ``plural`` (the template for any count but one, or None), ``quantity``
    (the number that chooses between them) and ``values`` (which may be Texts themselves),
    plus an optional stable ``code`` that says what it means to a program.

    >>> refusal = Text("{hex} is not next to the island", {"hex": "3,-1"}, code="not-adjacent")
    >>> str(refusal), refusal.code, dict(refusal.values)
    ('3,-1 is not next to the island', 'not-adjacent', {'hex': '3,-1'})
    """

    template: str
    plural: str | None
    quantity: int | None
    values: Mapping[str, Any]
    code: str | None

    def __new__(
        cls,
        template: str,
        values: Mapping[str, Any] | None = None,
        /,
        *,
        code: str | None = None,
        plural: str | None = None,
        count: int | None = None,
    ) -> Text:
        # the values come as one mapping, so that a placeholder may be named like a keyword
        values = dict(values or {})
        english = template if plural is None or count == 1 else plural
        self = super().__new__(cls, english.format_map(values) if values else english)
        self.template = template
        self.plural = plural
        self.quantity = count
        self.values = values
        self.code = code
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled or copied (process pools, deep copies), it stays a Text with its meaning
        return (_rebuild, (self.template, self.plural, self.quantity, self.code, dict(self.values)))

    def meaning(self) -> dict[str, Any]:
        """The code and values as plain data (for a program reading an API), Texts in words."""
        values = {k: str(v) if isinstance(v, Text) else v for k, v in self.values.items()}
        return {"code": self.code, "values": values}


def _rebuild(
    template: str, plural: str | None, count: int | None, code: str | None, values: dict[str, Any]
) -> Text:
    return Text(template, values, code=code, plural=plural, count=count)


def T(template: str, /, **values: Any) -> Text:
    """A sentence to say later in the reader's language: ``T("{name} resigned", name=n)``."""
    return Text(template, values)


def Tn(one: str, other: str, count: int, /, **values: Any) -> Text:
    """A sentence with a count: ``Tn("{n} hut", "{n} huts", n, n=n)``; the reader's language
    picks the form for ``count`` by its own plural rules (English: ``one`` for 1 only)."""
    return Text(one, values, plural=other, count=count)
