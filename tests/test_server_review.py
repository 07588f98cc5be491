"""Game reviews on the server (``taluva.server.games.reviews``): asked for once a game is over,
computed in chunks on the AI workers with progress for the game's watchers, equal to
``taluva review`` of the game's record, stored and served after a restart."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import test_server_storage
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text
from test_server_support import (
    hello,
    play_http,
    redis_server,
    sqlite_url,
    state_of,
    two_humans,
)

from taluva import Game
from taluva.ai.review import review
from taluva.cli import main
from taluva.server import Settings, create_app
from taluva.server.ai import workers
from taluva.server.games.reviews import CHUNK_PLIES, chunks, merge
from taluva.server.games.view import review_view
from taluva.server.players.standings import settle
from taluva.server.storage.store import Store

database = test_server_storage.database
postgres_server = test_server_storage.postgres_server
"""Every database test runs on SQLite and, when installed, PostgreSQL."""

BLUNDER_GAME = Path(__file__).resolve().parent / "data" / "review_blunder.json"
ITERATIONS = 4
PLIES = 10


@pytest.fixture(scope="module")
def whole() -> Game:
    """The game of tests/data/review_blunder.json: 48 moves, over when the tiles ran out."""
    return Game.load(BLUNDER_GAME)


@pytest.fixture(scope="module")
def finished(whole: Game) -> Game:
    """A short finished game: the first ``PLIES`` moves of ``whole``, then Ben resigns."""
    game = whole.copy()
    while game.ply > PLIES:
        game.pop()
    game.resign(1)
    return game


@contextmanager
def server(database: str, redis: str | None = None, **options: Any) -> Iterator[TestClient]:
    """An in-process server on ``database`` whose reviews search ``ITERATIONS`` a position
    (one of several server processes sharing ``redis``, if given; other ``options`` of its
    settings)."""
    settings = Settings(
        database=database, ai_workers=0, review_iterations=ITERATIONS, redis=redis, **options
    )
    with TestClient(create_app(settings)) as client:
        yield client


def finished_game(client: TestClient) -> str:
    """A game of two people who play ``PLIES`` moves (the first legal one each time), after
    which Ben resigns: over, and quick to review."""
    game_id, tokens = two_humans(client)
    for _ in range(PLIES):
        state = state_of(client, game_id)
        token = tokens[state["to_move"]]
        played = play_http(client, game_id, token, state["ply"], state["legal"][0])
        assert played.status_code == 200, played.text
    resigned = client.post(
        f"/api/games/{game_id}/resign", headers={"authorization": f"Bearer {tokens[1]}"}
    )
    assert resigned.status_code == 200, resigned.text
    assert state_of(client, game_id)["status"] == "finished"
    return game_id


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The chunks the AI workers review, as ``(first, last)``, in order."""
    calls: list[tuple[int, int]] = []
    lock = threading.Lock()
    original = workers.review_plies

    def counting(record: dict[str, Any], iterations: int, first: int, last: int) -> Any:
        with lock:
            calls.append((first, last))
        return original(record, iterations, first, last)

    monkeypatch.setattr(workers, "review_plies", counting)
    return calls


def until_done(ws: Any) -> list[dict[str, Any]]:
    """The ``review`` messages a watcher receives, up to the one that ends the review."""
    seen = []
    while True:
        message = ws.receive_json()
        assert message["type"] == "review", message
        seen.append(message)
        if message["status"] in ("done", "failed"):
            return seen


def test_the_migration_creates_the_reviews_table(database: str) -> None:
    store = Store(database, game_end=settle)
    store.migrate()
    columns = [column["name"] for column in inspect(store.engine).get_columns("reviews")]
    store.close()
    assert columns == ["game_id", "iterations", "review", "created_at"]


@pytest.mark.parametrize(("which", "size"), [("short", 1), ("short", 3), ("whole", CHUNK_PLIES)])
def test_chunks_meeting_at_their_ends_merge_into_the_review_of_the_whole_game(
    finished: Game, whole: Game, which: str, size: int
) -> None:
    game = finished if which == "short" else whole
    parts = [
        review(game, ITERATIONS, first=first, last=last).to_json()
        for first, last in chunks(len(game.moves), size)
    ]
    assert len(parts) > 1
    assert merge(parts) == review(game, ITERATIONS).to_json()


def test_chunks_cover_every_move_once_and_a_game_without_moves_is_one_position() -> None:
    assert chunks(9, 4) == [(0, 4), (4, 8), (8, 9)]
    assert chunks(8, 4) == [(0, 4), (4, 8)]
    assert chunks(0, 4) == [(0, 0)]


def test_a_review_is_refused_before_the_game_ends(tmp_path: Path) -> None:
    with server(sqlite_url(tmp_path)) as client:
        game_id, _tokens = two_humans(client)
        for method in ("POST", "GET"):
            response = client.request(method, f"/api/games/{game_id}/review")
            assert response.status_code == 409, method
            assert response.json()["error"]["code"] == "not-finished"
            assert "is not over" in response.json()["error"]["message"]


def test_watchers_see_the_progress_and_the_result_is_the_review_of_the_record(
    database: str, counted: list[tuple[int, int]]
) -> None:
    positions = PLIES + 1
    with server(database) as client:
        game_id = finished_game(client)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, [])
            asked = client.post(f"/api/games/{game_id}/review")
            assert asked.status_code == 202, asked.text
            assert asked.json() == {
                "game": game_id,
                "status": "queued",
                "done": 0,
                "total": positions,
            }
            seen = until_done(ws)
        record = client.get(f"/api/games/{game_id}/record").json()
        served = client.get(f"/api/games/{game_id}/review")
    statuses = [message["status"] for message in seen]
    assert statuses[:2] == ["queued", "running"]
    assert statuses[-1] == "done"
    assert set(statuses[2:-1]) == {"running"}
    dones = [message["done"] for message in seen]
    assert dones == sorted(dones) and dones[0] == 0 and dones[-1] == positions
    assert {message["total"] for message in seen} == {positions}
    game = Game.from_record(record)
    expected = review_view(review(game, ITERATIONS).to_json(), game)
    assert seen[-1]["review"] == expected
    assert served.status_code == 200
    assert served.json() == {key: value for key, value in seen[-1].items() if key != "type"}
    assert counted == chunks(PLIES)


def test_a_done_review_is_stored_and_served_at_once_after_a_restart(
    database: str, counted: list[tuple[int, int]]
) -> None:
    with server(database) as client:
        game_id = finished_game(client)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, [])
            client.post(f"/api/games/{game_id}/review")
            first = until_done(ws)[-1]["review"]
    computed = len(counted)
    with server(database) as client:
        served = client.get(f"/api/games/{game_id}/review")
        asked = client.post(f"/api/games/{game_id}/review")
    assert served.status_code == 200 and asked.status_code == 200
    positions = PLIES + 1
    for answer in (served.json(), asked.json()):
        assert answer == {
            "game": game_id,
            "status": "done",
            "done": positions,
            "total": positions,
            "review": first,
        }
    assert len(counted) == computed  # nothing was searched again


def hold_reviews(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Make every review's search wait until the returned event is set (30 s at most)."""
    original = workers.review_plies
    go_on = threading.Event()

    def held(record: dict[str, Any], iterations: int, first: int, last: int) -> Any:
        assert go_on.wait(30), "the test never let the review go on"
        return original(record, iterations, first, last)

    monkeypatch.setattr(workers, "review_plies", held)
    return go_on


def test_asking_twice_joins_the_review_that_runs(
    tmp_path: Path, counted: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The review waits until both requests are answered: on an idle machine it could end
    # before the second request, which would then be answered "done" (200).
    asked = hold_reviews(monkeypatch)
    with server(sqlite_url(tmp_path)) as client:
        game_id = finished_game(client)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, [])
            answers = [client.post(f"/api/games/{game_id}/review") for _ in range(2)]
            asked.set()
            seen = until_done(ws)
    assert [answer.status_code for answer in answers] == [202, 202]
    assert [m["status"] for m in seen].count("queued") == 1
    assert counted == chunks(PLIES)


def test_reviews_beyond_the_limit_at_once_are_refused_until_one_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    go_on = hold_reviews(monkeypatch)
    with server(sqlite_url(tmp_path), reviews_at_once=1) as client:
        first, second = finished_game(client), finished_game(client)
        with client.websocket_connect(f"/ws/games/{first}") as ws:
            hello(ws, [])
            assert client.post(f"/api/games/{first}/review").status_code == 202
            refused = client.post(f"/api/games/{second}/review")
            go_on.set()
            assert until_done(ws)[-1]["status"] == "done"
        again = client.post(f"/api/games/{second}/review")
    assert (refused.status_code, refused.headers["retry-after"]) == (429, "60")
    assert refused.json() == {
        "error": {
            "code": "rate-limited",
            "message": "the server is reviewing as many games as it takes at once (1): "
            "ask again when one is done",
        }
    }
    assert again.status_code == 202


def test_a_failed_review_is_told_and_asking_again_tries_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = workers.review_plies

    def broken(record: dict[str, Any], iterations: int, first: int, last: int) -> Any:
        raise RuntimeError("no search today")

    with server(sqlite_url(tmp_path)) as client:
        game_id = finished_game(client)
        monkeypatch.setattr(workers, "review_plies", broken)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, [])
            client.post(f"/api/games/{game_id}/review")
            failed = until_done(ws)[-1]
            assert failed["status"] == "failed"
            assert failed["error"] == "the review failed: no search today"
            assert client.get(f"/api/games/{game_id}/review").json()["status"] == "failed"
            monkeypatch.setattr(workers, "review_plies", original)
            again = client.post(f"/api/games/{game_id}/review")
            assert again.status_code == 202
            assert until_done(ws)[-1]["status"] == "done"


def test_bad_ids_and_bodies_get_the_documented_errors(tmp_path: Path) -> None:
    with server(sqlite_url(tmp_path)) as client:
        game_id = finished_game(client)
        unknown = client.get("/api/games/nosuchgame/review")
        malformed = client.post("/api/games/bad*id/review")
        not_asked = client.get(f"/api/games/{game_id}/review")
        extra = client.post(f"/api/games/{game_id}/review", json={"iterations": 5000})
        broken = client.post(
            f"/api/games/{game_id}/review",
            content=b"{not json",
            headers={"content-type": "application/json"},
        )
        still_not_asked = client.get(f"/api/games/{game_id}/review")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "not-found")
    assert (malformed.status_code, malformed.json()["error"]["code"]) == (404, "not-found")
    assert (not_asked.status_code, not_asked.json()["error"]["code"]) == (404, "not-found")
    assert "POST to ask for one" in not_asked.json()["error"]["message"]
    assert (extra.status_code, extra.json()["error"]["code"]) == (422, "bad-request")
    assert "iterations" in extra.json()["error"]["message"]
    assert broken.status_code == 400
    assert broken.json()["error"]["code"] == "bad-request"
    assert still_not_asked.status_code == 404  # a refused request started nothing


def test_with_several_processes_the_review_runs_where_asked_and_every_watcher_sees_it(
    postgres_server: str, tmp_path: Path
) -> None:
    name = f"t_{tmp_path.name.lower().replace('-', '_')}"[:60]
    admin = Store(postgres_server, game_end=settle)
    with admin.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.close()
    shared = postgres_server.rsplit("/", 1)[0] + f"/{name}"
    with redis_server() as redis, server(shared, redis) as first, server(shared, redis) as second:
        game_id = finished_game(first)
        with second.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, [])
            asked = first.post(f"/api/games/{game_id}/review")
            assert asked.status_code == 202
            seen = until_done(ws)
        served = second.get(f"/api/games/{game_id}/review")
        record = first.get(f"/api/games/{game_id}/record").json()
    assert [m["status"] for m in seen][-1] == "done"
    game = Game.from_record(record)
    expected = review_view(review(game, ITERATIONS).to_json(), game)
    assert seen[-1]["review"] == expected
    assert served.json()["review"] == expected


def test_serve_takes_the_review_iterations_and_refuses_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--review-iterations", "0"]) == 2
    assert capsys.readouterr().err == "taluva: error: --review-iterations must be 1 or more\n"
    assert main(["serve", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "--review-iterations N search iterations per position of a game review" in shown
    assert "--reviews-at-once N game reviews queued or running at once" in shown
    assert main(["serve", "--reviews-at-once", "0"]) == 2
    assert capsys.readouterr().err == "taluva: error: --reviews-at-once must be 1 or more\n"


def test_a_game_let_go_and_loaded_again_while_reviewed_still_hears_of_its_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = workers.review_plies
    go_on = threading.Event()

    def held(record: dict[str, Any], iterations: int, first: int, last: int) -> Any:
        assert go_on.wait(timeout=30)
        return original(record, iterations, first, last)

    monkeypatch.setattr(workers, "review_plies", held)
    settings = Settings(
        database=sqlite_url(tmp_path), ai_workers=0, review_iterations=ITERATIONS, finished_cache=1
    )
    with TestClient(create_app(settings)) as client:
        reviewed = finished_game(client)
        assert client.post(f"/api/games/{reviewed}/review").status_code == 202
        finished_game(client)  # the server keeps one finished game: it lets the first go
        with client.websocket_connect(f"/ws/games/{reviewed}") as ws:
            hello(ws, [])  # the game is read again from the database
            go_on.set()
            seen = until_done(ws)
    assert seen[-1]["status"] == "done"
    assert seen[-1]["done"] == PLIES + 1
