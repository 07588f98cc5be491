"""Rated or casual, chosen when a game is created: who may sit at a rated game, what it
refuses while it runs, what it shows in the lobby, and each seat's rating before and after,
on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_server_storage
from fastapi.testclient import TestClient
from test_server_accounts import (
    CLOCK,
    PASSWORD,
    error_code,
    finish,
    sign_in,
    sign_up,
)
from test_server_support import client_for, create_game, sqlite_url

from taluva.server.players.ratings import MODEL, NEW, PROVISIONAL_GAMES, shown

postgres_server = test_server_storage.postgres_server
database = test_server_storage.database
pytestmark = pytest.mark.usefixtures("cheap_hashes")

ANA_AND_A_FREE_SEAT = [{"kind": "human", "take": True}, {"kind": "human"}]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(sqlite_url(tmp_path)) as client:
        yield client


def created(client: TestClient, seats: list[dict[str, Any]], **options: Any) -> Any:
    return client.post("/api/games", json={"seats": seats, **options})


def two_accounts(client: TestClient, **options: Any) -> tuple[str, dict[int, str]]:
    """A live game of Ana (seat 0, creator) and Ben (seat 1, joined), both signed in."""
    sign_up(client, "Ana")
    game_id, tokens = create_game(client, ANA_AND_A_FREE_SEAT, **options)
    client.cookies.clear()
    sign_up(client, "Ben")
    joined = client.post(f"/api/games/{game_id}/seats/1", json={})
    assert joined.status_code == 200, joined.text
    tokens[1] = joined.json()["token"]
    return game_id, tokens


def test_a_game_is_rated_when_it_can_be_unless_asked_casual(client: TestClient) -> None:
    sign_up(client, "Ana")
    assert created(client, ANA_AND_A_FREE_SEAT, clock=CLOCK).json()["game"]["rated"] is True
    casual = created(client, ANA_AND_A_FREE_SEAT, clock=CLOCK, rated=False)
    assert casual.json()["game"]["rated"] is False
    assert created(client, ANA_AND_A_FREE_SEAT).json()["game"]["rated"] is False  # no clock


@pytest.mark.parametrize(
    ("signed_in", "seats", "options", "why"),
    [
        (True, ANA_AND_A_FREE_SEAT, {}, "needs a clock"),
        (True, [{"kind": "human", "take": True}] * 2, {"clock": CLOCK}, "one seat each"),
        (False, ANA_AND_A_FREE_SEAT, {"clock": CLOCK}, "signed-in players"),
        (True, [{"kind": "ai", "level": 1}] * 2, {"clock": CLOCK}, "a person at the table"),
    ],
)
def test_a_game_that_cannot_be_rated_is_refused_when_asked_rated_saying_why(
    client: TestClient, signed_in: bool, seats: Any, options: Any, why: str
) -> None:
    if signed_in:
        sign_up(client, "Ana")
    refused = created(client, seats, rated=True, **options)
    assert (refused.status_code, error_code(refused)) == (422, "not-rateable")
    assert why in refused.json()["error"]["message"]
    assert created(client, seats, rated="yes", **options).status_code == 422


def test_only_a_signed_in_player_without_a_seat_may_join_a_rated_game(
    client: TestClient,
) -> None:
    sign_up(client, "Ana")
    game_id, _ = create_game(client, ANA_AND_A_FREE_SEAT, clock=CLOCK)
    again = client.post(f"/api/games/{game_id}/seats/1", json={})  # Ana's second seat
    assert (again.status_code, error_code(again)) == (403, "rated-account")
    client.cookies.clear()
    guest = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Guest"})
    assert (guest.status_code, error_code(guest)) == (403, "rated-account")
    summary = client.get(f"/api/games/{game_id}").json()["game"]
    assert [p["taken"] for p in summary["players"]] == [True, False]


def test_lobby_entries_show_each_seated_players_rating(client: TestClient) -> None:
    sign_up(client, "Ana")
    game_id, _ = create_game(
        client, [*ANA_AND_A_FREE_SEAT, {"kind": "ai", "level": 2}], clock=CLOCK
    )
    [entry] = client.get("/api/games?status=open").json()["games"]
    assert entry["id"] == game_id and entry["rated"] is True
    assert [(p["rating"], p["provisional"]) for p in entry["players"]] == [
        (NEW.rating, True),
        (None, None),
        (NEW.rating, True),
    ]


def test_a_casual_game_between_accounts_offers_hints_and_changes_no_rating(
    client: TestClient,
) -> None:
    game_id, tokens = two_accounts(client, clock=CLOCK, rated=False)
    hint = client.post(
        f"/api/games/{game_id}/hint", headers={"authorization": f"Bearer {tokens[0]}"}
    )
    assert hint.status_code == 200, hint.text
    finish(client, game_id, tokens, seed=3)
    assert client.get("/api/leaderboard").json() == {"players": [], "provisional": []}
    assert client.get(f"/api/games/{game_id}/ratings").json() == {"rated": False, "seats": []}


def test_the_end_of_a_rated_game_gives_each_seats_rating_before_and_after(database: str) -> None:
    with client_for(database) as client:
        game_id, tokens = two_accounts(client, clock=CLOCK)
        early = client.get(f"/api/games/{game_id}/ratings")
        assert (early.status_code, error_code(early)) == (409, "not-finished")
        end = finish(client, game_id, tokens, seed=7)
        answer = client.get(f"/api/games/{game_id}/ratings").json()
        board = client.get("/api/leaderboard").json()
    assert answer["rated"] is True
    seats = answer["seats"]
    assert [(s["seat"], s["name"], s["before"]) for s in seats] == [
        (0, "Ana", NEW.rating),
        (1, "Ben", NEW.rating),
    ]
    for seat in seats:
        assert seat["change"] == seat["after"] - seat["before"]
        assert seat["provisional"] is True
    winner = end["result"]["ranking"][0]
    if len(winner) == 1:  # the winner gains what the loser loses (equal ratings before)
        gained = seats[winner[0]]["change"]
        assert gained > 0 and seats[1 - winner[0]]["change"] == -gained
    shown_on_board = {entry["name"]: entry["rating"] for entry in board["provisional"]}
    assert shown_on_board == {s["name"]: s["after"] for s in seats}


def test_sign_in_tells_how_many_wrong_passwords_were_given_since_the_last(
    client: TestClient,
) -> None:
    sign_up(client, "Ana")
    client.cookies.clear()
    for _ in range(3):
        assert sign_in(client, "Ana", "not the password").status_code == 401
    assert sign_in(client, "Ana").json()["failed_sign_ins"] == 3
    assert sign_in(client, "Ana", PASSWORD).json()["failed_sign_ins"] == 0


def test_the_displayed_scale_starts_at_1500_and_48_points_a_unit_of_mu() -> None:
    assert (shown(MODEL.mu), shown(MODEL.mu + 1), shown(MODEL.mu - 2.5)) == (1500, 1548, 1380)
    assert PROVISIONAL_GAMES > 1


def test_a_games_record_says_whether_it_is_rated(client: TestClient) -> None:
    sign_up(client, "Ana")
    rated, _ = create_game(client, ANA_AND_A_FREE_SEAT, clock=CLOCK)
    casual, _ = create_game(client, ANA_AND_A_FREE_SEAT, clock=CLOCK, rated=False)
    assert client.get(f"/api/games/{rated}/record").json()["rated"] is True
    assert client.get(f"/api/games/{casual}/record").json()["rated"] is False
