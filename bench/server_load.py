"""Load test of the game server: many simultaneous games of scripted clients over WebSockets.

Starts ``taluva serve`` on loopback with a fresh SQLite database (or ``--database``), creates
``--games`` hot-seat games over HTTP, then every game's client plays random legal moves
as fast as the server answers, for ``--seconds``. A finished game is replaced by a new one,
so the number of simultaneous games stays constant. Reports moves per second and the
latency from sending a move to receiving its broadcast (p50, p99, max), with the core
count; the clients run on the same machine and share its cores with the server.

    .venv/bin/python bench/server_load.py                 # 200 games for 20 s
    .venv/bin/python bench/server_load.py --games 50 --seconds 5
"""

from __future__ import annotations

import argparse
import asyncio
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

import httpx
from websockets.asyncio.client import connect


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(database: str, port: int) -> subprocess.Popen[str]:
    """Run the server as its own process; return once uvicorn listens."""
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
            "--ws-rate",
            "100000",
            "--http-rate",
            "100000",
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


async def new_game(http: httpx.AsyncClient, number: int) -> tuple[str, list[str]]:
    human = {"kind": "human", "take": True}
    response = await http.post(
        "/api/games", json={"name": f"load {number}", "seats": [human, human]}
    )
    response.raise_for_status()
    body = response.json()
    return body["game"]["id"], [t["token"] for t in body["tokens"]]


async def play(
    base: str, http: httpx.AsyncClient, number: int, deadline: float, totals: Totals
) -> None:
    """One scripted client: play random legal moves until the deadline, game after game."""
    rng = random.Random(number)
    while time.perf_counter() < deadline:
        game_id, tokens = await new_game(http, number)
        async with connect(f"ws://{base}/ws/games/{game_id}", max_size=2**22) as ws:
            await ws.send(json.dumps({"type": "hello", "tokens": tokens}))
            state = json.loads(await ws.recv())["state"]
            while state["result"] is None and time.perf_counter() < deadline:
                ply = state["ply"]
                move = rng.choice(state["legal"])
                sent = time.perf_counter()
                await ws.send(json.dumps({"type": "move", "state": ply, "move": move}))
                while True:
                    message = json.loads(await ws.recv())
                    if message["type"] == "move" and message["ply"] == ply:
                        totals.latencies.append(time.perf_counter() - sent)
                        state = message["state"]
                        break
                    if message["type"] == "error":
                        totals.errors.append(message["message"])
                        return
            if state["result"] is not None:
                totals.finished += 1


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
        server = start_server(database, port)
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
