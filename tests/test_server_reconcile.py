"""Games never stall: a real server process on a PostgreSQL and a Redis that the tests take
away and give back. An AI turn due is asked for again when Redis lost its job; an AI answer
that came while PostgreSQL was down is played once it is back, once only; and a clock that
ran out meanwhile ends its game then."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import redis
from postgres import POSTGRES, LoggedServer, Postgres
from test_server_support import free_port

from taluva.server.ai.queue import HUMAN_JOBS, RESULTS, SERVERS
from taluva.server.ai.worker import work
from taluva.server.games.lifecycle import DEADLINE_RETRY

pytestmark = pytest.mark.skipif(POSTGRES is None, reason="PostgreSQL is not installed")

HUNG = 60.0
"""Seconds after which a wait is taken to hang: only stops a broken test, never a slow one."""
CLOCK_SECONDS = 4
"""The clock of the timed game: long enough to be created before the database goes down."""
AI_FIRST = [{"kind": "ai", "level": 1}, {"kind": "human", "take": True}]


class Redis:
    """A throwaway Redis on a fixed port of loopback, without persistence, that the test can
    stop (losing everything it held, as a restart without persistence does) and start again."""

    def __init__(self) -> None:
        program = shutil.which("redis-server")
        assert program is not None, "redis-server is missing: run scripts/ci-system-deps.sh"
        self.program = program
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        command = [self.program, "--port", str(self.port), "--bind", "127.0.0.1"]
        self.process = subprocess.Popen(
            [*command, "--save", "", "--appendonly", "no"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if "Ready to accept connections" in line:
                threading.Thread(target=self.process.stdout.read, daemon=True).start()
                return
        raise RuntimeError("redis-server exited before listening")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, decode_responses=True)


@pytest.fixture
def postgres() -> Iterator[Postgres]:
    with Postgres() as cluster:
        yield cluster


@pytest.fixture
def redis_service() -> Iterator[Redis]:
    service = Redis()
    service.start()
    try:
        yield service
    finally:
        service.stop()


@contextmanager
def serving(database: str, redis_url: str) -> Iterator[LoggedServer]:
    server = LoggedServer(database, "--redis", redis_url)
    try:
        server.wait_ready()
        yield server
    finally:
        server.close()


@contextmanager
def ai_worker(redis_url: str) -> Iterator[None]:
    """An AI worker (the loop of ``taluva ai-worker``) in a thread."""
    stop = threading.Event()
    thread = threading.Thread(target=work, args=(redis_url,), kwargs={"stop": stop}, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=HUNG)


def wait_for(what: str, ready: Callable[[], Any], server: LoggedServer) -> Any:
    """Poll ``ready`` until it answers something true, and return that."""
    deadline = time.monotonic() + HUNG
    while True:
        try:
            found = ready()
        except httpx.HTTPError:
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, f"{what}: never; the server logged:\n" + "".join(
            server.log[-40:]
        )
        time.sleep(0.1)


def state_of(server: LoggedServer, game_id: str) -> dict[str, Any] | None:
    """The game's state, or None while the server cannot answer (the database is down)."""
    answer = httpx.get(f"{server.url}/api/games/{game_id}", timeout=10)
    if answer.status_code != 200:
        return None
    state: dict[str, Any] = answer.json()["state"]
    return state


def ply_of(server: LoggedServer, game_id: str) -> int:
    """The game's ply, or -1 while the server cannot answer."""
    state = state_of(server, game_id)
    return -1 if state is None else int(state["ply"])


def create(server: LoggedServer) -> tuple[str, str]:
    """A game whose AI seat moves first, against a person; its id and the person's token."""
    body = httpx.post(f"{server.url}/api/games", json={"seats": AI_FIRST}, timeout=30).json()
    return body["game"]["id"], body["tokens"][0]["token"]


def play(server: LoggedServer, game_id: str, token: str) -> int:
    """The person plays the first legal move; the ply reached."""
    state = state_of(server, game_id)
    assert state is not None and state["to_move"] == 1, state
    answer = httpx.post(
        f"{server.url}/api/games/{game_id}/moves",
        json={"state": state["ply"], "move": state["legal"][0]},
        headers={"authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    return int(state["ply"]) + 1


def test_an_ai_turn_lost_with_redis_is_played_without_restarting_a_server(
    postgres: Postgres, redis_service: Redis
) -> None:
    client = redis_service.client()
    with serving(postgres.database("lost_redis"), redis_service.url) as server:
        game_id, token = create(server)
        wait_for("the AI's first turn asked for", lambda: client.xlen(HUMAN_JOBS), server)
        client.flushall()  # Redis loses the job, the key that it was asked, the groups
        with ai_worker(redis_service.url):
            # Nobody restarts: the server finds the turn due with no job, and asks again.
            wait_for("the AI's first turn", lambda: ply_of(server, game_id) >= 2, server)
            play(server, game_id, token)
            redis_service.stop()  # down while the person ends their turn: the AI is due
            ply = play(server, game_id, token)
            wait_for(
                "the server finding Redis gone",
                lambda: any("cannot queue the AI turn" in line for line in server.log),
                server,
            )
            redis_service.start()  # empty, as after a restart without persistence
            wait_for(
                "the AI's turn after Redis came back",
                lambda: ply_of(server, game_id) > ply,
                server,
            )
    assert "".join(server.log).count("had no live job: asked again") >= 1


def test_an_ai_answer_and_a_clock_that_came_due_while_postgres_was_down_are_played_after(
    postgres: Postgres, redis_service: Redis
) -> None:
    client = redis_service.client()
    with serving(postgres.database("lost_postgres"), redis_service.url) as server:
        humans = [{"kind": "human", "take": True}] * 2
        clock = {"kind": "fischer", "base": CLOCK_SECONDS, "increment": 0}
        timed = httpx.post(
            f"{server.url}/api/games", json={"seats": humans, "clock": clock}, timeout=30
        ).json()["game"]["id"]
        game_id, _token = create(server)
        wait_for("the AI's first turn asked for", lambda: client.xlen(HUMAN_JOBS), server)
        postgres.stop()
        down = time.monotonic()
        with ai_worker(redis_service.url):
            wait_for("the worker's answer", lambda: client.xlen(RESULTS), server)
        failed = f"the clock of game {timed} failed"
        wait_for("the clock running out", lambda: any(failed in x for x in server.log), server)
        [(_entry, answer)] = client.xrange(RESULTS)
        wait_for(
            "the server keeping the answer it could not store",
            lambda: any("kept for later" in line for line in server.log),
            server,
        )
        assert client.xpending(RESULTS, SERVERS)["pending"] == 1  # not dropped
        tries = sum(failed in line for line in server.log)
        postgres.start()
        # The clock was tried again now and then while the database was down, not at once
        # over and over; and its game ends once the database is back.
        assert tries <= 2 + 2 * (time.monotonic() - down) / DEADLINE_RETRY
        ended = wait_for(
            "the clock applied", lambda: (state_of(server, timed) or {}).get("result"), server
        )
        assert ended["reason"] == "timeout"
        wait_for("the kept answer played", lambda: ply_of(server, game_id) >= 1, server)
        state = state_of(server, game_id)
        assert state is not None and state["moves"] == [answer["move"]]
        # The same answer again (as from a job done twice): its ply is played, so it is
        # dropped, and nothing else moves the game (no worker runs now).
        client.xadd(RESULTS, answer)
        wait_for("the duplicate taken", lambda: client.xlen(RESULTS) == 0, server)
        state = state_of(server, game_id)
        assert state is not None and state["moves"] == [answer["move"]]
