"""Self-play games for the learned evaluation, and the positions they give to train on.

``games`` plays seeded arena games between the agents of ``MATCHUPS`` (greedy play, a
beginner's noise, short searches; 2, 3 and 4 players) and appends each finished game's record
to a JSON Lines file as it arrives, so a stopped run goes on where it stopped (``--resume``
skips the games already in the file). ``positions`` replays the records and writes, for every
position where the heuristic is asked for a value (each tile and build phase), every player's
inputs to the learned model (``taluva.ai.learned.position_inputs``) and final rank, to a
compressed ``.npz``. Games may run on a Ray cluster (``--ray ADDRESS``) like ``taluva arena``.

  python -m taluva.research.selfplay games --games 600 --out selfplay.jsonl
  python -m taluva.research.selfplay positions selfplay.jsonl --out positions.npz
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from taluva.ai import arena
from taluva.ai.evaluation import DEFAULT_EVALUATOR, situation
from taluva.ai.learned import INPUT_NAMES, position_inputs
from taluva.engine.game import Game
from taluva.engine.outcome import Outcome
from taluva.research.commands import interrupted

MATCHUPS: Final = (
    ("greedy", "greedy"),
    ("greedy", "level:1"),
    ("mcts:iterations=30", "greedy"),
    ("mcts:iterations=30", "mcts:iterations=30"),
    ("greedy", "greedy", "greedy"),
    ("greedy", "greedy", "greedy", "greedy"),
    ("mcts:iterations=30", "greedy", "level:1", "greedy"),
    ("mcts:iterations=30", "greedy", "mcts:iterations=30", "greedy"),
)
"""What ``games`` plays, in turn: sound greedy play, a beginner's mistakes for variety, and
short searches bounded by iterations only (so the same seed plays the same games)."""

POSITIONS_FORMAT: Final = "taluva-value-positions/1"


def selfplay_tasks(games: int, seed: int) -> list[arena.Task]:
    """Arena tasks for ``games`` games spread evenly over ``MATCHUPS`` (each matchup's decks
    in every seat rotation, deck ``M:D`` the D-th of matchup M), the matchups taking turns, so
    that a run stopped early still has some of each."""
    if games < 1:
        raise ValueError(f"games is {games}: play at least one")
    queues: list[list[arena.Task]] = []
    for index, agents in enumerate(MATCHUPS):
        count = games // len(MATCHUPS) + (index < games % len(MATCHUPS))
        if count:
            made = arena.make_tasks(list(agents), count, seed * 100 + index)
            queues.append([{**task, "deck": f"{index}:{task['deck']}"} for task in made])
    tasks: list[arena.Task] = []
    while any(queues):
        for queue in queues:
            if queue:
                tasks.append({**queue.pop(0), "index": len(tasks)})
    return tasks


def done_games(path: Path) -> set[tuple[str, int]]:
    """The (deck, rotation) of the games already written to a records file (none if it does
    not exist)."""
    if not path.exists():
        return set()
    with path.open(encoding="utf-8") as lines:
        entries = [json.loads(line) for line in lines if line.strip()]
    return {(entry["deck"], entry["rotation"]) for entry in entries}


def play_games(
    games: int,
    seed: int,
    out: Path,
    mapper: arena.MapFunction,
    resume: bool = False,
    limit: int | None = None,
) -> int:
    """Play the self-play games not yet in ``out`` (only the first ``limit`` of the schedule,
    if given) and append them; returns how many ran."""
    tasks = selfplay_tasks(games, seed)[:limit]
    if out.exists() and not resume:
        raise FileExistsError(f"{out} exists: pass --resume to add the games it lacks")
    done = done_games(out)
    todo = [task for task in tasks if (task["deck"], task["rotation"]) not in done]
    started = time.perf_counter()
    with out.open("a", encoding="utf-8") as handle:
        for count, result in enumerate(mapper(arena.play_task, todo), 1):
            arena.write_records([result], handle)
            handle.flush()
            if count % 10 == 0 or count == len(todo):
                seconds = time.perf_counter() - started
                print(f"  {count}/{len(todo)} games, {seconds:.0f} s", file=sys.stderr)
    return len(todo)


def final_ranks(outcome: Outcome, players: int) -> list[float]:
    """Each player's place, 0 for first; a shared place is the mean of the places it spans."""
    ranks = [0.0] * players
    place = 0
    for group in outcome.ranking:
        for p in group:
            ranks[p] = place + (len(group) - 1) / 2
        place += len(group)
    return ranks


def positions_of(record: dict[str, Any]) -> Iterator[tuple[list[list[float]], int, list[int]]]:
    """Every running position of a finished game, as (each player's inputs, the number of
    players, the eliminated players): before each move, in the tile and the build phase."""
    final = Game.from_record(record)
    if final.result is None:
        return
    replay = Game.from_record({**record, "moves": [], "result": None})
    for move in final.moves:
        if replay.result is None and replay.ply > 0:
            where = situation(replay)
            features = [DEFAULT_EVALUATOR.features(replay, p) for p in range(replay.player_count)]
            rows = position_inputs(features, where, replay.phase != "tile")
            yield rows, replay.player_count, list(where.eliminated)
        replay.play(move)


class PositionRows:
    """The arrays of a positions file (see ``export_positions``), filled a position at a time;
    with ``search`` values given, they are written too (``taluva.research.distill``)."""

    def __init__(self) -> None:
        self.inputs: list[list[float]] = []
        self.search: list[float] = []
        self.rank: list[float] = []
        self.position: list[int] = []
        self.game: list[int] = []
        self.eliminated: list[bool] = []
        self.count = 0

    def add(
        self,
        rows: list[list[float]],
        ranks: list[float],
        eliminated: Iterable[int],
        game: int,
        search: list[float] | None = None,
    ) -> None:
        """One position: every player's inputs, final rank and, if known, searched value."""
        out = set(eliminated)
        for p, row in enumerate(rows):
            self.inputs.append(row)
            self.rank.append(ranks[p])
            self.position.append(self.count)
            self.game.append(game)
            self.eliminated.append(p in out)
        if search is not None:
            self.search.extend(search)
        self.count += 1

    def write(self, out: Path) -> int:
        """Write the positions to ``out``; returns how many."""
        if not self.count:
            raise ValueError("no finished game in the files: nothing to export")
        arrays: dict[str, Any] = {
            "format": np.array(POSITIONS_FORMAT),
            "inputs": np.array(self.inputs, np.float32),
            "rank": np.array(self.rank, np.float32),
            "position": np.array(self.position, np.int32),
            "game": np.array(self.game, np.int32),
            "eliminated": np.array(self.eliminated, bool),
            "names": np.array(INPUT_NAMES),
        }
        if self.search:
            arrays["search"] = np.array(self.search, np.float32)
        with out.open("wb") as handle:
            np.savez_compressed(handle, **arrays)
        return self.count


def export_positions(paths: Iterable[Path], out: Path) -> int:
    """Write every position of the finished games in ``paths`` to ``out`` (see the module
    docstring); returns how many positions. Arrays: ``inputs`` (one row a player and position),
    ``rank``, ``position``, ``game``, ``players``, ``out`` (eliminated), ``names``."""
    table = PositionRows()
    games = 0
    for path in paths:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                if not line.strip():
                    continue
                entry = json.loads(line)
                record = entry["record"]
                if record.get("result") is None:
                    continue
                players = len(record["players"])
                ranks = final_ranks(Outcome.from_json(record["result"]), players)
                for rows, _, out_players in positions_of(record):
                    table.add(rows, ranks, out_players, games)
                games += 1
    return table.write(out)


def _mapper(workers: int, ray: str | None) -> arena.MapFunction:
    if ray is None:
        return arena.local_map(workers)
    from taluva.research.ray_backend import ray_map

    def run(fn: Any, tasks: Sequence[arena.Task]) -> Iterator[arena.TaskResult]:
        yield from ray_map(fn, tasks, ray)

    return run


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m taluva.research.selfplay", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    games = commands.add_parser("games", help="play seeded self-play games, append their records")
    games.add_argument("--games", type=int, default=600, help="how many (default 600)")
    games.add_argument("--seed", type=int, default=18, help="the arena's seed (default 18)")
    games.add_argument("--out", type=Path, required=True, help="JSON Lines file of records")
    games.add_argument("--workers", type=int, default=1, help="local processes (default 1)")
    games.add_argument("--ray", metavar="ADDRESS", help="play on a Ray cluster instead")
    games.add_argument("--resume", action="store_true", help="add the games the file lacks")
    games.add_argument(
        "--limit", type=int, help="play only the first N games of the schedule (all matchups)"
    )
    positions = commands.add_parser("positions", help="records to the model's inputs and ranks")
    positions.add_argument("records", type=Path, nargs="+", help="JSON Lines files of records")
    positions.add_argument("--out", type=Path, required=True, help="the .npz to write")
    args = parser.parse_args(argv)
    try:
        if args.command == "games":
            mapper = _mapper(args.workers, args.ray)
            count = play_games(args.games, args.seed, args.out, mapper, args.resume, args.limit)
            print(f"played {count} games into {args.out}")
        else:
            count = export_positions(args.records, args.out)
            print(f"wrote {count} positions to {args.out}")
    except (OSError, ValueError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return interrupted(args.out, resumable=args.command == "games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
