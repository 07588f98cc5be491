"""What a server process costs by the games stored and the games in play: the time from
starting ``taluva serve`` to its ``/readyz`` answering with ``--stored`` games in its database
(some finished, some not), its memory (RSS) then, and its memory once ``--live`` of the
unfinished games have been opened and played a move each.

The database is SQLite, filled once by the oldest server measured (``--against REV``, or the
working tree alone) through that server's own ``Store``, and copied for every start; a newer
server migrates its copy before being timed, so only the start is measured. The servers take
turns (REV, then the working tree, ``--rounds`` times) and the report gives the medians and
their ratios: the machine is shared, so only figures of one run compare.

    .venv/bin/python bench/capacity.py --stored 10000 --live 200 --against HEAD
    .venv/bin/python bench/capacity.py --stored 10000 --against HEAD --keep /tmp/10k.sqlite3
    .venv/bin/python bench/capacity.py --stored 2000 --rounds 1
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
from server_load import OPEN_LIMITS, export_source, free_port

TOKEN = "bench-seat-token"
"""The token of every seat of every stored game, so the bench can play in any of them."""
OPENING_PLIES = 10
"""Moves played in each unfinished game."""
READY_WAIT = 600.0
"""Seconds a server may take to answer ``/readyz`` before the bench gives up on it."""


def fill(database: str, stored: int, unfinished: float) -> None:
    """Store ``stored`` games of two people (a share ``unfinished`` of them live at
    ``OPENING_PLIES``, the others played to their end), with the ``Store`` of the server
    found on ``PYTHONPATH``; every game has the same deck, so one replay serves all."""
    from taluva.engine.game import Game
    from taluva.server.players.standings import settle
    from taluva.server.storage.store import (
        FINISHED,
        LIVE,
        NewMove,
        Store,
        StoredGame,
        StoredSeat,
        token_digest,
    )

    rng = random.Random(7)
    game = Game.new(players=["Ana", "Ben"], seed=7, tiles_per_player=12)
    record = game.to_record()
    moves: list[tuple[int, str, Game]] = []
    while not game.is_over:
        seat = game.to_move
        text = str(rng.choice(game.legal_moves()))
        game.play(text)
        moves.append((seat, text, game.copy()))
    result = game.result.to_json() if game.result is not None else None
    store = Store(database, game_end=settle)
    store.migrate()
    live_count = round(stored * unfinished)
    stamp = datetime.now(UTC)
    digest = token_digest(TOKEN)
    for number in range(stored):
        game_id = f"b{number:07d}"
        seats = [StoredSeat(seat, "human", name, None, digest) for seat, name in enumerate("AB")]
        meta = StoredGame.starting(
            game_id, game_id, record, seats, status=LIVE, hints=True, stamp=stamp
        )
        store.create_game(meta)
        played = moves[:OPENING_PLIES] if number < live_count else moves
        batch = []
        for ply, (seat, text, after) in enumerate(played):
            last = number >= live_count and ply == len(moves) - 1
            status, ended = (FINISHED, result) if last else (LIVE, None)
            final = after if last else None
            batch.append(NewMove(game_id, ply, seat, text, status, ended, final=final))
        assert store.append_moves(batch) == [None] * len(batch)
    store.close()


def next_move() -> str:
    """The move after ``OPENING_PLIES`` in every unfinished game."""
    from taluva.engine.game import Game

    rng = random.Random(7)
    game = Game.new(players=["Ana", "Ben"], seed=7, tiles_per_player=12)
    for _ in range(OPENING_PLIES + 1):
        text = str(rng.choice(game.legal_moves()))
        if game.ply == OPENING_PLIES:
            return text
        game.play(text)
    raise AssertionError("unreachable")


def rss_mb(pid: int) -> float:
    """The resident memory of a process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def python_path(source: Path | None) -> dict[str, str]:
    """The environment that runs the server of ``source`` (None: the working tree's)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    return env


def measure(
    database: str, source: Path | None, live: int, stored: int, unfinished: float, move: str
) -> dict[str, float]:
    """Start one server on ``database``, time it to ``/readyz``, weigh it, open and play
    ``live`` games, weigh it again, stop it."""
    port = free_port()
    command = [sys.executable, "-m", "taluva", "serve", "--port", str(port)]
    command += ["--database", database, "--ai-workers", "0", *OPEN_LIMITS]
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        env=python_path(source),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=source or None,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as http:
            while True:
                try:
                    if http.get("/readyz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if process.poll() is not None:
                    raise SystemExit(f"the server exited with {process.returncode}")
                if time.monotonic() - started > READY_WAIT:
                    raise SystemExit("the server never answered /readyz")
                time.sleep(0.02)
            ready = time.monotonic() - started
            time.sleep(2.0)  # whatever it does after it is ready
            idle = rss_mb(process.pid)
            count = min(live, round(stored * unfinished))
            auth = {"authorization": f"Bearer {TOKEN}"}
            for number in range(count):
                game_id = f"b{number:07d}"
                answer = http.post(
                    f"/api/games/{game_id}/moves",
                    json={"state": OPENING_PLIES, "move": move},
                    headers=auth,
                )
                assert answer.status_code == 200, answer.text
            playing = rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=60)
    return {"ready": ready, "idle": idle, "playing": playing}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stored", type=int, default=10_000, help="games stored (10000)")
    parser.add_argument(
        "--unfinished", type=float, default=0.3, help="the share of them not over (0.3)"
    )
    parser.add_argument(
        "--live", type=int, default=200, help="unfinished games opened and played (200)"
    )
    parser.add_argument("--against", metavar="REV", help="also measure git revision REV")
    parser.add_argument("--rounds", type=int, default=2, help="starts of each server (2)")
    parser.add_argument(
        "--keep",
        metavar="FILE",
        help="keep the filled database in FILE, and use FILE if it exists already (filled by "
        "the same options) instead of filling one",
    )
    parser.add_argument("--fill", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 1 <= args.stored <= 200_000 or not 0 < args.unfinished <= 1:
        parser.error("--stored must be 1-200000 and --unfinished above 0, at most 1")
    if args.live < 0 or not 1 <= args.rounds <= 10:
        parser.error("--live must be 0 or more and --rounds 1-10")
    if args.fill:
        fill(args.fill, args.stored, args.unfinished)
        return
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"machine: {os.cpu_count()} cores (load average {load}); {args.stored} games stored "
        f"({args.unfinished:.0%} unfinished), {args.live} opened and played; sqlite",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="taluva-capacity-") as folder:
        root = Path(folder)
        sides: list[tuple[str, Path | None]] = [("working tree", None), (EMPTY, None)]
        if args.against:
            sides.insert(0, (args.against, export_source(args.against, root)))
        filled = Path(args.keep) if args.keep else root / "filled.sqlite3"
        started = time.monotonic()
        if filled.exists():
            print(f"using the games stored in {filled}", flush=True)
        else:
            fill_command = [sys.executable, __file__, "--fill", f"sqlite:///{filled}"]
            fill_command += ["--stored", str(args.stored), "--unfinished", str(args.unfinished)]
            subprocess.run(fill_command, env=python_path(sides[0][1]), check=True)
            print(f"filled in {time.monotonic() - started:.0f} s", flush=True)
        move = next_move()
        results: dict[str, list[dict[str, float]]] = {label: [] for label, _ in sides}
        for round_number in range(1, args.rounds + 1):
            for label, source in sides:
                copy = root / f"copy-{round_number}-{len(results[label])}-{label[:8]}.sqlite3"
                copy = copy.with_name(copy.name.replace("/", "_").replace(" ", "_"))
                if label != EMPTY:
                    shutil.copy(filled, copy)
                url = f"sqlite:///{copy}"
                subprocess.run(
                    [sys.executable, "-c", MIGRATE, url], env=python_path(source), check=True
                )
                live = 0 if label == EMPTY else args.live
                figures = measure(url, source, live, args.stored, args.unfinished, move)
                results[label].append(figures)
                print(
                    f"[round {round_number}, {label}] ready in {figures['ready']:.2f} s, "
                    f"RSS {figures['idle']:.0f} MB, {figures['playing']:.0f} MB with "
                    f"{live} games played",
                    flush=True,
                )
                copy.unlink()
    report(results, [label for label, _ in sides])


EMPTY = "working tree, nothing stored"
"""The working tree started on an empty database: the start's cost without any game."""
MIGRATE = (
    "import sys; from taluva.server.storage.store import Store; "
    "Store(sys.argv[1], game_end=None).migrate()"
)
"""Brings a copy of the database to the schema of the server about to start on it."""


def report(results: dict[str, list[dict[str, float]]], labels: list[str]) -> None:
    """The medians of each server, and the ratios of the working tree to the first (with
    ``--against``)."""
    rows = [
        ("start to /readyz (s)", "ready", "{:.2f}"),
        ("RSS when ready (MB)", "idle", "{:.0f}"),
        ("RSS with the games played (MB)", "playing", "{:.0f}"),
    ]
    medians = {
        label: {key: statistics.median(r[key] for r in results[label]) for _, key, _ in rows}
        for label in labels
    }
    print()
    compared = len(labels) > 2  # REV, the working tree, the working tree on nothing
    ratio = " working tree / first |" if compared else ""
    print(f"| measure (median) | {' | '.join(labels)} |{ratio}")
    print("|---|" + "---:|" * (len(labels) + compared))
    for title, key, shape in rows:
        cells = [shape.format(medians[label][key]) for label in labels]
        if compared:
            first, current = medians[labels[0]][key], medians["working tree"][key]
            cells.append(f"{current / first:.2f}x" if first else "-")
        print(f"| {title} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
