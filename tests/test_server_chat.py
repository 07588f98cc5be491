"""The chat of a game: seated players write, everyone watching reads, stored and limited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import test_server_storage
from fastapi.testclient import TestClient
from sqlalchemy import inspect
from test_server_support import client_for, create_game, hello, sqlite_url, two_humans

from taluva.server.errors import ApiError
from taluva.server.games.chat import HISTORY, clean_text
from taluva.server.players.standings import settle
from taluva.server.storage.store import Store

database = test_server_storage.database
postgres_server = test_server_storage.postgres_server
"""Every database test runs on SQLite and, when installed, PostgreSQL."""


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with client_for(sqlite_url(tmp_path)) as client:
        yield client


def say(ws: Any, text: str, **extra: Any) -> dict[str, Any]:
    """Send a chat message and return the first answer."""
    ws.send_json({"type": "chat", "text": text, **extra})
    reply: dict[str, Any] = ws.receive_json()
    return reply


def one_seat_each(client: TestClient) -> tuple[str, dict[int, str]]:
    """A live game of two people, each seat's token apart (a client takes only seat 0)."""
    game_id, tokens = create_game(
        client, [{"kind": "human", "name": "Ana", "take": True}, {"kind": "human"}]
    )
    joined = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Ben"}).json()
    return game_id, {0: tokens[0], 1: joined["token"]}


def test_the_migration_creates_the_chat_and_rematch_tables(database: str) -> None:
    store = Store(database, game_end=settle)
    store.migrate()
    columns = {
        table: [column["name"] for column in inspect(store.engine).get_columns(table)]
        for table in ("chat_messages", "rematches")
    }
    store.close()
    assert columns == {
        "chat_messages": ["id", "game_id", "seat", "name", "text", "created_at"],
        "rematches": ["game_id", "rematch_id", "offered_by", "created_at"],
    }


def test_a_message_is_broadcast_to_players_and_spectators_and_kept_for_later_readers(
    database: str,
) -> None:
    with client_for(database) as client:
        game_id, tokens = one_seat_each(client)
        url = f"/ws/games/{game_id}"
        with (
            client.websocket_connect(url) as ana,
            client.websocket_connect(url) as ben,
            client.websocket_connect(url) as spectator,
        ):
            assert hello(ana, [tokens[0]])["chat"] == []
            hello(ben, [tokens[1]])
            hello(spectator, [])
            sent = say(ana, "good luck <b>Ben</b> 🌋")
            assert sent["type"] == "chat"
            assert {k: sent[k] for k in ("seat", "name", "text")} == {
                "seat": 0,
                "name": "Ana",
                "text": "good luck <b>Ben</b> 🌋",
            }
            assert ben.receive_json() == sent
            assert spectator.receive_json() == sent
            reply = say(ben, "thanks", ref="r1")
            assert (reply["type"], reply["seat"], reply["name"]) == ("chat", 1, "Ben")
            assert ben.receive_json() == {"type": "accepted", "ref": "r1", "chat": reply["id"]}
            assert reply["id"] > sent["id"]
    with client_for(database) as client, client.websocket_connect(f"/ws/games/{game_id}") as ws:
        history = hello(ws, [])["chat"]
        assert [(m["seat"], m["text"]) for m in history] == [
            (0, "good luck <b>Ben</b> 🌋"),
            (1, "thanks"),
        ]
        assert history[0] == {k: v for k, v in sent.items() if k != "type"}
        over_http = client.get(f"/api/games/{game_id}/chat").json()
        assert over_http == {"messages": history}


def test_a_reader_receives_only_the_last_messages(tmp_path: Path) -> None:
    with client_for(sqlite_url(tmp_path), chat_burst=HISTORY + 10) as client:
        game_id, tokens = two_humans(client)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, [tokens[0]])
            for number in range(HISTORY + 5):
                assert say(ws, f"message {number}")["type"] == "chat"
            texts = [m["text"] for m in hello(ws, [tokens[0]])["chat"]]
        assert texts == [f"message {n}" for n in range(5, HISTORY + 5)]
        last = client.get(f"/api/games/{game_id}/chat?limit=2").json()["messages"]
        assert [m["text"] for m in last] == [f"message {HISTORY + 3}", f"message {HISTORY + 4}"]


def test_spectators_read_the_chat_but_may_not_write_in_it(client: TestClient) -> None:
    game_id, _tokens = one_seat_each(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, ["not-a-token"])
        assert say(ws, "hello", ref=3) == {
            "type": "error",
            "code": "forbidden",
            "message": "only seated players may chat; spectators read the chat",
            "ref": 3,
        }
    assert client.get(f"/api/games/{game_id}/chat").json() == {"messages": []}


def test_a_client_says_hello_before_it_chats(client: TestClient) -> None:
    game_id, _tokens = two_humans(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        assert say(ws, "hello") == {
            "type": "error",
            "code": "bad-request",
            "message": "send 'hello' first",
        }


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("   ", "text is empty: write something"),
        ("x" * 501, "text is longer than 500 characters"),
        ("evil \u202eelif.exe", "text contains an invisible or control character (U+202E)"),
        ("bell \x07", "text contains an invisible or control character (U+0007)"),
        ("x" + "\u0301" * 5, "text stacks more than 4 marks on one character"),
    ],
)
def test_empty_overlong_or_hiding_text_is_refused_and_nothing_is_stored(
    client: TestClient, text: str, problem: str
) -> None:
    game_id, tokens = two_humans(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, [tokens[0]])
        assert say(ws, text, ref="t") == {
            "type": "error",
            "code": "bad-request",
            "message": problem,
            "ref": "t",
        }
    assert client.get(f"/api/games/{game_id}/chat").json() == {"messages": []}


def test_text_is_normalized_and_counted_as_people_see_it() -> None:
    assert clean_text("  two\n\tlines  ", 500) == "two lines"
    assert clean_text("Zoe\u0308", 500) == "Zo\u00eb"
    assert clean_text("👩🏽‍💻" * 3, 3) == "👩🏽‍💻" * 3
    with pytest.raises(ApiError, match="longer than 3 characters"):
        clean_text("abcd", 3)
    with pytest.raises(ApiError, match="must be text"):
        clean_text(7, 3)


def test_each_seat_may_send_a_burst_then_is_rate_limited_whatever_its_connection(
    tmp_path: Path,
) -> None:
    with client_for(sqlite_url(tmp_path), chat_burst=3, chat_rate=0.01) as client:
        game_id, tokens = one_seat_each(client)
        url = f"/ws/games/{game_id}"
        with client.websocket_connect(url) as ana:
            hello(ana, [tokens[0]])
            assert [say(ana, f"a{n}")["type"] for n in range(3)] == ["chat"] * 3
            refused = say(ana, "a3")
            assert (refused["type"], refused["code"]) == ("error", "rate-limited")
            assert refused["message"] == (
                "a seat may send 3 chat messages at once, then one every 100 seconds: wait a moment"
            )
        with client.websocket_connect(url) as again:
            hello(again, [tokens[0]])
            assert say(again, "a4")["code"] == "rate-limited"
        with client.websocket_connect(url) as ben:
            hello(ben, [tokens[1]])
            assert say(ben, "b0")["type"] == "chat"
        texts = [m["text"] for m in client.get(f"/api/games/{game_id}/chat").json()["messages"]]
        assert texts == ["a0", "a1", "a2", "b0"]


def test_a_hot_seat_client_writes_as_the_seat_it_names_or_the_seat_to_move(
    client: TestClient,
) -> None:
    game_id, tokens = two_humans(client)
    other_id, other = two_humans(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, [tokens[0], tokens[1]])
        assert say(ws, "as the seat to move")["seat"] == 0
        assert say(ws, "as Ben", seat=1)["name"] == "Ben"
        assert say(ws, "no", seat=2, ref=1) == {
            "type": "error",
            "code": "forbidden",
            "message": "seat 2 is not one of yours",
            "ref": 1,
        }
        hello(ws, [other[1]])
        assert say(ws, "no", seat=0)["code"] == "forbidden"
    assert client.get(f"/api/games/{other_id}/chat").json() == {"messages": []}


def test_the_chat_limits_are_in_the_configuration(client: TestClient) -> None:
    limits = client.get("/api/config").json()["limits"]
    assert (limits["chat_chars"], limits["chat_rate"], limits["chat_burst"]) == (500, 0.5, 5)


def test_the_chat_of_a_game_that_does_not_exist_is_not_found(client: TestClient) -> None:
    response = client.get("/api/games/nothing/chat")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not-found"
