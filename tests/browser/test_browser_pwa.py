"""The installable app in Chromium: the page links a manifest Chromium finds nothing wrong
with (its icons PNGs of their stated sizes), the service worker installs and takes the page,
the site opened offline shows the offline page with the player's games of the last visit and
comes back by itself, and a pushed message shows as a notification."""

from __future__ import annotations

import json
import struct
from typing import Any

from taluva.ai.levels import LEVELS

from .people import People, create_game

GUEST_GAME = "Offline evening"
ACCOUNT_GAME = "Oona's table"


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height of a PNG (an AssertionError if ``data`` is no PNG)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def check_manifest(page: Any, url: str) -> None:
    """The linked manifest has what an installable app needs, and each PNG icon is one of
    its stated size."""
    href = page.get_attribute("link[rel=manifest]", "href")
    answer = page.request.get(url + href)
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert manifest["start_url"] == manifest["scope"] == "/"
    assert manifest["display"] == "standalone" and manifest["short_name"] == "Taluva"
    pngs = [icon for icon in manifest["icons"] if icon["type"] == "image/png"]
    assert {icon["sizes"] for icon in pngs} >= {"192x192", "512x512"}
    assert any(icon.get("purpose") == "maskable" for icon in pngs)
    for icon in pngs:
        size = tuple(int(side) for side in icon["sizes"].split("x"))
        assert png_size(page.request.get(url + icon["src"]).body()) == size, icon


def test_the_site_installs_and_opens_offline_on_the_players_games(
    people: People, server_url: str, screenshot: Any
) -> None:
    from axe_playwright_python.sync_playwright import Axe

    page = people.open(worker=True)
    context = page.context
    # a guest's game, its seat held in this browser, and a game of the account signed in here
    guest_game, tokens = create_game(
        server_url,
        [{"kind": "human", "name": "Ana", "take": True}, {"kind": "ai", "level": min(LEVELS)}],
        name=GUEST_GAME,
    )
    signed_up = page.request.post(
        server_url + "/api/accounts", data={"name": "Oona", "password": "lava-pass-12"}
    )
    assert signed_up.status == 201, signed_up.text()
    page.goto(server_url + "/")
    page.evaluate(
        "([id, held]) => localStorage.setItem('taluva.tokens', JSON.stringify({[id]: held}))",
        [guest_game, {str(seat): token for seat, token in tokens.items()}],
    )
    account_game, _ = create_game(
        server_url,
        [{"kind": "human", "name": "Oona", "take": True}, {"kind": "human", "name": "Ben"}],
        page,
        name=ACCOUNT_GAME,
    )
    page.goto(f"{server_url}/#/game/{guest_game}")
    page.wait_for_selector("svg.board")
    page.goto(server_url + "/#/")
    page.wait_for_selector(f"#live-games [data-game='{guest_game}'] a:text-is('Continue')")
    page.goto(server_url + "/#/my")
    page.wait_for_selector(f"#my-open-games [data-game='{account_game}']")

    check_manifest(page, server_url)
    cdp = context.new_cdp_session(page)
    assert cdp.send("Page.getAppManifest")["errors"] == []
    scope = page.evaluate(
        "navigator.serviceWorker.ready.then((registration) => registration.scope)"
    )
    assert scope == server_url + "/"
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    assert [worker.url for worker in context.service_workers] == [server_url + "/sw.js"]
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    # a test's browser context is a private window, where Chromium installs nothing
    assert [error["errorId"] for error in errors if error["errorId"] != "in-incognito"] == []

    context.set_offline(True)
    page.reload()
    page.wait_for_selector("h1:text-is('Taluva cannot be reached')")
    assert page.get_attribute("html", "lang") == "en"
    listed = page.locator("#offline-games .game-entry")
    assert [listed.nth(i).inner_text().split("\n") for i in range(listed.count())] == [
        ["Open", ACCOUNT_GAME, "with (free)", "Waiting for Ben to take their seat"],
        ["Open", GUEST_GAME, f"with AI level {min(LEVELS)}", "Playing: 0 moves made"],
    ]
    links = [f"/#/game/{account_game}", f"/#/game/{guest_game}"]
    assert [listed.nth(i).locator("a").get_attribute("href") for i in range(2)] == links
    screenshot(page, "offline-page")
    violations = Axe().run(page).response["violations"]
    assert [v["id"] for v in violations if v["impact"] in ("serious", "critical")] == []

    context.set_offline(False)
    # Chromium's offline emulation leaves navigator.onLine alone: the event a browser sends
    # when its network comes back is sent here by hand, and My games loads again
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.wait_for_selector(f"#my-open-games [data-game='{account_game}']")


def test_a_pushed_message_shows_a_notification_of_the_site(people: People, server_url: str) -> None:
    page = people.open(worker=True)
    page.context.grant_permissions(["notifications"], origin=server_url)
    page.goto(server_url + "/")
    page.evaluate("navigator.serviceWorker.ready")
    cdp = page.context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(r for r in event["registrations"] if not r["isDeleted"]),
    )
    cdp.send("ServiceWorker.enable")
    for _ in range(100):
        if registrations:
            break
        page.wait_for_timeout(50)
    assert [r["scopeURL"] for r in registrations] == [server_url + "/"]
    payload = {"title": "Your move", "body": "Ben played", "url": "/#/game/abc", "tag": "turn"}
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": server_url,
            "registrationId": registrations[0]["registrationId"],
            "data": json.dumps(payload),
        },
    )
    shown = page.wait_for_function(
        """async () => {
          const registration = await navigator.serviceWorker.ready;
          const [note] = await registration.getNotifications();
          return note && {title: note.title, body: note.body, tag: note.tag, url: note.data.url,
                          icon: note.icon};
        }"""
    ).json_value()
    assert shown == {
        "title": "Your move",
        "body": "Ben played",
        "tag": "turn",
        "url": server_url + "/#/game/abc",
        "icon": server_url + "/static/icons/icon-192.png",
    }
    # a message that is no JSON, or points at another site, still opens only this site
    [worker] = page.context.service_workers
    odd = worker.evaluate(
        """() => [
          pushed({json() { throw new SyntaxError("no JSON"); }, text() { return "hello"; }}),
          pushed({json() { return {title: "Hi", url: "https://elsewhere.example/x"}; }}),
        ].map(({title, options}) => [title, options.body, options.data.url])"""
    )
    assert odd == [["Taluva", "hello", server_url + "/"], ["Hi", "", server_url + "/"]]
