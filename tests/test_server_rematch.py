"""Rematches: one click after a game offers the same seats and options with a new deck; each
other player takes their old seat with one more, and nobody else may."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import test_server_storage
from fastapi.testclient import TestClient
from test_server_support import create_game, hello, play_http, sqlite_url, state_of

from taluva.engine.game import Game
from taluva.server import Limits, Settings, create_app
from taluva.server.ai.workers import fallback_move
from taluva.server.games.service import GameService

database = test_server_storage.database
postgres_server = test_server_storage.postgres_server
"""Every database test runs on SQLite and, when installed, PostgreSQL."""


class QuickAi:
    """AI seats that play a random legal move at once: these tests are about the seats,
    not the AI's play (tested in test_ai*.py), and must finish games in moments."""

    async def choose(self, record: dict[str, Any], spec: str, seed: int, **_where: Any) -> str:
        return fallback_move(Game.from_record(record), seed)

    async def hint(self, record: dict[str, Any], level: int, **_where: Any) -> tuple[str, float]:
        raise ImportError("no hints in these tests")

    def close(self) -> None:
        """Nothing to stop."""


@contextmanager
def client_for(database: str) -> Iterator[TestClient]:
    """An in-process server on ``database`` whose AI seats play at random, at once."""
    settings = Settings(
        database=database, ai_workers=0, limits=Limits(http_rate=1e6, http_burst=10**6)
    )
    service = GameService(settings, ai=QuickAi())  # type: ignore[arg-type]
    with TestClient(create_app(settings, service)) as client:
        yield client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(sqlite_url(tmp_path)) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def finished_game(client: TestClient, seed: int = 1) -> tuple[str, dict[int, str]]:
    """A finished game of Ana (seat 0), an AI of level 2 (seat 1) and Ben (seat 2), each
    person's seat with its own token, with options to carry over; played at random."""
    game_id, tokens = create_game(
        client,
        [
            {"kind": "human", "name": "Ana", "take": True},
            {"kind": "ai", "level": 2},
            {"kind": "human"},
        ],
        name="Friday",
        house_rules=["adjacent_hut"],
        hints=False,
    )
    tokens[2] = client.post(f"/api/games/{game_id}/seats/2", json={"name": "Ben"}).json()["token"]
    play_out(client, game_id, tokens, seed)
    return game_id, tokens


def play_out(client: TestClient, game_id: str, tokens: dict[int, str], seed: int) -> None:
    """Play random legal moves for the people's seats, each with its token, to the end."""
    rng = random.Random(seed)
    state = state_of(client, game_id)
    deadline = time.monotonic() + 60
    while state["result"] is None:
        assert time.monotonic() < deadline, "the game did not end in a minute"
        if state["players"][state["to_move"]]["kind"] == "ai":
            time.sleep(0.002)  # the AI seat plays in the server's own time
            state = state_of(client, game_id)
            continue
        move = rng.choice(state["legal"])
        response = play_http(client, game_id, tokens[state["to_move"]], state["ply"], move)
        assert response.status_code == 200, response.text
        state = response.json()["state"]


def offer(client: TestClient, game_id: str, token: str) -> Any:
    return client.post(f"/api/games/{game_id}/rematch", headers=bearer(token))


@pytest.fixture
def finished(client: TestClient) -> tuple[str, dict[int, str]]:
    return finished_game(client)


def test_a_rematch_has_the_same_seats_and_options_a_new_deck_and_seats_the_offerer(
    client: TestClient, finished: tuple[str, dict[int, str]]
) -> None:
    game_id, tokens = finished
    with client.websocket_connect(f"/ws/games/{game_id}") as spectator:
        assert "rematch" not in hello(spectator, [])
        response = offer(client, game_id, tokens[2])
        assert response.status_code == 201
        body = response.json()
        assert spectator.receive_json() == {"type": "rematch", "game": body["game"]}
    rematch = body["game"]
    assert body["rematch_of"] == game_id
    assert [(t["seat"], len(t["token"]) > 20) for t in body["tokens"]] == [(2, True)]
    assert (rematch["name"], rematch["status"], rematch["hints"]) == ("Friday", "open", False)
    assert rematch["options"] == state_of(client, game_id)["options"]
    assert rematch["options"]["house_rules"] == ["adjacent_hut"]
    assert [(p["name"], p["kind"], p["level"], p["taken"]) for p in rematch["players"]] == [
        ("Ana", "human", None, False),
        ("AI level 2", "ai", 2, True),
        ("Ben", "human", None, True),
    ]
    assert rematch["id"] != game_id
    with client.websocket_connect(f"/ws/games/{rematch['id']}") as ws:
        assert hello(ws, [body["tokens"][0]["token"]])["seats"] == [2]
    ana = offer(client, game_id, tokens[0])
    assert ana.status_code == 200
    assert state_of(client, rematch["id"])["status"] == "live"
    store = client.app.state.service.store  # type: ignore[attr-defined]
    old_deck, new_deck = (store.load_game(g).deck for g in (game_id, rematch["id"]))
    assert new_deck != old_deck and len(new_deck) == len(old_deck)


def test_offering_again_answers_with_the_rematch_already_offered(
    client: TestClient, finished: tuple[str, dict[int, str]]
) -> None:
    game_id, tokens = finished
    first = offer(client, game_id, tokens[0]).json()
    again = offer(client, game_id, tokens[0])
    assert again.status_code == 200
    assert again.json() == {
        "game": {**first["game"], "updated_at": again.json()["game"]["updated_at"]},
        "tokens": [],
        "rematch_of": game_id,
    }
    listed = client.get("/api/games?status=open").json()["games"]
    assert [g["id"] for g in listed] == [first["game"]["id"]]


def test_the_other_player_takes_the_old_seat_with_one_click_and_the_game_starts(
    client: TestClient, finished: tuple[str, dict[int, str]]
) -> None:
    game_id, tokens = finished
    rematch_id = offer(client, game_id, tokens[0]).json()["game"]["id"]
    with client.websocket_connect(f"/ws/games/{game_id}") as watcher:
        welcome = hello(watcher, [tokens[2]])
        assert welcome["rematch"]["id"] == rematch_id
        taken = offer(client, game_id, tokens[2])
        assert taken.status_code == 200
        body = taken.json()
        assert [t["seat"] for t in body["tokens"]] == [2]
        assert body["game"]["status"] == "live"
        assert watcher.receive_json() == {"type": "rematch", "game": body["game"]}
    with client.websocket_connect(f"/ws/games/{rematch_id}") as ws:
        assert hello(ws, [body["tokens"][0]["token"]])["seats"] == [2]
    assert [p["name"] for p in state_of(client, rematch_id)["players"]] == [
        "Ana",
        "AI level 2",
        "Ben",
    ]


def test_a_kept_seat_goes_to_nobody_else_even_after_a_restart(database: str) -> None:
    with client_for(database) as client:
        game_id, tokens = finished_game(client, seed=2)
        rematch_id = offer(client, game_id, tokens[0]).json()["game"]["id"]
        stranger = client.post(f"/api/games/{rematch_id}/seats/2", json={"name": "Cy"})
        assert stranger.status_code == 409
        assert stranger.json()["error"] == {
            "code": "seat-reserved",
            "message": f"seat 2 of this rematch is kept for Ben, who played it in game "
            f"{game_id}: they take it from that game's page",
        }
    with client_for(database) as client:
        again = client.post(f"/api/games/{rematch_id}/seats/2", json={"name": "Cy"})
        assert again.json()["error"]["code"] == "seat-reserved"
        assert client.get(f"/api/games/{game_id}/rematch").json()["game"]["id"] == rematch_id
        ben = offer(client, game_id, tokens[2])
        assert ben.status_code == 200 and ben.json()["game"]["id"] == rematch_id
        assert [p["taken"] for p in state_of(client, rematch_id)["players"]] == [True] * 3


def test_a_game_not_yet_over_has_no_rematch(client: TestClient) -> None:
    game_id, tokens = create_game(
        client, [{"kind": "human", "take": True}, {"kind": "human", "take": True}]
    )
    response = offer(client, game_id, tokens[0])
    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "not-finished",
        "message": "a rematch can be offered once the game is over",
    }
    missing = client.get(f"/api/games/{game_id}/rematch")
    assert missing.status_code == 404
    assert missing.json()["error"] == {
        "code": "not-found",
        "message": f"no rematch of game {game_id} was offered",
    }


def test_only_a_player_of_the_game_may_offer_a_rematch(
    client: TestClient, finished: tuple[str, dict[int, str]]
) -> None:
    game_id, _tokens = finished
    _other, other_tokens = create_game(
        client, [{"kind": "human", "take": True}, {"kind": "ai", "level": 1}]
    )
    assert client.post(f"/api/games/{game_id}/rematch").json()["error"]["code"] == "no-token"
    response = offer(client, game_id, other_tokens[0])
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"
    assert client.get(f"/api/games/{game_id}/rematch").status_code == 404


def test_a_rematch_against_the_ai_alone_starts_at_once(client: TestClient) -> None:
    game_id, tokens = create_game(
        client, [{"kind": "ai", "level": 1}, {"kind": "human", "name": "Ana", "take": True}]
    )
    rng = random.Random(5)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        state = hello(ws, [tokens[1]])["state"]
        while state["result"] is None:
            if state["to_move"] == 1:
                move = rng.choice(state["legal"])
                ws.send_json({"type": "move", "state": state["ply"], "move": move})
            state = ws.receive_json()["state"]
        body = offer(client, game_id, tokens[1]).json()
        assert ws.receive_json()["type"] == "rematch"
    assert body["game"]["status"] == "live"
    assert [(p["kind"], p["level"]) for p in body["game"]["players"]] == [
        ("ai", 1),
        ("human", None),
    ]


def test_a_rematch_seat_belongs_to_the_account_that_held_the_old_one_which_may_take_it(
    client: TestClient,
) -> None:
    accounts = {}
    for name in ("Ana", "Ben"):
        client.cookies.clear()
        answer = client.post("/api/accounts", json={"name": name, "password": "volcano-42"})
        assert answer.status_code == 201, answer.text
        accounts[name] = answer.json()["account"]["id"]
        if name == "Ana":
            game_id, tokens = create_game(
                client, [{"kind": "human", "take": True}, {"kind": "human"}, {"kind": "human"}]
            )
        else:
            joined = client.post(f"/api/games/{game_id}/seats/2", json={}).json()
            tokens[2] = joined["token"]
    client.cookies.clear()
    tokens[1] = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Cy"}).json()["token"]
    play_out(client, game_id, tokens, seed=4)
    no_proof = client.post(f"/api/games/{game_id}/rematch")
    assert (no_proof.status_code, no_proof.json()["error"]["code"]) == (401, "no-token")
    rematch_id = offer(client, game_id, tokens[2]).json()["game"]["id"]
    assert offer(client, game_id, tokens[1]).status_code == 200
    signed_in = client.post("/api/session", json={"name": "ana", "password": "volcano-42"})
    assert signed_in.status_code == 200, signed_in.text
    by_account = client.post(f"/api/games/{game_id}/rematch")
    assert by_account.status_code == 200
    assert [t["seat"] for t in by_account.json()["tokens"]] == [0]
    players = state_of(client, rematch_id)["players"]
    assert [(p["name"], p["account_id"]) for p in players] == [
        ("Ana", accounts["Ana"]),
        ("Cy", None),
        ("Ben", accounts["Ben"]),
    ]


def test_a_rematch_has_the_clock_of_the_finished_game_with_full_time(client: TestClient) -> None:
    clock = {"kind": "fischer", "base": 90, "increment": 2.5}
    game_id, tokens = create_game(
        client,
        [{"kind": "human", "name": "Ana", "take": True}, {"kind": "ai", "level": 1}],
        clock=clock,
    )
    resigned = client.post(f"/api/games/{game_id}/resign", headers=bearer(tokens[0]))
    assert resigned.status_code == 200, resigned.text
    rematch_id = offer(client, game_id, tokens[0]).json()["game"]["id"]
    rule = state_of(client, rematch_id)["clock"]
    assert (rule["kind"], rule["base_ms"], rule["increment_ms"]) == ("fischer", 90_000, 2_500)
    assert rule["remaining_ms"][0] <= 90_000
    days = {"kind": "turn", "per_turn": 86400}
    other_id, other = create_game(
        client, [{"kind": "human", "take": True}, {"kind": "human", "take": True}], clock=days
    )
    assert client.post(f"/api/games/{other_id}/resign", headers=bearer(other[1])).status_code == 200
    again = offer(client, other_id, other[0]).json()["game"]["id"]
    turn = state_of(client, again)["clock"]
    assert (turn["kind"], turn["base_ms"]) == ("turn", 86_400_000)
