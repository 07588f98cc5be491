"""Does the learned evaluation help? The same search with each evaluation, at equal time.

One seat searches with the learned evaluation (``mcts:time=S,eval=learned``), the others with
the heuristic (``mcts:time=S``); the arena plays every deck in every seat rotation and
reports win rates with 95% intervals (a fair share is one in the number of players). Each game
is appended to the records file as it ends, so ``--resume`` goes on where a run stopped.

  python -m taluva.research.learned_match --players 2 --time 0.5 --games 100 \\
      --records learned-2p.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taluva.ai import arena
from taluva.engine.options import PLAYER_COUNTS, player_count_range
from taluva.research.commands import interrupted


def match_agents(
    players: int,
    seconds: float,
    iterations: int | None = None,
    model: Path | None = None,
    own: bool = False,
) -> list[str]:
    """The seats of one game: the learned search first (with the network of ``model``, or
    the shipped one for the player count; with ``own``, valuing only its own player by the
    network), the heuristic's in the others."""
    if players not in PLAYER_COUNTS:
        raise ValueError(
            f"players is {players}: a game of Taluva has {player_count_range()} players"
        )
    if model is not None and not model.is_file():
        raise ValueError(f"--model {model}: no such file")
    budget = f"time={seconds:g}" + (f",iterations={iterations}" if iterations else "")
    evaluation = "learned-own" if own else "learned"
    learned = f"mcts:{budget},eval={evaluation}" + (f",model={model}" if model else "")
    return [learned] + [f"mcts:{budget}"] * (players - 1)


def read_results(path: Path) -> list[arena.TaskResult]:
    """The results of the games already in a records file (written with timing)."""
    if not path.exists():
        return []
    results = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                entry: dict[str, Any] = json.loads(line)
                result = entry["record"].get("result") or {}
                results.append(
                    {
                        **entry,
                        "index": entry["game"],
                        "reason": result.get("reason"),
                        "seconds": entry.get("seconds", [0.0] * len(entry["agents"])),
                        "longest": entry.get("longest", [0.0] * len(entry["agents"])),
                    }
                )
    return results


def run_match(
    agents: list[str], games: int, seed: int, records: Path, workers: int, resume: bool
) -> arena.Report:
    """Play the games not yet in ``records``, append them, and report on all of them."""
    if records.exists() and not resume:
        raise FileExistsError(f"{records} exists: pass --resume to add the games it lacks")
    tasks = arena.make_tasks(agents, games, seed)
    done = read_results(records)
    known = {r["index"] for r in done}
    todo = [task for task in tasks if task["index"] not in known]
    with records.open("a", encoding="utf-8") as handle:
        for count, result in enumerate(arena.local_map(workers)(arena.play_task, todo), 1):
            arena.write_records([result], handle, timing=True)
            handle.flush()
            print(f"  {len(known) + count}/{len(tasks)} games", file=sys.stderr)
    return arena.report(read_results(records))


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m taluva.research.learned_match", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--players", type=int, default=2, help=f"{player_count_range()} (default 2)"
    )
    parser.add_argument("--time", type=float, default=0.5, help="seconds a move (default 0.5)")
    parser.add_argument("--iterations", type=int, help="also stop each search at N iterations")
    parser.add_argument("--games", type=int, default=100, help="how many (default 100)")
    parser.add_argument("--seed", type=int, default=18, help="the arena's seed (default 18)")
    parser.add_argument("--records", type=Path, required=True, help="JSON Lines of the games")
    parser.add_argument("--workers", type=int, default=1, help="local processes (default 1)")
    parser.add_argument("--resume", action="store_true", help="add the games the file lacks")
    parser.add_argument("--model", type=Path, help="the learned network (default: the shipped)")
    parser.add_argument(
        "--own",
        action="store_true",
        help="the learned search values only its own player by the network, the others by "
        "the heuristic (eval=learned-own)",
    )
    args = parser.parse_args(argv)
    try:
        agents = match_agents(args.players, args.time, args.iterations, args.model, args.own)
        result = run_match(agents, args.games, args.seed, args.records, args.workers, args.resume)
    except (OSError, ValueError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return interrupted(args.records, resumable=True)
    for line in result.lines():
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
