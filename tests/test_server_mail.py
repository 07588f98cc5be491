"""E-mail and account recovery: an address confirmed by a mailed link, a forgotten password
reset by a single-use link, changing the password, and the mail queue, which loses no mail
when a server is killed and sends each mail once with two server processes (PostgreSQL).

The mail server is aiosmtpd on loopback (``mail_support``): the tests read what it was sent.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import test_server_storage
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient
from mail_support import (
    SENDER,
    WAIT,
    AppProcess,
    Sink,
    link_in,
    mail_settings,
    smtp_server,
    until,
)
from sqlalchemy import select, text, update
from test_server_lang import catalogs  # noqa: F401 - the fixture
from test_server_support import (
    free_port,
    hello,
    play_http,
    sqlite_url,
    state_of,
    two_humans,
)

from taluva.server import Settings, create_app
from taluva.server.mail import links as links_module
from taluva.server.mail.links import BadLink, Links
from taluva.server.mail.queue import KINDS, QUEUED, SENT, SWITCHES, Letter, MailQueue
from taluva.server.mail.sender import Smtp
from taluva.server.players.credentials import Credentials
from taluva.server.storage.models import Base, MailRow
from taluva.server.storage.store import Store

postgres_server = test_server_storage.postgres_server
PASSWORD = "correct horse battery"
NEW_PASSWORD = "purple staple cloud"
ADDRESS = "Ana@Example.org"
_MAILS = Base.metadata.tables[MailRow.__tablename__]


pytestmark = pytest.mark.usefixtures("cheap_hashes")


@pytest.fixture
def mailer(tmp_path: Path) -> Iterator[tuple[TestClient, Sink]]:
    """An in-process server that mails through an SMTP server on loopback, and what that
    SMTP server was sent."""
    with smtp_server() as (sink, port):
        settings = Settings(database=sqlite_url(tmp_path), ai_workers=0, **mail_settings(port))
        with TestClient(create_app(settings)) as client:
            yield client, sink


def sign_up(client: TestClient | httpx.Client, name: str = "Ana") -> dict[str, Any]:
    response = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    account: dict[str, Any] = response.json()["account"]
    return account


def confirmed(client: TestClient, sink: Sink, address: str = ADDRESS) -> None:
    """Give the signed-in account ``address`` and follow the link mailed to it."""
    before = len(sink.messages)
    assert client.put("/api/account/email", json={"email": address}).status_code == 202
    token = link_in(sink.wait_for(before + 1)[before], "confirm")
    assert client.post("/api/account/email/confirm", json={"token": token}).status_code == 200


@pytest.mark.usefixtures("catalogs")
def test_a_mail_asked_for_by_an_account_that_chose_french_is_french(
    mailer: tuple[TestClient, Sink],
) -> None:
    client, sink = mailer
    sign_up(client)
    assert client.put("/api/account/language", json={"language": "fr"}).is_success
    answer = client.put(
        "/api/account/email", json={"email": ADDRESS}, headers={"accept-language": "de"}
    )
    assert answer.status_code == 202, answer.text
    [mail] = sink.wait_for(1)
    assert mail["Subject"] == "Confirmez votre adresse e-mail pour Taluva"
    body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert body.startswith("Bonjour Ana,")
    assert "The link works for 48 hours." in body  # words the test's catalog lacks: English


def test_an_address_is_confirmed_by_the_mailed_link_and_shown_to_nobody_else(
    mailer: tuple[TestClient, Sink],
) -> None:
    client, sink = mailer
    account = sign_up(client)
    assert client.get("/api/account").json() == {
        "account": account,
        "email": {"address": None, "pending": None},
        "mail": True,
        "switches": [{"kind": kind, "about": KINDS[kind].about, "on": True} for kind in SWITCHES],
    }
    assert client.get("/api/config").json()["mail"] is True
    answer = client.put("/api/account/email", json={"email": ADDRESS})
    assert answer.status_code == 202, answer.text
    assert answer.json()["email"] == {"address": None, "pending": ADDRESS}
    [mail] = sink.wait_for(1)
    assert (mail["To"], mail["From"]) == (ADDRESS, SENDER)
    assert mail["Subject"] == "Confirm your e-mail address for Taluva"
    token = link_in(mail, "confirm")
    assert str(client.base_url) in mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    tampered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    refused = client.post("/api/account/email/confirm", json={"token": tampered})
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "bad-link")
    assert client.post("/api/account/email/confirm", json={"token": token}).json() == {
        "email": ADDRESS
    }
    assert client.get("/api/account").json()["email"] == {"address": ADDRESS, "pending": None}
    client.delete("/api/session")
    assert client.get("/api/account").status_code == 401
    assert ADDRESS.lower() not in client.get(f"/api/players/{account['id']}").text.lower()
    signed_out = client.put("/api/account/email", json={"email": ADDRESS})
    assert signed_out.status_code == 401


def test_a_bad_address_is_refused_saying_why(mailer: tuple[TestClient, Sink]) -> None:
    client, _sink = mailer
    sign_up(client)
    for wrong in ("no address", "a@b", "two@@example.org", "x" * 250 + "@example.org"):
        answer = client.put("/api/account/email", json={"email": wrong})
        assert answer.status_code == 422, wrong
        assert "email must be an address" in answer.json()["error"]["message"]


def test_an_account_gets_a_few_confirmation_mails_a_day_and_then_is_told_to_wait(
    mailer: tuple[TestClient, Sink],
) -> None:
    client, sink = mailer
    sign_up(client)
    allowed = KINDS["confirm"].per_day
    for number in range(allowed):
        answer = client.put("/api/account/email", json={"email": f"ana{number}@example.org"})
        assert answer.status_code == 202, answer.text
    refused = client.put("/api/account/email", json={"email": "ana.again@example.org"})
    assert (refused.status_code, refused.json()["error"]["code"]) == (429, "rate-limited")
    assert len(sink.wait_for(allowed)) == allowed


def test_the_smtp_password_is_in_no_repr_of_the_settings() -> None:
    settings = Settings(smtp_host="mail.example.org", mail_from=SENDER, smtp_password="hunter2!")
    smtp = Smtp.of(settings)
    assert smtp is not None and smtp.password == "hunter2!"
    assert "hunter2!" not in repr(settings) + repr(smtp)


def test_a_forgotten_password_is_reset_by_a_single_use_link_that_ends_every_session(
    mailer: tuple[TestClient, Sink],
) -> None:
    client, sink = mailer
    other = TestClient(client.app)
    account = sign_up(client)
    confirmed(client, sink)
    assert other.post("/api/session", json={"name": "Ana", "password": PASSWORD}).is_success
    stranger = client.post("/api/password-reset", json={"email": "nobody@example.org"})
    known = client.post("/api/password-reset", json={"email": ADDRESS.upper()})
    assert stranger.status_code == known.status_code == 202
    assert stranger.json() == known.json()
    mails = sink.wait_for(2)
    assert [m["To"] for m in mails] == [ADDRESS, ADDRESS]
    token = link_in(mails[1], "reset")
    short = client.post("/api/password-reset/new", json={"token": token, "password": "short"})
    assert short.status_code == 422
    fresh = TestClient(client.app)
    answer = fresh.post("/api/password-reset/new", json={"token": token, "password": NEW_PASSWORD})
    assert answer.status_code == 200, answer.text
    assert answer.json()["account"] == account
    assert fresh.get("/api/session").json()["account"] == account
    assert client.get("/api/session").json()["account"] is None
    assert other.get("/api/session").json()["account"] is None
    again = fresh.post("/api/password-reset/new", json={"token": token, "password": PASSWORD})
    assert (again.status_code, again.json()["error"]["code"]) == (400, "bad-link")
    assert "used already" in again.json()["error"]["message"]
    assert other.post("/api/session", json={"name": "Ana", "password": PASSWORD}).status_code == 401
    assert other.post("/api/session", json={"name": "Ana", "password": NEW_PASSWORD}).is_success
    assert len(sink.messages) == 2  # nothing went to the unknown address


def test_changing_the_password_needs_the_current_one_and_ends_the_other_sessions(
    mailer: tuple[TestClient, Sink],
) -> None:
    client, _sink = mailer
    other = TestClient(client.app)
    sign_up(client)
    assert other.post("/api/session", json={"name": "Ana", "password": PASSWORD}).is_success
    wrong = client.post(
        "/api/account/password", json={"password": "not it at all", "new_password": NEW_PASSWORD}
    )
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (401, "bad-credentials")
    assert other.get("/api/session").json()["account"] is not None
    changed = client.post(
        "/api/account/password", json={"password": PASSWORD, "new_password": NEW_PASSWORD}
    )
    assert changed.status_code == 200, changed.text
    assert client.get("/api/session").json()["account"]["name"] == "Ana"
    assert other.get("/api/session").json()["account"] is None
    assert other.post("/api/session", json={"name": "Ana", "password": NEW_PASSWORD}).is_success


def test_without_a_mail_server_what_needs_mail_says_so_and_the_rest_works(
    tmp_path: Path,
) -> None:
    settings = Settings(database=sqlite_url(tmp_path), ai_workers=0)
    with TestClient(create_app(settings)) as client:
        sign_up(client)
        assert client.get("/api/account").json()["mail"] is False
        assert client.get("/api/config").json()["mail"] is False
        for answer in (
            client.put("/api/account/email", json={"email": ADDRESS}),
            client.post("/api/password-reset", json={"email": ADDRESS}),
        ):
            assert (answer.status_code, answer.json()["error"]["code"]) == (503, "mail-off")
        changed = client.post(
            "/api/account/password", json={"password": PASSWORD, "new_password": NEW_PASSWORD}
        )
        assert changed.status_code == 200
        assert (
            client.post(
                "/api/games",
                json={
                    "seats": [
                        {"kind": "human", "name": "Ana", "take": True},
                        {"kind": "ai", "level": 1},
                    ]
                },
            ).status_code
            == 201
        )


def test_a_link_is_refused_when_expired_made_for_something_else_or_signed_by_another_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    links = Links(b"k" * 32)
    token = links.make("confirm", 7, "ana@example.org")
    assert links.read("confirm", token) == links_module.Link(7, "ana@example.org")
    with pytest.raises(BadLink, match="something else"):
        links.read("reset", token)
    with pytest.raises(BadLink, match="not complete"):
        Links(b"j" * 32).read("confirm", token)
    with pytest.raises(BadLink, match="not complete"):
        links.read("confirm", token.split(".")[0])
    monkeypatch.setitem(links_module.LINK_LIFETIMES, "confirm", timedelta(seconds=-1))
    with pytest.raises(BadLink, match="expired"):
        links.read("confirm", links.make("confirm", 7, "ana@example.org"))


def test_a_mail_the_server_refuses_for_now_is_tried_again_and_one_it_refuses_for_good_fails(
    tmp_path: Path,
) -> None:
    with smtp_server() as (sink, port):
        settings = Settings(database=sqlite_url(tmp_path), ai_workers=0, **mail_settings(port))
        app = create_app(settings)
        refusals = iter([(451, "try later"), (550, "no such mailbox")])

        async def refuse_twice(
            server: Any, session: Any, envelope: Any, address: str, options: Any
        ) -> str:
            if address.startswith("later@") and next(refusals, None) is not None:
                return "451 4.3.0 try later"
            if address.startswith("never@"):
                return "550 5.1.1 no such mailbox"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        sink.handle_RCPT = refuse_twice  # type: ignore[attr-defined]
        with TestClient(app):
            queue = MailQueue(app.state.site.service.store.engine)
            letter = Letter("Hello", "plain words", "<p>html words</p>")
            queue.put("reset", "later@example.org", letter)
            queue.put("reset", "never@example.org", letter)
            until(
                lambda: queue.statuses()["sent"] == 1 and queue.statuses()["failed"] == 1,
                "one mail sent and one failed",
            )
            with queue.engine.connect() as connection:
                rows = {row.to_address: row for row in connection.execute(select(_MAILS)).all()}
        assert rows["later@example.org"].attempts >= 2
        assert rows["later@example.org"].text_body == ""  # a sent mail keeps no words
        assert rows["never@example.org"].attempts == 1
        assert "no such mailbox" in rows["never@example.org"].last_error
        assert [m["To"] for m in sink.messages] == ["later@example.org"]


def test_mail_queued_when_the_server_is_killed_goes_out_once_after_it_restarts(
    tmp_path: Path,
) -> None:
    database = sqlite_url(tmp_path)
    smtp_port = free_port()  # nothing listens there yet: every try fails
    # a failed try waits an hour: the mail stays queued, not being sent, when it is killed
    settings = mail_settings(smtp_port, mail_retry_after=3600.0)
    server = AppProcess({"database": database, "ai_workers": 0, **settings})
    server.start()
    try:
        with httpx.Client(base_url=server.url) as client:
            account = sign_up(client)
        store = Store(database, game_end=None)
        Credentials(store.engine).ask(account["id"], ADDRESS)
        assert Credentials(store.engine).confirm(account["id"], ADDRESS)
        with httpx.Client(base_url=server.url) as client:
            answer = client.post("/api/password-reset", json={"email": ADDRESS})
            assert answer.status_code == 202
        queue = MailQueue(store.engine)

        def tried() -> bool:
            with store.engine.connect() as connection:
                return bool(connection.scalar(select(_MAILS.c.attempts)) or 0)

        until(tried, "a failed try")
        server.kill()
        assert queue.statuses()[SENT] == 0
        with smtp_server(smtp_port) as (sink, _port):
            with store.engine.begin() as connection:  # due now rather than after its back-off
                connection.execute(update(_MAILS).values(next_try=_MAILS.c.created_at))
            server.start()
            [mail] = sink.wait_for(1)
            until(lambda: queue.statuses()[SENT] == 1, "the mail marked sent")
            token = link_in(mail, "reset")
            with httpx.Client(base_url=server.url) as client:
                reset = client.post(
                    "/api/password-reset/new", json={"token": token, "password": NEW_PASSWORD}
                )
            assert reset.status_code == 200, reset.text
            server.stop()
            assert len(sink.messages) == 1
        assert queue.statuses() == {QUEUED: 0, "sending": 0, SENT: 1, "failed": 0}
    finally:
        server.kill()


def test_two_server_processes_sharing_the_queue_send_each_mail_exactly_once(
    postgres_server: str, tmp_path: Path
) -> None:
    name = f"t_{tmp_path.name.lower().replace('-', '_')}"[:60]
    admin = Store(postgres_server, game_end=None)
    with admin.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.close()
    database = postgres_server.rsplit("/", 1)[0] + f"/{name}"
    store = Store(database, game_end=None)
    store.migrate()
    count = 40
    with smtp_server(pause=0.1) as (sink, smtp_port):
        servers = [
            AppProcess({"database": database, "ai_workers": 0, **mail_settings(smtp_port)})
            for _ in range(2)
        ]
        try:
            for server in servers:
                server.start()
            queue = MailQueue(store.engine)
            for number in range(count):
                letter = Letter(f"mail {number}", f"words {number}", f"<p>{number}</p>")
                queue.put("reset", f"player{number}@example.org", letter)
            sink.wait_for(count)
            until(lambda: queue.statuses()[SENT] == count, "every mail marked sent")
            for server in servers:
                server.stop()
        finally:
            for server in servers:
                server.kill()
        subjects = Counter(str(m["Subject"]) for m in sink.messages)
        assert subjects == Counter(f"mail {number}" for number in range(count))
        with store.engine.connect() as connection:
            senders = Counter(connection.scalars(select(_MAILS.c.claimed_by)).all())
        assert len(senders) == 2, senders  # both processes took part
    store.close()


def test_a_turn_based_game_mails_the_absent_player_to_move_once_a_turn_until_unsubscribed(
    tmp_path: Path,
) -> None:
    with smtp_server() as (sink, port):
        site = "https://taluva.example.org"
        settings = Settings(
            database=sqlite_url(tmp_path), ai_workers=0, public_url=site, **mail_settings(port)
        )
        with TestClient(create_app(settings)) as client:
            sign_up(client, "Ana")
            confirmed(client, sink, "ana@example.org")
            ana_session = dict(client.cookies)
            created = client.post(
                "/api/games",
                json={
                    "name": "Slow volcano",
                    "seats": [{"kind": "human", "take": True}, {"kind": "human"}],
                    "clock": {"kind": "turn", "per_turn": 86400},
                },
            )
            assert created.status_code == 201, created.text
            game_id = created.json()["game"]["id"]
            tokens = {0: created.json()["tokens"][0]["token"]}
            client.cookies.clear()
            sign_up(client, "Ben")
            confirmed(client, sink, "ben@example.org")
            tokens[1] = client.post(f"/api/games/{game_id}/seats/1", json={}).json()["token"]
            [first] = sink.wait_for(3)[2:]  # the game starts: Ana, to move, has no page open
            assert (first["To"], first["Subject"]) == (
                "ana@example.org",
                "Your move in Slow volcano",
            )
            assert f"{site}/#/game/{game_id}" in first.get_body(("plain",)).get_content()  # type: ignore[union-attr]
            unsubscribe = first["List-Unsubscribe"].strip("<>")
            assert unsubscribe.startswith(f"{site}/api/mail/unsubscribe?token=")
            assert first["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

            def turn(seat: int) -> None:
                for _ply in range(2):  # the tile, then the building
                    state = state_of(client, game_id)
                    moved = play_http(
                        client, game_id, tokens[seat], state["ply"], state["legal"][0]
                    )
                    assert moved.status_code == 200, moved.text

            with client.websocket_connect(f"/ws/games/{game_id}") as socket:
                hello(socket, [tokens[1]])
                turn(0)  # Ben's turn, with his page open: no mail
                turn(1)
            turn(0)  # Ben's turn, his page closed
            mails = sink.wait_for(5)
            assert [m["To"] for m in mails[3:]] == ["ana@example.org", "ben@example.org"]

            one_click = client.post(
                unsubscribe.removeprefix(site),
                content=b"List-Unsubscribe=One-Click",
                headers={"content-type": "application/x-www-form-urlencoded"},
            )
            assert one_click.json() == {"kind": "move", "on": False}
            client.cookies.clear()
            client.cookies.update(ana_session)
            assert {"kind": "move", "about": "your move in a turn-based game", "on": False} in (
                client.get("/api/account").json()["switches"]
            )
            turn(1)  # Ana's turn again: she turned these mails off
            turn(0)  # and Ben's: his one mail of this turn
            mails = sink.wait_for(6)
            assert [m["To"] for m in mails[5:]] == ["ben@example.org"]
            with client.app.state.site.service.store.engine.connect() as connection:
                keys = connection.scalars(select(_MAILS.c.once_key)).all()
        assert len([k for k in keys if k]) == 4  # one a turn, none for a turn under way


def test_only_the_unsubscribe_path_takes_a_form_and_only_switches_that_exist_turn(
    mailer: tuple[TestClient, Sink],
) -> None:
    client, _sink = mailer
    sign_up(client)
    form = {"content-type": "application/x-www-form-urlencoded"}
    elsewhere = client.post("/api/session", content=b"List-Unsubscribe=One-Click", headers=form)
    assert (elsewhere.status_code, elsewhere.json()["error"]["code"]) == (415, "bad-content-type")
    forged = client.post(
        "/api/mail/unsubscribe?token=abc.def", content=b"List-Unsubscribe=One-Click", headers=form
    )
    assert (forged.status_code, forged.json()["error"]["code"]) == (400, "bad-link")
    unknown = client.put("/api/account/mail-switches", json={"kind": "reset", "on": False})
    assert unknown.status_code == 422
    assert "kind must be one of move, challenge" in unknown.json()["error"]["message"]
    off = client.put("/api/account/mail-switches", json={"kind": "move", "on": False})
    assert off.json()["switches"][0]["on"] is False


def test_a_challenged_player_gets_a_mail_until_they_turn_challenge_mails_off(
    tmp_path: Path,
) -> None:
    with smtp_server() as (sink, port):
        site = "https://taluva.example.org"
        settings = Settings(
            database=sqlite_url(tmp_path), ai_workers=0, public_url=site, **mail_settings(port)
        )
        with TestClient(create_app(settings)) as client:
            ana = sign_up(client, "Ana")
            confirmed(client, sink, "ana@example.org")
            client.cookies.clear()
            sign_up(client, "Ben")
            rated = {"kind": "fischer", "base": 600, "increment": 20}
            sent = client.post("/api/challenges", json={"to": ana["id"], "clock": rated})
            assert sent.status_code == 201, sent.text
            [mail] = sink.wait_for(2)[1:]
            assert (mail["To"], mail["Subject"]) == (
                "ana@example.org",
                "Ben challenges you on Taluva",
            )
            body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
            assert "2 players, 10 minutes + 20 seconds, rated" in body and f"{site}/" in body
            one_click = client.post(
                mail["List-Unsubscribe"].strip("<>").removeprefix(site),
                content=b"List-Unsubscribe=One-Click",
                headers={"content-type": "application/x-www-form-urlencoded"},
            )
            assert one_click.json() == {"kind": "challenge", "on": False}
            challenge = sent.json()["challenge"]["id"]
            assert client.delete(f"/api/challenges/{challenge}").status_code == 200
            again = client.post("/api/challenges", json={"to": ana["id"], "clock": rated})
            assert again.status_code == 201, again.text
            with client.app.state.site.service.store.engine.connect() as connection:
                kinds = connection.scalars(select(_MAILS.c.kind)).all()
        assert kinds == ["confirm", "challenge"]  # none for the second challenge


def test_moves_and_requests_go_on_while_the_mail_server_holds_a_mail(tmp_path: Path) -> None:
    release = threading.Event()
    holding = threading.Event()

    class Holding(Sink):
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            holding.set()
            await asyncio.get_running_loop().run_in_executor(None, release.wait)
            return await super().handle_DATA(server, session, envelope)

    sink = Holding()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        settings = Settings(database=sqlite_url(tmp_path), ai_workers=0, **mail_settings(port))
        with TestClient(create_app(settings)) as client:
            sign_up(client)
            done: list[int] = []

            def play() -> None:
                done.append(client.put("/api/account/email", json={"email": ADDRESS}).status_code)
                until(holding.is_set, "the mail server to hold the mail")
                game_id, tokens = two_humans(client)
                for _ply in range(4):
                    state = state_of(client, game_id)
                    seat = state["to_move"]
                    moved = play_http(
                        client, game_id, tokens[seat], state["ply"], state["legal"][0]
                    )
                    done.append(moved.status_code)
                asked = client.post("/api/password-reset", json={"email": "x@example.org"})
                done.append(asked.status_code)

            player = threading.Thread(target=play)
            player.start()
            player.join(WAIT)
            assert done == [202, 200, 200, 200, 200, 202]  # all answered, the mail still held
            assert not sink.messages
            release.set()
            [mail] = sink.wait_for(1)
            assert mail["To"] == ADDRESS
    finally:
        release.set()
        controller.stop()
