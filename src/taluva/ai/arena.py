"""The arena: many games between agents, each deck played in every seat rotation.

A game is described by a plain dict (a *task*) and played by ``play_task``, a top-level
function, so tasks travel to worker processes (or to a cluster: ``run_tasks`` takes any
``map`` function). Everything random comes from the arena's seed: the decks, and each agent's
seed, so the same seed gives the same games, the same records and the same report (for agents
bounded by iterations; a time budget depends on the machine's speed).
"""

from __future__ import annotations

import json
import math
import random
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from openskill.models import PlackettLuce
from tqdm import tqdm  # type: ignore[import-untyped]

from taluva.ai.agents import Agent
from taluva.ai.specs import make_agent
from taluva.engine.errors import IllegalMove
from taluva.engine.game import Game
from taluva.engine.options import PLAYER_COUNTS, player_count_range

Task = dict[str, Any]
TaskResult = dict[str, Any]
MapFunction = Callable[[Callable[[Task], TaskResult], Sequence[Task]], Iterable[TaskResult]]


def make_tasks(
    agents: Sequence[str],
    games: int,
    seed: int,
    options: dict[str, Any] | None = None,
) -> list[Task]:
    """Tasks for ``games`` games (rounded up to whole decks): each deck is played once in
    every rotation of the seats, so that luck in the tiles cancels out."""
    if len(agents) not in PLAYER_COUNTS:
        raise ValueError(
            f"{len(agents)} agents: a game of Taluva has {player_count_range()} players"
        )
    if games < 1:
        raise ValueError(f"games is {games}: play at least one")
    rotations = len(agents)
    decks = math.ceil(games / rotations)
    settings = dict(options or {})
    tasks: list[Task] = []
    for deck in range(decks):
        for rotation in range(rotations):
            seats = [agents[(seat + rotation) % len(agents)] for seat in range(len(agents))]
            tasks.append(
                {
                    "index": len(tasks),
                    "deck": deck,
                    "rotation": rotation,
                    "seed": f"{seed}:{deck}",
                    "agents": seats,
                    "agent_seeds": [
                        random.Random(f"{seed}:{deck}:{rotation}:{seat}").randrange(2**32)
                        for seat in range(len(seats))
                    ],
                    "options": settings,
                }
            )
    return tasks


def play_task(task: Task) -> TaskResult:
    """Play one game from a task; return its record, outcome and each seat's thinking time.

    An agent that fails (raises, or answers an illegal move) forfeits: it ranks last and the
    others share first place; the error is reported with the game.
    """
    options = task.get("options", {})
    specs: list[str] = list(task["agents"])
    game = Game.new(
        players=[f"{spec} ({seat + 1})" for seat, spec in enumerate(specs)],
        seed=task["seed"],
        tiles_per_player=options.get("tiles_per_player", 12),
        expansions=options.get("expansions", ()),
        house_rules=options.get("house_rules", ()),
    )
    seconds = [0.0] * len(specs)
    longest = [0.0] * len(specs)
    moves = [0] * len(specs)
    error = None
    forfeit = None
    agents: list[Agent] = []
    try:
        timeout = options.get("engine_timeout")
        agents = [
            make_agent(spec, seed, engine_timeout=timeout)
            for spec, seed in zip(specs, task["agent_seeds"], strict=True)
        ]
        while game.result is None:
            seat = game.to_move
            start = time.perf_counter()
            try:
                move = agents[seat].choose(game.copy())
                spent = time.perf_counter() - start
                game.play(move)
            except (IllegalMove, OSError, RuntimeError, ValueError) as problem:
                forfeit, error = seat, f"{specs[seat]} (seat {seat + 1}): {problem}"
                break
            seconds[seat] += spent
            longest[seat] = max(longest[seat], spent)
            moves[seat] += 1
    finally:
        for agent in agents:
            agent.close()
    if forfeit is not None:
        others = tuple(p for p in range(len(specs)) if p != forfeit)
        ranking: list[list[int]] = [list(others), [forfeit]]
    else:
        assert game.result is not None
        ranking = [list(group) for group in game.result.ranking]
    return {
        "index": task["index"],
        "deck": task["deck"],
        "rotation": task["rotation"],
        "agents": specs,
        "ranking": ranking,
        "reason": None if game.result is None else str(game.result.reason),
        "error": error,
        "record": game.to_record(),
        "seconds": seconds,
        "longest": longest,
        "moves": moves,
    }


def local_map(workers: int) -> MapFunction:
    """A map over local worker processes (in this process when ``workers`` is 1), in order."""

    def run(fn: Callable[[Task], TaskResult], tasks: Sequence[Task]) -> Iterator[TaskResult]:
        if workers <= 1 or len(tasks) <= 1:
            yield from map(fn, tasks)
            return
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        with context.Pool(min(workers, len(tasks)), initializer=ignore_interrupts) as pool:
            yield from pool.imap(fn, tasks)

    return run


def ignore_interrupts() -> None:
    """Leave Ctrl-C to the parent: a worker that ignores it is stopped by the pool when the
    parent stops, instead of printing its own traceback beside the parent's message."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_tasks(
    tasks: Sequence[Task],
    mapper: MapFunction,
    progress: Callable[[int, int], None] | None = None,
    each: Callable[[TaskResult], None] | None = None,
) -> list[TaskResult]:
    """Play every task through ``mapper``; results come back sorted by task index. ``each``
    is called with every result as it arrives (to save it before the others are played)."""
    results = []
    for result in mapper(play_task, tasks):
        results.append(result)
        if each is not None:
            each(result)
        if progress is not None:
            progress(len(results), len(tasks))
    results.sort(key=lambda r: r["index"])
    return results


def write_records(results: Iterable[TaskResult], out: IO[str], timing: bool = False) -> None:
    """One JSON line a game: its record and who sat where; with ``timing``, also how long each
    seat thought (left out by default, so that the same seed writes the same file)."""
    for r in results:
        line: dict[str, Any] = {
            **({"match": r["match"]} if "match" in r else {}),
            "game": r["index"],
            "deck": r["deck"],
            "rotation": r["rotation"],
            "agents": r["agents"],
            "ranking": r["ranking"],
            "error": r["error"],
            "moves": r["moves"],
        }
        if timing:
            line["seconds"] = [round(s, 4) for s in r["seconds"]]
            line["longest"] = [round(s, 4) for s in r["longest"]]
        line["record"] = r["record"]
        out.write(json.dumps(line, separators=(",", ":")) + "\n")


# --------------------------------------------------------------------------- the report


@dataclass
class Standing:
    """One agent's totals over the arena: seats played, wins (shared first place counts as a
    share), places, ratings and thinking time."""

    agent: str
    seats: int = 0
    wins: float = 0.0
    place_sum: float = 0.0
    seconds: float = 0.0
    moves: int = 0
    longest: float = 0.0
    mu: float = 0.0
    sigma: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.seats if self.seats else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson score interval of the win rate."""
        return wilson(self.wins, self.seats)

    @property
    def ordinal(self) -> float:
        """A conservative rating: mu - 3 sigma."""
        return self.mu - 3 * self.sigma


def wilson(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (fractional successes allowed)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Report:
    """Standings, best rating first, with the games' end reasons and errors."""

    standings: list[Standing]
    games: int
    reasons: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        rows = [
            f"{self.games} games; ended by "
            + (", ".join(f"{k} {v}" for k, v in sorted(self.reasons.items())) or "nothing"),
            f"{'agent':<28} {'seats':>5} {'wins':>7} {'win rate':>8} {'95% interval':>15} "
            f"{'place':>5} {'rating':>13} {'s/move':>7} {'max s':>6}",
        ]
        for s in self.standings:
            low, high = s.interval
            rows.append(
                f"{s.agent:<28} {s.seats:>5} {s.wins:>7.1f} {s.win_rate:>8.1%} "
                f"{f'{low:.1%}-{high:.1%}':>15} {s.place_sum / max(1, s.seats):>5.2f} "
                f"{f'{s.mu:.1f}±{s.sigma:.1f}':>13} {s.seconds / max(1, s.moves):>7.3f} "
                f"{s.longest:>6.2f}"
            )
        rows += [f"error: {e}" for e in self.errors]
        return rows

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "reasons": self.reasons,
            "errors": self.errors,
            "standings": [
                {
                    "agent": s.agent,
                    "seats": s.seats,
                    "wins": s.wins,
                    "win_rate": s.win_rate,
                    "interval": list(s.interval),
                    "mean_place": s.place_sum / max(1, s.seats),
                    "mu": s.mu,
                    "sigma": s.sigma,
                    "seconds_per_move": s.seconds / max(1, s.moves),
                    "max_seconds": s.longest,
                }
                for s in self.standings
            ],
        }


def report(results: Sequence[TaskResult]) -> Report:
    """Win rates with 95% intervals and openskill (Plackett-Luce) ratings, from game results.

    An agent in several seats of one game is rated once, at the mean place of its seats.
    """
    standings: dict[str, Standing] = {}
    reasons: dict[str, int] = {}
    errors = []
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    for r in results:
        specs = r["agents"]
        ranking = r["ranking"]
        reason = r["reason"] or "forfeit"
        reasons[reason] = reasons.get(reason, 0) + 1
        if r["error"]:
            errors.append(f"game {r['index']}: {r['error']}")
        places = _places(ranking, len(specs))
        for seat, spec in enumerate(specs):
            s = standings.setdefault(spec, Standing(spec))
            s.seats += 1
            s.place_sum += places[seat]
            if seat in ranking[0]:
                s.wins += 1 / len(ranking[0])
            s.seconds += r["seconds"][seat]
            s.moves += r["moves"][seat]
            s.longest = max(s.longest, r["longest"][seat])
        labels = sorted(set(specs), key=specs.index)
        if len(labels) > 1:
            for label in labels:
                ratings.setdefault(label, model.rating(name=label))
            mean_place = [
                sum(places[i] for i, spec in enumerate(specs) if spec == label) / specs.count(label)
                for label in labels
            ]
            rated = model.rate([[ratings[label]] for label in labels], ranks=mean_place)
            for label, team in zip(labels, rated, strict=True):
                ratings[label] = team[0]
    for label, rating in ratings.items():
        standings[label].mu = rating.mu
        standings[label].sigma = rating.sigma
    ordered_standings = sorted(standings.values(), key=lambda s: (-s.ordinal, -s.win_rate, s.agent))
    return Report(ordered_standings, len(results), reasons, errors)


def _places(ranking: list[list[int]], players: int) -> list[float]:
    """1-based place of each seat; a shared place is the mean of the places it spans."""
    places = [0.0] * players
    place = 1
    for group in ranking:
        for p in group:
            places[p] = place + (len(group) - 1) / 2
        place += len(group)
    return places


def stderr_progress(stream: IO[str] = sys.stderr) -> Callable[[int, int], None]:
    """A progress bar (tqdm) for ``run_tasks``, on standard error by default."""
    bar = tqdm(total=0, unit="game", file=stream, leave=False)

    def show(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)
        if done == total:
            bar.close()

    return show
