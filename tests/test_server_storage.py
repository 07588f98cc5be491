"""Storage on SQLite, and on PostgreSQL when Debian's server programs are installed.

For PostgreSQL a throwaway cluster is initialised in a temporary folder and started on
loopback for this module (as the ``postgres`` user when the tests run as root).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from test_server_support import (
    client_for,
    free_port,
    hello,
    play_http,
    postgres_binaries,
    sqlite_url,
    state_of,
    two_humans,
)

from taluva.server.config import Settings
from taluva.server.games.service import GameService
from taluva.server.players.standings import settle
from taluva.server.storage.checkpoints import Checkpoints
from taluva.server.storage.store import (
    LIVE,
    MIGRATIONS,
    PlyTaken,
    Store,
    StoredGame,
    StoredSeat,
    now,
)

POSTGRES = postgres_binaries()
DATABASES = ["sqlite"] + (["postgresql"] if POSTGRES is not None else [])


def _as_postgres_user(command: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL cluster on 127.0.0.1 in a temporary folder, for this module."""
    assert POSTGRES is not None
    folder = Path(tempfile.mkdtemp(prefix="taluva-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data = folder / "data"
    port = free_port()
    subprocess.run(
        _as_postgres_user(
            [
                str(POSTGRES / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ]
        ),
        check=True,
        capture_output=True,
    )
    options = f"-h 127.0.0.1 -p {port} -k {folder} -c fsync=off"
    subprocess.run(
        _as_postgres_user(
            [
                str(POSTGRES / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(folder / "log"),
                "-w",
                "start",
            ]
        ),
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            _as_postgres_user(
                [str(POSTGRES / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]
            ),
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=DATABASES)
def database(request: Any, tmp_path: Path) -> Iterator[str]:
    """An empty database: a SQLite file, or a fresh PostgreSQL database in the cluster."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
        return
    server: str = request.getfixturevalue("postgres_server")
    name = f"t_{tmp_path.name.lower().replace('-', '_')}"[:60]
    admin = Store(server, game_end=settle)
    with admin.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.close()
    yield server.rsplit("/", 1)[0] + f"/{name}"


def new_game(game_id: str) -> StoredGame:
    stamp = now()
    return StoredGame(
        id=game_id,
        name="test",
        status=LIVE,
        options={"tiles_per_player": 12, "expansions": [], "house_rules": []},
        deck=["JC"] * 24,
        doubles=[],
        hints=True,
        ply=0,
        result=None,
        created_at=stamp,
        updated_at=stamp,
        seats=[StoredSeat(0, "human", "Ana", None, "a" * 64), StoredSeat(1, "human", "Ben")],
    )


def test_migrations_create_the_tables_and_running_them_again_changes_nothing(
    database: str,
) -> None:
    store = Store(database, game_end=settle)
    store.migrate()
    store.migrate()
    tables = set(inspect(store.engine).get_table_names())
    assert {"games", "seats", "moves", "alembic_version"} <= tables
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    newest = ScriptDirectory.from_config(config).get_current_head()
    assert newest == sorted(p.stem for p in (MIGRATIONS / "versions").glob("0*.py"))[-1][:4]
    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
            (newest,)
        ]
    store.close()


def test_a_game_is_read_back_exactly_as_stored(database: str) -> None:
    store = Store(database, game_end=settle)
    store.migrate()
    store.create_game(new_game("g1"))
    store.append_move("g1", 0, 0, "tile 0,0 0", LIVE, None)
    store.append_move("g1", 1, 0, "hut 1,0", LIVE, None)
    loaded = store.load_game("g1")
    assert loaded is not None
    assert (loaded.moves, loaded.move_seats, loaded.ply, loaded.status) == (
        ["tile 0,0 0", "hut 1,0"],
        [0, 0],
        2,
        LIVE,
    )
    assert [(s.seat, s.name, s.token_hash) for s in loaded.seats] == [
        (0, "Ana", "a" * 64),
        (1, "Ben", None),
    ]
    assert store.load_game("nope") is None
    assert store.unfinished_game_ids() == ["g1"]
    store.close()


def test_only_one_of_many_simultaneous_writers_stores_a_ply(database: str) -> None:
    store = Store(database, game_end=settle)
    store.migrate()
    store.create_game(new_game("race"))
    start = threading.Barrier(6)
    outcomes: list[str] = []

    def submit(orientation: int) -> None:
        start.wait()
        try:
            store.append_move("race", 0, 0, f"tile 0,0 {orientation}", LIVE, None)
            outcomes.append("stored")
        except PlyTaken:
            outcomes.append("taken")

    threads = [threading.Thread(target=submit, args=(k,)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["stored"] + ["taken"] * 5
    loaded = store.load_game("race")
    assert loaded is not None and len(loaded.moves) == 1 and loaded.ply == 1
    store.close()


def test_a_free_seat_is_claimed_once(database: str) -> None:
    store = Store(database, game_end=settle)
    store.migrate()
    store.create_game(new_game("seat"))
    assert store.claim_seat("seat", 1, "Ben", "b" * 64) is True
    assert store.claim_seat("seat", 1, "Cy", "c" * 64) is False
    assert store.claim_seat("seat", 0, "Dee", "d" * 64) is False
    loaded = store.load_game("seat")
    assert loaded is not None and [s.name for s in loaded.seats] == ["Ana", "Ben"]
    store.close()


def test_a_live_game_resumes_after_the_server_restarts(database: str) -> None:
    with client_for(database) as client:
        game_id, tokens = two_humans(client)
        for ply in range(3):
            state = state_of(client, game_id)
            response = play_http(client, game_id, tokens[state["to_move"]], ply, state["legal"][0])
            assert response.status_code == 200
        before = state_of(client, game_id)
    with client_for(database) as client:
        assert state_of(client, game_id) == before
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            welcome = hello(ws, [tokens[1]])
            assert welcome["seats"] == [1]
            ws.send_json({"type": "move", "state": 3, "move": before["legal"][0]})
            assert ws.receive_json()["ply"] == 3
        listed = client.get("/api/games?status=live").json()["games"]
        assert [(g["id"], g["ply"]) for g in listed] == [(game_id, 4)]


def test_sqlite_checkpoints_are_taken_by_a_thread_of_their_own_not_by_the_moves(
    tmp_path: Path,
) -> None:
    url = sqlite_url(tmp_path)
    database = tmp_path / "games.sqlite3"

    async def play() -> tuple[int, int, int]:
        service = GameService(Settings(database=url, ai_workers=0))
        service.checkpoints.every = 0.05
        await service.start()
        try:
            with service.store.engine.connect() as connection:
                automatic = connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar()
            room, _ = await service.create_game(
                {"seats": [{"kind": "human", "take": True}, {"kind": "human", "take": True}]}
            )
            before = database.stat().st_size
            for ply in range(12):
                await service.submit(room, {0, 1}, ply, sorted(room.state()["legal"])[0])
            await asyncio.sleep(0.5)  # ten rounds of the checkpoint thread
            after = database.stat().st_size
        finally:
            await service.stop()
        return automatic, before, after

    automatic, before, after = asyncio.run(play())
    assert automatic == 0  # commits never checkpoint themselves
    assert after > before  # the moves reached the database file all the same
    reread = Store(url, game_end=settle)
    stored = reread.load_game(reread.unfinished_game_ids()[0])
    reread.close()
    assert stored is not None and len(stored.moves) == 12


def test_a_failing_checkpoint_is_reported_once_and_the_rounds_go_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store(sqlite_url(tmp_path), checkpoints_apart=True, game_end=settle)
    store.migrate()
    calls: list[bool] = []

    def broken(*, final: bool = False) -> None:
        calls.append(final)
        if not final:
            raise OSError("disk I/O error")

    store.checkpoint = broken  # type: ignore[method-assign]
    rounds = Checkpoints(store, every=0.01)

    async def run() -> None:
        rounds.start()
        await asyncio.sleep(0.2)
        await rounds.stop()

    with caplog.at_level("WARNING", logger="taluva.server.storage.checkpoints"):
        asyncio.run(run())
    store.close()
    assert calls.count(False) >= 5 and calls[-1] is True  # kept trying, then the last one
    assert [r.getMessage() for r in caplog.records] == ["SQLite checkpoint failed; trying again"]


def test_processes_started_together_on_an_empty_database_all_bring_it_up(database: str) -> None:
    stores = [Store(database, game_end=settle) for _ in range(3)]
    start = threading.Barrier(len(stores))
    failures: list[BaseException] = []

    def migrate(store: Store) -> None:
        try:
            start.wait()
            store.migrate()
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=migrate, args=(store,)) for store in stores]
    for thread in threads:
        thread.daemon = True  # a hung migration must not keep the test process alive
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "the migrations wait on each other"
    assert failures == []
    assert all(store.at_head() for store in stores)
    for store in stores:
        store.close()
