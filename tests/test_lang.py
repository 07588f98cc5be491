"""The player's language (taluva.lang) and the catalogs: every shipped language complete,
its placeholders those of the English, the templates up to date with the code, and the
choice of language from a request or an environment."""

from __future__ import annotations

import importlib.util
import pickle
import sys
from pathlib import Path
from types import ModuleType

import pytest

from taluva.engine.wording import T, Text, Tn
from taluva.lang import (
    DEFAULT,
    LANGUAGES,
    duration,
    from_accept_language,
    from_environment,
    listing,
    number,
    pick,
    say,
    use,
)
from taluva.lang.catalogs import catalog_path, client_catalog
from taluva.lang.languages import CLIENT_DOMAINS, DOMAINS

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [code for code in LANGUAGES if code != DEFAULT]


def _catalogs_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("catalogs", ROOT / "scripts" / "catalogs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("catalogs", module)
    spec.loader.exec_module(module)
    return module


catalogs = _catalogs_script()
EVERY_DOMAIN = (*DOMAINS, *CLIENT_DOMAINS)


@pytest.mark.parametrize("domain", EVERY_DOMAIN)
def test_templates_hold_every_message_of_the_code(domain: str) -> None:
    """A message added to the code without `scripts/catalogs.py extract` fails here."""
    found = {m.id for m in catalogs.template(domain) if m.id}
    kept = {m.id for m in catalogs.read(catalogs.LOCALE / f"{domain}.pot") if m.id}
    assert sorted(found - kept, key=str) == [], "run: scripts/catalogs.py extract && update"
    assert sorted(kept - found, key=str) == [], "messages no longer in the code"


@pytest.mark.parametrize("lang", SHIPPED)
@pytest.mark.parametrize("domain", EVERY_DOMAIN)
def test_every_message_is_translated_with_its_placeholders(domain: str, lang: str) -> None:
    problems = catalogs.problems(domain, lang)
    assert problems == [], f"{len(problems)} problems, first: {problems[:5]}"


def test_the_check_finds_a_missing_word_and_a_changed_placeholder(tmp_path: Path) -> None:
    from babel.messages.catalog import Catalog

    pot, po = Catalog(), Catalog(locale="de")
    pot.add("{name} resigned")
    pot.add("the game is over")
    po.add("{name} resigned", "{player} hat aufgegeben")
    po.add("the game is over", "")
    entries = catalogs.LOCALE, catalogs.ROOT
    try:
        catalogs.LOCALE, catalogs.ROOT = tmp_path, tmp_path
        (tmp_path / "de" / "LC_MESSAGES").mkdir(parents=True)
        catalogs._write(tmp_path / "x.pot", pot)
        catalogs._write(tmp_path / "de" / "LC_MESSAGES" / "x.po", po)
        found = catalogs.problems("x", "de")
    finally:
        catalogs.LOCALE, catalogs.ROOT = entries
    assert any("placeholders ['player'] instead of ['name']" in line for line in found)
    assert any("'the game is over' is not translated" in line for line in found)


def test_each_shipped_language_has_a_catalog_for_every_domain() -> None:
    for lang in SHIPPED:
        for domain in EVERY_DOMAIN:
            assert catalog_path(lang, domain).exists(), (lang, domain)


def test_a_text_is_its_english_words_and_keeps_its_meaning() -> None:
    text = T("{who} founded a settlement at {hex}", who="Ana", hex="0,-5")
    assert text == "Ana founded a settlement at 0,-5"
    assert isinstance(text, str) and text.template == "{who} founded a settlement at {hex}"
    again = pickle.loads(pickle.dumps(text))
    assert isinstance(again, Text) and again.values == {"who": "Ana", "hex": "0,-5"}
    assert Tn("{n} hut", "{n} huts", 1, n=1) == "1 hut"
    assert Tn("{n} hut", "{n} huts", 3, n=3) == "3 huts"
    assert text.count("a") == str(text).count("a")  # still a str's methods


def test_english_is_said_as_the_text_already_reads() -> None:
    text = Tn("{n} hut", "{n} huts", 1234, n=1234)
    assert say(text, "en") == "1234 huts"
    assert say("plain words", "de") == "plain words"


def test_numbers_durations_and_lists_follow_the_locale() -> None:
    assert number(1234567, "de") == "1.234.567"
    assert number(1234567, "en") == "1,234,567"
    assert duration(3 * 86400, "de") == "3 Tage"
    assert duration(3 * 86400, "fr") == "3\xa0jours"  # CLDR: a no-break space
    assert listing(["Ana", "Ben", "Cleo"], "de") == "Ana, Ben und Cleo"
    assert listing(["Ana", "Ben", "Cleo"], "fr") == "Ana, Ben et Cleo"


def test_a_translation_that_misses_a_value_falls_back_to_english() -> None:
    from taluva.lang.words import _fill

    assert _fill("{wer} hat aufgegeben", "{name} resigned", {"name": "Ben"}) == "Ben resigned"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("en-GB;q=0.5, fr-CH, de;q=0.9", "fr"),
        ("es-ES, it;q=0.9", None),
        ("fr;q=0, de;q=0.1", "de"),
        ("", None),
        ("xx;q=abc, de", "de"),
    ],
)
def test_accept_language_picks_the_most_wanted_shipped_language(
    header: str, expected: str | None
) -> None:
    assert from_accept_language(header) == expected


def test_the_environment_chooses_as_gettext_does() -> None:
    assert from_environment({"LANG": "de_DE.UTF-8"}) == "de"
    assert from_environment({"LC_ALL": "fr_FR.UTF-8", "LANG": "de_DE.UTF-8"}) == "fr"
    assert from_environment({"LANG": "en_US.UTF-8", "LANGUAGE": "fr:de"}) == "fr"
    assert from_environment({"LANG": "C", "LANGUAGE": "de"}) is None
    assert from_environment({}) is None
    assert pick(None, "es", "fr-BE") == "fr"
    assert pick("xx") == DEFAULT


def test_the_language_is_per_context() -> None:
    from taluva.lang import _, current

    assert current() == DEFAULT
    with use("de"):
        assert current() == "de"
    assert current() == DEFAULT
    assert _("no such message {x}", x=1) == "no such message 1"


@pytest.mark.parametrize("lang", SHIPPED)
def test_the_client_catalog_gives_plural_forms_by_cldr_category(lang: str) -> None:
    catalog = client_catalog(lang)
    assert catalog["lang"] == lang
    forms = [v for v in catalog["messages"].values() if isinstance(v, dict)]
    assert forms, "the client has sentences with a count"
    categories = {"de": {"one", "other"}, "fr": {"one", "many", "other"}}[lang]
    assert all(set(f) == categories for f in forms)
    assert all(isinstance(v, (str, dict)) and v for v in catalog["messages"].values())


def test_the_client_catalog_of_english_is_empty() -> None:
    assert client_catalog("en") == {"lang": "en", "messages": {}}
