"""Two real server processes and an AI worker on one PostgreSQL and one Redis: every process
serves every game, broadcasts cross between them, and killing a server process or the
worker mid-game loses no move.

The processes run the commands of the systemd units in ``deploy/systemd`` (docs/deploy.md),
so the recipe is what is tested; only the path of ``taluva``, the ports, the URLs and a
short ``--reclaim-after`` differ. One player reaches the servers through Debian's nginx with
the site of ``deploy/nginx``, its ports changed to the test's.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from test_server_storage import POSTGRES, postgres_server  # noqa: F401 - the fixture
from test_server_support import free_port, redis_server
from websockets.sync.client import ClientConnection, connect

from taluva.server.players.standings import settle
from taluva.server.storage.store import Store

pytestmark = pytest.mark.skipif(POSTGRES is None, reason="PostgreSQL is not installed")

RECLAIM = "1"
LOGS: list[str] = []
"""What the server processes of the running test logged (warnings and errors)."""
UNITS = Path(__file__).resolve().parents[1] / "deploy" / "systemd"
SITE = Path(__file__).resolve().parents[1] / "deploy" / "nginx" / "taluva.conf"
TALUVA = "/opt/taluva/.venv/bin/taluva"


def unit_command(unit: str, environment: dict[str, str], instance: str = "") -> list[str]:
    """The ExecStart command of a unit as systemd would run it, with this Python's taluva:
    ``%i`` is the instance, ``${NAME}`` comes from ``environment``, which must set every
    name of the units' environment file (the process gets them too: ``unit_environment``)."""
    names = {
        line.split("=", 1)[0]
        for line in (UNITS / "taluva.env").read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert names == set(environment), names
    start = next(
        line for line in (UNITS / unit).read_text().splitlines() if line.startswith("ExecStart=")
    )
    words = shlex.split(start.removeprefix("ExecStart="))
    assert words[0] == TALUVA, words[0]
    return [sys.executable, "-m", "taluva"] + [
        re.sub(r"\$\{(\w+)\}", lambda name: environment[name[1]], word).replace("%i", instance)
        for word in words[1:]
    ]


@pytest.fixture
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.fixture
def database(postgres_server: str) -> str:  # noqa: F811 - the fixture imported above
    name = f"cluster_{free_port()}"
    admin = Store(postgres_server, game_end=settle)
    with admin.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.close()
    return postgres_server.rsplit("/", 1)[0] + f"/{name}"


def unit_environment(environment: dict[str, str]) -> dict[str, str]:
    """The environment a unit's process gets: this one's and its ``EnvironmentFile``'s."""
    return {**os.environ, **environment}


def start_worker(environment: dict[str, str]) -> subprocess.Popen[str]:
    """The AI worker unit's command as a real process; returns once it takes jobs."""
    command = unit_command("taluva-ai-worker.service", environment)
    process = subprocess.Popen(
        [*command, "--processes", "1", "--reclaim-after", RECLAIM],
        env=unit_environment(environment),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("AI workers: 1 taking jobs"), line
    return process


@contextmanager
def nginx_in_front(ports: list[int], folder: Path) -> Iterator[int]:
    """Debian's nginx with the deploy site in front of the servers on ``ports`` (the site's
    8001 and 8002), listening on a free port of loopback, which it yields."""
    program = shutil.which("nginx") or "/usr/sbin/nginx"
    assert Path(program).exists(), "nginx is missing: run scripts/ci-system-deps.sh"
    port = free_port()
    site = SITE.read_text()
    assert "listen 80;" in site and "127.0.0.1:8001" in site and "127.0.0.1:8002" in site
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    site = site.replace("127.0.0.1:8001", f"127.0.0.1:{ports[0]}")
    site = site.replace("127.0.0.1:8002", f"127.0.0.1:{ports[1]}")
    (folder / "taluva.conf").write_text(site)
    temp = " ".join(
        f"{kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    (folder / "nginx.conf").write_text(
        f"daemon off; worker_processes 1; pid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'};\n"
        "events { worker_connections 256; }\n"
        f"http {{ access_log off; {temp} uwsgi_temp_path {folder / 'uwsgi'}; "
        f"scgi_temp_path {folder / 'scgi'}; include {folder / 'taluva.conf'}; }}\n"
    )
    process = subprocess.Popen(
        [program, "-p", str(folder), "-c", str(folder / "nginx.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group, so its worker is stopped with it
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if process.poll() is not None:
                assert process.stderr is not None
                raise RuntimeError("nginx exited:\n" + process.stderr.read())
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/config", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield port
    finally:
        # SIGTERM: the master stops its worker and exits; killing the master alone would
        # leave the worker behind, holding its connections
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def serve(environment: dict[str, str], port: int) -> subprocess.Popen[str]:
    """The server unit's command for ``port`` as a real process; returns once it answers."""
    command = unit_command("taluva-server@.service", environment, str(port))
    process = subprocess.Popen(
        [*command, "--reclaim-after", RECLAIM],
        env=unit_environment(environment),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    # Read its log all along: a full pipe would stop the server at its next line.
    threading.Thread(target=LOGS.extend, args=(process.stderr,), daemon=True).start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            time.sleep(0.2)
            raise RuntimeError("server exited before listening:\n" + "".join(LOGS[-40:]))
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/config", timeout=1).raise_for_status()
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server on port {port} did not answer within a minute")


class Seat:
    """A player's connection to one server process, holding one seat's token."""

    def __init__(self, stack: ExitStack, port: int, game_id: str, token: str) -> None:
        self.ws: ClientConnection = stack.enter_context(
            connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}")
        )
        self.ws.send(json.dumps({"type": "hello", "tokens": [token]}))
        welcome = self.receive()
        assert welcome["type"] == "welcome", welcome
        self.state: dict[str, Any] = welcome["state"]
        self.seat: int = welcome["seats"][0]

    def receive(self) -> dict[str, Any]:
        try:
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=30))
        except TimeoutError:
            raise AssertionError(
                f"no message within 30 s at ply {self.state['ply']}; the servers logged:\n"
                + "".join(LOGS[-60:])
            ) from None
        return message

    def await_ply(self, ply: int) -> None:
        """Read broadcasts until the game reaches ``ply`` (or ends)."""
        while self.state["ply"] < ply and self.state["result"] is None:
            message = self.receive()
            if "state" in message and message["state"]["ply"] >= self.state["ply"]:
                self.state = message["state"]

    def play(self) -> int:
        """Send the first legal move; return the ply it will make."""
        move = self.state["legal"][0]
        ply: int = self.state["ply"]
        self.ws.send(json.dumps({"type": "move", "state": ply, "move": move}))
        return ply + 1


def step(seats: list[Seat]) -> bool:
    """The seat to move plays; every connection waits for the move. False once over."""
    state = seats[0].state
    if state["result"] is not None:
        return False
    mover = next((s for s in seats if s.seat == state["to_move"]), None)
    target = state["ply"] + 1 if mover is None else mover.play()  # None: an AI seat's turn
    for seat in seats:
        seat.await_ply(target)
    return seats[0].state["result"] is None


def create(port: int, seats: list[dict[str, Any]]) -> tuple[str, list[str]]:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
        response = http.post("/api/games", json={"seats": seats})
        assert response.status_code == 201, response.text
        body = response.json()
    return body["game"]["id"], [entry["token"] for entry in body["tokens"]]


def stored_moves(port: int, game_id: str) -> list[str]:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
        moves: list[str] = http.get(f"/api/games/{game_id}").json()["state"]["moves"]
        return moves


def test_two_processes_and_a_worker_finish_both_games_through_kills(
    database: str, redis_url: str, tmp_path: Path
) -> None:
    environment = {"TALUVA_DATABASE": database, "TALUVA_REDIS": redis_url}
    ports = [free_port(), free_port()]
    servers = [serve(environment, port) for port in ports]
    worker = start_worker(environment)
    human = {"kind": "human", "take": True}
    balancer = ExitStack()
    try:
        front = balancer.enter_context(nginx_in_front(ports, tmp_path))
        duel, duel_tokens = create(ports[0], [human, human])
        versus_ai, ai_tokens = create(ports[1], [human, {"kind": "ai", "level": 1}])
        with ExitStack() as stack:
            # Ana plays through the first process, Ben through nginx (either process).
            duel_seats = [
                Seat(stack, ports[0], duel, duel_tokens[0]),
                Seat(stack, front, duel, duel_tokens[1]),
            ]
            ai_seats = [Seat(stack, ports[0], versus_ai, ai_tokens[0])]
            for _ in range(8):
                step(duel_seats)
                step(ai_seats)
            assert duel_seats[0].state["moves"] == duel_seats[1].state["moves"]
            before = duel_seats[0].state["moves"]
            assert len(before) == 8
            assert ai_seats[0].state["movers"][:4] == [0, 0, 1, 1]
            # The first process and the worker die; their players reconnect to the second
            # (Ben through nginx, which finds the first one gone).
            servers[0].send_signal(signal.SIGKILL)
            worker.send_signal(signal.SIGKILL)
            servers[0].wait()
            worker.wait()
        assert stored_moves(ports[1], duel) == before
        with ExitStack() as stack:
            duel_seats = [
                Seat(stack, ports[1], duel, duel_tokens[0]),
                Seat(stack, front, duel, duel_tokens[1]),
            ]
            ai_seats = [Seat(stack, ports[1], versus_ai, ai_tokens[0])]
            for _ in range(4):
                step(duel_seats)
            # The first process may have died before passing its last move on: the second
            # then reads it from the database within a second and tells its players. And an
            # answer the dead worker gave before it died may still be played (the dead
            # process's claim on it lapses after RECLAIM seconds): let it land first.
            time.sleep(2.5)
            ai_seats[0].await_ply(len(stored_moves(ports[1], versus_ai)))
            while ai_seats[0].state["to_move"] == 0 and ai_seats[0].state["result"] is None:
                step(ai_seats)  # the AI's turn now waits for a worker
            waiting = ai_seats[0].state["ply"]
            assert stored_moves(ports[1], versus_ai) == ai_seats[0].state["moves"]
            servers[0] = serve(environment, ports[0])
            worker = start_worker(environment)
            ai_seats[0].await_ply(waiting + 1)  # the new worker plays the waiting turn
        with ExitStack() as stack:
            duel_seats = [
                Seat(stack, ports[0], duel, duel_tokens[0]),
                Seat(stack, ports[1], duel, duel_tokens[1]),
            ]
            ai_seats = [Seat(stack, ports[0], versus_ai, ai_tokens[0])]
            while step(duel_seats) | step(ai_seats):
                pass
            for seats, game_id in ((duel_seats, duel), (ai_seats, versus_ai)):
                final = seats[0].state
                assert final["result"] is not None
                assert all(seat.state["moves"] == final["moves"] for seat in seats)
                for port in ports:  # both processes have the whole game, as stored
                    assert stored_moves(port, game_id) == final["moves"]
            assert set(ai_seats[0].state["movers"]) == {0, 1}
            assert duel_seats[0].state["moves"][:8] == before
    finally:
        balancer.close()
        for process in [*servers, worker]:
            process.kill()
            process.wait()


def test_serve_with_redis_refuses_sqlite_and_a_redis_it_cannot_reach(tmp_path: Any) -> None:
    sqlite = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    refused = subprocess.run(
        [sys.executable, "-m", "taluva", "serve", "--database", sqlite, "--redis", "redis://x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2
    assert "one PostgreSQL database" in refused.stderr
    unreachable = subprocess.run(
        [
            sys.executable,
            "-m",
            "taluva",
            "ai-worker",
            "--redis",
            f"redis://127.0.0.1:{free_port()}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert unreachable.returncode == 1
    assert "cannot reach Redis at redis://127.0.0.1:" in unreachable.stderr
