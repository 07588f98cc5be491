"""How long the browser's win-chance bar waits for the server's answer.

Starts ``taluva serve`` on loopback with a fresh SQLite database (its default AI workers, or
``--ai-workers``), creates a hot-seat game of ``--players`` people and, at ``--positions``
positions of it (``--step`` random legal moves apart), sends one ``chances`` message over
the WebSocket and times the round trip. Every position is new to the server, so each answer
is one search (``--win-chance-iterations``, the server's default unless given). The first
answer is shown apart: it includes starting an AI worker process.

    .venv/bin/python bench/win_chance.py
    .venv/bin/python bench/win_chance.py --players 4 --positions 20 --win-chance-iterations 100
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import free_port


def start(port: int, folder: Path, extra: list[str]) -> subprocess.Popen[bytes]:
    """``taluva serve`` on ``port``, once it answers HTTP."""
    command = [sys.executable, "-m", "taluva", "serve", "--port", str(port), "--quiet"]
    command += ["--database", f"sqlite:///{folder / 'games.sqlite3'}", *extra]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/config", timeout=1.0)
            return server
        except httpx.HTTPError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("the server did not start")


def answer_to(ws: ClientConnection, ref: str) -> dict[str, Any]:
    """The next message that answers ``ref`` (broadcasts in between are skipped)."""
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=60))
        if message.get("ref") == ref:
            return message


def measure(port: int, players: int, positions: int, step: int, seed: int) -> list[float]:
    """Seconds from sending ``chances`` to its answer, at each position of one game."""
    seats = [{"kind": "human", "name": f"P{i + 1}", "take": True} for i in range(players)]
    created = httpx.post(f"http://127.0.0.1:{port}/api/games", json={"seats": seats}).json()
    game_id = created["game"]["id"]
    rng = random.Random(seed)
    times = []
    with connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}") as ws:
        tokens = [entry["token"] for entry in created["tokens"]]
        ws.send(json.dumps({"type": "hello", "tokens": tokens}))
        state = json.loads(ws.recv())["state"]
        for index in range(positions):
            if state["result"] is not None:
                break
            started = time.perf_counter()
            ws.send(json.dumps({"type": "chances", "state": state["ply"], "ref": f"c{index}"}))
            answer = answer_to(ws, f"c{index}")
            times.append(time.perf_counter() - started)
            assert answer["type"] == "chances", answer
            for move_index in range(step):
                if state["result"] is not None:
                    break
                ref = f"m{index}-{move_index}"
                move = rng.choice(state["legal"])
                ws.send(
                    json.dumps({"type": "move", "state": state["ply"], "move": move, "ref": ref})
                )
                while True:  # the move's broadcast comes before its answer
                    message = json.loads(ws.recv(timeout=60))
                    if message["type"] == "move":
                        state = message["state"]
                    if message.get("ref") == ref:
                        assert message["type"] == "accepted", message
                        break
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--positions", type=int, default=15)
    parser.add_argument("--step", type=int, default=3, help="moves between two positions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ai-workers", type=int, default=None)
    parser.add_argument("--win-chance-iterations", type=int, default=None)
    args = parser.parse_args()
    extra = []
    if args.ai_workers is not None:
        extra += ["--ai-workers", str(args.ai_workers)]
    if args.win_chance_iterations is not None:
        extra += ["--win-chance-iterations", str(args.win_chance_iterations)]
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="taluva-bench-") as folder:
        server = start(port, Path(folder), extra)
        try:
            times = measure(port, args.players, args.positions, args.step, args.seed)
        finally:
            server.terminate()
            server.wait(timeout=10)
    first, rest = times[0], sorted(times[1:])
    print(f"{args.players} players, {len(times)} positions, server options {extra or 'default'}")
    print(f"first answer (starts a worker): {first:.3f} s")
    if rest:
        print(
            f"then: median {statistics.median(rest):.3f} s, mean {statistics.fmean(rest):.3f} s, "
            f"max {rest[-1]:.3f} s"
        )


if __name__ == "__main__":
    main()
