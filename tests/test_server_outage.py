"""A PostgreSQL outage as players meet it: while the database is down, requests that need it
answer 503 with Retry-After and a sentence the client shows ("reconnecting…"), the log says
once that it is down and once that it is back (no traceback per request), and play goes on
once PostgreSQL is up again. A real PostgreSQL, stopped and started."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from postgres import LoggedServer, Postgres

HUMANS = [{"kind": "human", "take": True}, {"kind": "human", "take": True}]


@pytest.fixture
def postgres() -> Iterator[Postgres]:
    with Postgres() as cluster:
        yield cluster


def move(
    http: httpx.Client, game_id: str, tokens: dict[int, str], state: dict[str, Any]
) -> httpx.Response:
    """Play the first legal move of ``state`` with the token of the seat to move."""
    return http.post(
        f"/api/games/{game_id}/moves",
        json={"state": state["ply"], "move": state["legal"][0]},
        headers={"authorization": f"Bearer {tokens[state['to_move']]}"},
    )


def test_a_database_outage_is_503_with_retry_after_and_two_log_lines(postgres: Postgres) -> None:
    server = LoggedServer(postgres.url)
    try:
        server.wait_ready()
        with httpx.Client(base_url=server.url, timeout=30) as http:
            body = http.post("/api/games", json={"seats": HUMANS}).json()
            game_id = body["game"]["id"]
            tokens = {entry["seat"]: entry["token"] for entry in body["tokens"]}
            state = http.get(f"/api/games/{game_id}").json()["state"]
            assert move(http, game_id, tokens, state).status_code == 200
            state = http.get(f"/api/games/{game_id}").json()["state"]

            postgres.stop()
            answers = [
                move(http, game_id, tokens, state),
                http.get("/api/games", params={"status": "live"}),
                http.post("/api/games", json={"seats": HUMANS}),
                move(http, game_id, tokens, state),
            ]
            ready = http.get("/readyz")
            for answer in answers:
                assert answer.status_code == 503, answer.text
                assert answer.headers["retry-after"] == "5"
                assert answer.json() == {
                    "error": {
                        "code": "unavailable",
                        "message": "the database cannot be reached: reconnecting…",
                    }
                }
            assert ready.status_code == 503
            assert ready.json()["checks"]["database"] == "unreachable"
            assert http.get("/healthz").status_code == 200

            postgres.start()
            deadline = time.monotonic() + 60
            played = move(http, game_id, tokens, state)
            while played.status_code == 503 and time.monotonic() < deadline:
                time.sleep(0.2)  # as a client does, told to retry
                played = move(http, game_id, tokens, state)
            assert played.status_code == 200, played.text
            assert http.get("/readyz").status_code == 200
    finally:
        server.close()
    log = "".join(server.log)
    assert log.count("the database cannot be reached") == 1, log
    assert log.count("the database is reachable again") == 1, log
    assert "Traceback" not in log, log
