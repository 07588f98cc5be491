"""How fast the tree search runs: iterations per second, and time per move at each level.

Positions come from greedy self-play at the start, middle and end of games (2 and 4
players). For each, one search of a fixed number of iterations is timed; the root's plans
(every placement with its builds) are timed apart, since they are paid once per turn.
Then each level answers the same positions and its mean and max seconds per move are shown.
Times are CPU seconds of this process (``time.process_time``), so that other work on a
shared machine does not distort them; the wall-clock mean is shown beside them.
Run ``python bench/mcts_speed.py`` (``--iterations``, ``--decks`` to change the work).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from taluva import Game
from taluva.ai.agents import GreedyAgent
from taluva.ai.evaluation import DEFAULT_EVALUATOR
from taluva.ai.levels import LEVELS, level_agent
from taluva.ai.mcts import Search
from taluva.ai.turns import plan_turns


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--decks", type=int, default=4)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    for players in (2, 4):
        games = positions(args.decks, players)
        root_seconds = 0.0
        search_seconds = 0.0
        done = 0
        for index, game in enumerate(games):
            tick = time.process_time()
            plan_turns(game.copy(), DEFAULT_EVALUATOR, random.Random(index), 0)
            root_seconds += time.process_time() - tick
            tick = time.process_time()
            result = Search(game.copy(), random.Random(index)).run(args.iterations, None)
            search_seconds += time.process_time() - tick
            done += result.iterations
        tree = max(1e-9, search_seconds - root_seconds)
        print(
            f"{players} players, {len(games)} positions: {done / tree:.0f} iterations/s in "
            f"the tree ({done / search_seconds:.0f}/s counting the root's plans, "
            f"{root_seconds / len(games):.3f} s a root)"
        )
        for number, level in LEVELS.items():
            times = []
            walls = []
            for index, game in enumerate(games):
                agent = level_agent(number, seed=index)
                tick, wall = time.process_time(), time.perf_counter()
                agent.choose(game.copy())
                times.append(time.process_time() - tick)
                walls.append(time.perf_counter() - wall)
            print(
                f"  {level.describe()}: {sum(times) / len(times):.3f} s mean, "
                f"{max(times):.3f} s max CPU per turn; wall {sum(walls) / len(walls):.3f} s "
                f"mean, {max(walls):.3f} s max (the build that follows takes ~0)"
            )
        sys.stdout.flush()
    print(f"took {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
