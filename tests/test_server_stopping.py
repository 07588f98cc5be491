"""How ``taluva serve`` stops: readiness fails first, new WebSockets are turned away, the
moves under way are stored, the sockets left are told to reconnect (1012), and the process
ends in bounded time even when its shutdown hangs."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from test_server_support import free_port, sqlite_url, start_server
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from taluva.cli.serving import EXIT_STUCK, GracefulServer
from taluva.server.config import SERVICE_STOP_SECONDS

DRAIN = 4.0
GRACE = 5.0
GAMES = 3
HUMANS = [{"kind": "human", "take": True}, {"kind": "human", "take": True}]


class Mover(threading.Thread):
    """Plays one hot-seat game over HTTP as fast as the server answers, until it cannot;
    keeps the plies of the moves the server accepted."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        with httpx.Client(base_url=url, timeout=10) as http:
            body = http.post("/api/games", json={"seats": HUMANS}).json()
        self.url = url
        self.game_id: str = body["game"]["id"]
        self.tokens = {entry["seat"]: entry["token"] for entry in body["tokens"]}
        self.accepted: list[int] = []
        self.started_moving = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=10) as http:
            while True:
                try:
                    state = http.get(f"/api/games/{self.game_id}").json()["state"]
                    if state["result"] is not None:
                        return
                    answer = http.post(
                        f"/api/games/{self.game_id}/moves",
                        json={"state": state["ply"], "move": state["legal"][0]},
                        headers={"authorization": f"Bearer {self.tokens[state['to_move']]}"},
                    )
                except (httpx.HTTPError, ValueError):
                    return
                if answer.status_code != 200:
                    return
                self.accepted.append(state["ply"])
                if len(self.accepted) >= 2:
                    self.started_moving.set()


def test_sigterm_under_load_fails_readiness_first_keeps_moves_and_exits(tmp_path: Path) -> None:
    database = sqlite_url(tmp_path)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    options = ("--stop-drain", str(DRAIN), "--stop-grace", str(GRACE))
    server = start_server(database, port, *options)
    try:
        movers = [Mover(url) for _ in range(GAMES)]
        with connect(f"ws://127.0.0.1:{port}/ws/games/{movers[0].game_id}") as watcher:
            watcher.send(json.dumps({"type": "hello", "tokens": []}))
            assert json.loads(watcher.recv(timeout=10))["type"] == "welcome"
            assert httpx.get(f"{url}/readyz").status_code == 200
            for mover in movers:
                mover.start()
            for mover in movers:
                assert mover.started_moving.wait(30), "a game did not get going"

            server.send_signal(signal.SIGTERM)
            ready = httpx.get(f"{url}/readyz", timeout=5)
            while ready.status_code == 200:
                ready = httpx.get(f"{url}/readyz", timeout=5)
            assert ready.status_code == 503
            assert ready.json()["checks"]["shutdown"] == "stopping"
            assert httpx.get(f"{url}/healthz").json() == {"status": "alive"}
            with connect(f"ws://127.0.0.1:{port}/ws/games/{movers[1].game_id}") as late:
                refusal = json.loads(late.recv(timeout=5))
                assert refusal["code"] == "unavailable"
                with pytest.raises(ConnectionClosed) as closed:
                    late.recv(timeout=5)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012

            with pytest.raises(ConnectionClosed) as told:
                while True:  # the moves of game 0 until the server closes the socket
                    watcher.recv(timeout=DRAIN + GRACE + 5)
            assert told.value.rcvd is not None and told.value.rcvd.code == 1012
            assert server.wait(timeout=DRAIN + GRACE + SERVICE_STOP_SECONDS + 5) == 0
        for mover in movers:
            mover.join(timeout=15)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()

    again = start_server(database, port)
    try:
        with httpx.Client(base_url=url, timeout=10) as http:
            for mover in movers:
                stored = http.get(f"/api/games/{mover.game_id}").json()["state"]["ply"]
                assert mover.accepted == list(range(len(mover.accepted)))
                assert stored >= len(mover.accepted)  # every move answered 200 was kept
    finally:
        again.terminate()
        again.wait(timeout=30)


def test_a_stop_that_hangs_ends_the_process_at_the_deadline() -> None:
    release = asyncio.Event()

    @asynccontextmanager
    async def hanging(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await release.wait()  # the service never stops by itself

    app = FastAPI(lifespan=hanging)
    site: Any = SimpleNamespace(stopping=False)
    ended = threading.Event()
    codes: list[int] = []

    def exit_now(code: int) -> None:
        codes.append(code)
        ended.set()

    config = uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning")
    server = GracefulServer(config, site, drain=0.0, grace=0.2, exit_now=exit_now, service_stop=0.3)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(server.serve(),), daemon=True)
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive(), "the server did not start"
            ended.wait(0.05)
        server.handle_exit(signal.SIGTERM, None)
        assert site.stopping
        assert ended.wait(30), "the watchdog did not end the stuck server"
        assert codes == [EXIT_STUCK]
        assert thread.is_alive()  # it was stuck indeed: only the watchdog ended it
    finally:
        loop.call_soon_threadsafe(release.set)
        thread.join(timeout=10)
