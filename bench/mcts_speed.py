"""How fast the tree search runs: iterations per second, and time per move at each level.

Positions come from greedy self-play at the start, middle and end of games (2 and 4
players). For each, one search of a fixed number of iterations is timed; the root's plans
(every placement with its builds) are timed apart, since they are paid once per turn.
Then each level answers the same positions and its mean and max seconds per move are shown.
Times are CPU seconds of the process that searches (``time.process_time``), so that other
work on a shared machine distorts them less; the wall-clock mean is shown beside them.

``--base REV`` measures the search of an earlier commit side by side with this working tree,
in one run (repeat it for several commits): REV's sources are exported (``git archive``) to
a temporary folder, every tree searches the same positions (made here, passed as records) in
worker processes, taking turns round after round, and each keeps its best round (``--interleave``:
turns position by position, each tree keeping its fastest search of every position).
``--instructions`` counts the instructions of each tree's searches under valgrind's callgrind
instead of timing them (the same count on every run, so a busy machine does not matter; about
50 times slower, so fewer positions).
Run ``python bench/mcts_speed.py`` (``--iterations``, ``--decks`` to change the work, ``--eval
learned`` to search with the learned evaluation), or
``python bench/mcts_speed.py --base 327d3e5 --base HEAD~3 [--interleave | --instructions]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from server_load import export_source

from taluva import Game
from taluva.ai.agents import GreedyAgent
from taluva.ai.evaluation import DEFAULT_EVALUATOR, Evaluator
from taluva.ai.learned import LearnedEvaluator
from taluva.ai.levels import LEVELS, level_agent
from taluva.ai.mcts import Search
from taluva.ai.turns import plan_turns

ROOT = Path(__file__).resolve().parents[1]

WORKER = r"""
import json, random, sys, time
from taluva import Game
from taluva.ai.evaluation import DEFAULT_EVALUATOR
from taluva.ai.mcts import Search
from taluva.ai.turns import plan_turns
records, iterations = json.load(open(sys.argv[1])), int(sys.argv[2])
games = [Game.from_record(record) for record in records]
if sys.argv[3] == "learned":
    from taluva.ai.learned import LearnedEvaluator
    evaluator = LearnedEvaluator()
else:
    evaluator = DEFAULT_EVALUATOR

def measure(index):
    game = games[index]
    tick = time.process_time()
    plan_turns(game.copy(), evaluator, random.Random(index), 0)
    root = time.process_time() - tick
    tick = time.process_time()
    done = Search(game.copy(), random.Random(index), evaluator).run(iterations, None).iterations
    return done, time.process_time() - tick, root

if sys.argv[4:] == ["serve"]:  # one position a line on stdin, its numbers a line on stdout
    for line in sys.stdin:
        print(json.dumps(measure(int(line))), flush=True)
    sys.exit(0)
done = 0
root = search = 0.0
for index in range(len(games) if iterations else 0):
    count, seconds, planning = measure(index)
    done, search, root = done + count, search + seconds, root + planning
print(json.dumps({"iterations": done, "search": search, "root": root}))
"""
"""Searches the positions of a records file with the tree on PYTHONPATH; uses only the API
that the earlier versions share (``Search(game, rng, evaluator).run``, ``plan_turns``; with
``learned``, ``LearnedEvaluator``)."""


def positions(decks: int, players: int) -> list[Game]:
    """Tile-phase positions after 2, 6 and 10 turns of greedy self-play."""
    found = []
    for deck in range(decks):
        game = Game.new(players=players, seed=1000 + deck)
        agents = [GreedyAgent(seed=p) for p in range(players)]
        for turns in (2, 6, 10):
            while game.result is None and game.ply < turns * players * 2:
                game.play(agents[game.to_move].choose(game.copy()))
            if game.result is None and game.phase == "tile":
                found.append(game.copy())
    return found


def rates(done: int, search: float, root: float) -> tuple[float, float]:
    """Iterations a second in the tree (the root's plans left out) and counting them."""
    return done / max(1e-9, search - root), done / max(1e-9, search)


def measure_here(decks: int, iterations: int, evaluation: str) -> None:
    """The plain report: both player counts, the rates, then each level's time a move."""
    evaluator: Evaluator = LearnedEvaluator() if evaluation == "learned" else DEFAULT_EVALUATOR
    for players in (2, 4):
        games = positions(decks, players)
        root_seconds = 0.0
        search_seconds = 0.0
        done = 0
        for index, game in enumerate(games):
            tick = time.process_time()
            plan_turns(game.copy(), evaluator, random.Random(index), 0)
            root_seconds += time.process_time() - tick
            tick = time.process_time()
            result = Search(game.copy(), random.Random(index), evaluator).run(iterations, None)
            search_seconds += time.process_time() - tick
            done += result.iterations
        tree, counting = rates(done, search_seconds, root_seconds)
        print(
            f"{players} players, {len(games)} positions: {tree:.0f} iterations/s in "
            f"the tree ({counting:.0f}/s counting the root's plans, "
            f"{root_seconds / len(games):.3f} s a root)"
        )
        for number, level in LEVELS.items():
            times = []
            walls = []
            for index, game in enumerate(games):
                agent = level_agent(number, seed=index)
                tick, wall = time.process_time(), time.perf_counter()
                agent.choose(game.copy())
                agent.close()
                times.append(time.process_time() - tick)
                walls.append(time.perf_counter() - wall)
            print(
                f"  {level.describe()}: {sum(times) / len(times):.3f} s mean, "
                f"{max(times):.3f} s max CPU per turn; wall {sum(walls) / len(walls):.3f} s "
                f"mean, {max(walls):.3f} s max (the build that follows takes ~0)"
            )
        sys.stdout.flush()


def run_worker(
    src: Path, records: Path, iterations: int, callgrind: bool, evaluation: str
) -> dict[str, float]:
    """One worker's numbers (iterations, CPU seconds of the searches and of the roots' plans;
    with ``callgrind``, the instructions of the whole process as ``instructions``)."""
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
    command = [sys.executable, "-c", WORKER, str(records), str(iterations), evaluation]
    if callgrind:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    data: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    if callgrind:
        collected = re.search(r"Collected : (\d+)", done.stderr)
        if collected is None:
            raise SystemExit(f"callgrind gave no count: {done.stderr[-500:]}")
        data["instructions"] = int(collected.group(1))
    return data


def interleaved(
    trees: dict[str, Path],
    records: Path,
    count: int,
    iterations: int,
    rounds: int,
    evaluation: str,
) -> dict[str, tuple[float, float]]:
    """Each tree's rates (in the tree, counting the root's plans) from its fastest search of
    each position, the trees taking turns position by position in long-lived workers."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    workers = {
        name: subprocess.Popen(
            [sys.executable, "-c", WORKER, str(records), str(iterations), evaluation, "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**env, "PYTHONPATH": str(src)},
        )
        for name, src in trees.items()
    }
    fastest: dict[tuple[str, int], tuple[int, float, float]] = {}
    try:
        for round_ in range(rounds):
            for index in range(count):
                names = list(workers)
                if (round_ + index) % 2:
                    names.reverse()
                for name in names:
                    worker = workers[name]
                    assert worker.stdin is not None and worker.stdout is not None
                    worker.stdin.write(f"{index}\n")
                    worker.stdin.flush()
                    done, search, root = json.loads(worker.stdout.readline())
                    old = fastest.get((name, index))
                    if old is not None:
                        search, root = min(search, old[1]), min(root, old[2])
                    fastest[name, index] = (done, search, root)
    finally:
        for worker in workers.values():
            if worker.stdin is not None:
                worker.stdin.close()
            worker.wait()
    best = {}
    for name in trees:
        mine = [fastest[name, index] for index in range(count)]
        best[name] = rates(
            sum(done for done, _, _ in mine),
            sum(search for _, search, _ in mine),
            sum(root for _, _, root in mine),
        )
    return best


def compare(
    bases: list[str],
    decks: int,
    iterations: int,
    rounds: int,
    callgrind: bool,
    interleave: bool,
    evaluation: str,
) -> None:
    """This working tree against each commit of ``bases`` on the same positions (see the
    module docstring)."""
    with tempfile.TemporaryDirectory() as folder:
        trees: dict[str, Path] = {}
        for number, base in enumerate(bases):
            place = Path(folder) / f"base{number}"
            place.mkdir()
            trees[base] = export_source(base, place, "--base")
        trees["now"] = ROOT / "src"
        against = ", ".join(bases)
        if callgrind:
            print(f"{against} vs this working tree: instructions per iteration (callgrind)")
        else:
            print(
                f"{against} vs this working tree: iterations per CPU second, best of "
                f"{rounds} rounds (in the tree / counting the root's plans)"
            )
        for players in (2, 4):
            records = Path(folder) / f"positions{players}.json"
            found = positions(decks, players)
            records.write_text(json.dumps([game.to_record() for game in found]))
            label = f"{players} players, {len(found)} positions x {iterations} iterations"
            if callgrind:
                counts = {}
                for name, src in trees.items():
                    idle = run_worker(src, records, 0, True, evaluation)["instructions"]
                    data = run_worker(src, records, iterations, True, evaluation)
                    counts[name] = (data["instructions"] - idle) / data["iterations"]
                for base in bases:
                    print(
                        f"{label}: {base} {counts[base]:,.0f}, now {counts['now']:,.0f}; "
                        f"{base}/now {counts[base] / counts['now']:.2f}x",
                        flush=True,
                    )
                continue
            if interleave:
                best = interleaved(trees, records, len(found), iterations, rounds, evaluation)
            else:
                best = {name: (0.0, 0.0) for name in trees}
                for _ in range(rounds):
                    for name, src in trees.items():
                        data = run_worker(src, records, iterations, False, evaluation)
                        tree, counting = rates(
                            int(data["iterations"]), data["search"], data["root"]
                        )
                        best[name] = (max(best[name][0], tree), max(best[name][1], counting))
            n_tree, n_all = best["now"]
            for base in bases:
                b_tree, b_all = best[base]
                print(
                    f"{label}: {base} {b_tree:.0f} / {b_all:.0f}, now {n_tree:.0f} / "
                    f"{n_all:.0f}; now/{base} {n_tree / b_tree:.2f}x / {n_all / b_all:.2f}x",
                    flush=True,
                )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--iterations", type=int, default=None, help="per search (100; 40 with --instructions)"
    )
    parser.add_argument(
        "--decks",
        type=int,
        default=None,
        help="games the positions come from (4; 1 with --instructions)",
    )
    parser.add_argument(
        "--base",
        action="append",
        help="a commit to measure side by side with this tree (repeat for several)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds per tree with --base")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="with --base: count instructions under valgrind's callgrind instead of timing",
    )
    parser.add_argument(
        "--interleave",
        action="store_true",
        help="with --base: the trees take turns position by position, each keeping its fastest "
        "search of every position (steadier on a busy machine than whole rounds)",
    )
    parser.add_argument(
        "--eval",
        choices=("heuristic", "learned"),
        default="heuristic",
        help="the evaluation the searches use (heuristic: the default search's; learned: the "
        "shipped network of each player count, as levels 5 and 6 use with two players)",
    )
    args = parser.parse_args(argv)
    if args.interleave and not args.base:
        parser.error("--interleave compares trees: give --base REV")
    if args.instructions and not args.base:
        parser.error("--instructions compares two trees: give --base REV")
    iterations = args.iterations or (40 if args.instructions else 100)
    decks = args.decks or (1 if args.instructions else 4)
    start = time.perf_counter()
    if args.base:
        compare(
            args.base,
            decks,
            iterations,
            args.rounds,
            args.instructions,
            args.interleave,
            args.eval,
        )
    else:
        measure_here(decks, iterations, args.eval)
    print(f"took {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
