"""The server's AI workers (``taluva.server.ai.workers``): level 6's root searches run as the
parts of one job on the server's own pool, merged as the agent merges them, never in
processes of the workers' own, and people's games are served while they run."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest
from test_server_support import sqlite_url

from taluva.ai.hint import HINT_SEED
from taluva.ai.levels import LEVELS, Level
from taluva.ai.parallel import ParallelMctsAgent, merge, root_search
from taluva.engine.game import Game
from taluva.engine.moves import TILE
from taluva.server import Settings
from taluva.server.ai.scheduling import Audience, FairScheduler
from taluva.server.ai.workers import AiRunner, move_seed, parallel_level
from taluva.server.games.room import Room, game_record
from taluva.server.games.service import GameService

ITERATIONS = 12
HUNG = 120.0
"""Seconds after which a wait is taken to hang: only stops a broken test, never a slow one."""
LEVEL_6_SEAT = {"kind": "ai", "level": 6}
HUMAN = {"kind": "human", "take": True}


def level_6(monkeypatch: pytest.MonkeyPatch, **budget: Any) -> None:
    """Give level 6 a small budget for this test (the server reads it at each turn)."""
    monkeypatch.setitem(LEVELS, 6, Level(6, "expert", "parallel", **budget))


class Parts:
    """Notes the jobs a scheduler is given: how many parts each, and their tasks."""

    def __init__(self, scheduler: FairScheduler, monkeypatch: pytest.MonkeyPatch) -> None:
        self.together: list[list[asyncio.Task[Any]]] = []
        self.single = 0
        run_together, run = scheduler.run_together, scheduler.run

        def spy_together(
            game: str, audience: Audience, works: Sequence[Callable[[], Awaitable[Any]]]
        ) -> list[asyncio.Task[Any]]:
            tasks = run_together(game, audience, works)
            self.together.append(tasks)
            return tasks

        async def spy_run(game: str, audience: Audience, work: Callable[[], Awaitable[Any]]) -> Any:
            self.single += 1
            return await run(game, audience, work)

        monkeypatch.setattr(scheduler, "run_together", spy_together)
        monkeypatch.setattr(scheduler, "run", spy_run)


@contextmanager
def process_watch() -> Iterator[dict[str, int]]:
    """While the block runs, count (every 20 ms) this process's children other than
    multiprocessing's resource tracker, and the processes started by those children."""
    seen = {"workers": 0, "nested": 0}
    stop = threading.Event()

    def watch() -> None:
        me = os.getpid()
        while True:
            stopped = stop.wait(0.02)
            workers = nested = 0
            for child in psutil.Process(me).children(recursive=True):
                try:
                    if child.ppid() != me:
                        nested += 1
                    elif "resource_tracker" not in " ".join(child.cmdline()):
                        workers += 1
                except psutil.NoSuchProcess:
                    continue
            seen["workers"] = max(seen["workers"], workers)
            seen["nested"] = max(seen["nested"], nested)
            if stopped:  # that was a last look, after the block: its workers are still up
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield seen
    finally:
        stop.set()
        watcher.join()


def agents_move(room: Room, ply: int) -> str:
    """The move ``ParallelMctsAgent`` with two processes plays at ``ply`` with the seed the
    server gives that ply, from the same searches run here one after the other."""
    game = Game.from_record(game_record(room.meta, [str(m) for m in room.game.moves[:ply]]))
    planner = ParallelMctsAgent(move_seed(room.id, ply), iterations=ITERATIONS, processes=2)
    record = game.to_record()
    answers = [root_search(record, seed, ITERATIONS, None) for seed in planner.seeds(game)]
    return str(merge(game, answers).plan.moves[0])


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait, however long it takes, until ``condition()`` holds (``HUNG``: it never will)."""
    deadline = time.monotonic() + HUNG
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.02)


@asynccontextmanager
async def serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **options: Any
) -> AsyncIterator[tuple[GameService, Parts]]:
    """A started service with two AI workers on a fresh SQLite database, its scheduler's
    searches watched by ``Parts``; stopped on the way out."""
    service = GameService(Settings(database=sqlite_url(tmp_path), ai_workers=2, **options))
    parts = Parts(service.ai.scheduler, monkeypatch)
    await service.start()
    try:
        yield service, parts
    finally:
        await service.stop()


def test_only_level_6_seats_search_in_parts() -> None:
    assert [parallel_level(f"level:{n}") is not None for n in LEVELS] == [False] * 5 + [True]
    assert parallel_level("mcts:iterations=5,processes=2") is None


def test_a_level_6_seat_searches_on_the_servers_pool_and_plays_the_agents_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    level_6(monkeypatch, iterations=ITERATIONS)

    async def scenario() -> None:
        async with serving(tmp_path, monkeypatch) as (service, parts):
            with process_watch() as seen:
                room, _ = await service.create_game({"seats": [LEVEL_6_SEAT, HUMAN]})
                assert room.ai_task is not None
                await room.ai_task
            assert room.game.ply == 2  # the AI seat's tile and build
            assert [str(m) for m in room.game.moves] == [agents_move(room, 0), agents_move(room, 1)]
            assert ([len(tasks) for tasks in parts.together], parts.single) == ([2, 2], 0)
            assert seen == {"workers": 2, "nested": 0}

    asyncio.run(scenario())


def test_a_level_6_hint_is_the_merged_search_of_the_servers_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    level_6(monkeypatch, iterations=ITERATIONS)
    game = Game.new(players=2, seed=4)
    planner = ParallelMctsAgent(HINT_SEED, iterations=ITERATIONS, processes=2)
    record = game.to_record()
    expected = merge(
        game, [root_search(record, seed, ITERATIONS, None) for seed in planner.seeds(game)]
    )

    async def scenario() -> tuple[str, float]:
        runner = AiRunner(2)
        parts = Parts(runner.scheduler, monkeypatch)
        try:
            found = await runner.hint(record, 6, game="g", audience=Audience.PEOPLE)
        finally:
            runner.close()
        assert ([len(tasks) for tasks in parts.together], parts.single) == ([2], 0)
        return found

    assert asyncio.run(scenario()) == (str(expected.plan.moves[0]), expected.value)


def test_a_search_that_cannot_start_before_the_deadline_is_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    level_6(monkeypatch, seconds=0.5)

    async def scenario() -> None:
        async with serving(tmp_path, monkeypatch, ai_only_games=True) as (service, parts):
            room, _ = await service.create_game({"seats": [LEVEL_6_SEAT, LEVEL_6_SEAT]})
            await until(lambda: room.game.ply > 0, "the first move was played")
            # AI-only games hold one of two workers: the second search would start after the
            # first, past the deadline.
            first, second = parts.together[0]
            assert (len(first.result()) > 0, second.result()) == (True, None)
            assert room.game.moves[0].kind == TILE

    asyncio.run(scenario())


def test_a_persons_game_is_served_while_an_ai_only_level_6_turn_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An hour a move: the AI-only search is still under way whenever the duel's turn ends
    # (the service stops its workers at the end, mid-search).
    level_6(monkeypatch, seconds=3600.0)

    async def scenario() -> None:
        async with serving(tmp_path, monkeypatch, ai_only_games=True) as (service, parts):
            experts, _ = await service.create_game({"seats": [LEVEL_6_SEAT, LEVEL_6_SEAT]})
            scheduler = service.ai.scheduler
            await until(lambda: scheduler.running(Audience.AI_ONLY) > 0, "the search started")
            duel, _ = await service.create_game({"seats": [{"kind": "ai", "level": 1}, HUMAN]})
            assert duel.ai_task is not None
            await asyncio.wait_for(duel.ai_task, timeout=HUNG)
            assert (duel.game.ply, experts.game.ply) == (2, 0)
            assert parts.together[0][0].done() is False

    asyncio.run(scenario())
