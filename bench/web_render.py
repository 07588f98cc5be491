"""How fast the browser client draws the island, in this machine's Chromium.

Starts ``taluva serve`` on loopback with a fresh SQLite database holding one fixed game: five
players, a seeded game played until 60 tiles lie on the island, the next player to place a
tile. Then, in Debian's Chromium driven by Playwright:

- the first render: the page is opened ``--loads`` times; each time the board measures (with
  the Performance API) how long its first drawing of the island took, and how long until the
  frame after it was shown (``requestAnimationFrame`` then a task: style, layout and paint
  included);
- a move's animation: the player places a tile (an eruption that buries huts when there is
  one) over HTTP while Chromium records a trace (``devtools.timeline``); the longest task
  of the page's main thread from the move's arrival to the end of its animations is
  reported, with the number of frames drawn meanwhile. Repeated ``--moves`` times, on fresh
  copies of the position.

Targets (issue 16): first render under 100 ms, longest task during an animation under 50 ms.

    .venv/bin/python bench/web_render.py
    .venv/bin/python bench/web_render.py --loads 10 --moves 5
"""

from __future__ import annotations

import argparse
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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from taluva import Game
from taluva.server.store import LIVE, NewMove, Store, StoredGame, StoredSeat, token_digest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"]
PLAYERS = ["Ana", "Ben", "Cy", "Dee", "Eli"]
TILES = 60


def island_of_60_tiles(seed: int) -> Game:
    """A five-player game played at random until 60 tiles are down and a tile is to place."""
    rng = random.Random(seed)
    game = Game.new(players=PLAYERS, seed=seed)
    while True:
        placed = sum(1 for m in game.moves if str(m).startswith(("tile ", "double ")))
        if placed == TILES - 1 and game.phase == "tile":
            return game
        if game.is_over:
            raise SystemExit(f"seed {seed}: the game ended after {placed} tiles; try another")
        game.play(rng.choice(sorted(str(m) for m in game.legal_moves())))


def token(game_id: str, seat: int) -> str:
    return f"{game_id}-{seat}-bench"


def store(database: str, game: Game, copies: int) -> list[str]:
    """Store ``copies`` copies of ``game``, every seat a human with a known token."""
    record = game.to_record()
    stamp = datetime.now(UTC)
    box = Store(database)
    box.migrate()
    ids = []
    for copy in range(copies):
        game_id = f"bench{copy}"
        seats = [
            StoredSeat(seat, "human", name, None, token_digest(token(game_id, seat)))
            for seat, name in enumerate(PLAYERS)
        ]
        meta = StoredGame(
            id=game_id,
            name="60 tiles",
            status=LIVE,
            options=record["options"],
            deck=record["deck"],
            doubles=[],
            hints=False,
            ply=0,
            result=None,
            created_at=stamp,
            updated_at=stamp,
            seats=seats,
        )
        box.create_game(meta)
        replay = Game.new(players=PLAYERS, deck=record["deck"])
        moves = []
        for ply, move in enumerate(game.moves):
            seat = replay.to_move
            replay.play(str(move))
            moves.append(NewMove(game_id, ply, seat, str(move), LIVE, None))
        box.append_moves(moves)
        ids.append(game_id)
    box.close()
    return ids


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(database: str, port: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "taluva", "serve", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--database", database, "--ai-workers", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stderr is not None
    for line in process.stderr:
        if "Uvicorn running" in line:
            break
    else:
        raise SystemExit("the server did not start")
    return process


def open_game(context: Any, url: str, game_id: str, seat: int) -> Any:
    page = context.new_page()
    page.goto(url + "/")
    page.evaluate(
        "t => localStorage.setItem('taluva.tokens', JSON.stringify(t))",
        {game_id: {str(seat): token(game_id, seat)}},
    )
    page.goto(f"{url}/#/game/{game_id}")
    page.wait_for_function("() => performance.getEntriesByName('board:first-frame').length")
    return page


def first_render(context: Any, url: str, game_id: str, loads: int) -> dict[str, list[float]]:
    """The board's first drawing and first frame, in ms, over ``loads`` page loads."""
    out: dict[str, list[float]] = {"draw": [], "frame": [], "hexes": []}
    for _ in range(loads):
        page = open_game(context, url, game_id, 0)
        draw, frame, hexes = page.evaluate(
            """() => [performance.getEntriesByName('board:first-draw')[0].duration,
                      performance.getEntriesByName('board:first-frame')[0].duration,
                      document.querySelectorAll('svg.board .hex').length]"""
        )
        out["draw"].append(draw)
        out["frame"].append(frame)
        out["hexes"].append(hexes)
        page.close()
    return out


def chosen_move(game: Game) -> str:
    """An eruption burying the most huts, else the first tile placement."""
    tiles = sorted(str(m) for m in game.legal_moves() if str(m).startswith("tile "))

    def buried(text: str) -> int:
        trial = game.copy()
        trial.play(text)
        return sum(trial.destroyed_huts(s) - game.destroyed_huts(s) for s in range(len(PLAYERS)))

    return max(tiles, key=buried)


def main_thread_tasks(trace: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The renderer main thread's top-level tasks and its frames, from a Chromium trace."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    mains = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M"
        and e.get("name") == "thread_name"
        and e["args"].get("name") == "CrRendererMain"
    }
    tasks = [
        e
        for e in events
        if (e.get("pid"), e.get("tid")) in mains
        and e.get("ph") == "X"
        and e.get("name") in ("RunTask", "ThreadControllerImpl::RunTask")
    ]
    frames = [e for e in events if e.get("name") == "BeginFrame" and e.get("ph") == "I"]
    return tasks, frames


def animated_move(browser: Any, url: str, game_id: str, game: Game) -> dict[str, float]:
    """Longest main-thread task (ms) while a move arrives and animates, and the frames."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    seat = game.to_move
    page = open_game(context, url, game_id, seat)
    page.wait_for_timeout(300)
    move = chosen_move(game)
    browser.start_tracing(
        page=page,
        categories=["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline.frame"],
    )
    page.evaluate("() => { window.animationsSeen = 0; }")
    started = time.perf_counter()
    reply = httpx.post(
        f"{url}/api/games/{game_id}/moves",
        json={"state": game.ply, "move": move},
        headers={"authorization": f"Bearer {token(game_id, seat)}"},
    )
    reply.raise_for_status()
    page.wait_for_function(f"() => document.querySelectorAll('.log .log-move').length > {game.ply}")
    seen = page.evaluate("document.getAnimations().length")
    page.wait_for_function("() => document.getAnimations().length === 0", timeout=5000)
    page.wait_for_timeout(100)
    trace = json.loads(browser.stop_tracing())
    if os.environ.get("TALUVA_TRACE_OUT"):
        Path(os.environ["TALUVA_TRACE_OUT"]).write_text(json.dumps(trace))
    elapsed = (time.perf_counter() - started) * 1000
    context.close()
    tasks, frames = main_thread_tasks(trace)
    durations = sorted((t["dur"] / 1000 for t in tasks), reverse=True)
    longest = durations[0] if durations else 0.0
    return {
        "longest_task_ms": longest,
        "next_longest_ms": durations[1:3],  # type: ignore[dict-item]
        "tasks": len(tasks),
        "frames": len(frames),
        "animations": seen,
        "window_ms": elapsed,
        "move": move,  # type: ignore[dict-item]
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--loads", type=int, default=5, help="page loads for the first render")
    parser.add_argument("--moves", type=int, default=3, help="animated moves to trace")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    game = island_of_60_tiles(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="taluva-web-render-"))
    database = f"sqlite:///{folder / 'games.sqlite3'}"
    ids = store(database, game, 1 + args.moves)
    port = free_port()
    server = start_server(database, port)
    url = f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
            version = browser.version
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            render = first_render(context, url, ids[0], args.loads)
            context.close()
            moves = [animated_move(browser, url, game_id, game) for game_id in ids[1:]]
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
    print(
        f"Chromium {version}, {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    print(
        f"island: {TILES} tiles, {render['hexes'][0]:.0f} hexes, {len(game.buildings())} buildings"
    )
    draw, frame = render["draw"], render["frame"]
    print(
        f"first render, {args.loads} loads: drawing median {statistics.median(draw):.1f} ms "
        f"(max {max(draw):.1f}); until the frame was shown median "
        f"{statistics.median(frame):.1f} ms (max {max(frame):.1f})  target < 100 ms"
    )
    for m in moves:
        print(
            f"move {m['move']}: longest main-thread task {m['longest_task_ms']:.1f} ms "
            f"(next {', '.join(f'{d:.1f}' for d in m['next_longest_ms'])}) over "
            f"{m['tasks']} tasks, {m['frames']} frames, {m['animations']} animations, "
            f"{m['window_ms']:.0f} ms traced  target < 50 ms"
        )
    worst = max(m["longest_task_ms"] for m in moves)
    print(f"longest task over {len(moves)} moves: {worst:.1f} ms")


if __name__ == "__main__":
    main()
