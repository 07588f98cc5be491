"""The engine and the search side by side with an earlier commit, in one run.

Exports ``--base`` (a commit) with ``git archive`` and runs the same workloads on it and on
this working tree, alternating between the two round after round so that both meet the same
machine load; each workload keeps its fastest round (CPU seconds of the worker process).
Workloads use only the public API both versions share:

- ``games``: random 2-player games, the full ``legal_moves()`` list every ply;
- ``playouts``: random 2-player games through ``play(random_move(rng))``;
- ``perft``: every position of tests/data/perft/base.jsonl to depth 2;
- ``mcts2`` / ``mcts4``: tree-search iterations from greedy self-play positions.

Timing on a shared machine is noisy; ``--instructions`` counts the instructions each
workload executes under valgrind's callgrind instead (the same count on every run; the ratio
``base/now`` above 1 means fewer instructions now).
Run ``python bench/versus.py --base df49054`` (``--rounds``, ``--only``, ``--instructions``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "tests" / "data" / "perft" / "base.jsonl"
BENCH = ROOT / "bench"

WORKER = r"""
import json, random, sys, time, warnings
warnings.simplefilter("ignore")
from taluva import Game
kind, size = sys.argv[1], int(sys.argv[2])

def games():
    rng = random.Random(7)
    plies = 0
    for seed in range(size):
        game = Game.new(players=2, seed=seed)
        while not game.is_over:
            moves = game.legal_moves()
            game.play(moves[int(rng.random() * len(moves))])
            plies += 1
    return size, "games"

def playouts():
    rng = random.Random(7)
    for seed in range(size):
        game = Game.new(players=2, seed=seed)
        while not game.is_over:
            game.play(game.random_move(rng))
    return size, "games"

def perft_table():
    try:
        from taluva.engine.perft import perft
    except ImportError:  # a base from before the engine moved into taluva.engine (d3af43d)
        from taluva.perft import perft
    leaves = 0
    for line in open(sys.argv[3]).readlines()[:size]:
        entry = json.loads(line)
        leaves += perft(Game.from_record(entry["record"]), 2)
    return leaves, "leaves"

def mcts(players):
    sys.path.insert(0, sys.argv[4])  # bench/, for the positions mcts_speed.py searches
    from mcts_speed import positions
    from taluva.ai.mcts import Search
    found = positions(int(sys.argv[5]), players)
    start = time.process_time()
    done = 0
    for index, game in enumerate(found):
        done += Search(game.copy(), random.Random(index)).run(size, None).iterations
    return done, "iterations", time.process_time() - start

work = {"games": games, "playouts": playouts, "perft": perft_table,
        "mcts2": lambda: mcts(2), "mcts4": lambda: mcts(4)}[kind]
start = time.process_time()
result = work()
seconds = result[2] if len(result) > 2 else time.process_time() - start
print(json.dumps({"count": result[0], "unit": result[1], "seconds": seconds}))
"""

SIZES = {"games": 60, "playouts": 400, "perft": 13, "mcts2": 60, "mcts4": 60}
SMALL = {"games": 6, "playouts": 40, "perft": 4, "mcts2": 5, "mcts4": 5}
"""Workload sizes under ``--instructions`` (valgrind runs Python some 50 times slower; the
searches then start from the positions of one deck instead of three)."""


def export(commit: str, into: Path) -> Path:
    """The ``src`` tree of a commit, unpacked into ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit, "src"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def measure(src: Path, kind: str) -> tuple[float, str]:
    """Units per CPU second of one workload on the tree ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
    out = subprocess.run(
        [sys.executable, "-c", WORKER, kind, str(SIZES[kind]), str(TABLE), str(BENCH), "3"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    data = json.loads(out.strip().splitlines()[-1])
    return data["count"] / data["seconds"], data["unit"]


def instructions(src: Path, kind: str, size: int) -> tuple[int, int]:
    """Instructions executed by one workload on the tree ``src`` (callgrind), and its count
    of units; the same run with nothing to do is subtracted (start-up and imports)."""

    def run(work: int) -> tuple[int, int]:
        env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        done = subprocess.run(
            [*command, sys.executable, "-c", WORKER, kind, str(work), str(TABLE), str(BENCH), "1"],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
        collected = re.search(r"Collected : (\d+)", done.stderr)
        assert collected is not None, done.stderr[-500:]
        count = json.loads(done.stdout.strip().splitlines()[-1])["count"]
        return int(collected.group(1)), count

    total, count = run(size)
    idle, _ = run(0)
    return total - idle, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD~1", help="the commit to compare with")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per workload and tree")
    parser.add_argument("--only", nargs="*", choices=sorted(SIZES), help="these workloads")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions with valgrind's callgrind instead of timing (exact, slow)",
    )
    args = parser.parse_args(argv)
    kinds = args.only or list(SIZES)
    with tempfile.TemporaryDirectory() as folder:
        base = export(args.base, Path(folder))
        current = ROOT / "src"
        if args.instructions:
            print(f"base {args.base} vs this working tree: instructions per unit (callgrind)")
            print(f"{'workload':<10} {'base':>14} {'now':>14} {'base/now':>9}")
            for kind in kinds:
                old, units = instructions(base, kind, SMALL[kind])
                new, _ = instructions(current, kind, SMALL[kind])
                print(
                    f"{kind:<10} {old / units:>14,.0f} {new / units:>14,.0f} {old / new:>8.3f}x",
                    flush=True,
                )
            return 0
        print(f"base {args.base} vs this working tree, best of {args.rounds} rounds (CPU time)")
        print(f"{'workload':<10} {'base':>14} {'now':>14} {'now/base':>9}")
        for kind in kinds:
            best = {"base": 0.0, "now": 0.0}
            unit = ""
            for _ in range(args.rounds):
                for name, tree in (("base", base), ("now", current)):
                    rate, unit = measure(tree, kind)
                    best[name] = max(best[name], rate)
            ratio = best["now"] / best["base"]
            print(
                f"{kind:<10} {best['base']:>10.1f} {unit[:3]}/s {best['now']:>10.1f} "
                f"{unit[:3]}/s {ratio:>8.2f}x",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
