"""The win-chance bar's WebSocket message (``taluva.server.games.chances``): the answer is
the review's chances of the current position, and rated games, games without hints,
positions that are not live or not current and malformed messages are refused with the
documented errors."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher, profiles
from fastapi.testclient import TestClient
from test_server_abuse import assert_socket_error
from test_server_support import create_game, hello, play_http, sqlite_url, state_of, two_humans

from taluva.ai.review import position_chances
from taluva.engine.game import Game
from taluva.server import Settings, create_app
from taluva.server.ai import workers
from taluva.server.ai.scheduling import Audience
from taluva.server.errors import ApiError
from taluva.server.players import accounts

ITERATIONS = 20


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    cheapest = PasswordHasher.from_parameters(profiles.CHEAPEST)
    monkeypatch.setattr(accounts, "default_hasher", lambda: cheapest)
    settings = Settings(
        database=sqlite_url(tmp_path), ai_workers=0, hint_level=1, win_chance_iterations=ITERATIONS
    )
    with TestClient(create_app(settings)) as client:
        yield client


def play_some(client: TestClient, game_id: str, tokens: dict[int, str], moves: int) -> int:
    """Play ``moves`` random legal moves, each by the seat to move; return the ply reached."""
    rng = random.Random(7)
    state = state_of(client, game_id)
    for _ in range(moves):
        move = rng.choice(state["legal"])
        response = play_http(client, game_id, tokens[state["to_move"]], state["ply"], move)
        assert response.status_code == 200, response.text
        state = response.json()["state"]
    return int(state["ply"])


def ask(ws: Any, state: Any, ref: Any = "c") -> dict[str, Any]:
    ws.send_json({"type": "chances", "state": state, "ref": ref})
    reply: dict[str, Any] = ws.receive_json()
    return reply


def full_record(client: TestClient, game_id: str) -> dict[str, Any]:
    """The server's own record of a game, hidden deck included (what its workers get)."""
    record: dict[str, Any] = client.app.state.service.rooms[game_id].record()  # type: ignore[attr-defined]
    return record


def test_the_chances_of_the_current_position_are_the_reviews_for_every_watcher(
    client: TestClient,
) -> None:
    game_id, tokens = two_humans(client)
    ply = play_some(client, game_id, tokens, 5)
    expected = position_chances(Game.from_record(full_record(client, game_id)), ITERATIONS)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        welcome = hello(ws, [tokens[0]])
        assert welcome["state"]["rated"] is False
        reply = ask(ws, ply, ref="bar-1")
    assert reply == {
        "type": "chances",
        "ply": ply,
        "chances": [round(c, 4) for c in expected],
        "ref": "bar-1",
    }
    assert sum(reply["chances"]) == pytest.approx(1.0, abs=0.01)
    with client.websocket_connect(f"/ws/games/{game_id}") as spectator:
        hello(spectator, [])
        assert ask(spectator, ply) == reply | {"ref": "c"}


def test_one_search_answers_every_watcher_of_a_position(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    searched: list[int] = []
    real = workers.position_chances_of

    def counted(record: dict[str, Any], iterations: int) -> list[float]:
        searched.append(len(record["moves"]))
        return real(record, iterations)

    monkeypatch.setattr(workers, "position_chances_of", counted)
    game_id, tokens = two_humans(client)
    ply = play_some(client, game_id, tokens, 2)
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as first,
        client.websocket_connect(f"/ws/games/{game_id}") as second,
    ):
        hello(first, [tokens[0]])
        hello(second, [])
        answers = [ask(first, ply), ask(second, ply), ask(first, ply)]
    assert {tuple(answer["chances"]) for answer in answers} == {tuple(answers[0]["chances"])}
    assert searched == [ply]


def test_chances_are_refused_in_a_rated_game(client: TestClient) -> None:
    response = client.post("/api/accounts", json={"name": "Ana", "password": "a long secret 1"})
    assert response.status_code == 201, response.text
    game_id, tokens = create_game(
        client,
        [{"kind": "human", "name": "Ana", "take": True}, {"kind": "ai", "level": 1}],
        clock={"kind": "turn", "per_turn": 86400},
    )
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        welcome = hello(ws, [tokens[0]])
        assert welcome["state"]["rated"] is True
        assert_socket_error(ask(ws, welcome["state"]["ply"]), "rated", "c")


def test_chances_are_refused_in_a_game_without_hints(client: TestClient) -> None:
    seats = [{"kind": "human", "take": True}, {"kind": "human", "take": True}]
    game_id, tokens = create_game(client, seats, hints=False)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, [tokens[0]])
        assert_socket_error(ask(ws, 0), "hints-off", "c")


def test_chances_are_only_for_the_current_position_of_a_live_game(client: TestClient) -> None:
    waiting, taken = create_game(client, [{"kind": "human", "take": True}, {"kind": "human"}])
    with client.websocket_connect(f"/ws/games/{waiting}") as ws:
        hello(ws, [taken[0]])
        assert_socket_error(ask(ws, 0), "waiting", "c")
    game_id, tokens = two_humans(client)
    ply = play_some(client, game_id, tokens, 3)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, [tokens[0], tokens[1]])
        assert_socket_error(ask(ws, ply - 1), "stale", "c")
        assert_socket_error(ask(ws, ply + 1), "stale", "c")
        ws.send_json({"type": "resign", "seat": 1, "ref": "r"})
        while (message := ws.receive_json())["type"] != "accepted":
            assert message["type"] == "out", message
        assert_socket_error(ask(ws, ply), "over", "c")


def test_a_malformed_request_is_refused_and_one_is_computed_at_a_time(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        assert_socket_error(ask(ws, 0), "bad-request", "c")  # before hello
        hello(ws, [tokens[0]])
        for state in ("0", 0.5, None, True):
            assert_socket_error(ask(ws, state), "bad-request", "c")
        ws.send_json({"type": "chances", "ref": "c"})
        assert_socket_error(ws.receive_json(), "bad-request", "c")
        ws.send_json({"type": "chances", "state": 0, "ref": 1})
        ws.send_json({"type": "chances", "state": 0, "ref": 2})
        replies = {message["ref"]: message for message in (ws.receive_json(), ws.receive_json())}
    assert replies[1]["type"] == "chances" and replies[1]["ply"] == 0
    assert_socket_error(replies[2], "rate-limited", 2)


def test_a_position_played_past_before_its_turn_comes_is_not_searched(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    searched: list[int] = []
    monkeypatch.setattr(
        workers, "position_chances_of", lambda record, _iterations: searched.append(1) or [0.5]
    )
    game_id, _tokens = two_humans(client)
    service = client.app.state.service  # type: ignore[attr-defined]
    room = service.rooms[game_id]

    async def ask_then_move() -> str:
        release = asyncio.Event()

        async def busy() -> None:  # the game's AI queue is busy with another job
            await release.wait()

        blocker = asyncio.ensure_future(service.ai.scheduler.run(game_id, Audience.PEOPLE, busy))
        asked = asyncio.ensure_future(service.chances.answer(room, 0))
        await asyncio.sleep(0.05)
        await service.submit(room, {0}, 0, str(room.game.legal_moves()[0]))
        release.set()
        await blocker
        with pytest.raises(ApiError) as refused:
            await asked
        return str(refused.value.code)

    assert client.portal.call(ask_then_move) == "stale"  # type: ignore[union-attr]
    assert searched == []
