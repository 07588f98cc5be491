"""E-mail in Chromium, through a real SMTP server on loopback: a player adds an address on
the account settings page and confirms it by the mailed link, sees a switch for each kind of
mail, turns the "your move" mails off by a mail's unsubscribe link and on again, later
forgets the password, asks for a link from the sign-in dialog and sets a new password from
it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mail_support import AppProcess, Sink, mail_settings, smtp_server
from test_server_support import sqlite_url

from taluva.server.mail.links import Links, server_secret
from taluva.server.mail.queue import KINDS, SWITCHES
from taluva.server.storage.store import Store

from .people import People

OLD_PASSWORD = "volcano-mira-1"
NEW_PASSWORD = "volcano-mira-2"
ADDRESS = "mira@example.org"


@pytest.fixture(scope="module")
def mail_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Sink, str]]:
    """A server of this module's own that mails through the test's SMTP server: its
    address, what it mailed, and its database."""
    folder: Path = tmp_path_factory.mktemp("mail-site")
    with smtp_server() as (sink, port):
        database = sqlite_url(folder)
        server = AppProcess({"database": database, "ai_workers": 0, **mail_settings(port)})
        server.start()
        try:
            yield server.url, sink, database
        finally:
            server.stop()


def link_of(sink: Sink, count: int, kind: str) -> str:
    """The ``kind`` link of the ``count``-th mail, as the mail's plain text gives it."""
    text = sink.wait_for(count)[count - 1].get_body(("plain",)).get_content()  # type: ignore[union-attr]
    found = re.search(rf"http://\S+/#/{kind}/\S+", text)
    assert found is not None, text
    return found.group(0)


def sign_in(page: Any, password: str) -> None:
    page.click("#sign-in")
    page.fill("#account-name-input", "Mira")
    page.fill("#account-password", password)
    page.click("#account-submit")
    page.wait_for_selector("#account-name:text-is('Mira')")


def test_an_address_confirmed_by_mail_recovers_a_forgotten_password(
    people: People, mail_site: tuple[str, Sink, str]
) -> None:
    url, sink, database = mail_site
    page = people.open()
    page.goto(url)
    page.click("#sign-up")
    page.fill("#account-name-input", "Mira")
    page.fill("#account-password", OLD_PASSWORD)
    page.click("#account-submit")
    page.click("#account-settings-link")
    page.fill("#email-input", ADDRESS)
    page.click("#email-form-submit")
    page.wait_for_selector(f"#email-pending:has-text('{ADDRESS}')")

    page.goto(link_of(sink, 1, "confirm"))
    page.wait_for_selector(f"#confirm-status:has-text('{ADDRESS} is confirmed')")
    page.click("#account-settings-link")
    page.wait_for_selector(f"#email-address:has-text('{ADDRESS}')")
    assert page.is_checked("#mail-move")
    for kind in SWITCHES:  # each kind of mail has its switch, on, in words
        assert page.is_checked(f"#mail-{kind}")
        assert KINDS[kind].about in page.inner_text(f"label[for='mail-{kind}']")
    account_id = int(page.get_attribute("#account-name", "href").rsplit("/", 1)[1])
    store = Store(database, game_end=None)
    token = Links(server_secret(store.engine)).make("unsubscribe", account_id, "move")
    store.close()
    page.goto(f"{url}/#/unsubscribe/{token}")  # the link at the foot of a "your move" mail
    page.click("#unsubscribe")
    page.wait_for_selector("#unsubscribe-status:has-text('these mails are off')")
    page.click("#account-settings-link")
    page.wait_for_selector("#mail-move:not(:checked)")
    page.check("#mail-move")
    page.wait_for_selector("#mail-move:checked:enabled")
    page.click("#sign-out")

    page.click("#sign-in")
    page.click("#forgot-password")
    page.fill("#forgot-email", ADDRESS)
    page.click("#forgot-form-submit")
    page.wait_for_selector("#forgot-status:has-text('on its way')")
    stranger = people.open()
    stranger.goto(url + "/#/forgot")
    stranger.fill("#forgot-email", "someone.else@example.org")
    stranger.click("#forgot-form-submit")
    stranger.wait_for_selector("#forgot-status:has-text('on its way')")

    page.goto(link_of(sink, 2, "reset"))
    page.fill("#reset-password", NEW_PASSWORD)
    page.click("#reset-form-submit")
    page.wait_for_selector("#account-name:text-is('Mira')")
    assert page.evaluate("location.hash") == "#/"
    page.click("#sign-out")
    page.click("#sign-in")
    page.fill("#account-name-input", "Mira")
    page.fill("#account-password", OLD_PASSWORD)
    page.click("#account-submit")
    page.wait_for_selector("#account-error:has-text('wrong')")
    page.click("#account-cancel")
    sign_in(page, NEW_PASSWORD)
    assert len(sink.messages) == 2  # the unknown address got nothing


def test_without_a_mail_server_the_forgot_page_says_so(page: Any, server_url: str) -> None:
    page.goto(server_url + "/")
    page.click("#sign-in")
    page.click("#forgot-password")
    page.wait_for_selector("#mail-off:has-text('sends no e-mail')")
    assert page.locator("#forgot-form").count() == 0
