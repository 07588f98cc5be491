"""Notices: the mails (and push messages) that tell a signed-in player away from a game of a
rematch offered, of the game's end with its result in words, of a turn-based clock about to
run out, and of their move, with the board as an inline picture.

The mail server is aiosmtpd on loopback (``mail_support``): the tests read what it was sent.
A fake pusher stands for web push (``Notices.pushers``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mail_support import Sink, link_in, mail_settings, smtp_server, until
from sqlalchemy import select
from test_server_lang import catalogs  # noqa: F401 - the fixture
from test_server_support import hello, sqlite_url, state_of

from taluva.render.raster import PngUnavailable
from taluva.server import Settings, create_app
from taluva.server.http import notices as notices_module
from taluva.server.http.notices import Notices, board_picture, first_time
from taluva.server.mail.queue import PICTURE_ID, SWITCHES
from taluva.server.storage.models import Base, MailRow

SITE = "https://taluva.example.org"
PASSWORD = "correct horse battery"
ANA, BEN = "ana@example.org", "ben@example.org"
TURN_BASED = {"kind": "turn", "per_turn": 86400}
_MAILS = Base.metadata.tables[MailRow.__tablename__]


pytestmark = pytest.mark.usefixtures("cheap_hashes")


@dataclass
class Table:
    """A server that mails, Ana and Ben signed up with confirmed addresses, and a game of
    theirs: Ana in seat 0 (to move first), Ben in seat 1."""

    client: TestClient
    sink: Sink
    game_id: str
    tokens: dict[int, str]
    cookies: dict[str, dict[str, str]]

    @property
    def notices(self) -> Notices:
        notices: Notices = self.client.app.state.site.notices
        return notices

    def as_player(self, name: str) -> TestClient:
        """The client, signed in as ``name``."""
        self.client.cookies.clear()
        self.client.cookies.update(self.cookies[name])
        return self.client

    def mails(self, subject_start: str, count: int) -> list[EmailMessage]:
        """The mails whose subject starts so, once there are ``count`` of them."""

        def found() -> list[EmailMessage]:
            return [m for m in self.sink.messages if str(m["Subject"]).startswith(subject_start)]

        until(lambda: len(found()) >= count, f"{count} mails '{subject_start}...'")
        return found()

    def resign(self, seat: int) -> None:
        answer = self.client.post(
            f"/api/games/{self.game_id}/resign",
            headers={"authorization": f"Bearer {self.tokens[seat]}"},
        )
        assert answer.status_code == 200, answer.text

    def kinds(self) -> Counter[tuple[str, str]]:
        """The mails queued so far, by kind and address."""
        engine = self.client.app.state.site.service.store.engine
        with engine.connect() as connection:
            rows = connection.execute(select(_MAILS.c.kind, _MAILS.c.to_address)).all()
        return Counter((row.kind, row.to_address) for row in rows)


def sign_up(client: TestClient, sink: Sink, name: str, address: str) -> dict[str, str]:
    """Sign ``name`` up and confirm ``address``; the session's cookies."""
    client.cookies.clear()
    assert client.post("/api/accounts", json={"name": name, "password": PASSWORD}).is_success
    before = len(sink.messages)
    assert client.put("/api/account/email", json={"email": address}).status_code == 202
    token = link_in(sink.wait_for(before + 1)[before], "confirm")
    assert client.post("/api/account/email/confirm", json={"token": token}).is_success
    return dict(client.cookies)


def seat_both(table: Table, clock: dict[str, Any] | None, name: str = "Slow volcano") -> None:
    """Ana creates a two-player game and takes seat 0; Ben takes seat 1: it starts."""
    client = table.as_player("Ana")
    body: dict[str, Any] = {
        "name": name,
        "seats": [{"kind": "human", "take": True}, {"kind": "human"}],
    }
    if clock is not None:
        body["clock"] = clock
    created = client.post("/api/games", json=body)
    assert created.status_code == 201, created.text
    table.game_id = created.json()["game"]["id"]
    table.tokens = {0: created.json()["tokens"][0]["token"]}
    joined = table.as_player("Ben").post(f"/api/games/{table.game_id}/seats/1", json={})
    assert joined.status_code in (200, 201), joined.text
    table.tokens[1] = joined.json()["token"]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    with smtp_server() as (sink, port):
        settings = Settings(
            database=sqlite_url(tmp_path), ai_workers=0, public_url=SITE, **mail_settings(port)
        )
        app = create_app(settings)
        app.state.site.notices.check_every = 0.05
        with TestClient(app) as client:
            cookies = {
                "Ana": sign_up(client, sink, "Ana", ANA),
                "Ben": sign_up(client, sink, "Ben", BEN),
            }
            yield Table(client, sink, "", {}, cookies)


def test_the_end_of_a_game_mails_its_result_in_words_to_each_player_with_no_page_of_it_open(
    table: Table,
) -> None:
    seat_both(table, None)
    with table.client.websocket_connect(f"/ws/games/{table.game_id}") as socket:
        hello(socket, [table.tokens[1]])  # Ben watches the game: he sees its end
        table.resign(0)
        [mail] = table.mails("Slow volcano is over", 1)
    result = state_of(table.client, table.game_id)["result"]
    assert result["headline"].startswith("Ben wins")
    assert mail["To"] == ANA
    body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert result["headline"] in body and result["headline"] in str(mail["Subject"])
    for line in result["lines"]:
        assert line in body
    assert f"{SITE}/#/game/{table.game_id}" in body
    assert table.kinds()[("end", BEN)] == 0


def test_a_rematch_offer_is_mailed_to_the_other_player_who_may_take_their_seat(
    table: Table,
) -> None:
    seat_both(table, None)
    table.resign(1)
    table.mails("Slow volcano is over", 2)
    offered = table.as_player("Ana").post(f"/api/games/{table.game_id}/rematch")
    assert offered.status_code == 201, offered.text
    [mail] = table.mails("Ana offers a rematch", 1)
    assert (mail["To"], mail["Subject"]) == (BEN, "Ana offers a rematch of Slow volcano")
    body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert f"{SITE}/#/game/{table.game_id}" in body
    assert mail["List-Unsubscribe"].startswith(f"<{SITE}/api/mail/unsubscribe?token=")
    taken = table.as_player("Ben").post(f"/api/games/{table.game_id}/rematch")
    assert taken.status_code == 200, taken.text  # the mail's link leads to his seat
    assert table.kinds()[("rematch", ANA)] == 0 and table.kinds()[("rematch", BEN)] == 1


@pytest.mark.usefixtures("catalogs")
def test_a_notice_speaks_the_language_its_recipient_chose_else_english(table: Table) -> None:
    table.as_player("Ben").put("/api/account/language", json={"language": "fr"})
    seat_both(table, None)
    table.resign(1)
    table.mails("Slow volcano is over", 2)  # no words for it in the test's catalog: English
    german = {"accept-language": "de"}  # the request that causes a notice names no language
    offered = table.as_player("Ana").post(f"/api/games/{table.game_id}/rematch", headers=german)
    assert offered.status_code == 201, offered.text
    [mail] = table.mails("Ana propose une revanche", 1)
    assert (mail["To"], mail["Subject"]) == (BEN, "Ana propose une revanche de Slow volcano")
    body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert body.startswith("Bonjour Ben,")
    assert table.notices.language_of(2) == "fr"  # Ben's account
    table.as_player("Ben").put("/api/account/language", json={"language": None})
    assert table.notices.language_of(1) == "en" == table.notices.language_of(2)


def test_a_turn_based_clock_about_to_run_out_warns_its_absent_player_exactly_once(
    table: Table,
) -> None:
    # a turn shorter than two days is warned halfway: after 3 of these 6 seconds, while the
    # clocks are looked at every 0.05 s; then Ana runs out of time and the game ends
    seat_both(table, {"kind": "turn", "per_turn": 6})
    [warning] = table.mails("Your time in Slow volcano runs out in", 1)
    assert warning["To"] == ANA
    assert "runs out in" in warning.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    table.mails("Slow volcano is over", 2)
    assert table.notices.check_clocks() == 0  # the game is over: nothing more to warn of
    kinds = table.kinds()
    assert (kinds[("move", ANA)], kinds[("clock", ANA)], kinds[("clock", BEN)]) == (1, 1, 0)


def test_the_your_move_mail_shows_the_games_board_as_an_inline_png(table: Table) -> None:
    seat_both(table, TURN_BASED)
    [mail] = table.mails("Your move in Slow volcano", 1)
    html = mail.get_body(("html",))
    assert html is not None and f'src="cid:{PICTURE_ID}"' in html.get_content()
    [picture] = [part for part in mail.walk() if part.get_content_type() == "image/png"]
    assert picture["Content-ID"] == f"<{PICTURE_ID}>"
    data = picture.get_content()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 500
    room = table.client.app.state.site.service.registry.get(table.game_id)
    assert data == board_picture(room.game, 0)  # the board of the game at its first turn
    body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert f"{SITE}/#/game/{table.game_id}" in body


def test_without_the_png_renderer_the_your_move_mail_goes_without_a_picture(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(*_args: Any, **_kwargs: Any) -> bytes:
        raise PngUnavailable("PNG pictures need the 'png' extra")

    monkeypatch.setattr(notices_module, "png_board", unavailable)
    seat_both(table, TURN_BASED)
    [mail] = table.mails("Your move in Slow volcano", 1)
    assert "cid:" not in mail.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert not [part for part in mail.walk() if part.get_content_maintype() == "image"]


def test_a_kind_of_mail_switched_off_sends_nothing_while_the_others_go(table: Table) -> None:
    off = table.as_player("Ben").put(
        "/api/account/mail-switches", json={"kind": "end", "on": False}
    )
    switches = {entry["kind"]: entry["on"] for entry in off.json()["switches"]}
    assert switches == {kind: kind != "end" for kind in SWITCHES}
    seat_both(table, None)
    table.resign(0)
    [mail] = table.mails("Slow volcano is over", 1)
    assert mail["To"] == ANA
    table.as_player("Ana").post(f"/api/games/{table.game_id}/rematch")
    table.mails("Ana offers a rematch", 1)  # Ben's other mails still go
    kinds = table.kinds()
    assert (kinds[("end", ANA)], kinds[("end", BEN)], kinds[("rematch", BEN)]) == (1, 0, 1)


class FakePusher:
    """Keeps what it is given, as web push would send it."""

    def __init__(self) -> None:
        self.given: list[tuple[str, int, str, str, str, str]] = []

    async def push(
        self, kind: str, account_id: int, title: str, body: str, url: str, key: str
    ) -> None:
        self.given.append((kind, account_id, title, body, url, key))


def test_a_pusher_gets_the_same_notices_as_mail_even_without_a_mail_server(
    tmp_path: Path,
) -> None:
    settings = Settings(database=sqlite_url(tmp_path), ai_workers=0)
    app = create_app(settings)
    pusher = FakePusher()
    app.state.site.notices.pushers.append(pusher)
    with TestClient(app) as client:
        ids = {}
        cookies = {}
        for name in ("Ana", "Ben"):
            client.cookies.clear()
            answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
            ids[name] = answer.json()["account"]["id"]
            cookies[name] = dict(client.cookies)
        table = Table(client, Sink(), "", {}, cookies)
        seat_both(table, TURN_BASED)
        game = table.game_id
        until(lambda: len(pusher.given) >= 1, "the move notice")
        kind, account, title, body, url, key = pusher.given[0]
        assert (kind, account, title, url, key) == (
            "move", ids["Ana"], "Your move in Slow volcano", f"/#/game/{game}", f"move:{game}:0"
        )  # fmt: skip
        assert "Slow volcano" in body
        table.resign(0)
        until(lambda: len(pusher.given) >= 3, "the end notices")
        ends = sorted(given for given in pusher.given if given[0] == "end")
        headline = state_of(client, game)["result"]["headline"]
        assert ends == sorted(
            ("end", ids[name], "Slow volcano is over", headline, f"/#/game/{game}",
             f"end:{game}:{ids[name]}")
            for name in ("Ana", "Ben")
        )  # fmt: skip
        assert table.as_player("Ana").post(f"/api/games/{game}/rematch").status_code == 201
        until(lambda: len(pusher.given) >= 4, "the rematch notice")
        assert pusher.given[3][:3] == ("rematch", ids["Ben"], "Ana offers a rematch")
        assert pusher.given[3][4:] == (f"/#/game/{game}", f"rematch:{game}:{ids['Ben']}")
        client.post("/api/challenges", json={"to": ids["Ben"]})
        until(lambda: len(pusher.given) >= 5, "the challenge notice")
        assert pusher.given[4][:3] == ("challenge", ids["Ben"], "Ana challenges you")
        assert pusher.given[4][4] == "/"


def test_a_notice_is_given_once_however_many_processes_find_it(table: Table) -> None:
    engine = table.client.app.state.site.service.store.engine
    assert first_time(engine, "end:g1:7")
    assert not first_time(engine, "end:g1:7")  # another process, or this one restarted
    assert first_time(engine, "end:g1:8")
