"""Helpers shared by the server's tests: an app on a temporary database, games, hellos.

This module holds no tests itself; the ``test_server_*`` modules import from it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from fastapi.testclient import TestClient

from taluva import Game
from taluva.server import Limits, Settings, create_app
from taluva.server.players.standings import rated_seats
from taluva.server.storage.store import FINISHED, LIVE, NewMove, Store, StoredGame, StoredSeat, now

ROOT = Path(__file__).resolve().parent.parent


def sqlite_url(directory: Path) -> str:
    """A SQLite database file in ``directory``."""
    return f"sqlite:///{directory / 'games.sqlite3'}"


@contextmanager
def client_for(
    database: str,
    address: tuple[str, int] = ("testclient", 50000),
    proxies: tuple[str, ...] = (),
    **limits: Any,
) -> Iterator[TestClient]:
    """An in-process server on ``database`` (AI seats in threads), started and stopped; its
    requests come from ``address``, and ``proxies`` are the trusted proxies."""
    settings = Settings(
        database=database,
        ai_workers=0,
        hint_level=1,
        limits=Limits(**limits),
        forwarded_allow_ips=proxies,
    )
    with TestClient(create_app(settings), client=address) as client:
        yield client


def create_game(
    client: TestClient, seats: list[dict[str, Any]], **options: Any
) -> tuple[str, dict[int, str]]:
    """Create a game; return its id and the tokens of the seats taken, by seat."""
    response = client.post("/api/games", json={"seats": seats, **options})
    assert response.status_code == 201, response.text
    body = response.json()
    return body["game"]["id"], {entry["seat"]: entry["token"] for entry in body["tokens"]}


def two_humans(client: TestClient) -> tuple[str, dict[int, str]]:
    """A live game of two people, both seats held by this client (hot-seat)."""
    return create_game(
        client,
        [
            {"kind": "human", "name": "Ana", "take": True},
            {"kind": "human", "name": "Ben", "take": True},
        ],
    )


def hello(ws: Any, tokens: list[str], **extra: Any) -> dict[str, Any]:
    """Say hello on a game socket and return the welcome."""
    ws.send_json({"type": "hello", "tokens": tokens, **extra})
    message: dict[str, Any] = ws.receive_json()
    assert message["type"] == "welcome", message
    return message


def state_of(client: TestClient, game_id: str) -> dict[str, Any]:
    """The current public state of a game, over HTTP."""
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    state: dict[str, Any] = response.json()["state"]
    return state


def play_http(client: TestClient, game_id: str, token: str, state: int, move: str) -> Any:
    """Submit a move over HTTP with a seat token; return the response."""
    return client.post(
        f"/api/games/{game_id}/moves",
        json={"state": state, "move": move},
        headers={"authorization": f"Bearer {token}"},
    )


def store_game(
    store: Store,
    game_id: str,
    game: Game,
    seats: list[StoredSeat],
    name: str | None = None,
    stamp: datetime | None = None,
    rated: bool | None = None,
) -> None:
    """Store ``game`` through the server's own Store as game ``game_id`` of ``seats``: its
    start, then each move by the seat that played it; the move that ends the game is stored
    finished with the result, which settles it. ``name`` defaults to the id, ``stamp`` (when
    it was created) to now; ``rated`` to whether every seat is an account or an AI level."""
    record = game.to_record()
    created = now() if stamp is None else stamp
    store.create_game(
        StoredGame.starting(
            game_id,
            game_id if name is None else name,
            record,
            seats,
            status=LIVE,
            hints=False,
            stamp=created,
            rated=rated_seats(seats) is not None if rated is None else rated,
        )
    )
    replay = Game.from_record({**record, "moves": [], "result": None})
    moves = []
    for ply, text in enumerate(record["moves"]):
        seat = replay.to_move
        replay.play(text)
        result = None if replay.result is None else replay.result.to_json()
        status = LIVE if result is None else FINISHED
        moves.append(NewMove(game_id, ply, seat, text, status, result))
    assert store.append_moves(moves) == [None] * len(moves)


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(
    database: str, port: int, *extra: str, new_session: bool = False
) -> subprocess.Popen[str]:
    """Run ``taluva serve`` as a real process; return once uvicorn says it is listening.

    With ``new_session`` it leads a process group of its own, so its children can be found.
    """
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "taluva",
            "serve",
            "--port",
            str(port),
            "--database",
            database,
            "--ai-workers",
            "0",
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=new_session,
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # uvicorn logs this line once the socket is bound
        seen.append(line)
        if "Uvicorn running on" in line:
            threading.Thread(target=_drain, args=(process.stderr,), daemon=True).start()
            return process
    process.wait()
    raise RuntimeError("server exited before listening:\n" + "".join(seen))


class LiveServer:
    """``taluva serve`` as a real process on a SQLite file in a folder of its own, which it
    removes on exit; started when asked (the database may be filled first), restartable on
    the same port and database."""

    def __init__(self, *extra: str) -> None:
        self.extra = extra
        self.folder = Path(tempfile.mkdtemp(prefix="taluva-server-"))
        self.database = sqlite_url(self.folder)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.process = start_server(self.database, self.port, *self.extra)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=15)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> LiveServer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def _drain(stream: Any) -> None:
    for _line in stream:
        pass


def postgres_binaries() -> Path | None:
    """The folder of Debian's PostgreSQL server programs, if they are installed."""
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_ctl") else None


@contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway Redis (Debian's redis-server) on loopback, without persistence; its URL."""
    program = shutil.which("redis-server")
    assert program is not None, "redis-server is missing: run scripts/ci-system-deps.sh"
    port = free_port()
    process = subprocess.Popen(
        [program, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    seen = []
    for line in process.stdout:
        seen.append(line)
        if "Ready to accept connections" in line:
            threading.Thread(target=_drain, args=(process.stdout,), daemon=True).start()
            break
    else:
        process.wait()
        raise RuntimeError("redis-server exited before listening:\n" + "".join(seen))
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.kill()
        process.wait()


def stored_game(game: Game, game_id: str, movers: list[int] | None = None) -> StoredGame:
    """What the store would hold of ``game`` (a person in every seat, under the game's player
    names), live or finished as the game is; ``movers`` the seat of each move (all 0 if not
    given)."""
    record = game.to_record()
    stamp = now()
    return StoredGame(
        id=game_id,
        name=game_id,
        status=FINISHED if game.is_over else LIVE,
        options=record["options"],
        deck=record["deck"],
        doubles=record["doubles"],
        hints=True,
        ply=game.ply,
        result=record["result"],
        created_at=stamp,
        updated_at=stamp,
        seats=[StoredSeat(seat, "human", name) for seat, name in enumerate(record["players"])],
        move_seats=[0] * game.ply if movers is None else movers,
    )
