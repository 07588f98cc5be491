"""How much Python's garbage collector stops a process that plays game after game with the
search (an arena worker, the server's AI workers): the objects it tracks, what a full
collection over them costs, and the longest moves and collections while playing.

Plays ``--games`` games of ``--players`` in one fresh process, every seat the agent
``--agent`` (``mcts:iterations=300``), on decks 0, 1, 2...; times every move (wall clock; a
build the search planned with its tile takes no time, so the mean is about half a turn's) and
every collection (``gc.callbacks``); then counts the objects tracked after a full collection
and times three more. ``--base REV`` plays the same games with the tree of commit REV as well
(its ``src`` exported with ``git archive`` into a temporary folder), one process after the
other, and prints both side by side; a search bounded by iterations plays the same moves in
both trees unless the change alters the search.
Run ``python bench/gc_pauses.py`` or ``python bench/gc_pauses.py --base HEAD~1 --players 2
--agent mcts:iterations=300,eval=learned``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import export_source

ROOT = Path(__file__).resolve().parents[1]

WORKER = r"""
import gc, json, sys, time
from taluva import Game
from taluva.ai import make_agent
games, players, spec = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pauses, started, moves = [], [0.0], []
def watch(phase, info):
    if phase == "start":
        started[0] = time.perf_counter()
    else:
        pauses.append(time.perf_counter() - started[0])
gc.callbacks.append(watch)
for deck in range(games):
    game = Game.new(players=players, seed=deck)
    agents = [make_agent(spec, deck * players + seat) for seat in range(players)]
    while game.result is None:
        tick = time.perf_counter()
        move = agents[game.to_move].choose(game.copy())
        moves.append(time.perf_counter() - tick)
        game.play(move)
    print(f"  game {deck + 1} of {games}: {game.ply} moves", file=sys.stderr, flush=True)
gc.callbacks.remove(watch)
gc.collect()
tracked = len(gc.get_objects())
full = []
for _ in range(3):
    tick = time.perf_counter()
    gc.collect()
    full.append(time.perf_counter() - tick)
print(json.dumps({"moves": moves, "pauses": pauses, "tracked": tracked, "full": min(full)}))
"""
"""Plays the games with the tree on PYTHONPATH and prints its numbers as one JSON line; uses
only the API every version shares (``Game.new``, ``make_agent``, ``choose``, ``play``)."""


@dataclass
class Numbers:
    """One tree's process: every move's and every collection's seconds, the objects tracked
    after a full collection, and the fastest of three full collections then."""

    moves: list[float]
    pauses: list[float]
    tracked: int
    full: float


def measure(src: Path, games: int, players: int, agent: str) -> Numbers:
    """The numbers of one tree's process (see ``WORKER``), its progress passed through."""
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
    command = [sys.executable, "-c", WORKER, str(games), str(players), agent]
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, env=env)
    return Numbers(**json.loads(done.stdout.strip().splitlines()[-1]))


def row(name: str, numbers: Numbers) -> str:
    """One tree's line of the Markdown table."""
    moves, pauses = sorted(numbers.moves), sorted(numbers.pauses)
    long_pauses = sum(1 for p in pauses if p > 0.05)
    return (
        f"| {name} | {len(moves)} | {numbers.tracked:,} | {numbers.full:.3f} | "
        f"{sum(moves) / len(moves):.3f} | {moves[int(len(moves) * 0.99)]:.3f} | "
        f"{moves[-1]:.3f} | {long_pauses} | {pauses[-1] if pauses else 0.0:.3f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games to play (3)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=4, help="(4)")
    parser.add_argument(
        "--agent", default="mcts:iterations=300", help="every seat's agent (mcts:iterations=300)"
    )
    parser.add_argument("--base", help="a commit to measure side by side with this tree")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    start = time.perf_counter()
    trees = {"now": ROOT / "src"}
    with tempfile.TemporaryDirectory() as folder:
        if args.base:
            trees = {args.base: export_source(args.base, Path(folder), "--base"), **trees}
        results = {}
        for name, src in trees.items():
            print(f"{name}: {args.games} games, {args.players} players, {args.agent}")
            results[name] = measure(src, args.games, args.players, args.agent)
    print()
    print(
        "| tree | moves | tracked after | full collection s | move s: mean | 99th | "
        "longest | collections > 0.05 s | longest collection s |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, numbers in results.items():
        print(row(name, numbers))
    print(f"took {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
