"""Resigning, cancelling and abandoning games on the server (taluva.server.games.lifecycle), on
SQLite and, when it is installed, PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import test_server_storage
from fastapi.testclient import TestClient
from sqlalchemy import text, update
from test_server_support import create_game, hello, play_http, redis_server, state_of

from taluva.server import Settings, create_app
from taluva.server.games import lifecycle
from taluva.server.games.presence import Presence
from taluva.server.players.standings import settle
from taluva.server.storage.models import GameRow
from taluva.server.storage.store import Store

database = test_server_storage.database
postgres_server = test_server_storage.postgres_server
"""Every database test runs on SQLite and, when installed, PostgreSQL."""

AUTH = "authorization"


@contextmanager
def serve(url: str, **settings: Any) -> Iterator[TestClient]:
    """An in-process server on ``url`` with these settings, started and stopped."""
    app = create_app(Settings(database=url, ai_workers=0, hint_level=1, **settings))
    with TestClient(app) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {AUTH: f"Bearer {token}"}


def humans(client: TestClient, *names: str, take: bool = True) -> tuple[str, dict[int, str]]:
    seats = [{"kind": "human", "name": name, "take": take} for name in names]
    return create_game(client, seats)


@contextmanager
def player_and_watcher(client: TestClient, game_id: str, token: str) -> Iterator[tuple[Any, Any]]:
    """Two sockets on a game, both greeted: the player of ``token``'s seat, and a spectator."""
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as player,
        client.websocket_connect(f"/ws/games/{game_id}") as watcher,
    ):
        hello(player, [token])
        hello(watcher, [])
        yield player, watcher


def resign(client: TestClient, game_id: str, token: str, **body: Any) -> Any:
    return client.post(f"/api/games/{game_id}/resign", json=body or None, headers=bearer(token))


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """The calls of the game-end hook made by the lifecycle, in order."""
    calls: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(lifecycle, "settle", lambda _c, game, result: calls.append((game, result)))
    return calls


# ---------------------------------------------------------------------- resigning


def test_resigning_a_two_player_game_ends_it_for_the_other_and_is_stored(
    database: str,
    settled: list[tuple[str, dict[str, Any]]],
) -> None:
    with serve(database) as client:
        game_id, tokens = humans(client, "Ana", "Ben")
        assert play_http(client, game_id, tokens[0], 0, "tile 0,0 0").status_code == 200
        answer = resign(client, game_id, tokens[1])
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert (body["seat"], body["reason"]) == (1, "resigned")
        assert body["state"]["status"] == "finished"
        assert body["state"]["result"]["headline"] == "Ana wins: Ben resigned"
        assert body["state"]["players"][1]["left"] == "resigned"
    assert settled == [(game_id, {"ranking": [[0], [1]], "reason": "resigned"})]
    with serve(database) as client:
        state = state_of(client, game_id)
        record = client.get(f"/api/games/{game_id}/record").json()
    assert (state["status"], state["result"]["reason"], state["legal"]) == (
        "finished",
        "resigned",
        [],
    )
    assert record["resignations"] == [{"ply": 1, "player": 1, "reason": "resigned"}]
    assert record["result"] == {"ranking": [[0], [1]], "reason": "resigned"}


def test_in_a_three_player_game_a_player_resigns_out_of_turn_and_the_game_goes_on(
    database: str,
    settled: list[tuple[str, dict[str, Any]]],
) -> None:
    with serve(database) as client:
        game_id, tokens = humans(client, "Ana", "Ben", "Cyd")
        assert play_http(client, game_id, tokens[0], 0, "tile 0,0 0").status_code == 200
        body = resign(client, game_id, tokens[2]).json()
        state = body["state"]
        assert (state["status"], state["to_move"], state["phase"]) == ("live", 0, "build")
        assert [p["eliminated"] for p in state["players"]] == [False, False, True]
        assert state["resignations"] == [{"ply": 1, "player": 2, "reason": "resigned"}]
        move = state["legal"][0]
        assert play_http(client, game_id, tokens[0], 1, move).status_code == 200
        assert state_of(client, game_id)["to_move"] == 1
    assert settled == []
    with serve(database) as client:  # after a restart the game is where it was
        again = state_of(client, game_id)
        assert (again["ply"], again["to_move"], again["resignations"]) == (
            2,
            1,
            [{"ply": 1, "player": 2, "reason": "resigned"}],
        )
        answer = resign(client, game_id, tokens[1])
        assert answer.json()["state"]["result"]["headline"] == "Ana wins: Ben resigned"
    assert settled == [(game_id, {"ranking": [[0], [1], [2]], "reason": "resigned"})]


def test_resigning_over_the_websocket_tells_everyone(tmp_path: Any) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        game_id, tokens = humans(client, "Ana", "Ben")
        with player_and_watcher(client, game_id, tokens[0]) as (ana, watcher):
            ana.send_json({"type": "resign", "ref": 7})
            out = ana.receive_json()
            assert (out["type"], out["seat"], out["reason"]) == ("out", 0, "resigned")
            assert ana.receive_json() == {"type": "accepted", "ref": 7, "seat": 0}
            seen = watcher.receive_json()
            assert seen["type"] == "out" and seen["state"]["result"]["reason"] == "resigned"
            ana.send_json({"type": "resign", "ref": 8})
            assert ana.receive_json() == {
                "type": "error",
                "code": "over",
                "message": "the game is over",
                "ref": 8,
            }


@pytest.mark.parametrize(
    ("case", "status", "code"),
    [
        ("no token", 401, "no-token"),
        ("a stranger's token", 403, "forbidden"),
        ("a seat not held", 403, "forbidden"),
        ("already out", 409, "out"),
        ("open game", 409, "waiting"),
    ],
)
def test_a_refused_resignation_changes_nothing(
    tmp_path: Any, case: str, status: int, code: str
) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        game_id, tokens = humans(client, "Ana", "Ben", "Cyd")
        headers: dict[str, str] = bearer(tokens[0])
        body: dict[str, Any] | None = None
        if case == "no token":
            headers = {}
        elif case == "a stranger's token":
            headers = bearer("not-a-token")
        elif case == "a seat not held":
            body = {"seat": 1}
        elif case == "already out":
            assert resign(client, game_id, tokens[0]).status_code == 200
        elif case == "open game":
            game_id, tokens = create_game(
                client, [{"kind": "human", "take": True}, {"kind": "human"}]
            )
            headers = bearer(tokens[0])
        before = state_of(client, game_id)
        answer = client.post(f"/api/games/{game_id}/resign", json=body, headers=headers)
        assert answer.status_code == status, answer.text
        assert answer.json()["error"]["code"] == code
        assert state_of(client, game_id) == before


def test_a_finished_game_refuses_a_resignation(tmp_path: Any) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        game_id, tokens = humans(client, "Ana", "Ben")
        assert resign(client, game_id, tokens[0]).status_code == 200
        answer = resign(client, game_id, tokens[1])
        assert (answer.status_code, answer.json()["error"]["code"]) == (409, "over")


# ---------------------------------------------------------------------- claiming the win


def claim(client: TestClient, game_id: str, token: str | None, **body: Any) -> Any:
    headers = {} if token is None else bearer(token)
    return client.post(f"/api/games/{game_id}/claim", json=body or None, headers=headers)


def error_of(answer: Any) -> tuple[int, str]:
    return answer.status_code, answer.json()["error"]["code"]


def test_a_player_who_leaves_on_their_turn_is_claimed_against_only_after_the_claim_time(
    tmp_path: Any,
) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        game_id, tokens = humans(client, "Ben", "Ana")
        with client.websocket_connect(f"/ws/games/{game_id}") as ana:
            welcome = hello(ana, [tokens[1]])
            # Ben, to move, has never connected: the wait runs since the game went live.
            waiting = welcome["state"]["players"][0]["claim_in_ms"]
            assert 0 < waiting <= 60000
            assert welcome["state"]["players"][1]["claim_in_ms"] is None
            with client.websocket_connect(f"/ws/games/{game_id}") as ben:
                hello(ben, [tokens[0]])
                back = ana.receive_json()
                assert back == {
                    "type": "presence",
                    "players": [{"seat": 0, "claim_in_ms": None}, {"seat": 1, "claim_in_ms": None}],
                }
                present = claim(client, game_id, tokens[1])
                assert error_of(present) == (409, "not-gone")
                assert present.json()["error"]["message"] == "Ben is connected"
            gone = ana.receive_json()
            # The wait starts again from the moment Ben left: the whole claim time.
            assert (gone["type"], gone["players"][0]["claim_in_ms"]) == ("presence", 60000)
            early = claim(client, game_id, tokens[1])
            assert error_of(early) == (409, "not-gone")
            assert "a claim is allowed in " in early.json()["error"]["message"]
            assert 59 <= int(early.headers["retry-after"]) <= 60
            state = state_of(client, game_id)
            assert state["players"][0]["claim_in_ms"] <= 60000
            assert (state["status"], state["resignations"]) == ("live", [])


def test_a_player_gone_for_the_claim_time_loses_a_rated_game_by_the_others_claim(
    database: str,
) -> None:
    with serve(database, claim_after=0.2) as client:
        ben = client.post("/api/accounts", json={"name": "Ben", "password": "a long secret 2"})
        game_id, tokens = create_game(
            client,
            [{"kind": "human", "name": "Ben", "take": True}, {"kind": "human"}],
            clock={"kind": "fischer", "base": 600},
        )
        client.delete("/api/session")
        ana = client.post("/api/accounts", json={"name": "Ana", "password": "a long secret 1"})
        joined = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Ana"})
        tokens[1] = joined.json()["token"]
        client.delete("/api/session")  # the sockets below prove their seats by token only
        assert state_of(client, game_id)["rated"] is True
        with client.websocket_connect(f"/ws/games/{game_id}") as ana_ws:
            hello(ana_ws, [tokens[1]])
            with client.websocket_connect(f"/ws/games/{game_id}") as ben_ws:
                hello(ben_ws, [tokens[0]])
                assert ana_ws.receive_json()["players"][0]["claim_in_ms"] is None
            assert ana_ws.receive_json()["players"][0]["claim_in_ms"] == 200
            time.sleep(0.3)
            answer = claim(client, game_id, tokens[1])
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert (body["seat"], body["reason"]) == (0, "left")
            assert body["state"]["status"] == "finished"
            assert body["state"]["result"]["headline"] == "Ana wins: Ben left the game"
            out = ana_ws.receive_json()
            assert (out["type"], out["seat"], out["reason"], out["claimed"]) == (
                "out",
                0,
                "left",
                True,
            )
        ratings = {
            name: client.get(f"/api/players/{answer.json()['account']['id']}").json()["player"]
            for name, answer in (("Ana", ana), ("Ben", ben))
        }
    assert ratings["Ana"]["rating"]["mu"] > ratings["Ben"]["rating"]["mu"]
    assert (ratings["Ana"]["wins"], ratings["Ben"]["wins"]) == (1, 0)
    with serve(database) as client:
        record = client.get(f"/api/games/{game_id}/record").json()
    assert record["resignations"] == [{"ply": 0, "player": 0, "reason": "left"}]
    assert record["result"] == {"ranking": [[1], [0]], "reason": "left"}


def test_in_a_three_player_game_a_claim_removes_the_gone_player_and_play_goes_on(
    tmp_path: Any, settled: list[tuple[str, dict[str, Any]]]
) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}", claim_after=0.05) as client:
        game_id, tokens = humans(client, "Ana", "Ben", "Cyd")
        with (
            client.websocket_connect(f"/ws/games/{game_id}") as ben,
            client.websocket_connect(f"/ws/games/{game_id}") as cyd,
        ):
            hello(ben, [tokens[1]])
            hello(cyd, [tokens[2]])
            time.sleep(0.1)
            ben.send_json({"type": "claim", "ref": "c"})
            out = ben.receive_json()
            assert ben.receive_json() == {"type": "accepted", "ref": "c", "seat": 0}
            assert cyd.receive_json() == out
        state = out["state"]
        assert (out["seat"], out["reason"], out["claimed"]) == (0, "left", True)
        assert (state["status"], state["to_move"], state["phase"]) == ("live", 1, "tile")
        assert [p["eliminated"] for p in state["players"]] == [True, False, False]
        assert state["players"][0]["left"] == "left"
        moved = play_http(client, game_id, tokens[1], state["ply"], state["legal"][0])
        assert moved.status_code == 200, moved.text
    assert settled == []


@pytest.mark.parametrize(
    ("case", "status", "code"),
    [
        ("no token", 401, "no-token"),
        ("a stranger's token", 403, "forbidden"),
        ("the claimer not connected", 403, "forbidden"),
        ("the claimer's own seat", 409, "not-gone"),
        ("a seat not to move", 409, "not-gone"),
        ("an AI seat", 409, "not-gone"),
        ("a turn-based clock", 409, "not-gone"),
        ("the claimer out", 409, "out"),
        ("open game", 409, "waiting"),
        ("finished game", 409, "over"),
    ],
)
def test_a_refused_claim_changes_nothing(tmp_path: Any, case: str, status: int, code: str) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}", claim_after=0.05) as client:
        game_id, tokens = humans(client, "Ana", "Ben", "Cyd")
        body: dict[str, Any] = {}
        claimer = 1  # the seat of the token sent, connected unless the case says otherwise
        if case == "the claimer's own seat":
            body = {"seat": 1}
        elif case == "a seat not to move":
            body = {"seat": 2}
        elif case == "an AI seat":
            game_id, tokens = create_game(
                client, [{"kind": "human", "take": True}, {"kind": "ai", "level": 1}]
            )
            claimer, body = 0, {"seat": 1}
        elif case == "a turn-based clock":
            game_id, tokens = create_game(
                client,
                [{"kind": "human", "take": True}, {"kind": "human", "take": True}],
                clock={"kind": "turn", "per_turn": 600},
            )
        elif case == "the claimer out":
            assert resign(client, game_id, tokens[1]).status_code == 200
        elif case == "open game":
            game_id, tokens = create_game(
                client, [{"kind": "human", "take": True}, {"kind": "human"}]
            )
            claimer = 0
        elif case == "finished game":
            game_id, tokens = humans(client, "Ana", "Ben")
            assert resign(client, game_id, tokens[0]).status_code == 200
        token = {"no token": None, "a stranger's token": "not-a-token"}.get(case, tokens[claimer])
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            if case != "the claimer not connected":
                hello(ws, [tokens[claimer]])
            time.sleep(0.1)
            before = state_of(client, game_id)
            answer = claim(client, game_id, token, **body)
            assert error_of(answer) == (status, code), answer.text
            after = state_of(client, game_id)
        assert (after["status"], after["ply"], after["resignations"]) == (
            before["status"],
            before["ply"],
            before["resignations"],
        )


def test_a_player_connected_to_another_server_process_cannot_be_claimed_against(
    database: str,
) -> None:
    with redis_server() as redis, ExitStack() as stack:
        first, second = (
            stack.enter_context(serve(database, claim_after=1.5, redis=redis)) for _ in range(2)
        )
        game_id, tokens = humans(first, "Ben", "Ana")
        ben = stack.enter_context(first.websocket_connect(f"/ws/games/{game_id}"))
        hello(ben, [tokens[0]])
        with second.websocket_connect(f"/ws/games/{game_id}") as ana:
            hello(ana, [tokens[1]])
            # longer than the claim time, since the second process took the game (a claim time
            # long enough that the processes' reports of who is here, a quarter of it apart,
            # keep coming on a loaded machine)
            time.sleep(1.8)
            refused = claim(second, game_id, tokens[1])
            assert error_of(refused) == (409, "not-gone")
            assert refused.json()["error"]["message"] == "Ben is connected"
            ben.close()
            # Ana may first hear that Ben is here (if the second process heard it after her
            # hello), then, as the first process tells it, that he has gone.
            waits = [ana.receive_json()["players"][0]["claim_in_ms"]]
            if waits[0] is None:
                waits.append(ana.receive_json()["players"][0]["claim_in_ms"])
            assert waits[-1] == 1500
            time.sleep(1.7)
            answer = claim(second, game_id, tokens[1])
            assert answer.status_code == 200, answer.text
            assert answer.json()["state"]["result"]["headline"] == "Ana wins: Ben left the game"


def test_a_seat_is_gone_since_its_last_client_left_or_another_process_stopped_telling() -> None:
    presence = Presence(opened=1000)
    assert presence.gone_since(2) == 1000  # never seen: gone since the game was taken in
    client = object()
    assert presence.connect(client, [1], 1500) is True
    assert presence.connect(client, [1], 1600) is False  # a second hello, the same seats
    assert presence.gone_since(1) is None
    assert presence.disconnect(client, 1700) is True
    assert presence.gone_since(1) == 1700
    presence.hear("other", [0], 2000, 300)
    presence.expire(2299)
    assert (presence.present(), presence.here) == (frozenset({0}), frozenset())
    presence.expire(2300)  # the other process said nothing more: it ended
    assert presence.gone_since(0) == 2300
    presence.hear("other", [0], 2400, 300)
    presence.hear("other", [], 2450, 300)  # and now it says the seat's client left
    assert presence.gone_since(0) == 2450


def test_the_claim_time_is_a_server_option_and_in_the_config(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from taluva.cli import main

    assert main(["serve", "--help"]) == 0
    assert "--claim-after SECONDS" in capsys.readouterr().out
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}", claim_after=42.0) as client:
        assert client.get("/api/config").json()["claim_after"] == 42.0


# ---------------------------------------------------------------------- cancelling


def test_a_player_aborts_a_rated_game_in_its_first_turns_and_no_rating_changes(
    database: str,
) -> None:
    with serve(database) as client:
        signed = client.post("/api/accounts", json={"name": "Ana", "password": "a long secret 1"})
        assert signed.status_code == 201, signed.text
        ana = signed.json()["account"]["id"]
        game_id, tokens = create_game(
            client,
            [{"kind": "human", "name": "Ana", "take": True}, {"kind": "ai", "level": 1}],
            clock={"kind": "turn", "per_turn": 86400},
            rated=True,
        )
        assert state_of(client, game_id)["rated"] is True
        nobody = client.post(f"/api/games/{game_id}/abort")
        assert (nobody.status_code, nobody.json()["error"]["code"]) == (401, "no-token")
        aborted = client.post(f"/api/games/{game_id}/abort", headers=bearer(tokens[0]))
        assert aborted.status_code == 200, aborted.text
        result = aborted.json()["state"]["result"]
        assert (aborted.json()["state"]["status"], result["reason"], result["ranking"]) == (
            "finished",
            "aborted",
            [],
        )
        again = client.post(f"/api/games/{game_id}/abort", headers=bearer(tokens[0]))
        assert (again.status_code, again.json()["error"]["code"]) == (409, "over")
        profile = client.get(f"/api/players/{ana}").json()["player"]
        assert (profile["games"], profile["rating"]) == (0, None)
        assert client.get("/api/leaderboard").json()["players"] == []


def test_a_game_past_its_first_turns_cannot_be_aborted(tmp_path: Any) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        game_id, tokens = humans(client, "Ana", "Ben")
        moves = ["tile 0,0 0", "hut 1,0"]
        for ply, move in enumerate(moves):
            assert play_http(client, game_id, tokens[0], ply, move).status_code == 200
        state = state_of(client, game_id)
        while state["ply"] < 2 * lifecycle.ABORT_TURNS:
            move = state["legal"][0]
            reply = play_http(client, game_id, tokens[state["to_move"]], state["ply"], move)
            state = reply.json()["state"]
        late = client.post(f"/api/games/{game_id}/abort", headers=bearer(tokens[1]))
        assert (late.status_code, late.json()["error"]["code"]) == (409, "too-late")
        assert state_of(client, game_id)["status"] == "live"


def test_a_player_aborts_over_the_websocket_and_everyone_is_told(tmp_path: Any) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        game_id, tokens = humans(client, "Ana", "Ben")
        with player_and_watcher(client, game_id, tokens[0]) as (ana, watcher):
            ana.send_json({"type": "abort", "ref": "a"})
            told = watcher.receive_json()
            first, second = ana.receive_json(), ana.receive_json()
        assert (told["type"], told["state"]["result"]["reason"]) == ("state", "aborted")
        assert first == told
        assert second == {"type": "accepted", "ref": "a"}


def test_the_host_cancels_a_game_before_it_starts_and_it_leaves_the_lobby(
    database: str,
    settled: list[tuple[str, dict[str, Any]]],
) -> None:
    with serve(database) as client:
        created = client.post(
            "/api/games",
            json={"seats": [{"kind": "human", "name": "Ana", "take": True}, {"kind": "human"}]},
        ).json()
        game_id, host = created["game"]["id"], created["host_token"]
        listed = client.get("/api/games?status=open").json()["games"]
        assert [game["id"] for game in listed] == [game_id]
        seat_token = created["tokens"][0]["token"]
        refused = client.post(f"/api/games/{game_id}/cancel", headers=bearer(seat_token))
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "not-host")
        answer = client.post(f"/api/games/{game_id}/cancel", headers=bearer(host))
        assert answer.status_code == 200, answer.text
        assert answer.json()["state"]["status"] == "cancelled"
        assert client.get("/api/games?status=open").json()["games"] == []
        join = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Ben"})
        assert (join.status_code, join.json()["error"]["code"]) == (409, "over")
    with serve(database) as client:
        state = state_of(client, game_id)
        again = client.post(f"/api/games/{game_id}/cancel", headers=bearer(host))
    assert (state["status"], state["result"]["reason"], state["legal"]) == (
        "cancelled",
        "cancelled",
        [],
    )
    assert state["result"]["headline"] == "The game was cancelled by its host before it started"
    assert (again.status_code, again.json()["error"]["code"]) == (409, "over")
    assert settled == []


def test_a_game_that_has_started_cannot_be_cancelled(tmp_path: Any) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        created = client.post(
            "/api/games",
            json={"seats": [{"kind": "human", "take": True}, {"kind": "human", "take": True}]},
        ).json()
        game_id = created["game"]["id"]
        answer = client.post(f"/api/games/{game_id}/cancel", headers=bearer(created["host_token"]))
        assert (answer.status_code, answer.json()["error"]["code"]) == (409, "started")
        assert state_of(client, game_id)["status"] == "live"
        no_token = client.post(f"/api/games/{game_id}/cancel")
        assert (no_token.status_code, no_token.json()["error"]["code"]) == (401, "no-token")


def test_the_host_cancels_over_the_websocket(tmp_path: Any) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        created = client.post(
            "/api/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}
        ).json()
        game_id = created["game"]["id"]
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, [])
            ws.send_json({"type": "cancel", "host_token": "wrong", "ref": "c"})
            assert ws.receive_json()["code"] == "not-host"
            ws.send_json({"type": "cancel", "host_token": created["host_token"], "ref": "c"})
            message = ws.receive_json()
            assert (message["type"], message["state"]["status"]) == ("state", "cancelled")
            assert ws.receive_json() == {"type": "accepted", "ref": "c"}


# ---------------------------------------------------------------------- abandoning


def test_a_game_without_a_move_for_the_limit_is_abandoned_at_start(
    database: str,
    settled: list[tuple[str, dict[str, Any]]],
) -> None:
    with serve(database) as client:
        old_id, old_tokens = humans(client, "Ana", "Ben")
        fresh_id, _ = humans(client, "Cyd", "Dan")
    store = Store(database, game_end=settle)
    with store.engine.begin() as connection:
        long_ago = datetime.now(UTC) - timedelta(days=15)
        connection.execute(update(GameRow).where(GameRow.id == old_id).values(updated_at=long_ago))
    store.close()
    with serve(database) as client:
        old, fresh = state_of(client, old_id), state_of(client, fresh_id)
        assert (old["status"], old["result"]["reason"], old["legal"]) == (
            "finished",
            "abandoned",
            [],
        )
        assert old["result"]["headline"] == "The game was abandoned: nobody moved for too long"
        assert fresh["status"] == "live"
        refused = play_http(client, old_id, old_tokens[0], 0, "tile 0,0 0")
        assert (refused.status_code, refused.json()["error"]["code"]) == (409, "over")
    assert settled == [(old_id, {"ranking": [], "reason": "abandoned"})]


def test_the_server_checks_for_abandoned_games_while_it_runs(
    tmp_path: Any, settled: list[tuple[str, dict[str, Any]]]
) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}", abandon_after=0.4) as client:
        game_id, tokens = humans(client, "Ana", "Ben")
        assert play_http(client, game_id, tokens[0], 0, "tile 0,0 0").status_code == 200
        deadline = time.monotonic() + 5
        while state_of(client, game_id)["status"] == "live" and time.monotonic() < deadline:
            time.sleep(0.1)
        state = state_of(client, game_id)
        assert (state["status"], state["result"]["reason"]) == ("finished", "abandoned")
        refused = play_http(client, game_id, tokens[0], 1, "hut 1,0")
        assert (refused.status_code, refused.json()["error"]["code"]) == (409, "over")
        explained = client.get(f"/api/games/{game_id}/explain", params={"move": "hut 1,0"})
        assert (explained.json()["legal"], explained.json()["reason"]) == (
            False,
            "the game is over",
        )
    assert settled == [(game_id, {"ranking": [], "reason": "abandoned"})]


def test_the_abandon_limit_is_a_server_option(capsys: pytest.CaptureFixture[str]) -> None:
    from taluva.cli import main

    assert main(["serve", "--help"]) == 0
    assert "--abandon-after DAYS  days without a move" in capsys.readouterr().out


def test_the_new_columns_exist_after_migrating(database: str) -> None:
    store = Store(database, game_end=settle)
    store.migrate()
    with store.engine.connect() as connection:
        rows = connection.execute(text("SELECT clock, resignations, host_hash FROM games")).all()
        assert rows == []
        assert connection.execute(text("SELECT clock FROM moves")).all() == []
    store.close()
