"""Game clocks (taluva.server.games.clocks): the time rules, what clients see, and the server's
timers, which put out a player whose time runs out even with nobody connected and after a
restart. Short clocks, no long sleeps."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import test_server_storage
from fastapi.testclient import TestClient
from sqlalchemy import select
from test_server_support import hello, play_http, state_of

from taluva.server import Settings, create_app
from taluva.server.errors import ApiError
from taluva.server.games import clocks
from taluva.server.players.standings import settle
from taluva.server.storage.models import MoveRow
from taluva.server.storage.store import Store

database = test_server_storage.database
postgres_server = test_server_storage.postgres_server
"""Every database test runs on SQLite and, when installed, PostgreSQL."""

MINUTE = 60_000


@contextmanager
def serve(url: str) -> Iterator[TestClient]:
    """An in-process server on ``url``, started and stopped."""
    with TestClient(create_app(Settings(database=url, ai_workers=0, hint_level=1))) as client:
        yield client


def timed_game(client: TestClient, clock: dict[str, Any], *names: str) -> tuple[str, list[str]]:
    """A live hot-seat game of people with this clock; its id and the seats' tokens."""
    seats = [{"kind": "human", "name": name, "take": True} for name in names or ("Ana", "Ben")]
    answer = client.post("/api/games", json={"seats": seats, "clock": clock})
    assert answer.status_code == 201, answer.text
    body = answer.json()
    return body["game"]["id"], [entry["token"] for entry in body["tokens"]]


def wait_for(client: TestClient, game_id: str, status: str, seconds: float = 5.0) -> dict[str, Any]:
    """The game's state once its status is ``status`` (polled; fails after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        state = state_of(client, game_id)
        if state["status"] == status or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


# ---------------------------------------------------------------------- the time rules


def fischer(base: int = 10 * MINUTE, increment: int = 20_000) -> dict[str, Any]:
    clock = clocks.new_clock(
        {"kind": "fischer", "base": base / 1000, "increment": increment / 1000}, [True, True, False]
    )
    assert clock is not None
    return clock


def test_a_fischer_clock_counts_the_movers_time_and_adds_the_increment_when_the_turn_passes() -> (
    None
):
    clock = clocks.run(fischer(), 0, 1_000)
    assert (clock["running"], clocks.deadline(clock)) == (0, 1_000 + 10 * MINUTE)
    clock = clocks.after_move(clock, 0, 0, 4_000)  # the tile: still Ana's turn
    assert (clock["remaining"][0], clock["running"], clock["since"]) == (
        10 * MINUTE - 3_000,
        0,
        4_000,
    )
    clock = clocks.after_move(clock, 0, 1, 6_000)  # the build: Ben's turn
    assert clock["remaining"][:2] == [10 * MINUTE - 5_000 + 20_000, 10 * MINUTE]
    assert (clock["running"], clock["since"]) == (1, 6_000)
    assert clocks.remaining_at(clock, 16_000)[:2] == [10 * MINUTE + 15_000, 10 * MINUTE - 10_000]


def test_an_ai_seat_plays_untimed_and_no_clock_runs_on_its_turn() -> None:
    clock = clocks.after_move(clocks.run(fischer(), 1, 0), 1, 2, 1_000)
    assert (clock["remaining"][2], clock["running"], clocks.deadline(clock)) == (None, None, None)
    clock = clocks.after_move(clock, 2, 0, 9_000)
    assert (clock["running"], clock["since"], clock["remaining"][0]) == (0, 9_000, 10 * MINUTE)


def test_a_turn_based_clock_gives_each_turn_its_whole_time() -> None:
    clock = clocks.new_clock({"kind": "turn", "per_turn": 86400}, [True, True])
    assert clock is not None
    clock = clocks.run(clock, 0, 0)
    clock = clocks.after_move(clock, 0, 0, 3_600_000)
    assert clock["remaining"][0] == 86_400_000 - 3_600_000
    clock = clocks.after_move(clock, 0, 1, 7_200_000)
    clock = clocks.after_move(clock, 1, 0, 8_000_000)
    assert (clock["remaining"][0], clock["running"]) == (86_400_000, 0)


def test_a_clock_stops_when_its_player_leaves_and_the_next_one_starts() -> None:
    clock = clocks.run(fischer(), 0, 0)
    assert clocks.after_leaving(clock, 1, 0, 5_000) is clock
    left = clocks.after_leaving(clock, 0, 1, 5_000)
    assert (left["remaining"][0], left["running"], left["since"]) == (10 * MINUTE - 5_000, 1, 5_000)
    over = clocks.after_leaving(clock, 1, None, 5_000)
    assert (over["running"], over["remaining"][0]) == (None, 10 * MINUTE - 5_000)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"kind": "fischer"}, "clock.base must be a number of seconds from 0.5 to 604800"),
        ({"kind": "fischer", "base": 0.1}, "clock.base must be a number of seconds from 0.5"),
        ({"kind": "fischer", "base": 60, "increment": -1}, "clock.increment must be a number"),
        ({"kind": "turn", "per_turn": 30 * 86400}, "clock.per_turn must be a number of seconds"),
        ({"kind": "turn", "per_turn": 60, "base": 3}, "a turn clock has no field base"),
        ({"kind": "hourglass"}, "clock.kind must be one of none, fischer, turn"),
    ],
)
def test_a_bad_clock_is_refused_saying_what_is_wrong(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(ApiError) as refused:
        clocks.new_clock(spec, [True, True])
    assert (refused.value.status, refused.value.code) == (422, "bad-request")
    assert message in refused.value.message


# ---------------------------------------------------------------------- on the server


def test_the_view_shows_each_seats_time_and_whose_clock_runs(tmp_path: Any) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        game_id, tokens = timed_game(client, {"kind": "fischer", "base": 600, "increment": 20})
        state = state_of(client, game_id)
        clock = state["clock"]
        assert (clock["kind"], clock["base_ms"], clock["increment_ms"], clock["running"]) == (
            "fischer",
            600_000,
            20_000,
            0,
        )
        assert 590_000 < clock["remaining_ms"][0] <= 600_000 and clock["remaining_ms"][1] == 600_000
        play_http(client, game_id, tokens[0], 0, "tile 0,0 0")
        answer = play_http(client, game_id, tokens[0], 1, "hut 1,0")
        clock = answer.json()["state"]["clock"]
        assert clock["running"] == 1 and 610_000 < clock["remaining_ms"][0] <= 620_000
        listed = client.get(f"/api/games/{game_id}").json()["game"]["clock"]
        assert listed == {"kind": "fischer", "base_ms": 600_000, "increment_ms": 20_000}
        assert client.get("/api/config").json()["clocks"][0] == {
            "kind": "none",
            "label": "No clock",
        }
        untimed = client.post(
            "/api/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}
        ).json()
        assert state_of(client, untimed["game"]["id"])["clock"] is None


def test_a_bad_clock_in_a_new_game_is_refused(tmp_path: Any) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        seats = [{"kind": "human", "take": True}, {"kind": "human", "take": True}]
        answer = client.post("/api/games", json={"seats": seats, "clock": {"kind": "turn"}})
        assert answer.status_code == 422
        assert answer.json()["error"] == {
            "code": "bad-request",
            "message": "clock.per_turn must be a number of seconds from 0.5 to 1209600",
        }
        assert client.get("/api/games?status=live").json()["games"] == []


def test_the_clock_starts_only_when_the_last_seat_is_taken(tmp_path: Any) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        seats = [{"kind": "human", "take": True}, {"kind": "human"}]
        created = client.post(
            "/api/games", json={"seats": seats, "clock": {"kind": "fischer", "base": 60}}
        ).json()
        game_id = created["game"]["id"]
        assert state_of(client, game_id)["clock"]["running"] is None
        client.post(f"/api/games/{game_id}/seats/1", json={"name": "Ben"})
        assert state_of(client, game_id)["clock"]["running"] == 0


def test_a_player_whose_time_runs_out_is_out_even_with_nobody_connected(
    database: str,
) -> None:
    with serve(database) as client:
        game_id, tokens = timed_game(client, {"kind": "fischer", "base": 0.6, "increment": 0})
        state = wait_for(client, game_id, "finished")
        assert (state["result"]["reason"], state["result"]["headline"]) == (
            "timeout",
            "Ben wins: Ana ran out of time",
        )
        assert state["clock"]["remaining_ms"][0] == 0 and state["clock"]["running"] is None
        assert state["players"][0]["left"] == "timeout"
        late = play_http(client, game_id, tokens[0], 0, "tile 0,0 0")
        assert (late.status_code, late.json()["error"]["code"]) == (409, "over")
        record = client.get(f"/api/games/{game_id}/record").json()
        assert record["resignations"] == [{"ply": 0, "player": 0, "reason": "timeout"}]


def test_in_three_player_games_the_clock_passes_on_after_a_timeout(tmp_path: Any) -> None:
    with serve(f"sqlite:///{tmp_path / 'g.sqlite3'}") as client:
        game_id, tokens = timed_game(client, {"kind": "turn", "per_turn": 0.6}, "Ana", "Ben", "Cyd")
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, [tokens[2]])
            out = ws.receive_json()
            assert (out["type"], out["seat"], out["reason"]) == ("out", 0, "timeout")
            state = out["state"]
            assert (state["status"], state["to_move"], state["clock"]["running"]) == ("live", 1, 1)
            out = ws.receive_json()
            assert (out["seat"], out["state"]["result"]["headline"]) == (
                1,
                "Cyd wins: Ben ran out of time",
            )


def test_the_clocks_are_stored_with_each_move_and_resume_after_a_restart(
    database: str,
) -> None:
    with serve(database) as client:
        game_id, tokens = timed_game(client, {"kind": "fischer", "base": 1.5, "increment": 30})
        play_http(client, game_id, tokens[0], 0, "tile 0,0 0")
        play_http(client, game_id, tokens[0], 1, "hut 1,0")  # Ana gains 30 s; Ben's 1.5 s run
        before = state_of(client, game_id)["clock"]
    store = Store(database, game_end=settle)
    with store.engine.connect() as connection:
        stored = list(connection.scalars(select(MoveRow.clock).order_by(MoveRow.ply)))
    store.close()
    assert [clock["running"] for clock in stored] == [0, 1]
    assert stored[1]["remaining"][0] > 30_000
    time.sleep(1.6)  # Ben's time runs out while the server is down
    with serve(database) as client:
        state = state_of(client, game_id)
        assert (state["status"], state["result"]["headline"]) == (
            "finished",
            "Ana wins: Ben ran out of time",
        )
        assert state["clock"]["remaining_ms"][0] == before["remaining_ms"][0]


def test_a_restart_before_the_time_is_up_rearms_the_timer(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'g.sqlite3'}"
    with serve(url) as client:
        # time enough for a restart on a loaded machine, before the clock runs out
        game_id, _tokens = timed_game(client, {"kind": "fischer", "base": 2.5})
    with serve(url) as client:
        state = state_of(client, game_id)
        assert state["status"] == "live" and 0 < state["clock"]["remaining_ms"][0] < 2_500
        state = wait_for(client, game_id, "finished")
        assert state["result"]["reason"] == "timeout"
