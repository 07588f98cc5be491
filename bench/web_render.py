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

Times are wall-clock; each task's CPU time on the main thread (from the trace) is shown
beside it, since on a shared, loaded machine the page waits for a core as well as works.
``--against REV`` measures REV's client (its ``static`` folder from ``git archive``, served by
this server) in the same run, page load for page load and move for move alternately, so both
see the same load. ``--trace FOLDER`` keeps the traces (open them in chrome://tracing or
Perfetto).

Targets (issue 16): first render under 100 ms, longest task during an animation under 50 ms.

    .venv/bin/python bench/web_render.py
    .venv/bin/python bench/web_render.py --loads 10 --moves 5 --against HEAD~3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from server_load import export_path, free_port

from taluva import Game
from taluva.engine.moves import DOUBLE, TILE
from taluva.server.players.standings import settle
from taluva.server.storage.store import LIVE, NewMove, Store, StoredGame, StoredSeat, token_digest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"]
PLAYERS = ["Ana", "Ben", "Cy", "Dee", "Eli"]
TILES = 60


def island_of_60_tiles(seed: int) -> Game:
    """A five-player game played at random until 60 tiles are down and a tile is to place."""
    rng = random.Random(seed)
    game = Game.new(players=PLAYERS, seed=seed)
    while True:
        placed = sum(1 for m in game.moves if m.kind in (TILE, DOUBLE))
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
    box = Store(database, game_end=settle)
    box.migrate()
    ids = []
    for copy in range(copies):
        game_id = f"bench{copy}"
        seats = [
            StoredSeat(seat, "human", name, None, token_digest(token(game_id, seat)))
            for seat, name in enumerate(PLAYERS)
        ]
        box.create_game(
            StoredGame.starting(
                game_id, "60 tiles", record, seats, status=LIVE, hints=False, stamp=stamp
            )
        )
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


# ``taluva serve`` with another folder of client files (``--against``): the server is this
# tree's, only the page and its scripts are REV's.
SERVE_WITH_STATIC = (
    "import pathlib, sys; import taluva.server.web as web; "
    "web.STATIC = pathlib.Path(sys.argv.pop(1)); from taluva.cli import main; sys.exit(main())"
)


CLIENT_FOLDERS = ("src/taluva/server/web/static", "src/taluva/server/static")
"""Where the client's files are, newest layout first (they moved into ``server/web``)."""


def export_static(revision: str, folder: Path) -> Path:
    """Write the client files of a git revision (in whichever of ``CLIENT_FOLDERS`` it has
    them) under ``folder``; return their folder."""
    for path in CLIENT_FOLDERS:
        found = subprocess.run(
            ["git", "cat-file", "-e", f"{revision}:{path}"], capture_output=True, check=False
        )
        if found.returncode == 0:
            return export_path(revision, folder, path)
    return export_path(revision, folder, CLIENT_FOLDERS[0])


def start_server(database: str, port: int, static: Path | None = None) -> subprocess.Popen[str]:
    """``taluva serve`` on loopback, with the client files of ``static`` if given."""
    launch = ["-m", "taluva"] if static is None else ["-c", SERVE_WITH_STATIC, str(static)]
    command = [sys.executable, *launch, "serve", "--port", str(port)]
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


def open_game(context: Any, url: str, game_id: str, seat: int, browser: Any = None) -> Any:
    """The game's page with ``seat``'s token, once the board's first frame was shown; with
    ``browser``, the page load is traced (the trace is kept as ``page.load_trace``)."""
    page = context.new_page()
    page.goto(url + "/")
    page.evaluate(
        "t => localStorage.setItem('taluva.tokens', JSON.stringify(t))",
        {game_id: {str(seat): token(game_id, seat)}},
    )
    if browser is not None:
        browser.start_tracing(page=page, categories=["toplevel", "blink.user_timing"])
    page.goto(f"{url}/#/game/{game_id}")
    page.wait_for_function("() => performance.getEntriesByName('board:first-frame').length")
    if browser is not None:
        page.load_trace = json.loads(browser.stop_tracing())
    return page


def main_thread_tasks(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """The top-level tasks of the renderers' main threads in a Chromium trace."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    mains = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M"
        and e.get("name") == "thread_name"
        and e["args"].get("name") == "CrRendererMain"
    }
    return [
        e
        for e in events
        if (e.get("pid"), e.get("tid")) in mains
        and e.get("ph") == "X"
        and e.get("name") in ("RunTask", "ThreadControllerImpl::RunTask")
    ]


def frames_of(trace: dict[str, Any]) -> int:
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    return sum(1 for e in events if e.get("name") == "BeginFrame" and e.get("ph") == "I")


def cpu_between(trace: dict[str, Any], first: str, last: str) -> float:
    """Main-thread CPU time (ms) of the tasks from the one in which user-timing measure
    ``first`` starts to the end of measure ``last``: the work behind the figures the page
    measures itself (with what its first task did before the measure started)."""
    events = trace["traceEvents"]
    marks = {
        (e["name"], e["ph"]): e["ts"]
        for e in events
        if e.get("cat") == "blink.user_timing" and e.get("ph") in ("b", "e")
    }
    start, end = marks[(first, "b")], marks[(last, "e")]
    return float(
        sum(
            t.get("tdur", 0) / 1000
            for t in main_thread_tasks(trace)
            if t["ts"] + t["dur"] > start and t["ts"] < end
        )
    )


def save_trace(folder: Path | None, name: str, trace: Any) -> None:
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.json").write_text(json.dumps(trace))


def first_render(browser: Any, context: Any, url: str, game_id: str) -> dict[str, float]:
    """One page load: the board's first drawing and first frame (ms, wall-clock), and the
    main thread's CPU time from the start of that drawing to the frame."""
    page = open_game(context, url, game_id, 0, browser)
    draw, frame, hexes = page.evaluate(
        """() => [performance.getEntriesByName('board:first-draw')[0].duration,
                  performance.getEntriesByName('board:first-frame')[0].duration,
                  document.querySelectorAll('svg.board .hex').length]"""
    )
    trace = page.load_trace
    page.close()
    cpu = cpu_between(trace, "board:first-draw", "board:first-frame")
    return {"draw": draw, "frame": frame, "cpu": cpu, "hexes": hexes, "trace": trace}


def chosen_move(game: Game) -> str:
    """An eruption burying the most huts, else the first tile placement."""
    tiles = sorted(str(m) for m in game.legal_moves() if m.kind == TILE)

    def buried(text: str) -> int:
        trial = game.copy()
        trial.play(text)
        return sum(trial.destroyed_huts(s) - game.destroyed_huts(s) for s in range(len(PLAYERS)))

    return max(tiles, key=buried)


def animated_move(browser: Any, url: str, game_id: str, game: Game) -> dict[str, Any]:
    """Longest main-thread task (ms, wall and CPU) while a move arrives and animates."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    seat = game.to_move
    page = open_game(context, url, game_id, seat)
    page.wait_for_timeout(300)
    move = chosen_move(game)
    browser.start_tracing(
        page=page,
        categories=["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline.frame"],
    )
    started = time.perf_counter()
    reply = httpx.post(
        f"{url}/api/games/{game_id}/moves",
        json={"state": game.ply, "move": move},
        headers={"authorization": f"Bearer {token(game_id, seat)}"},
    )
    reply.raise_for_status()
    # Polled every 20 ms rather than every frame: checking in each frame would add to the
    # very tasks being measured (getAnimations() brings the page's style up to date).
    page.wait_for_function(
        f"() => document.querySelectorAll('.log .log-move').length > {game.ply}", polling=20
    )
    seen = page.evaluate("document.getAnimations().length")
    page.wait_for_function("() => document.getAnimations().length === 0", polling=20, timeout=5000)
    page.wait_for_timeout(100)
    trace = json.loads(browser.stop_tracing())
    elapsed = (time.perf_counter() - started) * 1000
    context.close()
    tasks = sorted(main_thread_tasks(trace), key=lambda t: -t["dur"])
    return {
        "longest": tasks[0]["dur"] / 1000 if tasks else 0.0,
        "longest_cpu": tasks[0].get("tdur", 0) / 1000 if tasks else 0.0,
        "next": [t["dur"] / 1000 for t in tasks[1:3]],
        "most_cpu": max((t.get("tdur", 0) / 1000 for t in tasks), default=0.0),
        "tasks": len(tasks),
        "frames": frames_of(trace),
        "animations": seen,
        "window_ms": elapsed,
        "move": move,
        "trace": trace,
    }


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.1f} ms (max {max(values):.1f})"


def report(label: str, loads: list[dict[str, float]], moves: list[dict[str, Any]]) -> None:
    """Print one client's figures."""
    print(f"{label}:")
    print(
        f"  first render, {len(loads)} loads: drawing {spread([x['draw'] for x in loads])}; "
        f"until the frame was shown {spread([x['frame'] for x in loads])}; main-thread CPU "
        f"meanwhile {spread([x['cpu'] for x in loads])}  target < 100 ms"
    )
    for m in moves:
        print(
            f"  move {m['move']}: longest main-thread task {m['longest']:.1f} ms "
            f"({m['longest_cpu']:.1f} ms CPU; next {', '.join(f'{d:.1f}' for d in m['next'])}; "
            f"most CPU in one task {m['most_cpu']:.1f} ms) over {m['tasks']} tasks, "
            f"{m['frames']} frames, {m['animations']} animations, {m['window_ms']:.0f} ms traced"
            "  target < 50 ms"
        )
    longest = [m["longest"] for m in moves]
    print(
        f"  longest task over {len(moves)} moves: {spread(longest)}; its CPU "
        f"{spread([m['longest_cpu'] for m in moves])}  target < 50 ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--loads", type=int, default=5, help="page loads for the first render")
    parser.add_argument("--moves", type=int, default=3, help="animated moves to trace")
    parser.add_argument("--against", metavar="REV", help="also measure REV's client, alternately")
    parser.add_argument("--trace", metavar="FOLDER", type=Path, help="keep the traces there")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    game = island_of_60_tiles(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="taluva-web-render-"))
    clients: dict[str, Path | None] = {"this tree": None}
    if args.against:
        clients[args.against] = export_static(args.against, folder)
    servers, urls, ids = [], {}, {}
    loads: dict[str, list[dict[str, float]]] = {name: [] for name in clients}
    moves: dict[str, list[dict[str, Any]]] = {name: [] for name in clients}
    try:
        for number, (name, static) in enumerate(clients.items()):
            database = f"sqlite:///{folder / f'games{number}.sqlite3'}"
            ids[name] = store(database, game, 1 + args.moves)
            port = free_port()
            servers.append(start_server(database, port, static))
            urls[name] = f"http://127.0.0.1:{port}"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
            version = browser.version
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            for load in range(args.loads):
                for number, name in enumerate(clients):
                    got = first_render(browser, context, urls[name], ids[name][0])
                    save_trace(args.trace, f"load{load}-client{number}", got.pop("trace"))
                    loads[name].append(got)
            context.close()
            for index in range(args.moves):
                for number, name in enumerate(clients):
                    got = animated_move(browser, urls[name], ids[name][1 + index], game)
                    save_trace(args.trace, f"move{index}-client{number}", got.pop("trace"))
                    moves[name].append(got)
            browser.close()
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
    print(
        f"Chromium {version}, {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    hexes = loads["this tree"][0]["hexes"]
    print(f"island: {TILES} tiles, {hexes:.0f} hexes, {len(game.buildings())} buildings")
    for name in clients:
        report(name, loads[name], moves[name])


if __name__ == "__main__":
    main()
