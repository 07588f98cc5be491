"""Root-parallel tree search: several processes search the same position, each from its own
seed, and the visits of their root plans are added up.

This process runs one of the searches itself, so a move is ready at the deadline even if no
helper answers in time (a helper's late answer is dropped). Helpers run in a pool of
``spawn``-ed processes (safe beside the server's threads) that the agent keeps between moves;
``close()`` ends them, and so does the agent's garbage collection; a helper whose parent
died ends itself. As with any ``spawn``, a script that uses this agent must start from an
``if __name__ == "__main__":`` block.

The parts are public so that a caller with processes of its own (the game server's AI
workers) can run the same searches there: ``ParallelMctsAgent.seeds`` gives each search's
seed, ``root_search`` runs one, and ``merge`` adds up their answers as the agent does.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import threading
import time
import weakref
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from functools import cache
from typing import Any

from taluva.ai.agents import SAFETY, PlanningAgent
from taluva.ai.evaluation import DEFAULT_EVALUATOR, Evaluator
from taluva.ai.learned import LearnedEvaluator
from taluva.ai.mcts import PlanStats, Search, SearchResult, SearchSettings
from taluva.ai.turns import Turn
from taluva.engine.game import Game
from taluva.engine.moves import Move

GRACE = 0.05
"""Share of the time budget the helpers' answers may take to arrive after the search ends."""


Answer = list[tuple[list[str], int, list[float], list[float]]]
"""A helper's root statistics: each plan's move texts, visits, results after it and the
heuristic's results of it."""


def answer_of(found: SearchResult) -> Answer:
    """A search's root statistics as an ``Answer`` (plain data, to pass between processes)."""
    return [
        ([str(m) for m in s.plan.moves], s.visits, list(s.results), list(s.plan.results))
        for s in found.stats
    ]


def root_search(
    record: dict[str, Any],
    seed: int,
    iterations: int | None,
    deadline: float | None,
    learned: frozenset[int] = frozenset(),
    own: frozenset[int] = frozenset(),
) -> Answer:
    """Run in a helper: search the record's position until ``deadline`` (a ``time.time()``
    value) or for ``iterations``, valuing games of the ``learned`` numbers of players with
    the learned evaluation (of the ``own`` numbers, for the searching player only); return
    every root plan's moves, visits, results after it and the evaluation's results of it."""
    game = Game.from_record(record)
    seconds = None if deadline is None else max(0.001, (deadline - time.time()) / SAFETY)
    evaluator = evaluator_for(learned, own)
    found = Search(game, random.Random(seed), evaluator).run(iterations, seconds)
    return answer_of(found)


@cache
def evaluator_for(learned: frozenset[int], own: frozenset[int] = frozenset()) -> Evaluator:
    """The evaluation of searches valuing games of the ``learned`` numbers of players with
    the learned network (of the ``own`` numbers, only the searching player's results): one
    per process, so that what it remembers serves every move."""
    return LearnedEvaluator(players=learned, own=own) if learned else DEFAULT_EVALUATOR


def search_deadline(start: float, seconds: float | None) -> float | None:
    """When the searches of a move begun at ``start`` (a ``time.time()`` value) stop: nine
    tenths into the time budget, as every search does; None without a time budget."""
    return None if seconds is None else start + seconds * SAFETY


def answer_wait(deadline: float | None, seconds: float | None) -> float | None:
    """Seconds from now that a helper's answer may still take to arrive (``GRACE`` after the
    deadline); None: wait for it, however long (no time budget)."""
    if deadline is None:
        return None
    return max(0.0, deadline + GRACE * (seconds or 0.0) - time.time())


def _watch_parent(parent: int) -> None:
    """Run when a helper starts: end it as soon as the process that started it is gone, even
    if that one was killed before it could say so."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _warm_up() -> int:
    """Run in a new helper so that its imports are done before the first search."""
    return os.getpid()


def merge(game: Game, answers: Sequence[Answer], seconds: float = 0.0) -> SearchResult:
    """Add up the root statistics of several searches of ``game``'s position, in the order
    given: visits add up, results are averaged, each search's counting its visits and the
    prior; the most visited plan wins (then the best valued). ``seconds`` is the time it took."""
    if not answers:
        raise ValueError("merge needs the answer of at least one search")
    mover = game.to_move
    prior = SearchSettings().prior_visits
    rows: list[tuple[tuple[str, ...], int, tuple[float, ...], Turn]] = []
    iterations = 0
    for answer in answers:
        for texts, n, after, heuristic in answer:
            plan = Turn(tuple(Move.parse(t) for t in texts), tuple(heuristic))
            rows.append((tuple(texts), n, tuple(after), plan))
            iterations += n
    visits: dict[tuple[str, ...], int] = {}
    weights: dict[tuple[str, ...], float] = {}
    sums: dict[tuple[str, ...], list[float]] = {}
    plans: dict[tuple[str, ...], Turn] = {}
    for key, n, results, plan in rows:
        plans.setdefault(key, plan)
        visits[key] = visits.get(key, 0) + n
        weights[key] = weights.get(key, 0.0) + n + prior
        total = sums.setdefault(key, [0.0] * len(results))
        for p, value in enumerate(results):
            total[p] += (n + prior) * value
    means = {key: tuple(v / weights[key] for v in sums[key]) for key in visits}
    ranked = sorted(visits, key=lambda key: (-visits[key], -means[key][mover], key))
    stats = [PlanStats(plans[key], visits[key], means[key]) for key in ranked]
    best = ranked[0]
    return SearchResult(plans[best], means[best][mover], iterations, seconds, stats)


class ParallelMctsAgent(PlanningAgent):
    """The expert: ``processes`` root searches of ``iterations`` each (or until ``seconds``),
    this process running one, merged at the root (see the module docstring)."""

    def __init__(
        self,
        seed: int | None = None,
        iterations: int | None = None,
        seconds: float | None = None,
        processes: int | None = None,
        name: str | None = None,
        learned: frozenset[int] = frozenset(),
        own: frozenset[int] = frozenset(),
    ) -> None:
        if iterations is None and seconds is None:
            raise ValueError("a search needs a budget: iterations, seconds or both")
        count = processes if processes is not None else os.cpu_count() or 1
        if count < 1:
            raise ValueError(f"processes={count}: at least one")
        super().__init__(name or f"parallel:processes={count}", seed)
        self.iterations = iterations
        self.seconds = seconds
        self.processes = count
        self.learned = learned
        self.own = own
        self.last: SearchResult | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None

    @property
    def evaluation(self) -> tuple[frozenset[int], frozenset[int]]:
        """``learned`` and ``own``: how ``evaluator_for`` makes each search's evaluation."""
        return self.learned, self.own

    def plan(self, game: Game) -> tuple[Move, ...]:
        return self.search(game).plan.moves

    def seeds(self, game: Game) -> list[int]:
        """The seed of each of the ``processes`` searches from the game's position (the first
        is this process's)."""
        rng = self.rng_for(game)
        return [rng.randrange(2**32) for _ in range(self.processes)]

    def search(self, game: Game) -> SearchResult:
        """Run the searches from the game's position; remember the merged result in ``last``."""
        start = time.time()
        seeds = self.seeds(game)
        deadline = search_deadline(start, self.seconds)
        futures: list[Future[Any]] = []
        if self.processes > 1:
            record = game.to_record()
            try:
                pool = self._helpers()
                futures = [
                    pool.submit(
                        root_search, record, seed, self.iterations, deadline, *self.evaluation
                    )
                    for seed in seeds[1:]
                ]
            except Exception:  # no helpers here (a broken pool, a daemon): carry on alone
                self._shut_down(wait=False)
                futures = []
        evaluator = evaluator_for(*self.evaluation)
        local = Search(game.copy(), random.Random(seeds[0]), evaluator).run(
            self.iterations, self.seconds
        )
        answers: list[Answer] = []
        for future in futures:
            try:
                answers.append(future.result(timeout=answer_wait(deadline, self.seconds)))
            except FutureTimeout:
                future.cancel()
            except Exception:  # a helper's failure must not lose the move
                self._shut_down(wait=False)
        found = merge(game, [answer_of(local), *answers], time.time() - start)
        if not game.is_legal(found.plan.moves[0]):
            found = local
        self.last = found
        return found

    def close(self) -> None:
        """End the helper processes (waiting for them)."""
        self._shut_down(wait=True)

    def _helpers(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                self.processes - 1,
                mp_context=context,
                initializer=_watch_parent,
                initargs=(os.getpid(),),
            )
            for _ in range(self.processes - 1):
                self._pool.submit(_warm_up)
            self._finalizer = weakref.finalize(self, _shutdown, self._pool)
        return self._pool

    def _shut_down(self, wait: bool) -> None:
        pool, self._pool = self._pool, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)


def _shutdown(pool: ProcessPoolExecutor) -> None:
    pool.shutdown(wait=True, cancel_futures=True)
