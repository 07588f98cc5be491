"""The server in the player's language: which language a request or a socket speaks (the
query, the account, the cookie, ``Accept-Language``, English), the account's setting, the
client's catalog (``/api/i18n``), and every word the server says, over HTTP, on each
WebSocket in its own language, between server processes, and in mails.

The words come from small catalogs written for each test (``catalogs``): the shipped ones are
translated by others, and what is tested here is that the chosen language reaches the words,
not the translations themselves. English answers stay exactly as they were.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from fastapi.testclient import TestClient
from test_server_support import client_for, hello, sqlite_url, two_humans

from taluva.engine.errors import IllegalMove
from taluva.engine.game import Game
from taluva.engine.wording import T, Text, Tn
from taluva.lang import LANGUAGES, say
from taluva.lang import catalogs as catalogs_module
from taluva.server.cluster.bus import envelope, open_envelope
from taluva.server.config import Limits
from taluva.server.games.cluster import Cluster
from taluva.server.http.language import choose
from taluva.server.http.ws import Connection, close_reason
from taluva.server.wire import in_language, to_json

PASSWORD = "correct horse battery"
REFUSED = "tile 9,9 3"
"""A move the engine refuses at the first turn (the first tile goes on 0,0)."""

pytestmark = pytest.mark.usefixtures("cheap_hashes")

Messages = dict[Any, Any]


def write_catalog(root: Path, lang: str, domain: str, messages: Messages) -> None:
    """A ``.po`` catalog of ``domain`` in ``lang`` under ``root`` (a plural message: the
    English pair as its id, the forms of ``lang`` as its words)."""
    catalog = Catalog(locale=lang, domain=domain)
    for message_id, words in messages.items():
        catalog.add(message_id, words)
    path = root / lang / "LC_MESSAGES" / f"{domain}.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, catalog)


def engine_refusal() -> Text:
    """The engine's own refusal of ``REFUSED`` in a new two-player game."""
    try:
        Game.new(2).play(REFUSED)
    except IllegalMove as error:
        refusal = error.args[0]
        assert isinstance(refusal, Text), "the engine refuses with a Text"
        return refusal
    raise AssertionError(f"{REFUSED} was accepted")


def german_like(template: str) -> str:
    """Words standing for a German translation of ``template``, with its placeholders."""
    return "Nicht erlaubt: " + " ".join(re.findall(r"\{\w+\}", template))


def server_words() -> dict[str, Messages]:
    """The server's test catalogs: a few of its own messages, and the engine's refusal."""
    reason = engine_refusal().values["reason"]
    return {
        "de": {
            "there is no game {game}": "es gibt kein Spiel {game}",
            "Field required": "Pflichtfeld fehlt",
            "sign in to change your account": "melde dich an, um dein Konto zu ändern",
            reason.template: german_like(reason.template),
            ("{n} second", "{n} seconds"): ("{n} Sekunde", "{n} Sekunden"),
            "your move in a turn-based game": "dein Zug in einer Partie mit Zugzeit",
        },
        "fr": {
            "there is no game {game}": "il n'y a pas de partie {game}",
            "Confirm your e-mail address for Taluva": "Confirmez votre adresse e-mail pour Taluva",
            "Hello {name},": "Bonjour {name},",
            "{sender} offers a rematch of {game}": "{sender} propose une revanche de {game}",
            "{sender} offers a rematch": "{sender} propose une revanche",
            "Your move in {game}": "À vous de jouer dans {game}",
        },
    }


CLIENT_WORDS: dict[str, Messages] = {
    "de": {"Lobby": "Spielesaal", ("{n} hut", "{n} huts"): ("{n} Hütte", "{n} Hütten")},
    "fr": {
        "Lobby": "Salon",
        ("{n} hut", "{n} huts"): ("{n} hutte", "{n} de huttes", "{n} huttes"),
    },
}


@pytest.fixture
def catalogs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The test's catalogs in place of the shipped ones, for this test only."""
    root = tmp_path / "locale"
    for lang, messages in server_words().items():
        write_catalog(root, lang, "server", messages)
    for lang, messages in CLIENT_WORDS.items():
        write_catalog(root, lang, "client-game", messages)
    monkeypatch.setattr(catalogs_module, "LOCALE_DIR", root)
    catalogs_module.translations.cache_clear()
    catalogs_module.client_catalog.cache_clear()
    yield root
    catalogs_module.translations.cache_clear()
    catalogs_module.client_catalog.cache_clear()


@pytest.fixture
def client(tmp_path: Path, catalogs: Path) -> Iterator[TestClient]:
    with client_for(sqlite_url(tmp_path)) as client:
        yield client


def sign_up(client: TestClient, name: str) -> dict[str, Any]:
    answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    account: dict[str, Any] = answer.json()["account"]
    return account


def spoken(client: TestClient, **request: Any) -> str:
    """The language ``/api/i18n`` says the request speaks."""
    answer = client.get("/api/i18n", **request)
    assert answer.status_code == 200, answer.text
    lang: str = answer.json()["lang"]
    return lang


# ---------------------------------------------------------------------- the choice


def test_the_choice_goes_query_then_account_then_cookie_then_accept_language_then_english(
    client: TestClient,
) -> None:
    german = {"accept-language": "de-DE,de;q=0.9,en;q=0.5"}
    assert spoken(client) == "en"
    assert spoken(client, headers={"accept-language": "it, es;q=0.8"}) == "en"
    assert spoken(client, headers=german) == "de"
    client.cookies.set("taluva-lang", "fr")
    assert spoken(client, headers=german) == "fr"  # the switch's cookie over the browser
    sign_up(client, "Ana")
    assert spoken(client, headers=german) == "fr"  # no choice of the account's yet
    assert client.put("/api/account/language", json={"language": "de"}).status_code == 200
    assert spoken(client) == "de"  # the account's choice over the cookie
    assert spoken(client, params={"lang": "fr"}) == "fr"  # the query over everything
    assert spoken(client, params={"lang": "xx"}) == "de"  # a language not shipped: the next
    client.cookies.set("taluva-lang", "xx")
    client.put("/api/account/language", json={"language": None})
    assert spoken(client, headers=german) == "de"  # a cookie naming no shipped language


def test_choose_takes_the_first_shipped_language_in_order() -> None:
    assert choose(None, None, None, None) == "en"
    assert choose(None, None, None, "fr-CH, de;q=0.9") == "fr"
    assert choose(None, None, "de", "fr") == "de"
    assert choose(None, "fr", "de", "de") == "fr"
    assert choose("de", "fr", "fr", "fr") == "de"
    assert choose("pt", None, None, "en-GB, fr;q=0.5") == "en"


def test_an_account_chooses_its_language_and_shows_it_and_an_unknown_one_is_refused(
    client: TestClient,
) -> None:
    anonymous = client.put("/api/account/language", json={"language": "de"})
    assert anonymous.status_code == 401
    account = sign_up(client, "Ana")
    assert account["language"] is None
    chosen = client.put("/api/account/language", json={"language": "de"})
    assert chosen.status_code == 200, chosen.text
    assert chosen.json()["account"] == {**account, "language": "de"}
    assert client.get("/api/session").json()["account"]["language"] == "de"
    assert client.get("/api/account").json()["account"]["language"] == "de"
    unknown = client.put("/api/account/language", json={"language": "xx"})
    assert unknown.status_code == 422
    assert unknown.json()["error"]["code"] == "bad-request"
    message = unknown.json()["error"]["message"]
    assert all(code in message for code in LANGUAGES) and "'xx'" in message
    cleared = client.put("/api/account/language", json={"language": None})
    assert cleared.json()["account"]["language"] is None
    assert client.get("/api/session").json()["account"]["language"] is None
    signed_in = client.post("/api/session", json={"name": "Ana", "password": PASSWORD})
    assert signed_in.json()["account"]["language"] is None


def test_an_account_answered_in_the_language_it_just_chose(client: TestClient) -> None:
    sign_up(client, "Ana")
    client.put("/api/account/language", json={"language": "de"})
    refused = client.get("/api/games/nothing")
    assert refused.json()["error"]["message"] == "es gibt kein Spiel 'nothing'"
    back = client.put("/api/account/language", json={"language": None})
    assert back.status_code == 200
    assert spoken(client) == "en"


def test_config_lists_the_shipped_languages_by_their_own_names(client: TestClient) -> None:
    assert client.get("/api/config").json()["languages"] == dict(LANGUAGES)


# ---------------------------------------------------------------------- the client's words


def test_i18n_gives_the_chosen_languages_catalog_with_plurals_by_cldr_category(
    client: TestClient,
) -> None:
    french = client.get("/api/i18n", headers={"accept-language": "fr"})
    assert french.json() == {
        "lang": "fr",
        "languages": dict(LANGUAGES),
        "messages": {
            "Lobby": "Salon",
            "{n} hut": {"one": "{n} hutte", "many": "{n} de huttes", "other": "{n} huttes"},
        },
    }
    assert french.headers["vary"] == "Cookie, Accept-Language"
    assert french.headers["cache-control"] == "no-cache"
    german = client.get("/api/i18n", params={"lang": "de"}).json()
    assert german["messages"]["{n} hut"] == {"one": "{n} Hütte", "other": "{n} Hütten"}
    assert client.get("/api/i18n").json()["messages"] == {}  # English is the source


# ---------------------------------------------------------------------- HTTP answers


def test_an_api_error_made_with_a_text_arrives_in_german_and_in_english(
    client: TestClient,
) -> None:
    german = client.get("/api/games/nothing", headers={"accept-language": "de"})
    english = client.get("/api/games/nothing")
    assert german.status_code == english.status_code == 404
    assert german.json()["error"] == {
        "code": "not-found",
        "message": "es gibt kein Spiel 'nothing'",
    }
    assert english.json()["error"] == {"code": "not-found", "message": "there is no game 'nothing'"}


def test_words_a_route_returns_are_said_in_the_requests_language(client: TestClient) -> None:
    sign_up(client, "Ana")

    def about(answer: Any) -> str:
        switches = answer.json()["switches"]
        words: str = next(s["about"] for s in switches if s["kind"] == "move")
        return words

    assert about(client.get("/api/account")) == "your move in a turn-based game"
    german = client.get("/api/account", headers={"accept-language": "de"})
    assert about(german) == "dein Zug in einer Partie mit Zugzeit"


def test_a_refused_body_is_described_in_the_requests_language(client: TestClient) -> None:
    body = {"seats": [{"kind": "human"}, {"kind": "ai"}], "tiles_per_player": "12"}
    english = client.post("/api/games", json={"tiles_per_player": 12})
    german = client.post("/api/games", json={"tiles_per_player": 12}, params={"lang": "de"})
    assert english.json()["error"]["message"] == "seats: Field required"
    assert german.json()["error"]["message"] == "seats: Pflichtfeld fehlt"
    untranslated = client.post("/api/games", json=body, params={"lang": "de"})
    assert untranslated.status_code == 422  # words this test's catalog lacks stay English
    assert "tiles_per_player: Input should be a valid integer" in untranslated.text


def test_a_refused_move_over_http_is_said_in_the_requests_language(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    refusal = engine_refusal()
    german, english = (
        client.post(
            f"/api/games/{game_id}/moves",
            json={"state": 0, "move": REFUSED},
            headers={"authorization": f"Bearer {tokens[0]}", **lang},
        )
        for lang in ({"accept-language": "de"}, {})
    )
    assert german.status_code == english.status_code == 422
    assert english.json()["error"]["message"] == str(refusal)
    assert german.json()["error"]["message"] == say(refusal, "de") != str(refusal)
    assert "Nicht erlaubt" in german.json()["error"]["message"]


# ---------------------------------------------------------------------- WebSockets


def test_a_german_and_an_english_socket_each_hear_the_same_refused_move_in_their_language(
    client: TestClient,
) -> None:
    game_id, tokens = two_humans(client)
    refusal = engine_refusal()
    move = {"type": "move", "state": 0, "move": REFUSED, "ref": 1}
    with (
        client.websocket_connect(
            f"/ws/games/{game_id}", headers={"accept-language": "de"}
        ) as german,
        client.websocket_connect(f"/ws/games/{game_id}") as english,
    ):
        hello(german, [tokens[0]])
        hello(english, [tokens[0]])
        german.send_json(move)
        english.send_json(move)
        heard_in_german, heard_in_english = german.receive_json(), english.receive_json()
    assert heard_in_german["code"] == heard_in_english["code"] == "illegal"
    assert heard_in_english["message"] == str(refusal)
    assert heard_in_german["message"] == say(refusal, "de") != str(refusal)


def test_a_broadcast_with_words_is_written_once_per_language_and_each_socket_hears_its_own(
    client: TestClient,
) -> None:
    game_id, _tokens = two_humans(client)
    words = Tn("{n} second", "{n} seconds", 3, n=3)
    room = client.app.state.service.registry.get(game_id)
    sent: list[Any] = []

    def broadcast() -> None:
        room.broadcast({"type": "chat", "text": words})
        sent.append(room)

    with (
        client.websocket_connect(f"/ws/games/{game_id}?lang=de") as german,
        client.websocket_connect(f"/ws/games/{game_id}?lang=de") as other_german,
        client.websocket_connect(f"/ws/games/{game_id}") as english,
    ):
        for socket in (german, other_german, english):
            hello(socket, [])
        assert client.portal is not None
        client.portal.call(broadcast)
        said = [socket.receive_json()["text"] for socket in (german, other_german, english)]
    assert said == ["3 Sekunden", "3 Sekunden", "3 seconds"]


def test_a_close_reason_in_any_language_fits_its_frame_without_a_broken_character() -> None:
    assert close_reason("ä" * 100, "de") == "ä" * 60  # 120 bytes of UTF-8, not 120 letters
    assert close_reason("x" * 200, "en") == "x" * 120


def test_one_message_is_written_once_for_every_socket_of_a_language() -> None:
    message = {"type": "state", "headline": T("there is no game {game}", game="'x'"), "n": 1}
    text = to_json(message)
    assert text == '{"type":"state","headline":"there is no game \'x\'","n":1}'
    assert in_language(text, "en") is text
    first = in_language(text, "de")
    assert in_language(text, "de") is first  # kept, not written again
    assert list(text.said) == ["de"]
    plain = to_json({"type": "pong"})
    assert in_language(plain, "de") is plain  # no words: the English text serves all


@pytest.mark.usefixtures("catalogs")
def test_words_relayed_to_another_server_process_are_said_there_in_each_sockets_language() -> None:
    """What one process broadcasts crosses Redis as an envelope of JSON text: the words'
    meaning goes with it (``Cluster.relay``), and the process that takes it (``Cluster.
    _handle_one``) says them to each of its sockets in that socket's language."""
    published: list[str] = []
    bus = SimpleNamespace(
        origin="first",
        publish=lambda game_id, ply, sync, text: published.append(
            envelope("first", game_id, ply, sync, text)
        ),
    )
    message = {"type": "chat", "text": T("there is no game {game}", game="'x'")}
    Cluster.relay(SimpleNamespace(bus=bus), "g1", 0, {}, to_json(message))  # type: ignore[arg-type]
    _origin, game_id, _ply, sync, text = open_envelope(published[0])
    assert text == '{"type":"chat","text":"there is no game \'x\'"}'  # English on the wire
    limits = Limits()
    german, french, english = (Connection(None, limits, lang) for lang in ("de", "fr", "en"))  # type: ignore[arg-type]
    room = SimpleNamespace(subscribers=[german, french, english], hear=None)
    other = SimpleNamespace(rooms=SimpleNamespace(get=lambda _id: room), _hear=lambda *_: None)

    async def take() -> None:
        await Cluster._handle_one(other, game_id, sync, text)  # type: ignore[arg-type]

    asyncio.run(take())
    heard = [connection.queue.get_nowait() for connection in (german, french, english)]
    assert heard == [
        '{"type":"chat","text":"es gibt kein Spiel \'x\'"}',
        '{"type":"chat","text":"il n\'y a pas de partie \'x\'"}',
        text,
    ]
