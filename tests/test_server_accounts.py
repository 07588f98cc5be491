"""Accounts: sign up, sign in and out, sessions, seats held by accounts, "My games",
profiles and the leaderboard, over HTTP and the WebSocket, on SQLite and PostgreSQL.

Passwords are hashed with argon2-cffi's cheapest parameters here (the tests are about the
rules, not the hash's cost), except in the test that times sign-in answers.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_server_storage
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import select, text, update
from test_server_support import (
    client_for,
    create_game,
    hello,
    play_http,
    sqlite_url,
    state_of,
)

import taluva
from taluva.server.limits import wait_in_words
from taluva.server.players import accounts
from taluva.server.players.accounts import DEVICE_COOKIE
from taluva.server.players.standings import settle
from taluva.server.storage.models import Base
from taluva.server.storage.store import MIGRATIONS, Store, token_digest

# the storage tests' fixtures: an empty SQLite or PostgreSQL database
postgres_server = test_server_storage.postgres_server
database = test_server_storage.database
PASSWORD = "correct horse battery"
REAL_HASHER = accounts.default_hasher
CLOCK = {"kind": "fischer", "base": 600, "increment": 20}
"""A real-time clock: what a game needs to be rated."""


pytestmark = pytest.mark.usefixtures("cheap_hashes")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(sqlite_url(tmp_path)) as client:
        yield client


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, Any]:
    response = client.post("/api/accounts", json={"name": name, "password": password})
    assert response.status_code == 201, response.text
    account: dict[str, Any] = response.json()["account"]
    return account


def sign_in(client: TestClient, name: str, password: str = PASSWORD) -> Any:
    return client.post("/api/session", json={"name": name, "password": password})


def error_code(response: Any) -> str:
    code: str = response.json()["error"]["code"]
    return code


def table(store: Store, name: str) -> list[Any]:
    with store.engine.connect() as connection:
        return list(connection.execute(select(Base.metadata.tables[name])).all())


def finish(client: TestClient, game_id: str, tokens: dict[int, str], seed: int) -> dict[str, Any]:
    """Play random legal moves with the seats' tokens until the game ends; its last state."""
    rng = random.Random(seed)
    state = state_of(client, game_id)
    while state["result"] is None:
        if state["to_move"] not in tokens:  # an AI seat: wait for its move
            time.sleep(0.01)
            state = state_of(client, game_id)
            continue
        move = rng.choice(state["legal"])
        response = play_http(client, game_id, tokens[state["to_move"]], state["ply"], move)
        assert response.status_code == 200, response.text
        state = response.json()["state"]
    return state


# ---------------------------------------------------------------------- signing up and in


def test_sign_up_signs_in_with_an_http_only_samesite_cookie_and_stores_only_digests(
    database: str,
) -> None:
    with client_for(database) as client:
        response = client.post("/api/accounts", json={"name": "Ana", "password": PASSWORD})
        header = response.headers["set-cookie"]
        assert "HttpOnly" in header and "SameSite=lax" in header and "Path=/" in header
        cookie = client.cookies.get(accounts.SESSION_COOKIE)
        assert cookie and f"{accounts.SESSION_COOKIE}={cookie};" in header
        assert client.get("/api/session").json() == response.json()
    store = Store(database, game_end=settle)
    (row,) = table(store, "accounts")
    assert row.name == "Ana" and row.password_hash.startswith("$argon2id$")
    assert PASSWORD not in row.password_hash
    (session,) = table(store, "sessions")
    assert session.token_hash == token_digest(cookie) != cookie
    store.close()


def test_the_session_cookie_is_secure_when_the_page_is_served_over_https(
    client: TestClient,
) -> None:
    plain = client.post("/api/accounts", json={"name": "Ana", "password": PASSWORD})
    assert "secure" not in plain.headers["set-cookie"].lower()
    behind_tls = client.post(
        "/api/session",
        json={"name": "Ana", "password": PASSWORD},
        headers={"x-forwarded-proto": "https"},
    )
    assert "; secure" in behind_tls.headers["set-cookie"].lower()


def test_a_taken_name_is_refused_at_sign_up_whatever_its_case(client: TestClient) -> None:
    sign_up(client, "Ana")
    for name in ("Ana", "ANA", " ana "):
        response = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert response.status_code == 409 and error_code(response) == "name-taken"


@pytest.mark.parametrize(
    ("name", "password", "problem"),
    [
        ("", PASSWORD, "name must not be empty"),
        ("Ana\u202e", PASSWORD, "invisible or control character"),
        ("\u0410na", PASSWORD, "look-alike"),
        ("x" * 33, PASSWORD, "longer than 32"),
        ("AI level 3", PASSWORD, "AI level"),
        ("Ana", "short", "8 to 200 characters"),
        ("Ana", "p" * 201, "8 to 200 characters"),
    ],
)
def test_sign_up_names_follow_the_name_rules_and_passwords_their_length(
    client: TestClient, name: str, password: str, problem: str
) -> None:
    response = client.post("/api/accounts", json={"name": name, "password": password})
    assert response.status_code == 422 and error_code(response) == "bad-request"
    assert problem in response.json()["error"]["message"]
    assert client.get("/api/session").json() == {"account": None}


def test_sign_in_by_any_case_of_the_name_and_sign_out_ends_the_session(
    client: TestClient,
) -> None:
    sign_up(client, "Ana")
    client.cookies.clear()
    response = sign_in(client, "aNA")
    assert response.status_code == 200
    assert response.json()["account"]["name"] == "Ana"
    token = client.cookies.get(accounts.SESSION_COOKIE)
    assert client.delete("/api/session").json() == {"account": None}
    assert client.cookies.get(accounts.SESSION_COOKIE) is None
    client.cookies.set(accounts.SESSION_COOKIE, token or "")
    assert client.get("/api/session").json() == {"account": None}


def test_signing_in_again_ends_the_browsers_previous_session(client: TestClient) -> None:
    sign_up(client, "Ana")
    first = client.cookies.get(accounts.SESSION_COOKIE) or ""
    assert sign_in(client, "Ana").status_code == 200
    assert client.cookies.get(accounts.SESSION_COOKIE) != first
    client.cookies.clear()
    client.cookies.set(accounts.SESSION_COOKIE, first)
    assert client.get("/api/session").json() == {"account": None}


def test_an_expired_session_is_a_guest(database: str) -> None:
    with client_for(database) as client:
        sign_up(client, "Ana")
        store = Store(database, game_end=settle)
        with store.engine.begin() as connection:
            connection.execute(
                update(Base.metadata.tables["sessions"]).values(expires_at=accounts.now())
            )
        store.close()
        assert client.get("/api/session").json() == {"account": None}


def test_an_unknown_name_and_a_wrong_password_get_the_same_answer(client: TestClient) -> None:
    sign_up(client, "Ana")
    client.cookies.clear()
    wrong = sign_in(client, "Ana", "not the password")
    unknown = sign_in(client, "Nobody", "not the password")
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert error_code(wrong) == "bad-credentials"
    assert accounts.SESSION_COOKIE not in client.cookies


def test_an_unknown_name_takes_as_long_to_refuse_as_a_wrong_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(accounts, "default_hasher", REAL_HASHER)
    with client_for(sqlite_url(tmp_path)) as client:
        sign_up(client, "Ana")
        client.cookies.clear()

        def timed(name: str) -> float:
            start = time.process_time()
            assert sign_in(client, name, "not the password").status_code == 401
            return time.process_time() - start

        # taken in turns, and as this process's CPU time rather than by the clock, so that
        # other jobs on a loaded machine neither slow one kind alone nor stretch either
        pairs = [(timed("Ana"), timed(f"Nobody{n}")) for n in range(3)]
        wrong = statistics.median(pair[0] for pair in pairs)
        unknown = statistics.median(pair[1] for pair in pairs)
    # both run one full Argon2 verification; without the decoy hash the unknown name would
    # answer in a fraction of a millisecond
    assert 0.5 < unknown / wrong < 2.0, (unknown, wrong)


def test_wrong_passwords_from_others_lock_out_strangers_but_not_the_owners_known_browser(
    tmp_path: Path,
) -> None:
    owner, attacker = {"x-forwarded-for": "198.51.100.4"}, {"x-forwarded-for": "192.0.2.7"}
    with client_for(sqlite_url(tmp_path), ("10.1.2.3", 5000), ("10.0.0.0/8",)) as client:
        signed_up = client.post(
            "/api/accounts", json={"name": "Ana", "password": PASSWORD}, headers=owner
        )
        assert signed_up.status_code == 201, signed_up.text
        device = client.cookies.get(DEVICE_COOKIE)
        assert device
        client.cookies.clear()

        def attempt(password: str, headers: dict[str, str]) -> Any:
            body = {"name": "Ana", "password": password}
            return client.post("/api/session", json=body, headers=headers)

        wrong = [attempt("wrong password", attacker).status_code for _ in range(6)]
        assert wrong == [401] * 5 + [429]
        refused = attempt(PASSWORD, attacker)  # the right password, from the attacker
        wait = int(refused.headers["retry-after"])
        assert (refused.status_code, refused.json()["error"]["message"]) == (
            429,
            f"too many sign-in attempts for this name: try again in {wait_in_words(wait)}",
        )
        stranger = attempt(PASSWORD, owner)  # the owner's address, but an unknown browser
        assert stranger.status_code == 429
        client.cookies.set(DEVICE_COOKIE, device)
        known = attempt(PASSWORD, owner)  # the browser Ana signed up in
        assert known.status_code == 200, known.text
        assert known.json()["account"]["name"] == "Ana"
        # and she is told of the five wrong passwords checked (the refused tries were not)
        assert known.json()["failed_sign_ins"] == 5
        # the attacker holding the cookie of another account's browser gets no further
        client.cookies.clear()
        client.cookies.set(DEVICE_COOKIE, "not-a-device-of-ana")
        assert attempt(PASSWORD, attacker).status_code == 429


def test_sign_in_attempts_are_limited_per_name_and_per_address(tmp_path: Path) -> None:
    database = sqlite_url(tmp_path)
    with client_for(database) as client:
        sign_up(client, "Ana")
        client.cookies.clear()
        answers = [sign_in(client, "Ana", "wrong password").status_code for _ in range(6)]
        assert answers == [401] * 5 + [429]
        refused = sign_in(client, "ana", PASSWORD)
        assert refused.status_code == 429 and error_code(refused) == "rate-limited"
        wait = int(refused.headers["retry-after"])
        assert wait >= 1
        # the player is told how long, in the words the header's seconds round up to
        assert refused.json()["error"]["message"] == (
            f"too many sign-in attempts for this name: try again in {wait_in_words(wait)}"
        )
        # other names from this address get through until its budget of 10 attempts (the
        # sign-up and the 7 above counted) is spent
        answers = [sign_in(client, f"Other{n}", "wrong password") for n in range(3)]
        assert [answer.status_code for answer in answers] == [401, 401, 429]
        assert "from this address" in answers[2].json()["error"]["message"]
    with client_for(database, address=("10.0.0.9", 1)) as elsewhere:
        assert sign_in(elsewhere, "Ana", PASSWORD).status_code == 200


# ---------------------------------------------------------------------- seats and games


def test_a_seat_taken_while_signed_in_belongs_to_the_account(database: str) -> None:
    with client_for(database) as client:
        ana = sign_up(client, "Ana")
        game_id, tokens = create_game(
            client,
            [
                {"kind": "human", "name": "Whoever", "take": True},
                {"kind": "human", "name": "Hot seat", "take": True},
                {"kind": "human"},
            ],
        )
        client.cookies.clear()
        ben = sign_up(client, "Ben")
        joined = client.post(f"/api/games/{game_id}/seats/2", json={"name": "Not Ben"})
        assert joined.status_code == 200
        players = client.get(f"/api/games/{game_id}").json()["game"]["players"]
    assert [(p["name"], p["account_id"]) for p in players] == [
        ("Ana", ana["id"]),
        ("Hot seat", None),
        ("Ben", ben["id"]),
    ]
    store = Store(database, game_end=settle)
    seats = table(store, "seats")
    assert sorted((s.seat, s.account_id) for s in seats) == [
        (0, ana["id"]),
        (1, None),
        (2, ben["id"]),
    ]
    store.close()
    assert set(tokens) == {0, 1}


def test_guests_play_without_an_account(client: TestClient) -> None:
    game_id, tokens = create_game(
        client,
        [{"kind": "human", "name": "Guest", "take": True}, {"kind": "human", "take": True}],
    )
    state = state_of(client, game_id)
    assert [p["account_id"] for p in state["players"]] == [None, None]
    moved = play_http(client, game_id, tokens[0], 0, state["legal"][0])
    assert moved.status_code == 200
    assert client.get("/api/my/games").status_code == 401


def test_my_games_lists_open_live_and_finished_games_and_whose_turn_it_is(
    client: TestClient,
) -> None:
    sign_up(client, "Ana")
    waiting, _ = create_game(client, [{"kind": "human", "take": True}, {"kind": "human"}])
    mine_first, first_tokens = create_game(
        client, [{"kind": "human", "take": True}, {"kind": "human", "take": True}]
    )
    theirs_first, _ = create_game(client, [{"kind": "human"}, {"kind": "human", "take": True}])
    done, done_tokens = create_game(
        client, [{"kind": "human", "take": True}, {"kind": "human", "take": True}]
    )
    finish(client, done, done_tokens, seed=4)
    client.cookies.clear()
    sign_up(client, "Ben")
    client.post(f"/api/games/{theirs_first}/seats/0", json={})
    create_game(client, [{"kind": "human", "take": True}, {"kind": "human"}])  # Ben's own
    client.cookies.clear()
    assert sign_in(client, "Ana").status_code == 200
    games = {g["id"]: g for g in client.get("/api/my/games").json()["games"]}
    summary = {
        game_id: (g["status"], g["seat"], g["to_move"], g["your_move"])
        for game_id, g in games.items()
    }
    assert summary == {
        waiting: ("open", 0, None, False),
        mine_first: ("live", 0, 0, True),
        theirs_first: ("live", 1, 0, False),
        done: ("finished", 0, None, False),
    }
    play_http(client, mine_first, first_tokens[0], 0, state_of(client, mine_first)["legal"][0])
    play_http(client, mine_first, first_tokens[0], 1, state_of(client, mine_first)["legal"][0])
    again = {g["id"]: g for g in client.get("/api/my/games").json()["games"]}
    assert (again[mine_first]["to_move"], again[mine_first]["your_move"]) == (1, False)


def test_a_signed_in_socket_holds_the_accounts_seats_on_any_device(tmp_path: Path) -> None:
    database = sqlite_url(tmp_path)
    with client_for(database) as phone:
        sign_up(phone, "Ana")
        game_id, _tokens = create_game(
            phone, [{"kind": "human", "take": True}, {"kind": "human", "take": True}]
        )
    with client_for(database, address=("10.0.0.2", 1)) as laptop:
        with laptop.websocket_connect(f"/ws/games/{game_id}") as ws:
            assert hello(ws, [])["seats"] == []
        assert sign_in(laptop, "Ana").status_code == 200
        with laptop.websocket_connect(f"/ws/games/{game_id}") as ws:
            welcome = hello(ws, [])
            assert welcome["seats"] == [0]  # seat 1 was a hot seat, held by its token only
            ws.send_json({"type": "move", "state": 0, "move": welcome["state"]["legal"][0]})
            assert ws.receive_json()["ply"] == 0


# ---------------------------------------------------------------------- profiles and leaderboard


def test_a_profile_shows_games_wins_places_statistics_and_rating_history(
    database: str,
) -> None:
    with client_for(database) as client:
        ana = sign_up(client, "Ana")
        game_id, tokens = create_game(
            client, [{"kind": "human", "take": True}, {"kind": "human"}], clock=CLOCK
        )
        client.cookies.clear()
        sign_up(client, "Ben")
        joined = client.post(f"/api/games/{game_id}/seats/1", json={})
        tokens[1] = joined.json()["token"]
        end = finish(client, game_id, tokens, seed=11)
        record = client.get(f"/api/games/{game_id}/record").json()
        found = client.get(f"/api/players/{ana['id']}").json()["player"]
        board = client.get("/api/leaderboard").json()["provisional"]
    place = next(p["place"] for p in end["result"]["places"] if p["seat"] == 0)
    game = taluva.Game.from_record(record)
    assert found["name"] == "Ana"
    assert (found["games"], found["wins"], found["average_place"]) == (
        1,
        int(place == 1),
        float(place),
    )
    movers = end["movers"]
    moves = zip(end["moves"], movers, strict=True)
    expected_tiles = sum(1 for move, seat in moves if seat == 0 and move.startswith("tile "))
    stats = found["stats"]
    assert stats["tiles"] == expected_tiles
    assert (stats["huts"], stats["temples"], stats["towers"]) == (
        game.placed(0)["huts"],
        game.placed(0)["temples"],
        game.placed(0)["towers"],
    )
    assert stats["huts_lost"] == game.destroyed_huts(0)
    standing = [game.level(h) for h, (player, _kind) in game.buildings().items() if player == 0]
    assert max(standing, default=0) <= stats["highest_level"] <= max(game.heights().values())
    won_by = end["result"]["reason"]
    assert stats["wins_by_pieces"] == int(place == 1 and won_by == "victory")
    assert stats["wins_by_tiles"] == int(place == 1 and won_by in ("tiles", "no-placement"))
    assert found["rating"]["games"] == 1
    assert [point["game"] for point in found["history"]] == [game_id]
    assert found["history"][0]["rating"] == found["rating"]["rating"]
    assert [entry["name"] for entry in board] == (["Ana", "Ben"] if place == 1 else ["Ben", "Ana"])
    assert [(entry["rank"], entry["provisional"]) for entry in board] == [(None, True)] * 2


def test_a_profile_of_no_one_is_not_found(client: TestClient) -> None:
    response = client.get("/api/players/99")
    assert response.status_code == 404 and error_code(response) == "not-found"
    assert client.get("/api/players/abc").status_code == 422


def test_each_ai_level_has_its_own_place_on_the_leaderboard(client: TestClient) -> None:
    sign_up(client, "Ana")
    game_id, tokens = create_game(
        client, [{"kind": "human", "take": True}, {"kind": "ai", "level": 1}], clock=CLOCK
    )
    end = finish(client, game_id, tokens, seed=2)
    board = client.get("/api/leaderboard").json()["provisional"]
    assert sorted((e["kind"], e["name"], e["level"]) for e in board) == [
        ("account", "Ana", None),
        ("ai", "AI level 1", 1),
    ]
    winner = end["result"]["ranking"][0]
    if len(winner) == 1:
        assert board[0]["name"] == ("Ana" if winner == [0] else "AI level 1")


def test_a_game_with_a_guest_seat_is_not_rated(client: TestClient) -> None:
    sign_up(client, "Ana")
    game_id, tokens = create_game(
        client, [{"kind": "human", "take": True}, {"kind": "human", "take": True}]
    )
    finish(client, game_id, tokens, seed=5)
    assert client.get("/api/leaderboard").json() == {"players": [], "provisional": []}
    found = client.get("/api/my/games").json()["games"]
    assert [g["status"] for g in found] == ["finished"]
    ana = client.get("/api/session").json()["account"]
    profile = client.get(f"/api/players/{ana['id']}").json()["player"]
    assert (profile["games"], profile["rating"], profile["recent"][0]["rated"]) == (1, None, False)


def test_the_openapi_page_lists_every_account_endpoint_with_a_summary(
    client: TestClient,
) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    expected = {
        ("/api/accounts", "post"),
        ("/api/session", "post"),
        ("/api/session", "get"),
        ("/api/session", "delete"),
        ("/api/my/games", "get"),
        ("/api/players/{account_id}", "get"),
        ("/api/leaderboard", "get"),
    }
    for path, method in expected:
        assert paths[path][method]["summary"], (path, method)


def test_the_migration_adds_the_account_tables_to_an_existing_database(tmp_path: Path) -> None:
    store = Store(sqlite_url(tmp_path), game_end=settle)
    store.migrate()
    with store.engine.connect() as connection:
        names = {
            row[0]
            for row in connection.execute(text("SELECT name FROM sqlite_master WHERE type='table'"))
        }
        columns = {row[1] for row in connection.execute(text("PRAGMA table_info(seats)"))}
    assert {"accounts", "sessions", "ratings", "rating_changes", "seat_stats"} <= names
    assert "account_id" in columns
    store.close()


def test_the_language_migration_gives_existing_accounts_no_language_and_goes_back(
    tmp_path: Path,
) -> None:
    store = Store(sqlite_url(tmp_path), game_end=settle)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))

    def migrate(step: Any, revision: str) -> None:
        with store.engine.begin() as connection:
            config.attributes["connection"] = connection
            step(config, revision)

    def columns() -> set[str]:
        with store.engine.connect() as connection:
            return {row[1] for row in connection.execute(text("PRAGMA table_info(accounts)"))}

    migrate(command.upgrade, "0013")
    assert "language" not in columns()
    with store.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO accounts (name, name_key, password_hash, created_at, "
                "failed_sign_ins) VALUES ('Ana', 'ana', 'x', '2026-12-04', 0)"
            )
        )
    store.migrate()
    with store.engine.connect() as connection:
        rows = connection.execute(text("SELECT name, language FROM accounts")).all()
    assert [tuple(row) for row in rows] == [("Ana", None)]
    migrate(command.downgrade, "0013")
    assert "language" not in columns() and "name" in columns()
    store.close()


def test_my_games_leaves_out_games_called_off(tmp_path: Path) -> None:
    with client_for(sqlite_url(tmp_path)) as client:
        sign_up(client, "Ana")
        kept, _ = create_game(client, [{"kind": "human", "take": True}, {"kind": "human"}])
        called_off, _ = create_game(client, [{"kind": "human", "take": True}, {"kind": "human"}])
        store = Store(sqlite_url(tmp_path), game_end=settle)
        games = Base.metadata.tables["games"]
        with store.engine.begin() as connection:
            connection.execute(
                update(games).where(games.c.id == called_off).values(status="cancelled")
            )
        store.close()
        listed = [g["id"] for g in client.get("/api/my/games").json()["games"]]
    assert listed == [kept]
