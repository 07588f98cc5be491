"""How long a person waits for an AI seat's reply, alone and while AI-only games keep the
server's AI workers busy.

Starts ``taluva serve`` on loopback with a fresh SQLite database and plays one game of a
person against an AI seat (``--level``, 3 by default) over the WebSocket: a random legal
turn, then the time until the AI seat's whole turn (tile and build) is broadcast. That is
measured ``--turns`` times with nothing else running, then again while ``--bots`` AI-only
games (``--bot-level``, 5 by default: seconds a move) play on the same server, kept at that
number. It prints both, and the ratio loaded / unloaded of the median and the mean.

``--against REV`` (repeatable) measures the server of an earlier commit in the same run, as
``bench/server_load.py`` does: REV's ``src`` is exported with ``git archive`` into a
temporary folder and its server started with ``PYTHONPATH`` there; each server runs with
its own default ``--ai-workers`` unless ``--ai-workers`` is given, and gets
``--ai-only-games`` when it knows the option (before it, anyone could create them).

    .venv/bin/python bench/ai_fairness.py
    .venv/bin/python bench/ai_fairness.py --turns 6 --against HEAD~3
    .venv/bin/python bench/ai_fairness.py --ai-workers 1 --bot-level 4
    .venv/bin/python bench/ai_fairness.py --against 35abf70 --against cfea68d --no-working-tree
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
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import cpu_seconds, export_source, free_port

OPEN_LIMITS = ["--http-rate", "1000", "--games-per-minute", "1000", "--ws-rate", "1000"]
REPLY_TIMEOUT = 300.0
WARM_UP_TURNS = 2


def server_options(source: Path | None) -> str:
    """The ``taluva serve --help`` text of the server in ``source`` (the working tree's if
    None), to learn which options it has."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "taluva", "serve", "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=source or None,
        check=True,
    )
    return done.stdout


def start_server(
    database: str, port: int, options: list[str], source: Path | None
) -> subprocess.Popen[str]:
    """Run ``taluva serve`` (from the package in ``source`` if given) with ``options``;
    return once uvicorn listens."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "taluva", "serve", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--database", database, "--quiet", *OPEN_LIMITS, *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=source or None,
    )
    assert process.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/config", timeout=2)
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return process
        except httpx.TransportError:
            if process.poll() is not None:
                break
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start:\n" + (process.stderr.read() or ""))


@dataclass
class Person:
    """The person's side of a game against one AI seat, over the game's WebSocket."""

    ws: ClientConnection
    seat: int
    rng: random.Random
    state: dict[str, Any] = field(default_factory=dict)

    async def receive_until(self, ply: int) -> None:
        """Read broadcasts until the state has ``ply`` moves (or the game is over)."""
        while self.state["ply"] < ply and self.state["result"] is None:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), REPLY_TIMEOUT))
            if message["type"] == "error":
                raise SystemExit(f"the server refused a move: {message['message']}")
            if message["type"] == "move":
                self.state = message["state"]

    async def reply_seconds(self) -> float | None:
        """Play one random turn; the seconds until the AI seat's turn is broadcast, or None
        if the game ended first."""
        for _ in range(2):
            ply = self.state["ply"]
            move = self.rng.choice(self.state["legal"])
            await self.ws.send(json.dumps({"type": "move", "state": ply, "move": move}))
            await self.receive_until(ply + 1)
            if self.state["result"] is not None:
                return None
        sent = time.perf_counter()
        await self.receive_until(self.state["ply"] + 2)
        if self.state["result"] is not None:
            return None
        return time.perf_counter() - sent


async def person_game(http: httpx.AsyncClient, level: int) -> tuple[str, str]:
    """A new game of a person (seat 0, whose token is returned) against an AI seat."""
    seats = [{"kind": "human", "name": "Ana", "take": True}, {"kind": "ai", "level": level}]
    response = await http.post("/api/games", json={"name": "fairness", "seats": seats})
    response.raise_for_status()
    body = response.json()
    return body["game"]["id"], body["tokens"][0]["token"]


async def replies(
    base: str, http: httpx.AsyncClient, level: int, turns: int, seed: int
) -> list[float]:
    """The AI seat's reply times over ``turns`` turns of the person (new games as needed)."""
    rng = random.Random(seed)
    times: list[float] = []
    while len(times) < turns:
        game_id, token = await person_game(http, level)
        async with connect(f"ws://{base}/ws/games/{game_id}", max_size=2**22) as ws:
            await ws.send(json.dumps({"type": "hello", "tokens": [token]}))
            welcome = json.loads(await ws.recv())
            person = Person(ws, 0, rng, welcome["state"])
            while len(times) < turns:
                seconds = await person.reply_seconds()
                if seconds is None:
                    break
                times.append(seconds)
    return times


async def keep_bots(http: httpx.AsyncClient, bots: int, level: int, stop: asyncio.Event) -> int:
    """Keep ``bots`` AI-only games running until ``stop``; return how many were created."""
    seats = [{"kind": "ai", "level": level}] * 2
    mine: set[str] = set()
    created = 0
    while not stop.is_set():
        live = await http.get("/api/games", params={"status": "live", "limit": 200})
        running = {game["id"] for game in live.json()["games"]} & mine
        for _ in range(bots - len(running)):
            response = await http.post("/api/games", json={"name": "bots", "seats": seats})
            if response.status_code != 201:
                raise SystemExit(f"cannot create an AI-only game: {response.text}")
            running.add(response.json()["game"]["id"])
            created += 1
        mine = running
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 2.0)
    return created


@dataclass
class Measured:
    """One server's reply times, alone and under the AI-only games."""

    label: str
    workers: str
    unloaded: list[float]
    loaded: list[float]
    bots_created: int
    cpu: float

    def ratio(self, measure: str) -> float:
        pick = statistics.median if measure == "median" else statistics.fmean
        return pick(self.loaded) / pick(self.unloaded)


async def run(base: str, args: argparse.Namespace) -> tuple[list[float], list[float], int]:
    async with httpx.AsyncClient(base_url=f"http://{base}", timeout=60) as http:
        await replies(base, http, args.level, WARM_UP_TURNS, seed=1)  # workers started
        unloaded = await replies(base, http, args.level, args.turns, seed=2)
        stop = asyncio.Event()
        bots = asyncio.ensure_future(keep_bots(http, args.bots, args.bot_level, stop))
        await asyncio.sleep(args.settle)
        loaded = await replies(base, http, args.level, args.turns, seed=2)
        stop.set()
        created = await bots
    return unloaded, loaded, created


def measure(label: str, args: argparse.Namespace, source: Path | None) -> Measured:
    """Start a server (from ``source`` if given) on a fresh database, measure it, stop it."""
    help_text = server_options(source)
    options = ["--ai-only-games"] if "--ai-only-games" in help_text else []
    if args.ai_workers is not None:
        options += ["--ai-workers", str(args.ai_workers)]
        workers = str(args.ai_workers)
    else:
        workers = "its default"
    folder = Path(tempfile.mkdtemp(prefix="taluva-fairness-"))
    port = free_port()
    server = start_server(f"sqlite:///{folder / 'games.sqlite3'}", port, options, source)
    try:
        unloaded, loaded, created = asyncio.run(run(f"127.0.0.1:{port}", args))
    finally:
        cpu = cpu_seconds(server.pid)
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)
    return Measured(label, workers, unloaded, loaded, created, cpu)


def describe(times: list[float]) -> str:
    return (
        f"median {statistics.median(times):.2f} s, mean {statistics.fmean(times):.2f} s, "
        f"max {max(times):.2f} s"
    )


def report(result: Measured, args: argparse.Namespace) -> None:
    print(f"[{result.label}] --ai-workers {result.workers}")
    print(f"  level-{args.level} reply alone:               {describe(result.unloaded)}")
    print(
        f"  with {args.bots} level-{args.bot_level} AI-only games:   {describe(result.loaded)}"
        f" ({result.bots_created} AI-only games created)"
    )
    print(
        f"  loaded / alone: median {result.ratio('median'):.2f}x, mean {result.ratio('mean'):.2f}x"
    )
    print("  replies alone (s): " + " ".join(f"{t:.2f}" for t in result.unloaded))
    print("  replies loaded (s): " + " ".join(f"{t:.2f}" for t in result.loaded))


def compare(results: list[Measured], args: argparse.Namespace) -> None:
    print()
    print(f"| level-{args.level} AI reply | " + " | ".join(r.label for r in results) + " |")
    print("|---|" + "---:|" * len(results))
    rows = [
        ("median alone (s)", lambda r: f"{statistics.median(r.unloaded):.2f}"),
        ("mean alone (s)", lambda r: f"{statistics.fmean(r.unloaded):.2f}"),
        (
            f"median with {args.bots} AI-only games (s)",
            lambda r: f"{statistics.median(r.loaded):.2f}",
        ),
        (f"mean with {args.bots} AI-only games (s)", lambda r: f"{statistics.fmean(r.loaded):.2f}"),
        (f"max with {args.bots} AI-only games (s)", lambda r: f"{max(r.loaded):.2f}"),
        ("loaded / alone, median", lambda r: f"{r.ratio('median'):.2f}x"),
        ("loaded / alone, mean", lambda r: f"{r.ratio('mean'):.2f}x"),
    ]
    for title, cell in rows:
        print(f"| {title} | " + " | ".join(cell(r) for r in results) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", type=int, default=3, help="the person's AI opponent (3)")
    parser.add_argument("--turns", type=int, default=8, help="replies measured each way (8)")
    parser.add_argument("--bots", type=int, default=6, help="AI-only games of the load (6)")
    parser.add_argument("--bot-level", type=int, default=5, help="their AI level (5)")
    parser.add_argument(
        "--settle",
        type=float,
        default=3.0,
        help="seconds the AI-only games play before the loaded measure starts (3)",
    )
    parser.add_argument(
        "--ai-workers", type=int, help="worker processes of every server (default: each its own)"
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        action="append",
        default=[],
        help="also measure the server of git revision REV, first (may be repeated)",
    )
    parser.add_argument(
        "--no-working-tree",
        action="store_true",
        help="measure only the --against revisions (a tree others are editing may not run)",
    )
    args = parser.parse_args()
    if not 1 <= args.turns <= 100 or not 0 <= args.bots <= 50:
        parser.error("--turns must be 1-100 and --bots 0-50")
    if args.level not in range(1, 6) or args.bot_level not in range(1, 6):
        parser.error("levels are 1-5")
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"machine: {os.cpu_count()} cores (load average {load}), "
        f"{platform.python_implementation()} {platform.python_version()}"
    )
    if args.no_working_tree and not args.against:
        parser.error("--no-working-tree needs --against REV")
    results: list[Measured] = []
    with tempfile.TemporaryDirectory(prefix="taluva-against-") as folder:
        for number, revision in enumerate(args.against):
            (Path(folder) / str(number)).mkdir()
            source = export_source(revision, Path(folder) / str(number))
            results.append(measure(revision, args, source))
            report(results[-1], args)
        if not args.no_working_tree:
            results.append(measure("working tree", args, None))
            report(results[-1], args)
    if len(results) > 1:
        compare(results, args)


if __name__ == "__main__":
    main()
