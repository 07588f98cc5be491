"""Fit the heuristic's weights to how games really end (the "Texel" method of chess engines).

Every turn start of the games in the given records becomes a sample: each player's features,
the situation, and the player's actual result (1 first ... 0 last). The weights are then moved,
one at a time, in the direction that lowers the cross-entropy between the results the
heuristic expects and the actual ones, with shrinking steps, until no step helps. A tenth of
the games (every tenth deck) is held out: its loss is printed before and after, so that a fit
that only learns the training games shows. The temple's weight stays 1 (potentials are in
temples); the logistic ``scale`` carries the confidence.

  python bench/tune_evaluation.py --records games.jsonl [--records more.jsonl]
  python bench/tune_evaluation.py --generate 400 --records games.jsonl   # play them first

Games can come from ``taluva arena ... --records FILE`` or are played here by ``--generate``
(greedy, casual and search agents, 2 to 4 players, written to the first ``--records`` file).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from taluva.ai import arena
from taluva.ai.evaluation import (
    DEFAULT_WEIGHTS,
    Evaluator,
    Features,
    Situation,
    Weights,
    outcome_results,
    situation,
)
from taluva.engine.game import Game
from taluva.engine.outcome import Outcome

Sample = tuple[list[Features], Situation, list[float]]

TUNED = (
    "tower",
    "hut",
    "ship",
    "temple_spot",
    "second_temple_spot",
    "tower_spot",
    "temple_in_two",
    "expansion_hut",
    "blockable",
    "hut_shortage",
    "stranded",
    "winning_build",
    "scale",
    "late_scale",
)
"""The weights this script moves (``temple`` is the unit; ``hut_reserve`` and ``win_share``
are choices, not fits)."""

MATCHUPS = (
    ["greedy", "greedy"],
    ["greedy", "level:1"],
    ["level:3", "greedy"],
    ["level:3", "level:3"],
    ["greedy", "greedy", "greedy"],
    ["level:3", "greedy", "level:1", "greedy"],
)
"""What ``--generate`` plays, in turn: sound play, with mistakes mixed in for variety."""


def generate(games: int, seed: int, workers: int, path: str) -> None:
    """Play ``games`` games spread over ``MATCHUPS`` and append their records to ``path``."""
    tasks = []
    for index, agents in enumerate(MATCHUPS):
        count = games // len(MATCHUPS) + (index < games % len(MATCHUPS))
        if count:
            for task in arena.make_tasks(agents, count, seed * 100 + index):
                tasks.append({**task, "index": len(tasks)})
    done = 0
    with open(path, "a", encoding="utf-8") as out:
        for result in arena.local_map(workers)(arena.play_task, tasks):
            arena.write_records([result], out)
            done += 1
            if done % 20 == 0 or done == len(tasks):
                print(f"  played {done}/{len(tasks)} games", file=sys.stderr)


def read_records(paths: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(deck number, game record) for every line of the JSON Lines files."""
    for path in paths:
        with open(path, encoding="utf-8") as lines:
            for number, line in enumerate(lines):
                if line.strip():
                    entry = json.loads(line)
                    yield entry.get("deck", number), entry["record"]


def samples_of(record: dict[str, Any], evaluator: Evaluator) -> list[Sample]:
    """One sample per turn start of a finished game (none for a game that did not finish)."""
    final = Game.from_record(record)
    if final.result is None:
        return []
    actual = outcome_results(Outcome.from_json(record["result"]), final.player_count)
    replay = Game.from_record({**record, "moves": [], "result": None})
    found: list[Sample] = []
    for move in final.moves:
        if replay.phase == "tile" and replay.result is None and replay.ply > 0:
            features = [evaluator.features(replay, p) for p in range(replay.player_count)]
            found.append((features, situation(replay), actual))
        replay.play(move)
    return found


def loss(evaluator: Evaluator, samples: Sequence[Sample]) -> float:
    """Mean cross-entropy between expected and actual results, over samples and players."""
    total = 0.0
    count = 0
    log = math.log
    for features, where, actual in samples:
        expected = evaluator.results_of(evaluator.combine(features, where), where)
        for p, a in enumerate(actual):
            if p in where.eliminated:
                continue
            e = min(max(expected[p], 1e-6), 1 - 1e-6)
            total -= a * log(e) + (1 - a) * log(1 - e)
            count += 1
    return total / max(1, count)


def tune(samples: Sequence[Sample], names: Sequence[str], rounds: int = 6) -> tuple[Weights, float]:
    """Coordinate descent from the default weights: each weight tries a step up and down, and
    the steps halve after a round in which nothing improved."""
    weights = DEFAULT_WEIGHTS
    best = loss(Evaluator(weights), samples)
    steps = {name: max(0.02, abs(getattr(weights, name)) * 0.25) for name in names}
    for round_number in range(rounds):
        improved = False
        for name in names:
            for direction in (1, -1):
                while True:
                    value = getattr(weights, name) + direction * steps[name]
                    if value < 0:
                        break
                    trial = dataclasses.replace(weights, **{name: value})
                    score = loss(Evaluator(trial), samples)
                    if score >= best - 1e-7:
                        break
                    weights, best, improved = trial, score, True
        print(f"  round {round_number + 1}: loss {best:.5f}", file=sys.stderr)
        if not improved:
            steps = {name: step / 2 for name, step in steps.items()}
    return weights, best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", action="append", required=True, help="JSON Lines of games")
    parser.add_argument("--generate", type=int, default=0, help="play this many games first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=6, help="descent rounds (default 6)")
    parser.add_argument("--only", action="append", choices=TUNED, help="tune only this weight")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.generate:
        generate(args.generate, args.seed, args.workers, args.records[0])
    evaluator = Evaluator()
    train: list[Sample] = []
    held: list[Sample] = []
    games = 0
    for deck, record in read_records(args.records):
        (held if deck % 10 == 9 else train).extend(samples_of(record, evaluator))
        games += 1
    print(f"{games} games: {len(train)} training samples, {len(held)} held out", file=sys.stderr)
    before = (loss(evaluator, train), loss(evaluator, held))
    weights, _ = tune(train, args.only or TUNED, args.rounds)
    tuned = Evaluator(weights)
    after = (loss(tuned, train), loss(tuned, held))
    print(f"loss, training: {before[0]:.5f} -> {after[0]:.5f}")
    print(f"loss, held out: {before[1]:.5f} -> {after[1]:.5f}")
    changed = {
        name: round(getattr(weights, name), 4)
        for name in TUNED
        if abs(getattr(weights, name) - getattr(DEFAULT_WEIGHTS, name)) > 1e-9
    }
    print("Weights(" + ", ".join(f"{k}={v}" for k, v in changed.items()) + ")")
    print(f"took {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
