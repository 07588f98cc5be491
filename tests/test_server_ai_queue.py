"""The AI job queue between server processes and AI workers, on a real Redis."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
import redis
from test_server_support import redis_server

from taluva.server.ai.queue import (
    BOT_JOBS,
    HUMAN_JOBS,
    AiJob,
    AiResult,
    ServerQueue,
    WorkerQueue,
)


@pytest.fixture
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


def job(game: str, ply: int = 0) -> AiJob:
    return AiJob(game, ply, 1, "level:1", 42, {"format": 1, "moves": []})


def ask(url: str, *jobs: tuple[AiJob, bool]) -> list[bool]:
    async def scenario() -> list[bool]:
        queue = ServerQueue(url)
        await queue.start()
        added = [await queue.ask(j, human) for j, human in jobs]
        await queue.close()
        return added

    return asyncio.run(scenario())


def take_results(url: str, reclaim_after: float = 15.0) -> list[AiResult | None]:
    async def scenario() -> list[AiResult | None]:
        queue = ServerQueue(url, reclaim_after)
        await queue.start()
        taken = await queue.take(100)
        for entry_id, _result in taken:
            await queue.done(entry_id)
        await queue.close()
        return [result for _id, result in taken]

    return asyncio.run(scenario())


def test_job_and_result_survive_the_stream_unchanged() -> None:
    original = AiJob("g", 4, 2, "level:3", 99, {"players": ["Ana", "AI"], "moves": ["x"]})
    assert AiJob.from_fields(original.fields()) == original
    answer = AiResult("g", 4, 2, "tile 0,0 3")
    assert AiResult.from_fields(answer.fields()) == answer


def test_a_ply_is_asked_for_once_whichever_server_asks(redis_url: str) -> None:
    assert ask(redis_url, (job("g"), True), (job("g"), True), (job("g", 1), True)) == [
        True,
        False,
        True,
    ]
    assert redis.Redis.from_url(redis_url).xlen(HUMAN_JOBS) == 2


def test_workers_take_games_with_people_before_ai_only_games(redis_url: str) -> None:
    ask(redis_url, (job("bots-1"), False), (job("bots-2"), False), (job("people"), True))
    worker = WorkerQueue(redis_url)
    order = []
    while (taken := worker.take(50)) is not None:
        stream, entry_id, taken_job = taken
        assert taken_job is not None
        order.append((stream, taken_job.game_id))
        worker.drop(stream, entry_id)
    worker.close()
    assert order == [(HUMAN_JOBS, "people"), (BOT_JOBS, "bots-1"), (BOT_JOBS, "bots-2")]


def test_an_answer_goes_back_to_a_server_and_the_job_is_gone(redis_url: str) -> None:
    ask(redis_url, (job("g", 6), True))
    worker = WorkerQueue(redis_url)
    taken = worker.take(50)
    assert taken is not None
    stream, entry_id, taken_job = taken
    assert taken_job == job("g", 6)
    worker.answer(stream, entry_id, AiResult("g", 6, 1, "tile 0,0 1"))
    assert worker.take(50) is None
    worker.close()
    assert take_results(redis_url) == [AiResult("g", 6, 1, "tile 0,0 1")]
    assert take_results(redis_url) == []


def test_the_job_of_a_worker_that_went_silent_goes_to_another(redis_url: str) -> None:
    ask(redis_url, (job("g"), True))
    silent = WorkerQueue(redis_url, reclaim_after=0.3)
    assert silent.take(50) is not None  # taken, never answered: the worker "died"
    other = WorkerQueue(redis_url, reclaim_after=0.3)
    assert other.take(50) is None  # not yet: the first may still be thinking
    time.sleep(0.4)
    taken = other.take(50)
    assert taken is not None and taken[2] == job("g")
    silent.close()
    other.close()


def test_a_worker_that_keeps_its_job_is_not_robbed_of_it(redis_url: str) -> None:
    ask(redis_url, (job("g"), True))
    thinking = WorkerQueue(redis_url, reclaim_after=0.3)
    taken = thinking.take(50)
    assert taken is not None
    other = WorkerQueue(redis_url, reclaim_after=0.3)
    for _ in range(4):
        time.sleep(0.15)
        thinking.keep(taken[0], taken[1])
        assert other.take(10) is None
    thinking.close()
    other.close()


def test_a_malformed_job_is_dropped_not_retried(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    WorkerQueue(redis_url).close()  # creates the groups
    client.xadd(HUMAN_JOBS, {"game": "g", "ply": "not a number"})
    worker = WorkerQueue(redis_url, reclaim_after=0.1)
    taken = worker.take(50)
    assert taken is not None and taken[2] is None
    time.sleep(0.2)
    assert worker.take(50) is None
    worker.close()
