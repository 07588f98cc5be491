"""Capacity: a server process holds only the games opened on it or due for its attention, lets
idle ones go, and with several processes hears only of the games it holds.

The one-process tests run a ``GameService`` on SQLite; the two-process ones run two services
in one event loop on a throwaway PostgreSQL and Redis, as two ``taluva serve --redis``
processes would share them."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as redis
from postgres import POSTGRES, Postgres
from test_server_cluster import nginx_in_front
from test_server_support import client_for, redis_server, sqlite_url

from taluva.server import Settings
from taluva.server.cluster.bus import POLL_SECONDS, Bus, channel
from taluva.server.games import clocks
from taluva.server.games.room import Room
from taluva.server.games.service import GameService
from taluva.server.storage.store import FINISHED, NewMove

HUNG = 30.0
"""Seconds after which a wait is taken to hang: only stops a broken test, never a slow one."""
HOT_SEAT = [
    {"kind": "human", "name": "Ana", "take": True},
    {"kind": "human", "name": "Ben", "take": True},
]


class Socket:
    """A watcher standing in for a client's WebSocket: keeps what it is sent."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def send(self, text: str) -> None:
        self.texts.append(text)


async def until(done: Any, what: str) -> None:
    """Wait until ``done()`` is true (checked every 20 ms), failing after ``HUNG`` seconds."""
    limit = time.monotonic() + HUNG
    while not done():
        assert time.monotonic() < limit, f"never happened: {what}"
        await asyncio.sleep(0.02)


async def play_one(service: GameService, room: Room) -> None:
    """Play the first legal move of the seat to move (both seats are held: hot-seat)."""
    ply = room.game.ply
    await service.submit(room, {0, 1}, ply, str(room.game.legal_moves()[0]))


def held(service: GameService) -> int:
    """How many games the service holds in memory, running or finished."""
    return len(service.rooms) + len(service.finished)


# ---------------------------------------------------------------- one process


def test_a_server_with_many_stored_games_holds_none_until_one_is_opened(tmp_path: Path) -> None:
    settings = Settings(database=sqlite_url(tmp_path), ai_workers=0)

    async def fill() -> list[str]:
        service = GameService(settings)
        await service.start()
        ids = []
        for _ in range(12):
            room, _ = await service.create_game({"seats": HOT_SEAT})
            await play_one(service, room)
            ids.append(room.id)
        await service.stop()
        return ids

    async def restart(ids: list[str]) -> tuple[int, int, int]:
        service = GameService(settings)
        await service.start()
        assert service.resuming is not None
        await service.resuming
        before = held(service)
        room = await service.room(ids[3])
        opened = held(service)
        assert room.game.ply == 1
        await service.stop()
        return before, opened, room.game.ply

    ids = asyncio.run(fill())
    assert asyncio.run(restart(ids)) == (0, 1, 1)
    # the lobby lists every one of them, held by no process
    with client_for(settings.database) as client:
        listed = client.get("/api/games", params={"status": "live"}).json()
        assert {ids[0], ids[11]} <= {game["id"] for game in listed["games"]}
        assert client.get(f"/api/games/{ids[5]}").json()["state"]["ply"] == 1


def test_a_game_let_go_when_idle_is_loaded_again_and_plays_on(tmp_path: Path) -> None:
    settings = Settings(database=sqlite_url(tmp_path), ai_workers=0)

    async def scenario() -> None:
        service = GameService(settings)
        await service.start()
        room, _ = await service.create_game({"seats": HOT_SEAT})
        room.take_host_token()  # the creation's answer sent it
        await play_one(service, room)
        socket = Socket()
        room.watch(socket)
        service.registry.unload_after = 0.0
        assert service.registry.unload_idle() == 0  # a socket holds it
        room.unwatch(socket)
        assert service.registry.unload_idle() == 1
        assert held(service) == 0
        again = await service.room(room.id)
        assert again is not room and again.game.ply == 1
        await play_one(service, again)
        await play_one(service, again)
        stored = await service.db(service.store.load_game, room.id)
        assert stored is not None and len(stored.moves) == 3
        await service.stop()

    asyncio.run(scenario())


def test_a_clock_that_runs_out_in_a_game_not_held_ends_it(tmp_path: Path) -> None:
    settings = Settings(database=sqlite_url(tmp_path), ai_workers=0)

    async def scenario() -> None:
        service = GameService(settings)
        await service.start()
        clock = {"kind": "fischer", "base": 5, "increment": 0}  # beyond DUE_LEAD_MS
        room, _ = await service.create_game({"seats": HOT_SEAT, "clock": clock})
        room.take_host_token()
        service.registry.unload_after = 0.0
        assert service.registry.unload_idle() == 1
        assert held(service) == 0

        def ended() -> bool:
            game = service.store.load_game(room.id)
            return game is not None and game.status == FINISHED

        await until(ended, "the clock of a game nobody holds ended it")
        stored = service.store.load_game(room.id)
        assert stored is not None and stored.result is not None
        assert stored.result["reason"] == "timeout"
        await service.stop()

    asyncio.run(scenario())


def test_the_database_names_the_games_whose_clock_runs_out_or_that_lie_idle(
    tmp_path: Path,
) -> None:
    settings = Settings(database=sqlite_url(tmp_path), ai_workers=0)

    async def scenario() -> None:
        service = GameService(settings)
        await service.start()
        store = service.store
        clock = {"kind": "fischer", "base": 60, "increment": 0}
        timed, _ = await service.create_game({"seats": HOT_SEAT, "clock": clock})
        untimed, _ = await service.create_game({"seats": HOT_SEAT})
        end = clocks.deadline(timed.meta.clock)
        assert end is not None
        long_ago = datetime(2000, 1, 1, tzinfo=UTC)
        assert store.due_games(end - 1, long_ago) == []
        assert store.due_games(end, long_ago) == [timed.id]
        await play_one(service, timed)  # the tile, then the build: a turn
        await play_one(service, timed)  # the clock passes to the other seat: a new deadline
        later = clocks.deadline(timed.meta.clock)
        assert later is not None and later > end
        assert store.due_games(end, long_ago) == []
        assert store.due_games(later, long_ago) == [timed.id]
        await service.lifecycle.resign(timed, {0, 1}, 0)  # over: no deadline any more
        assert store.due_games(later, long_ago) == []
        assert store.due_games(-1, datetime.now(UTC)) == [untimed.id]
        await service.stop()

    asyncio.run(scenario())


def test_a_room_behind_the_database_for_one_look_is_not_taken_for_stale(
    tmp_path: Path,
) -> None:
    """Another process stored a move whose broadcast is on its way: the room is behind the
    database for that moment, which is no missed change. Behind at two looks, it is."""
    settings = Settings(database=sqlite_url(tmp_path), ai_workers=0)

    async def scenario() -> None:
        service = GameService(settings)
        await service.start()
        room, _ = await service.create_game({"seats": HOT_SEAT})
        registry, store = service.registry, service.store

        def store_elsewhere() -> dict[str, Any]:
            game = room.game.copy()
            text = str(game.legal_moves()[0])
            seat = game.to_move
            store.append_moves([NewMove(room.id, game.ply, seat, text, "live", None)])
            return {"type": "move", "ply": game.ply, "seat": seat, "move": text}

        message = store_elsewhere()
        assert await registry.stale() == []
        async with room.lock:
            assert registry.apply_remote(room, message, {"status": "live"})  # it arrived
        assert await registry.stale() == []
        store_elsewhere()  # and this one's broadcast never comes
        assert await registry.stale() == []
        assert await registry.stale() == [room]
        await service.stop()

    asyncio.run(scenario())


def test_a_room_read_again_and_found_moved_on_shows_its_watchers_the_new_state(
    tmp_path: Path,
) -> None:
    """Whatever reads a game again (a stale move, the AI check, Redis coming back), its
    watchers learn of the change: the comparison with the database then finds nothing
    missing, so it would never tell them."""
    settings = Settings(database=sqlite_url(tmp_path), ai_workers=0)

    async def scenario() -> list[dict[str, Any]]:
        service = GameService(settings)
        await service.start()
        room, _ = await service.create_game({"seats": HOT_SEAT})
        socket = Socket()
        room.watch(socket)
        game = room.game.copy()
        text = str(game.legal_moves()[0])
        service.store.append_moves([NewMove(room.id, 0, game.to_move, text, "live", None)])
        async with room.lock:
            await service.registry.resync(room)
            await service.registry.resync(room)  # nothing new: nothing said
        await service.stop()
        return [json.loads(text) for text in socket.texts]

    told = asyncio.run(scenario())
    assert [(m["type"], m["state"]["ply"]) for m in told] == [("state", 1)]


# ---------------------------------------------------------------- two processes

needs_postgres = pytest.mark.skipif(POSTGRES is None, reason="PostgreSQL is not installed")


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The database and Redis two server processes share: their URLs."""
    with Postgres() as cluster, redis_server() as url:
        yield cluster.database("capacity"), url


async def subscribers(url: str, game_id: str) -> int:
    """How many connections Redis counts on a game's channel."""
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        counts = await client.pubsub_numsub(channel(game_id))
        return int(counts[0][1])
    finally:
        await client.aclose()


def test_a_game_followed_again_before_its_unfollow_was_sent_stays_followed() -> None:
    """A process lets a game go and opens it again within one pass of the bus's listener:
    the subscription is kept, not ended by the unfollow still queued."""

    async def nothing(*_: Any) -> None:
        """Delivers nowhere."""

    async def scenario(url: str) -> list[int]:
        bus = Bus(url)
        await bus.start(nothing, nothing)
        try:
            await bus.follow("g1")
            counts = [await subscribers(url, "g1")]
            bus.unfollow("g1")
            await bus.follow("g1")
            await asyncio.sleep(POLL_SECONDS * 10)  # several passes of the listener
            counts.append(await subscribers(url, "g1"))
            bus.unfollow("g1")
            await until(lambda: "g1" not in bus._subscribed, "the unfollow was sent")
            counts.append(await subscribers(url, "g1"))
            return counts
        finally:
            await bus.stop()

    with redis_server() as url:
        assert asyncio.run(scenario(url)) == [1, 1, 0]


@needs_postgres
def test_a_broadcast_reaches_only_the_processes_that_hold_its_game(
    shared: tuple[str, str],
) -> None:
    database, url = shared

    async def scenario() -> None:
        one = GameService(Settings(database=database, redis=url, ai_workers=0))
        two = GameService(Settings(database=database, redis=url, ai_workers=0))
        await one.start()
        await two.start()
        try:
            room, _ = await one.create_game({"seats": HOT_SEAT})
            await until(lambda: room.id in one.cluster.bus._confirmed, "one follows its game")  # type: ignore[union-attr]
            assert await subscribers(url, room.id) == 1
            heard: list[str] = []
            assert two.cluster is not None
            bus = two.cluster.bus
            handle = bus._deliver

            async def probe(message: dict[str, Any], deliver: Any) -> None:
                if message.get("type") == "message":
                    heard.append(message["channel"])
                await handle(message, deliver)

            bus._deliver = probe  # type: ignore[method-assign]
            await play_one(one, room)
            other, _ = await one.create_game({"seats": HOT_SEAT})
            await until(lambda: other.id in one.cluster.bus._confirmed, "one follows the next")  # type: ignore[union-attr]
            await play_one(one, other)
            await until(lambda: other.game.ply == 1, "the second game moved")
            await asyncio.sleep(0.2)  # time enough for a stray broadcast to arrive
            assert heard == []
            copy = await two.room(room.id)  # two opens the game: it hears of it from now on
            assert await subscribers(url, room.id) == 2
            await play_one(one, room)
            await until(lambda: copy.game.ply == 2, "two heard of the move")
            assert heard == [channel(room.id)]
            two.registry.unload_after = 0.0
            assert two.registry.unload_idle() == 1
            await until(lambda: room.id not in two.cluster.bus._subscribed, "two let go")  # type: ignore[union-attr]
            assert await subscribers(url, room.id) == 1
        finally:
            await two.stop()
            await one.stop()

    asyncio.run(scenario())


@needs_postgres
def test_a_move_on_one_process_reaches_a_socket_on_the_other(shared: tuple[str, str]) -> None:
    database, url = shared

    async def scenario() -> None:
        one = GameService(Settings(database=database, redis=url, ai_workers=0))
        two = GameService(Settings(database=database, redis=url, ai_workers=0))
        await one.start()
        await two.start()
        try:
            room, _ = await one.create_game({"seats": HOT_SEAT})
            copy = await two.room(room.id)
            socket = Socket()
            copy.watch(socket)
            for _ in range(4):
                await play_one(one, room)
            await until(lambda: copy.game.ply == 4, "two's copy took the four moves")
            moves = [text for text in socket.texts if json.loads(text)["type"] == "move"]
            assert len(moves) == 4
            await play_one(two, copy)  # and back the other way
            await until(lambda: room.game.ply == 5, "one took two's move")
        finally:
            await two.stop()
            await one.stop()

    asyncio.run(scenario())


# ---------------------------------------------------------------- routing


class _Answer(BaseHTTPRequestHandler):
    """Answers every GET with the port of the server that took it."""

    def do_GET(self) -> None:
        body = str(self.server.server_address[1]).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:
        """Quiet."""


@contextmanager
def stand_ins() -> Iterator[list[int]]:
    """Two HTTP servers on loopback that answer with their own port: the processes."""
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), _Answer) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield [server.server_address[1] for server in servers]
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def test_nginx_sends_each_games_requests_and_socket_to_one_process(tmp_path: Path) -> None:
    with stand_ins() as ports, nginx_in_front(ports, tmp_path) as port:
        site = f"http://127.0.0.1:{port}"
        chosen = {}
        for number in range(24):
            game_id = f"game{number}"
            paths = [f"/api/games/{game_id}", f"/api/games/{game_id}/record"]
            paths += [f"/ws/games/{game_id}"] * 2
            answers = {httpx.get(site + path).text for path in paths}
            assert len(answers) == 1, (game_id, answers)
            chosen[game_id] = answers.pop()
        assert set(chosen.values()) == {str(p) for p in ports}  # the games are spread
        lobby = {httpx.get(f"{site}/api/games").text for _ in range(8)}
        assert lobby == {str(p) for p in ports}  # no game id: round-robin
