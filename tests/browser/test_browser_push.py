"""Notifications on the account settings page, in Chromium: a player turns them on for this
device, switches one kind off, finds it still off on the next visit, finds them off after the
device was removed from another one, and turns them on and off again.

Chromium here has no vendor's push service to subscribe with, so the page's
``PushManager`` is replaced by one that hands out a subscription the test made (its keys
those of ``test_server_push.Browser``) and keeps the key the page subscribed with; the rest,
permission, service worker and server, is real.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mail_support import AppProcess
from test_server_push import Browser
from test_server_support import sqlite_url

from .people import People

FAKE_PUSH = """
(() => {
  const SUBSCRIPTION = %s;
  const made = () => ({
    endpoint: SUBSCRIPTION.endpoint,
    toJSON: () => SUBSCRIPTION,
    unsubscribe: async () => { localStorage.removeItem("test.push"); return true; },
  });
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem("test.push") ? made() : null;
  };
  PushManager.prototype.subscribe = async function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    localStorage.setItem("test.push", btoa(String.fromCharCode(...key)));
    return made();
  };
})();
"""


@pytest.fixture(scope="module")
def push_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of this module's own that sends push messages (its VAPID subject the mail
    sender's address; no mail server)."""
    folder: Path = tmp_path_factory.mktemp("push-site")
    settings = {"database": sqlite_url(folder), "ai_workers": 0, "mail_from": "taluva@example.org"}
    server = AppProcess(settings)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


def test_notifications_are_turned_on_switched_and_off_for_this_device(
    people: People, push_site: str
) -> None:
    url = push_site
    subscription = Browser().subscription("https://push.example.net/send/mira")
    page = people.open(worker=True)
    page.context.grant_permissions(["notifications"], origin=url)
    page.add_init_script(FAKE_PUSH % json.dumps(subscription))
    page.goto(url + "/")
    page.click("#sign-up")
    page.fill("#account-name-input", "Mira")
    page.fill("#account-password", "volcano-mira-1")
    page.click("#account-submit")
    page.click("#account-settings-link")
    page.click("#push-on")
    page.wait_for_selector("#push-move:checked")
    server_key = page.request.get(url + "/api/push/key").json()["key"]
    given = base64.b64decode(page.evaluate("localStorage.getItem('test.push')"))
    assert given == base64.urlsafe_b64decode(server_key + "=" * (-len(server_key) % 4))

    page.uncheck("#push-challenge")
    page.wait_for_selector("#push-challenge:not(:checked):enabled")
    page.reload()  # the next visit: the browser's subscription is sent again, its switches kept
    page.wait_for_selector("#push-status:has-text('Chrome on Linux')")
    assert not page.is_checked("#push-challenge") and page.is_checked("#push-move")
    [device] = page.request.get(url + "/api/push/subscriptions").json()["devices"]
    assert [s["kind"] for s in device["switches"] if not s["on"]] == ["challenge"]

    page.request.delete(f"{url}/api/push/subscriptions/{device['id']}")  # from another device
    page.reload()  # the browser still holds its subscription, but stays off: not sent again
    page.wait_for_selector("#push-on")
    assert page.request.get(url + "/api/push/subscriptions").json()["devices"] == []

    page.click("#push-on")
    page.click("#push-off")
    page.wait_for_selector("#push-on")
    assert page.request.get(url + "/api/push/subscriptions").json()["devices"] == []
    assert page.evaluate("localStorage.getItem('test.push')") is None


def test_a_server_without_push_says_so_on_the_settings_page(
    people: People, server_url: str
) -> None:
    page = people.open(worker=True)
    page.goto(server_url + "/")
    page.click("#sign-up")
    page.fill("#account-name-input", "Noor")
    page.fill("#account-password", "volcano-noor-1")
    page.click("#account-submit")
    page.click("#account-settings-link")
    page.wait_for_selector("#push-status:has-text('sends no notifications')")
    assert page.locator("#push-on").count() == 0
