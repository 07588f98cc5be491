"""The site's pages around the game in German and French: every page a signed-in player
visits (lobby, leaderboard, My games, profile, account settings, rules, puzzles, the lesson,
password recovery) shows none of the client's English sentences, and the language chosen
in the account settings follows the account to another browser."""

from __future__ import annotations

from typing import Any

import pytest

from .languages import SHIPPED, english_phrases, english_shown
from .people import People

# Each page of the site and what shows once it is drawn.
PAGES = [
    ("#/", "#open-games"),
    ("#/leaderboard", "#leaderboard-rows"),
    ("#/my", "#my-live-games"),
    ("#/account", "#password-form"),
    ("#/player/{id}", "#profile-name"),
    ("#/rules", ".rule"),
    ("#/puzzles", "#puzzle-theme"),
    ("#/learn", "#start-lesson"),
    ("#/forgot", "h1"),
]


def sign_up(page: Any, name: str, password: str) -> int:
    """Sign up through the header's dialog; the account's id."""
    page.click("#sign-up")
    page.fill("#account-name-input", name)
    page.fill("#account-password", password)
    page.click("#account-submit")
    page.wait_for_selector(f"#account-name:text-is('{name}')")
    return int(page.get_attribute("#account-name", "href").rsplit("/", 1)[1])


@pytest.mark.parametrize("lang", SHIPPED)
def test_every_site_page_speaks_the_browsers_language(
    people: People, server_url: str, lang: str
) -> None:
    phrases = english_phrases(lang, "client-site")
    assert len(phrases) > 100  # the check has English to look for
    page = people.open(1440, 900, locale=lang)
    page.goto(server_url + "/")
    page.wait_for_selector("#open-games")
    account = sign_up(page, f"Site{lang.upper()}", "volcano-site-1")
    for address, drawn in PAGES:
        page.goto(server_url + "/" + address.format(id=account))
        page.wait_for_selector(drawn, state="attached")
        assert page.get_attribute("html", "lang") == lang
        assert english_shown(page, phrases) == [], address
        switch = page.locator("header select.language-switch")
        assert switch.input_value() == lang
        assert switch.get_attribute("aria-label")


def test_the_language_chosen_in_the_settings_follows_the_account(
    people: People, server_url: str
) -> None:
    here = people.open(1280, 820, locale="en-US")
    here.goto(server_url + "/#/account")
    here.wait_for_selector("#sign-up")
    sign_up(here, "Polyglot", "volcano-poly-1")
    here.wait_for_selector("#settings-language-choice")
    with here.expect_navigation():
        here.locator("#settings-language-choice").select_option("fr")
    here.wait_for_selector("#password-form")
    assert here.get_attribute("html", "lang") == "fr"
    assert here.inner_text("#settings-language h2") == "Langue"

    elsewhere = people.open(1280, 820, locale="en-US")  # no cookie: English until signed in
    elsewhere.goto(server_url + "/")
    elsewhere.wait_for_selector("#sign-in")
    assert elsewhere.get_attribute("html", "lang") == "en"
    elsewhere.click("#sign-in")
    elsewhere.fill("#account-name-input", "Polyglot")
    elsewhere.fill("#account-password", "volcano-poly-1")
    elsewhere.click("#account-submit")
    elsewhere.wait_for_selector("#account-name:text-is('Polyglot')")
    elsewhere.reload()
    elsewhere.wait_for_selector("#open-games")
    assert elsewhere.get_attribute("html", "lang") == "fr"
    assert elsewhere.inner_text("#create") == "Créer la partie"
