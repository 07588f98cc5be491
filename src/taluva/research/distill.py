"""Searched self-play for the learned evaluation: every turn's position, and what a search
of it found, as training targets that are far less noisy than the game's result alone.

``games`` plays seeded games in which every seat is the same search bounded by iterations
(``taluva.ai.mcts``, the heuristic evaluation). At the start of every turn it writes the
position's inputs to the learned model (``taluva.ai.learned.position_inputs``) and every
player's expected result after the plan the search chose (its visits averaged, the search's
value of the position); each finished game adds the players' final ranks. One JSON line a
game, appended as it ends, so ``--resume`` goes on where a run stopped. ``positions`` turns
the lines into the ``.npz`` that ``taluva.research.value_fit`` reads, with the search's values
beside the ranks (array ``search``).

  python -m taluva.research.distill games --players 2 --games 300 --out searched-2p.jsonl
  python -m taluva.research.distill positions searched-2p.jsonl --out searched-2p.npz
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from taluva.ai import arena
from taluva.ai.evaluation import DEFAULT_EVALUATOR, situation
from taluva.ai.learned import position_inputs
from taluva.ai.mcts import MctsAgent
from taluva.engine.game import Game
from taluva.engine.options import PLAYER_COUNTS, player_count_range
from taluva.research.commands import interrupted
from taluva.research.selfplay import PositionRows, final_ranks

DISTILL_FORMAT: Final = "taluva-searched-game/1"
ITERATIONS: Final = 300
"""The search's budget per turn by default: level 4's twice over, about 0.12 s a turn."""


def distill_tasks(players: int, games: int, seed: int, iterations: int) -> list[arena.Task]:
    """One task a game: its deck's seed, the search's budget and each seat's search seed."""
    if players not in PLAYER_COUNTS:
        raise ValueError(
            f"players is {players}: a game of Taluva has {player_count_range()} players"
        )
    if games < 1:
        raise ValueError(f"games is {games}: play at least one")
    if iterations < 1:
        raise ValueError(f"iterations is {iterations}: search at least once a turn")
    return [
        {
            "index": game,
            "seed": f"distill:{seed}:{players}:{game}",
            "players": players,
            "iterations": iterations,
            "agent_seeds": [
                random.Random(f"distill:{seed}:{players}:{game}:{seat}").randrange(2**32)
                for seat in range(players)
            ],
        }
        for game in range(games)
    ]


def play_searched(task: arena.Task) -> dict[str, Any]:
    """Play one task's game, every seat searching, and return its turns' inputs, the search's
    values of them and the final ranks."""
    players = int(task["players"])
    game = Game.new(players=[f"search {seat + 1}" for seat in range(players)], seed=task["seed"])
    agents = [MctsAgent(seed, iterations=int(task["iterations"])) for seed in task["agent_seeds"]]
    inputs: list[list[list[float]]] = []
    values: list[list[float]] = []
    eliminated: list[list[int]] = []
    while game.result is None:
        where = situation(game)
        features = [DEFAULT_EVALUATOR.features(game, p) for p in range(players)]
        searched = agents[game.to_move].search(game.copy())
        inputs.append(position_inputs(features, where, game.phase != "tile"))
        values.append([round(v, 6) for v in searched.results])
        eliminated.append(list(where.eliminated))
        for move in searched.plan.moves:
            game.play(move)
    return {
        "format": DISTILL_FORMAT,
        "index": task["index"],
        "seed": task["seed"],
        "iterations": task["iterations"],
        "inputs": inputs,
        "values": values,
        "eliminated": eliminated,
        "ranks": final_ranks(game.result, players),
        "moves": [str(move) for move in game.moves],
    }


def done_games(path: Path) -> set[int]:
    """The task numbers already in a file of searched games (none if it does not exist)."""
    if not path.exists():
        return set()
    with path.open(encoding="utf-8") as lines:
        return {json.loads(line)["index"] for line in lines if line.strip()}


def play_games(
    players: int,
    games: int,
    seed: int,
    iterations: int,
    out: Path,
    workers: int,
    resume: bool = False,
) -> int:
    """Play the games not yet in ``out`` and append them; returns how many ran."""
    if out.exists() and not resume:
        raise FileExistsError(f"{out} exists: pass --resume to add the games it lacks")
    done = done_games(out)
    todo = [t for t in distill_tasks(players, games, seed, iterations) if t["index"] not in done]
    started = time.perf_counter()
    with out.open("a", encoding="utf-8") as handle:
        for count, result in enumerate(arena.local_map(workers)(play_searched, todo), 1):
            handle.write(json.dumps(result, separators=(",", ":")) + "\n")
            handle.flush()
            if count % 5 == 0 or count == len(todo):
                seconds = time.perf_counter() - started
                print(f"  {count}/{len(todo)} games, {seconds:.0f} s", file=sys.stderr)
    return len(todo)


def read_searched(paths: Iterable[Path]) -> Iterator[dict[str, Any]]:
    """The games of ``games`` files, in order, each checked to be a searched game."""
    for path in paths:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                entry: dict[str, Any] = json.loads(line)
                if entry.get("format") != DISTILL_FORMAT:
                    raise ValueError(f"{path}:{number}: not a searched game ({DISTILL_FORMAT})")
                yield entry


def export_positions(paths: Iterable[Path], out: Path) -> int:
    """Write every searched position of ``paths`` to ``out`` in the positions format that
    ``taluva.research.value_fit`` reads, plus ``search``: each player's value by the search."""
    table = PositionRows()
    for games, entry in enumerate(read_searched(paths)):
        for rows, values, out_players in zip(
            entry["inputs"], entry["values"], entry["eliminated"], strict=True
        ):
            table.add(rows, entry["ranks"], out_players, games, values)
    return table.write(out)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m taluva.research.distill", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    games = commands.add_parser("games", help="play searched games, append their turns")
    games.add_argument("--players", type=int, default=2, help=f"{player_count_range()} (default 2)")
    games.add_argument("--games", type=int, default=300, help="how many (default 300)")
    games.add_argument("--seed", type=int, default=18, help="the decks' seed (default 18)")
    games.add_argument(
        "--iterations", type=int, default=ITERATIONS, help=f"a turn (default {ITERATIONS})"
    )
    games.add_argument("--out", type=Path, required=True, help="JSON Lines file of games")
    games.add_argument("--workers", type=int, default=1, help="local processes (default 1)")
    games.add_argument("--resume", action="store_true", help="add the games the file lacks")
    positions = commands.add_parser("positions", help="searched games to the model's data")
    positions.add_argument("games", type=Path, nargs="+", help="JSON Lines files of games")
    positions.add_argument("--out", type=Path, required=True, help="the .npz to write")
    args = parser.parse_args(argv)
    try:
        if args.command == "games":
            count = play_games(
                args.players,
                args.games,
                args.seed,
                args.iterations,
                args.out,
                args.workers,
                args.resume,
            )
            print(f"played {count} games into {args.out}")
        else:
            count = export_positions(args.games, args.out)
            print(f"wrote {count} positions to {args.out}")
    except (OSError, ValueError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return interrupted(args.out, resumable=args.command == "games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
