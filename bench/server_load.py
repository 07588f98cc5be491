"""Load test of the game server: many simultaneous games of scripted clients over WebSockets.

Starts ``taluva serve`` on loopback with a fresh SQLite database (or ``--database``), creates
``--games`` hot-seat games over HTTP, then every game's client plays random legal moves
as fast as the server answers, for ``--seconds``. A finished game is replaced by a new one,
so the number of simultaneous games stays constant. Reports moves per second and the
latency from sending a move to receiving its broadcast (p50, p99, max), with the core
count; the clients run on the same machine and share its cores with the server.

The server it starts has its per-address limits lifted (every client shares 127.0.0.1),
unless ``--default-limits``. Against limits, a refused client backs off and tries again:
a 429 for a new game waits its ``Retry-After``, a socket closed as one too many (4429) or a
``rate-limited`` move waits a growing delay; the report counts each kind.

    .venv/bin/python bench/server_load.py                 # 200 games for 20 s
    .venv/bin/python bench/server_load.py --games 50 --seconds 5
    .venv/bin/python bench/server_load.py --games 50 --seconds 5 --default-limits
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

BACKOFF_FIRST = 0.05
BACKOFF_MOST = 5.0
OPEN_LIMITS = [
    "--ws-rate",
    "100000",
    "--http-rate",
    "100000",
    "--games-per-minute",
    "1000000",
    "--ws-per-address",
    "100000",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(database: str, port: int, limits: list[str]) -> subprocess.Popen[str]:
    """Run the server as its own process with the options ``limits``; return once uvicorn
    listens."""
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
            *limits,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if "Uvicorn running on" in line:
            return process
    raise SystemExit("the server did not start:\n" + (process.stderr.read() or ""))


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process, from /proc (0 where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class Totals:
    """What all the clients measured together."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.finished = 0
        self.errors: list[str] = []
        self.http_429 = 0
        self.sockets_refused = 0
        self.moves_limited = 0


class Backoff:
    """A delay that doubles at each refusal (with jitter) and starts over after a success;
    no wait goes past the deadline."""

    def __init__(self, rng: random.Random, deadline: float) -> None:
        self.rng = rng
        self.deadline = deadline
        self.delay = BACKOFF_FIRST

    async def wait(self, at_least: float = 0.0) -> None:
        delay = max(at_least, self.delay * (0.5 + self.rng.random()))
        await asyncio.sleep(min(delay, max(0.0, self.deadline - time.perf_counter())))
        self.delay = min(self.delay * 2, BACKOFF_MOST)

    def reset(self) -> None:
        self.delay = BACKOFF_FIRST


async def new_game(
    http: httpx.AsyncClient, number: int, deadline: float, totals: Totals, backoff: Backoff
) -> tuple[str, list[str]] | None:
    """A new hot-seat game, waiting out 429s; None if the deadline passes first."""
    human = {"kind": "human", "take": True}
    while time.perf_counter() < deadline:
        response = await http.post(
            "/api/games", json={"name": f"load {number}", "seats": [human, human]}
        )
        if response.status_code == 429:
            totals.http_429 += 1
            await backoff.wait(float(response.headers.get("retry-after", "1")))
            continue
        response.raise_for_status()
        backoff.reset()
        body = response.json()
        return body["game"]["id"], [t["token"] for t in body["tokens"]]
    return None


async def play(
    base: str, http: httpx.AsyncClient, number: int, deadline: float, totals: Totals
) -> None:
    """One scripted client: play random legal moves until the deadline, game after game."""
    rng = random.Random(number)
    backoff = Backoff(rng, deadline)
    game: tuple[str, list[str]] | None = None
    while time.perf_counter() < deadline:
        game = game or await new_game(http, number, deadline, totals, backoff)
        if game is None:
            return
        game_id, tokens = game
        async with connect(f"ws://{base}/ws/games/{game_id}", max_size=2**22) as ws:
            with contextlib.suppress(ConnectionClosed):  # a refused socket may close first
                await ws.send(json.dumps({"type": "hello", "tokens": tokens}))
            welcome = json.loads(await ws.recv())
            if welcome["type"] == "error":
                if welcome["code"] != "too-many-connections":
                    totals.errors.append(welcome["message"])
                    return
                totals.sockets_refused += 1
                refused = True
            else:
                refused = False
                state = welcome["state"]
                backoff.reset()
                while state["result"] is None and time.perf_counter() < deadline:
                    state = await play_move(ws, state, rng, totals, backoff)
                    if not state:
                        return
        if refused:
            await backoff.wait()
            continue
        if state["result"] is not None:
            totals.finished += 1
        game = None


async def play_move(
    ws: Any, state: dict[str, Any], rng: random.Random, totals: Totals, backoff: Backoff
) -> dict[str, Any]:
    """Play one random legal move; the state after it, or {} after an error."""
    ply = state["ply"]
    move = rng.choice(state["legal"])
    while True:
        sent = time.perf_counter()
        await ws.send(json.dumps({"type": "move", "state": ply, "move": move}))
        message = json.loads(await ws.recv())
        while not (message["type"] == "move" and message["ply"] == ply):
            if message["type"] == "error":
                break
            message = json.loads(await ws.recv())
        if message["type"] == "move":
            totals.latencies.append(time.perf_counter() - sent)
            backoff.reset()
            new_state: dict[str, Any] = message["state"]
            return new_state
        if message["code"] != "rate-limited":
            totals.errors.append(message["message"])
            return {}
        totals.moves_limited += 1
        await backoff.wait()


async def run(base: str, games: int, seconds: float) -> tuple[Totals, float]:
    totals = Totals()
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=f"http://{base}", limits=limits, timeout=60) as http:
        start = time.perf_counter()
        deadline = start + seconds
        await asyncio.gather(*(play(base, http, n, deadline, totals) for n in range(games)))
        elapsed = time.perf_counter() - start
    return totals, elapsed


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="simultaneous games (200)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to play (20)")
    parser.add_argument("--database", help="SQLAlchemy URL (default: a fresh SQLite file)")
    parser.add_argument(
        "--server", metavar="HOST:PORT", help="use a server already running there instead"
    )
    parser.add_argument(
        "--default-limits",
        action="store_true",
        help="start the server with its default per-address limits (expect 429s)",
    )
    args = parser.parse_args()
    if not 1 <= args.games <= 2000 or not 0 < args.seconds <= 600:
        parser.error("--games must be 1-2000 and --seconds 0-600")
    if args.server:
        host = args.server.split(":")[0]
        if host not in ("127.0.0.1", "localhost", "[::1]"):
            parser.error("--server must be on loopback (127.0.0.1 or localhost)")
        totals, elapsed = asyncio.run(run(args.server, args.games, args.seconds))
        server = None
        cpu_used = 0.0
        database = "that of the given server"
    else:
        folder = Path(tempfile.mkdtemp(prefix="taluva-bench-"))
        database = args.database or f"sqlite:///{folder / 'games.sqlite3'}"
        port = free_port()
        server = start_server(database, port, [] if args.default_limits else OPEN_LIMITS)
        cpu_before = cpu_seconds(server.pid)
        try:
            totals, elapsed = asyncio.run(run(f"127.0.0.1:{port}", args.games, args.seconds))
        finally:
            cpu_used = cpu_seconds(server.pid) - cpu_before
            server.terminate()
            server.wait(timeout=30)
            shutil.rmtree(folder, ignore_errors=True)
    moves = len(totals.latencies)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"machine: {os.cpu_count()} cores (load average {load}), "
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"database {database.split(':', 1)[0]}"
    )
    print(
        f"{args.games} simultaneous games for {elapsed:.1f} s: {moves} moves, "
        f"{totals.finished} games finished, {len(totals.errors)} errors"
    )
    print(
        f"rate limited (backed off and retried): {totals.http_429} HTTP 429s, "
        f"{totals.sockets_refused} sockets refused, {totals.moves_limited} moves rate-limited"
    )
    if moves:
        cpu = (
            f" (server process used {cpu_used:.1f} s of CPU, {cpu_used / elapsed:.0%} of a core:"
            f" {cpu_used / moves * 1000:.2f} ms of CPU per move)"
            if server is not None
            else ""
        )
        print(f"throughput: {moves / elapsed:.0f} moves/s{cpu}")
        print(
            "latency submit -> broadcast: "
            f"p50 {percentile(totals.latencies, 0.50) * 1000:.1f} ms, "
            f"p99 {percentile(totals.latencies, 0.99) * 1000:.1f} ms, "
            f"max {max(totals.latencies) * 1000:.1f} ms, "
            f"mean {statistics.fmean(totals.latencies) * 1000:.1f} ms"
        )
    for error in totals.errors[:5]:
        print(f"error: {error}")


if __name__ == "__main__":
    main()
