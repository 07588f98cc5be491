"""The compiled catalogs: ``locale/LANG/LC_MESSAGES/DOMAIN.mo``, made from the ``.po`` files
by ``scripts/catalogs.py compile`` (run by the Makefile's install). Where a ``.mo`` is missing
or older than its ``.po`` (a checkout edited by hand), the ``.po`` is compiled in memory with
Babel, so a translator sees a change without a build step."""

from __future__ import annotations

import functools
import gettext
import io
import logging
from pathlib import Path
from typing import Any

from taluva.lang.languages import CLIENT_DOMAINS, DEFAULT, DOMAINS, LANGUAGES

LOCALE_DIR = Path(__file__).with_name("locale")
"""Where the catalogs live: the templates (``DOMAIN.pot``) and one folder per language."""

log = logging.getLogger("taluva.lang")


def catalog_path(lang: str, domain: str, suffix: str = ".po") -> Path:
    """The file of one domain's catalog in one language."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}{suffix}"


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The Python side's words in ``lang``: its domains chained in order, English underneath."""
    chain: gettext.NullTranslations = gettext.NullTranslations()
    if lang == DEFAULT or lang not in LANGUAGES:
        return chain
    first: gettext.NullTranslations | None = None
    for domain in DOMAINS:
        found = _load(lang, domain)
        if found is None:
            continue
        if first is None:
            first = found
        else:
            first.add_fallback(found)
    if first is None:
        return chain
    first.add_fallback(chain)
    return first


def _load(lang: str, domain: str) -> gettext.GNUTranslations | None:
    po, mo = catalog_path(lang, domain), catalog_path(lang, domain, ".mo")
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as file:
            return gettext.GNUTranslations(file)
    if not po.exists():
        return None
    try:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
    except ImportError:
        log.warning("%s is not compiled and Babel is not installed: English is used", po)
        return None
    with po.open("rb") as file:
        catalog = read_po(file, locale=lang, domain=domain)
    buffer = io.BytesIO()
    write_mo(buffer, _translated_only(catalog))
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def _translated_only(catalog: Any) -> Any:
    """The catalog without its untranslated messages: Babel would keep a plural message whose
    forms are empty, and gettext would then say "" instead of falling back to the English."""
    for message in list(catalog):
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings):
            catalog.delete(message.id, context=message.context)
    return catalog


@functools.cache
def client_catalog(lang: str) -> dict[str, Any]:
    """The web client's words in ``lang`` as the browser loads them: ``messages`` maps each
    English id to its words, or (a sentence with a count) to its forms by CLDR plural
    category ("one", "many", "other"), which the browser chooses with ``Intl.PluralRules``."""
    messages: dict[str, Any] = {}
    if lang != DEFAULT and lang in LANGUAGES:
        from babel import Locale
        from babel.messages.pofile import read_po

        tags = _plural_tags(Locale.parse(lang))
        for domain in CLIENT_DOMAINS:
            po = catalog_path(lang, domain)
            if not po.exists():
                continue
            with po.open("rb") as file:
                catalog = read_po(file, locale=lang, domain=domain)
            for message in catalog:
                if not message.id or not message.string or message.fuzzy:
                    continue
                if isinstance(message.id, tuple):
                    forms = list(message.string)
                    if all(forms):
                        messages[message.id[0]] = dict(zip(tags, forms, strict=False))
                elif isinstance(message.id, str) and isinstance(message.string, str):
                    messages[message.id] = message.string
    return {"lang": lang, "messages": messages}


def _plural_tags(locale: Any) -> list[str]:
    """The CLDR plural categories in the order of the gettext forms Babel writes for them
    (``babel.plural.to_gettext``: zero, one, two, few, many, then other last)."""
    order = ("zero", "one", "two", "few", "many")
    return [tag for tag in order if tag in locale.plural_form.tags] + ["other"]


def compile_all() -> list[Path]:
    """Compile every ``.po`` into its ``.mo`` beside it (the install's step; needs Babel)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    for po in sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as file:
            catalog = read_po(file, locale=po.parent.parent.name, domain=po.stem)
        buffer = io.BytesIO()
        write_mo(buffer, _translated_only(catalog))
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != buffer.getvalue():
            mo.write_bytes(buffer.getvalue())
        written.append(mo)
    return written
