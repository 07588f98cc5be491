"""Web push: a browser subscribes through the API, and a notice reaches it encrypted to its
keys (aes128gcm) and signed with the server's VAPID key; a browser its push service calls
gone is forgotten, a kind switched off on a device sends it nothing, and a bad subscription
is refused saying what is wrong.

The browser's vendor is played by a small HTTP server on loopback (``PushService``) that keeps
what it is posted; the browser by a P-256 key pair and an auth secret the test makes, with
which it decrypts what the server sent.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi.testclient import TestClient
from mail_support import until
from py_vapid import Vapid
from sqlalchemy import select
from test_server_lang import catalogs  # noqa: F401 - the fixture
from test_server_support import create_game, sqlite_url

from taluva.server import Settings, create_app
from taluva.server.http.site import Site
from taluva.server.mail.queue import SWITCHES
from taluva.server.push.pusher import Pusher
from taluva.server.storage.models import Base, PushSubscriptionRow

PASSWORD = "correct horse battery"
SENDER = "Taluva <taluva@example.org>"
_SUBSCRIPTIONS = Base.metadata.tables[PushSubscriptionRow.__tablename__]


pytestmark = pytest.mark.usefixtures("cheap_hashes")


@dataclass
class Posted:
    """One message a push service was posted."""

    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """The push service of a browser vendor, on loopback: it keeps every message, and answers
    each path with its status in ``answers`` (201 by default)."""

    port: int = 0
    answers: dict[str, int] = field(default_factory=dict)
    posted: list[Posted] = field(default_factory=list)

    def endpoint(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def to(self, path: str) -> list[Posted]:
        return [message for message in self.posted if message.path == path]


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            headers = {name.lower(): value for name, value in self.headers.items()}
            service.posted.append(Posted(self.path, headers, body))
            self.send_response(service.answers.get(self.path, 201))
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    service.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    """A browser's side of a subscription: its P-256 key pair and auth secret."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self, endpoint: str, **more: Any) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives, and ``more``."""
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)},
            **more,
        }

    def read(self, message: Posted) -> dict[str, Any]:
        """The JSON of a message, decrypted as the browser does."""
        assert message.headers["content-encoding"] == "aes128gcm"
        plain = http_ece.decrypt(
            message.body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        answer: dict[str, Any] = json.loads(plain)
        return answer


def push_settings(tmp_path: Path, **more: Any) -> Settings:
    """A server whose VAPID subject is the mail sender's address."""
    return Settings(database=sqlite_url(tmp_path), ai_workers=0, mail_from=SENDER, **more)


def sign_up(client: TestClient, name: str) -> int:
    response = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    account_id: int = response.json()["account"]["id"]
    return account_id


def ben_takes_a_slow_game(client: TestClient, headers: dict[str, str] | None = None) -> str:
    """The signed-in player creates "Slow volcano" (a day a turn) and takes seat 0; Ben signs
    up on the same client and takes seat 1 (with ``headers``), which starts it. Its id."""
    game_id, _tokens = create_game(
        client,
        [{"kind": "human", "take": True}, {"kind": "human"}],
        name="Slow volcano",
        clock={"kind": "turn", "per_turn": 86400},
    )
    client.cookies.clear()
    sign_up(client, "Ben")
    taken = client.post(f"/api/games/{game_id}/seats/1", json={}, headers=headers)
    assert taken.status_code == 200, taken.text
    return game_id


def site_of(client: TestClient) -> Site:
    site: Site = client.app.state.site  # type: ignore[attr-defined]
    return site


def push(client: TestClient, kind: str, account_id: int, key: str) -> None:
    """Push a notice of ``kind`` through the app's own Pusher, on its event loop."""
    pusher: Pusher = site_of(client).pusher
    assert client.portal is not None
    client.portal.call(
        pusher.push, kind, account_id, f"{kind} title", f"{kind} body", f"/#/{key}", key
    )


def claims_of(authorization: str) -> dict[str, Any]:
    token = dict(part.split("=", 1) for part in authorization.split(" ", 1)[1].split(","))["t"]
    claims: dict[str, Any] = json.loads(unb64url(token.split(".")[1]))
    return claims


def test_a_subscribed_browser_gets_the_notice_encrypted_to_its_keys_and_signed_by_the_server(
    tmp_path: Path, push_service: PushService
) -> None:
    browser = Browser()
    with TestClient(create_app(push_settings(tmp_path))) as client:
        key = client.get("/api/push/key").json()["key"]
        assert len(unb64url(key)) == 65
        ana = sign_up(client, "Ana")
        subscribed = client.post(
            "/api/push/subscriptions",
            json=browser.subscription(push_service.endpoint("/send/ana"), label="Ana's phone"),
        )
        assert subscribed.status_code == 201, subscribed.text
        assert subscribed.json()["label"] == "Ana's phone"
        assert [s["kind"] for s in subscribed.json()["switches"]] == list(SWITCHES)

        push(client, "move", ana, "move:g1:4")
        push(client, "move", ana, "move:g1:4")  # the same notice again: not sent twice

        [message] = push_service.to("/send/ana")
        assert browser.read(message) == {
            "title": "move title",
            "body": "move body",
            "url": "/#/move:g1:4",
            "tag": "move:g1:4",
        }
        authorization = message.headers["authorization"]
        assert authorization.startswith("vapid ")
        assert Vapid.verify(authorization)
        assert f"k={key}" in authorization.split(",")
        claims = claims_of(authorization)
        assert claims["aud"] == f"http://127.0.0.1:{push_service.port}"
        assert claims["sub"] == "mailto:taluva@example.org"
        assert int(message.headers["ttl"]) > 0

        listed = client.get("/api/push/subscriptions").json()
        assert "keys" not in json.dumps(listed) and "send/ana" not in json.dumps(listed)
        assert [d["label"] for d in listed["devices"]] == ["Ana's phone"]


def test_the_player_whose_turn_comes_gets_a_push_that_opens_the_game_without_any_mail(
    tmp_path: Path, push_service: PushService
) -> None:
    browser = Browser()
    with TestClient(create_app(push_settings(tmp_path))) as client:
        sign_up(client, "Ana")
        body = browser.subscription(push_service.endpoint("/ana"))
        assert client.post("/api/push/subscriptions", json=body).status_code == 201
        game_id = ben_takes_a_slow_game(client)
        until(lambda: push_service.to("/ana"), "the push of Ana's move")  # the game started
        [message] = push_service.to("/ana")
        notice = browser.read(message)
        assert (notice["title"], notice["url"]) == (
            "Your move in Slow volcano",
            f"/#/game/{game_id}",
        )
        assert notice["tag"] == f"move:{game_id}:0" and "Slow volcano" in notice["body"]
        assert not site_of(client).post.on  # no mail server: push goes on its own


@pytest.mark.usefixtures("catalogs")
def test_a_push_speaks_the_language_its_account_chose_whoever_caused_it(
    tmp_path: Path, push_service: PushService
) -> None:
    browser = Browser()
    with TestClient(create_app(push_settings(tmp_path))) as client:
        sign_up(client, "Ana")
        assert client.put("/api/account/language", json={"language": "fr"}).is_success
        body = browser.subscription(push_service.endpoint("/ana"))
        assert client.post("/api/push/subscriptions", json=body).status_code == 201
        ben_takes_a_slow_game(client, {"accept-language": "de"})  # Ben's: not Ana's language
        until(lambda: push_service.to("/ana"), "the push of Ana's move")
        [message] = push_service.to("/ana")
        assert browser.read(message)["title"] == "À vous de jouer dans Slow volcano"


def test_the_vapid_key_is_made_once_and_kept_in_the_database(tmp_path: Path) -> None:
    with TestClient(create_app(push_settings(tmp_path))) as client:
        first = client.get("/api/push/key").json()["key"]
    with TestClient(create_app(push_settings(tmp_path))) as client:
        assert client.get("/api/push/key").json()["key"] == first


def test_a_browser_gone_is_forgotten_and_a_kind_switched_off_on_a_device_sends_it_nothing(
    tmp_path: Path, push_service: PushService, caplog: pytest.LogCaptureFixture
) -> None:
    push_service.answers = {"/gone": 410, "/broken": 500}
    phone, laptop, old = Browser(), Browser(), Browser()
    with TestClient(create_app(push_settings(tmp_path))) as client:
        ana = sign_up(client, "Ana")
        ids = {}
        for browser, path in ((phone, "/phone"), (laptop, "/broken"), (old, "/gone")):
            answer = client.post(
                "/api/push/subscriptions", json=browser.subscription(push_service.endpoint(path))
            )
            assert answer.status_code == 201, answer.text
            ids[path] = answer.json()["id"]
        switched = client.patch(
            f"/api/push/subscriptions/{ids['/phone']}", json={"kind": "move", "on": False}
        )
        assert switched.status_code == 200, switched.text
        assert {"kind": "move", "about": "your move in a turn-based game", "on": False} in (
            switched.json()["switches"]
        )

        with caplog.at_level(logging.WARNING, logger="taluva.server.push.pusher"):
            push(client, "move", ana, "move:1")
            push(client, "move", ana, "move:2")
        assert push_service.to("/phone") == []  # moves are off on the phone
        assert len(push_service.to("/gone")) == 1  # then forgotten: not posted the second time
        assert len(push_service.to("/broken")) == 2
        failures = [r for r in caplog.records if "not delivered" in r.getMessage()]
        assert len(failures) == 1  # a failing browser is logged once, not at every notice

        push(client, "challenge", ana, "challenge:1")
        assert phone.read(push_service.to("/phone")[0])["tag"] == "challenge:1"

        devices = client.get("/api/push/subscriptions").json()["devices"]
        assert sorted(d["id"] for d in devices) == sorted([ids["/phone"], ids["/broken"]])
        removed = client.delete(f"/api/push/subscriptions/{ids['/broken']}")
        assert [d["id"] for d in removed.json()["devices"]] == [ids["/phone"]]
        assert client.delete(f"/api/push/subscriptions/{ids['/broken']}").json()["error"][
            "code"
        ] == ("no-device")


def test_a_browser_subscribing_again_renews_its_one_row_and_another_account_takes_it_over(
    tmp_path: Path, push_service: PushService
) -> None:
    browser = Browser()
    body = browser.subscription(push_service.endpoint("/same"), label="Kitchen tablet")
    with TestClient(create_app(push_settings(tmp_path))) as client:
        sign_up(client, "Ana")
        first = client.post("/api/push/subscriptions", json=body).json()
        client.patch(f"/api/push/subscriptions/{first['id']}", json={"kind": "end", "on": False})
        again = client.post("/api/push/subscriptions", json={**body, "label": None}).json()
        assert (again["id"], again["label"]) == (first["id"], "Kitchen tablet")
        assert [s["kind"] for s in again["switches"] if not s["on"]] == ["end"]
        client.cookies.clear()
        sign_up(client, "Ben")
        taken = client.post("/api/push/subscriptions", json=body).json()
        assert all(switch["on"] for switch in taken["switches"])
        with site_of(client).service.store.engine.connect() as connection:
            rows = connection.execute(select(_SUBSCRIPTIONS.c.endpoint)).all()
        assert len(rows) == 1
        client.cookies.clear()
        signed_in = client.post("/api/session", json={"name": "Ana", "password": PASSWORD})
        assert signed_in.status_code == 200, signed_in.text
        assert client.get("/api/push/subscriptions").json()["devices"] == []


_GOOD = Browser().subscription("https://push.example.net/send/abc")
_NOT_ON_CURVE = b64url(b"\x04" + b"\x00" * 64)


@pytest.mark.parametrize(
    ("body", "code", "words"),
    [
        ({**_GOOD, "endpoint": "ftp://push.example.net/x"}, "bad-subscription", "https"),
        ({**_GOOD, "endpoint": "http://push.example.net/x"}, "bad-subscription", "https"),
        ({**_GOOD, "keys": {**_GOOD["keys"], "p256dh": b64url(b"\x04" * 33)}},
         "bad-subscription", "keys.p256dh must be 65 bytes"),
        ({**_GOOD, "keys": {**_GOOD["keys"], "p256dh": _NOT_ON_CURVE}},
         "bad-subscription", "P-256"),
        ({**_GOOD, "keys": {**_GOOD["keys"], "auth": b64url(b"a" * 8)}},
         "bad-subscription", "keys.auth must be 16 bytes"),
        ({"endpoint": _GOOD["endpoint"]}, "bad-request", "keys"),
        ({**_GOOD, "extra": 1}, "bad-request", "extra"),
    ],
)  # fmt: skip
def test_a_bad_subscription_is_refused_saying_what_is_wrong(
    tmp_path: Path, body: dict[str, Any], code: str, words: str
) -> None:
    with TestClient(create_app(push_settings(tmp_path))) as client:
        assert client.post("/api/push/subscriptions", json=_GOOD).status_code == 401
        sign_up(client, "Ana")
        refused = client.post("/api/push/subscriptions", json=body)
        assert refused.status_code == 422, refused.text
        error = refused.json()["error"]
        assert error["code"] == code and words in error["message"], error
        assert client.get("/api/push/subscriptions").json()["devices"] == []


def test_a_switch_of_a_kind_that_is_none_or_of_a_device_that_is_not_yours_is_refused(
    tmp_path: Path,
) -> None:
    with TestClient(create_app(push_settings(tmp_path))) as client:
        sign_up(client, "Ana")
        device = client.post("/api/push/subscriptions", json=_GOOD).json()["id"]
        unknown = client.patch(f"/api/push/subscriptions/{device}", json={"kind": "x", "on": True})
        assert unknown.status_code == 422 and "move" in unknown.json()["error"]["message"]
        client.cookies.clear()
        sign_up(client, "Ben")
        theirs = client.patch(
            f"/api/push/subscriptions/{device}", json={"kind": "move", "on": False}
        )
        assert (theirs.status_code, theirs.json()["error"]["code"]) == (404, "no-device")
        assert client.delete(f"/api/push/subscriptions/{device}").status_code == 404


def test_a_server_without_a_vapid_subject_sends_no_push_and_says_why(tmp_path: Path) -> None:
    settings = Settings(database=sqlite_url(tmp_path), ai_workers=0, public_url="http://x.org")
    with TestClient(create_app(settings)) as client:
        refused = client.get("/api/push/key")
        assert (refused.status_code, refused.json()["error"]["code"]) == (503, "push-off")
        sign_up(client, "Ana")
        assert client.post("/api/push/subscriptions", json=_GOOD).status_code == 503
        assert client.get("/api/push/subscriptions").json() == {"push": False, "devices": []}


def test_a_public_server_takes_no_endpoint_on_its_own_machine(tmp_path: Path) -> None:
    settings = push_settings(tmp_path, public_url="https://taluva.example.org")
    local = Browser().subscription("http://127.0.0.1:6379/send/x")
    with TestClient(create_app(settings)) as client:
        sign_up(client, "Ana")
        refused = client.post("/api/push/subscriptions", json=local)
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["message"].startswith("endpoint must be the https address")
        assert "plain http" not in refused.json()["error"]["message"]
        assert client.post("/api/push/subscriptions", json=_GOOD).status_code == 201
