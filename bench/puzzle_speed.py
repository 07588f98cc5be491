"""How long a puzzle takes in the browser: to load (from asking for the page ``#/puzzles`` to
the board drawn with the task) and to check a turn (from the build typed to the verdict
shown; the tile placed before it is timed too).

Starts ``taluva serve`` on loopback with a fresh SQLite database, opens the page in Debian's
Chromium driven by Playwright as a guest, and solves ``--puzzles`` puzzles one after another:
the answer's tile, then (every other puzzle) the answer's build or a wrong build. Block
puzzles (the opponent's every reply with every unseen tile is tried) are timed apart, by
going to them with the theme ``block``. Times are wall-clock, in milliseconds, median and
largest.

    .venv/bin/python bench/puzzle_speed.py --puzzles 13
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from server_load import free_port
from web_render import CHROMIUM, CHROMIUM_FLAGS, start_server

from taluva.learn.puzzles import load_puzzles


def timed(action: Any) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def solve(page: Any, wrong: bool) -> tuple[float, float]:
    """Place the shown puzzle's tile, then build: the milliseconds of each step."""
    puzzle = load_puzzles().by_id(page.get_attribute(".puzzle-card", "data-puzzle"))
    build = puzzle.answer[1]
    if wrong:  # a wrong build, where the answer's tile leaves one
        game = puzzle.game()
        game.play(puzzle.answer[0])
        build = next((str(m) for m in game.legal_moves() if str(m) != build), build)

    def play(move: str, until: str) -> None:
        page.fill("#move-input", move)
        page.press("#move-input", "Enter")
        page.wait_for_selector(until)

    tile_ms = timed(lambda: play(puzzle.answer[0], ".puzzle-card[data-phase='build']"))
    check_ms = timed(lambda: play(build, "#puzzle-verdict"))
    return tile_ms, check_ms


def run(url: str, count: int, theme: str) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {"load": [], "tile": [], "check": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url + "/")
        page.evaluate("t => localStorage.setItem('taluva.puzzles.theme', t)", theme)
        load = ".puzzle-card[data-phase='tile']"
        for n in range(count):
            if n == 0:
                times["load"].append(
                    timed(lambda: (page.goto(url + "/#/puzzles"), page.wait_for_selector(load)))
                )
            else:
                times["load"].append(
                    timed(lambda: (page.click("#next-puzzle"), page.wait_for_selector(load)))
                )
            tile_ms, check_ms = solve(page, wrong=n % 2 == 1)
            times["tile"].append(tile_ms)
            times["check"].append(check_ms)
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--puzzles", type=int, default=13, help="puzzles of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = f"sqlite:///{Path(folder) / 'bench.db'}"
        port = free_port()
        server = start_server(database, port)
        try:
            url = f"http://127.0.0.1:{port}"
            for label, theme in (("winning puzzles", ""), ("block puzzles", "block")):
                times = run(url, args.puzzles, theme)
                print(f"{label} ({args.puzzles}, as a guest):")
                for step, values in times.items():
                    print(
                        f"  {step:<5} median {statistics.median(values):6.0f} ms, "
                        f"largest {max(values):6.0f} ms"
                    )
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
