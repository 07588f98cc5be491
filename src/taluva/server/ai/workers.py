"""AI seats and hints, computed away from the event loop (worker processes, or threads).

A worker receives the game's full record, rebuilds the position itself and answers with
move text, so nothing it does can touch the server's own game objects. The AI layer is
``taluva.ai``: ``make_agent(spec, seed).choose(game)`` and ``hint(game, level)``. Jobs reach
the workers through a ``FairScheduler`` (``taluva.server.ai.scheduling``), never more at once
than there are workers, so the pool's own first-come-first-served queue is never used.

Level 6 searches in several processes at once (``taluva.ai.parallel``). Its turns are not
given to one worker, which would start processes of its own beyond the pool: the server runs
the level's root searches itself, one per worker, as one job of several parts on this same
pool, and merges their answers with the agent's own ``merge``.

No worker outlives the server, however the server ends: on Linux each worker asks the
kernel for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``), elsewhere a thread watches
the parent; workers ignore Ctrl-C (the server handles it and stops them). Once every worker
is gone, multiprocessing's resource tracker sees its pipe close and exits too.
"""

from __future__ import annotations

import asyncio
import ctypes
import hashlib
import logging
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from taluva.ai import hint, make_agent
from taluva.ai.hint import HINT_SEED
from taluva.ai.levels import LEVELS, Level
from taluva.ai.mcts import SearchResult
from taluva.ai.parallel import (
    Answer,
    ParallelMctsAgent,
    answer_wait,
    merge,
    root_search,
    search_deadline,
)
from taluva.ai.review import position_chances, review
from taluva.engine.game import Game
from taluva.server.ai.scheduling import Audience, FairScheduler

log = logging.getLogger("taluva.server")


PR_SET_PDEATHSIG = 1
PARENT_CHECK_SECONDS = 0.5
THREAD_WORKERS = 2
"""Threads that play AI seats when the server runs without worker processes."""
AI_ONLY_NICENESS = 19
"""How much lower the CPU priority of the processes of AI-only games is (the lowest there is):
on a busy machine they take only the CPU time nothing else wants."""


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


def die_with_parent(parent: int) -> None:
    """Run first in each worker: end this process when process ``parent`` ends, and leave
    Ctrl-C to the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watched = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            watched = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            watched = False
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
    if not watched:
        threading.Thread(
            target=_exit_when_orphaned, args=(parent,), name="taluva-parent", daemon=True
        ).start()


def start_worker(parent: int, niceness: int) -> None:
    """Run first in each worker: die with the server (``die_with_parent``), and lower the
    process's CPU priority by ``niceness`` (0: as the server's)."""
    die_with_parent(parent)
    if niceness and hasattr(os, "nice"):  # not on Windows
        os.nice(niceness)


def ai_spec(level: int) -> str:
    """The ``taluva.ai`` spec of an AI seat of this level."""
    return f"level:{level}"


def parallel_level(spec: str) -> Level | None:
    """The level of an AI seat's spec if it searches in several processes (level 6), whose
    searches the server runs on its own workers; None for any other spec."""
    kind, _, number = spec.partition(":")
    level = LEVELS.get(int(number)) if kind == "level" and number.isdigit() else None
    return level if level is not None and level.agent == "parallel" else None


def move_seed(game_id: str, ply: int) -> int:
    """A seed that depends only on the game and the ply, so a resumed game plays the same."""
    digest = hashlib.sha256(f"{game_id}:{ply}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def fallback_move(game: Game, seed: int) -> str:
    """A legal move chosen at random: what an AI seat plays if its agent fails."""
    return str(random.Random(seed).choice(game.legal_moves()))


def choose_move(record: dict[str, Any], spec: str, seed: int) -> str:
    """Run in a worker: rebuild the game and ask the agent ``spec`` for its move text."""
    game = Game.from_record(record)
    agent = make_agent(spec, seed)
    move = agent.choose(game.copy())
    return str(move)


def hint_move(record: dict[str, Any], level: int) -> tuple[str, float]:
    """Run in a worker: the move ``taluva.ai.hint`` suggests and its evaluation in [0, 1]."""
    game = Game.from_record(record)
    move, value = hint(game, level)
    return str(move), float(value)


def review_plies(record: dict[str, Any], iterations: int, first: int, last: int) -> dict[str, Any]:
    """Run in a worker: the review (``taluva.ai.review``) of plies ``first`` to ``last`` of
    a finished game's record, searching position ``last`` too, as its JSON document."""
    game = Game.from_record(record)
    found: dict[str, Any] = review(game, iterations, first=first, last=last).to_json()
    return found


def position_chances_of(record: dict[str, Any], iterations: int) -> list[float]:
    """Run in a worker: every player's winning chance in the position of ``record``
    (``taluva.ai.review.position_chances``, the review's own search)."""
    return [float(chance) for chance in position_chances(Game.from_record(record), iterations)]


class AiRunner:
    """Runs agents in ``workers`` processes (threads when 0) without blocking the server,
    each game's jobs in turn (``FairScheduler``).

    AI-only games have processes of their own, at the lowest CPU priority
    (``AI_ONLY_NICENESS``): on a machine whose cores are all busy, a person's AI opponent
    then gets the CPU first, not only the next free worker. The scheduler still lets no
    more than ``workers`` jobs run at once, whichever processes run them.
    """

    def __init__(self, workers: int, ai_only_workers: int | None = None) -> None:
        self.workers = workers
        self._closed = False
        self.scheduler = FairScheduler(workers if workers > 0 else THREAD_WORKERS, ai_only_workers)
        self._executors: dict[Audience, Executor] = {}
        for audience in Audience:
            self._executors[audience] = self._new_executor(audience)

    def _new_executor(self, audience: Audience) -> Executor:
        if self.workers <= 0:
            # Threads share one priority: both audiences share the same two.
            shared = self._executors.get(Audience.PEOPLE)
            if shared is not None and audience != Audience.PEOPLE:
                return shared
            return ThreadPoolExecutor(max_workers=THREAD_WORKERS, thread_name_prefix="taluva-ai")
        people = audience == Audience.PEOPLE
        return ProcessPoolExecutor(
            max_workers=self.workers if people else self.scheduler.ai_only_workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=start_worker,
            initargs=(os.getpid(), 0 if people else AI_ONLY_NICENESS),
        )

    async def _run(self, audience: Audience, function: Any, *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        executor = self._executors[audience]
        try:
            return await loop.run_in_executor(executor, function, *args)
        except BrokenProcessPool:
            if self._closed:
                raise
            if self._executors[audience] is executor:  # the first of its jobs to see it
                log.error("an AI worker process died; starting new ones")
                executor.shutdown(wait=False, cancel_futures=True)
                self._executors[audience] = self._new_executor(audience)
            return await loop.run_in_executor(self._executors[audience], function, *args)

    async def choose(
        self, record: dict[str, Any], spec: str, seed: int, *, game: str, audience: Audience
    ) -> str:
        """The move text the agent ``spec`` plays in the position of ``record``, computed
        when the scheduler gives ``game`` its turn."""
        level = parallel_level(spec)
        if level is not None:
            found = await self.search_together(record, level, seed, game=game, audience=audience)
            return str(found.plan.moves[0])
        result: str = await self.scheduler.run(
            game, audience, lambda: self._run(audience, choose_move, record, spec, seed)
        )
        return result

    async def hint(
        self, record: dict[str, Any], level: int, *, game: str, audience: Audience
    ) -> tuple[str, float]:
        """A suggested move for the side to move, with its evaluation."""
        parallel = parallel_level(f"level:{level}")
        if parallel is not None:
            found = await self.search_together(
                record, parallel, HINT_SEED, game=game, audience=audience
            )
            return str(found.plan.moves[0]), found.value
        result: tuple[str, float] = await self.scheduler.run(
            game, audience, lambda: self._run(audience, hint_move, record, level)
        )
        return result

    async def search_together(
        self, record: dict[str, Any], level: Level, seed: int, *, game: str, audience: Audience
    ) -> SearchResult:
        """The root searches of ``level`` (level 6) from the position of ``record``, one per
        worker, run as one job of ``game`` and merged as ``ParallelMctsAgent(seed)`` merges
        its own: the same seeds and budgets give the same result.

        The level's time starts when the first search does; a search that has not started by
        the deadline is not run, and one that answers after it is dropped, as by the agent.
        """
        position = await asyncio.to_thread(Game.from_record, record)  # a replay: not in the loop
        count = self.workers if self.workers > 0 else 1  # threads would share one core
        planner = ParallelMctsAgent(
            seed,
            level.iterations,
            level.seconds,
            processes=count,
            learned=level.learned,
            own=level.own,
        )
        start: float | None = None
        deadline: float | None = None

        def search(search_seed: int) -> Callable[[], Awaitable[Answer | None]]:
            async def work() -> Answer | None:
                nonlocal start, deadline
                if start is None:
                    start = time.time()
                    deadline = search_deadline(start, level.seconds)
                elif deadline is not None and time.time() >= deadline:
                    return None  # too late to start: its answer would be dropped
                answer: Answer = await self._run(
                    audience,
                    root_search,
                    record,
                    search_seed,
                    level.iterations,
                    deadline,
                    level.learned,
                    level.own,
                )
                return answer

            return work

        searches = [search(search_seed) for search_seed in planner.seeds(position)]
        tasks = self.scheduler.run_together(game, audience, searches)
        try:
            await asyncio.wait(tasks[:1])
            if len(tasks) > 1:
                await asyncio.wait(tasks[1:], timeout=answer_wait(deadline, level.seconds))
        finally:
            for task in tasks:
                task.cancel()  # a search not started is withdrawn; a running one ends alone
        answers: list[Answer] = []
        for task in tasks:
            if task.done() and not task.cancelled() and task.exception() is None:
                answer = task.result()
                if answer is not None:
                    answers.append(answer)
        if not answers:
            failure = None if tasks[0].cancelled() else tasks[0].exception()
            raise failure or RuntimeError(f"no search of game {game} answered")
        found = merge(position, answers, time.time() - (start or time.time()))
        if not position.is_legal(found.plan.moves[0]):
            raise RuntimeError(f"level {level.number} chose {found.plan.moves[0]}, not legal")
        return found

    async def review(
        self,
        record: dict[str, Any],
        iterations: int,
        first: int,
        last: int,
        *,
        game: str,
        started: Callable[[], None] | None = None,
    ) -> dict[str, Any]:
        """The review of plies ``first`` to ``last`` of a finished game (``review_plies``),
        computed at the AI-only priority; ``started`` is called when a worker takes it."""

        def work() -> Awaitable[Any]:
            if started is not None:
                started()
            return self._run(Audience.AI_ONLY, review_plies, record, iterations, first, last)

        result: dict[str, Any] = await self.scheduler.run(game, Audience.AI_ONLY, work)
        return result

    async def chances(
        self,
        record: dict[str, Any],
        iterations: int,
        *,
        game: str,
        audience: Audience,
        wanted: Callable[[], bool] | None = None,
    ) -> list[float] | None:
        """Every player's winning chance in the position of ``record``; None, without
        searching, if ``wanted()`` says when the job's turn comes that nobody needs it now."""

        async def work() -> list[float] | None:
            if wanted is not None and not wanted():
                return None
            found: list[float] = await self._run(audience, position_chances_of, record, iterations)
            return found

        result: list[float] | None = await self.scheduler.run(game, audience, work)
        return result

    def close(self) -> None:
        """Stop the workers now: queued jobs are cancelled, running ones abandoned."""
        self._closed = True
        self.scheduler.close()
        executors = list({id(executor): executor for executor in self._executors.values()}.values())
        processes: list[Any] = []
        for executor in executors:
            # A worker busy with a long search would hold up the server's exit until done, so
            # the workers are stopped (Python 3.14 has executor.terminate_workers(); before
            # it, the pool's own table, which shutdown() clears).
            table: dict[int, Any] = getattr(executor, "_processes", None) or {}
            processes.extend(table.values())
            executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=2.0)
