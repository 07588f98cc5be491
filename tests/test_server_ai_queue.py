"""The AI job queue between server processes and AI workers, on a real Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import redis
from test_server_support import redis_server

from taluva.server.ai.queue import (
    BOT_JOBS,
    HUMAN_JOBS,
    RESULTS,
    SERVERS,
    WORKERS,
    AiJob,
    AiResult,
    ServerQueue,
    WorkerQueue,
)

PATIENCE = 60.0
"""The ``reclaim_after`` of these tests' workers: far longer than any test waits, so a job is
reclaimed only once ``idle`` says it was left that long, never because the machine is slow."""


@pytest.fixture
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


def idle(url: str, stream: str, entry_id: str, seconds: float, group: str = WORKERS) -> None:
    """Make the taken job (or answer) ``entry_id`` look untouched by its taker for
    ``seconds``, as if that long had passed since it was last claimed. Redis's own clock
    decides when an entry may be reclaimed (XAUTOCLAIM's min-idle-time): this sets the idle
    time that clock measures (XCLAIM with IDLE, to the same consumer), instead of waiting."""
    client = redis.Redis.from_url(url, decode_responses=True)
    pending = client.xpending_range(stream, group, min=entry_id, max=entry_id, count=1)
    assert len(pending) == 1, f"entry {entry_id} is not taken"
    owner = str(pending[0]["consumer"])
    claimed = client.xclaim(
        stream, group, owner, 0, [entry_id], idle=int(seconds * 1000), justid=True
    )
    assert claimed == [entry_id]
    client.close()


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


def test_the_job_of_a_worker_that_went_silent_goes_to_another_once_idle_that_long(
    redis_url: str,
) -> None:
    ask(redis_url, (job("g"), True))
    silent = WorkerQueue(redis_url, reclaim_after=PATIENCE)
    taken = silent.take(50)  # taken, never answered: the worker "died"
    assert taken is not None
    stream, entry_id, _job = taken
    other = WorkerQueue(redis_url, reclaim_after=PATIENCE)
    assert other.take(50) is None  # not yet: the first may still be thinking
    idle(redis_url, stream, entry_id, PATIENCE / 2)
    assert other.take(50) is None  # still not: left for less than reclaim_after
    idle(redis_url, stream, entry_id, PATIENCE)
    assert other.take(50) == (stream, entry_id, job("g"))  # left that long: taken over
    assert other.take(50) is None  # once
    silent.close()
    other.close()


def test_a_worker_that_keeps_its_job_is_not_robbed_of_it(redis_url: str) -> None:
    ask(redis_url, (job("g"), True))
    thinking = WorkerQueue(redis_url, reclaim_after=PATIENCE)
    taken = thinking.take(50)
    assert taken is not None
    stream, entry_id, _job = taken
    other = WorkerQueue(redis_url, reclaim_after=PATIENCE)
    for _ in range(3):
        idle(redis_url, stream, entry_id, PATIENCE)  # as long as another waits before it takes
        thinking.keep(stream, entry_id)  # ... but the thinking worker claimed it again
        assert other.take(10) is None
    idle(redis_url, stream, entry_id, PATIENCE)  # not kept this time: the same wait takes it
    assert other.take(10) == (stream, entry_id, job("g"))
    thinking.close()
    other.close()


def test_a_malformed_job_is_dropped_not_retried(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    WorkerQueue(redis_url).close()  # creates the groups
    client.xadd(HUMAN_JOBS, {"game": "g", "ply": "not a number"})
    worker = WorkerQueue(redis_url)
    taken = worker.take(50)
    assert taken is not None and taken[2] is None
    # Nothing of it is left to retry: not pending for any worker, not in the stream, so even
    # a worker that takes over a pending job at once (reclaim_after=0) finds none.
    assert (client.xpending(HUMAN_JOBS, WORKERS)["pending"], client.xlen(HUMAN_JOBS)) == (0, 0)
    eager = WorkerQueue(redis_url, reclaim_after=0)
    assert eager.take(50) is None
    worker.close()
    eager.close()


def test_a_job_lost_with_redis_data_is_asked_again_and_found_by_workers_already_running(
    redis_url: str,
) -> None:
    worker = WorkerQueue(redis_url)  # running before Redis lost everything
    assert ask(redis_url, (job("g"), True), (job("g"), True)) == [True, False]
    redis.Redis.from_url(redis_url).flushall()  # the job, its key and every group are gone
    assert ask(redis_url, (job("g"), True)) == [True]
    taken = worker.take(50)  # its group is created again
    assert taken is not None and taken[2] == job("g")
    stream, entry_id, _job = taken
    worker.answer(stream, entry_id, AiResult("g", 0, 1, "tile 0,0 1"))
    worker.close()
    assert take_results(redis_url) == [AiResult("g", 0, 1, "tile 0,0 1")]


def test_a_turn_is_not_asked_again_while_its_job_or_its_answer_is_waiting(
    redis_url: str,
) -> None:
    assert ask(redis_url, (job("g"), True)) == [True]
    worker = WorkerQueue(redis_url)
    taken = worker.take(50)
    assert taken is not None
    assert ask(redis_url, (job("g"), True)) == [False]  # being thought about
    stream, entry_id, _job = taken
    worker.answer(stream, entry_id, AiResult("g", 0, 1, "tile 0,0 1"))
    worker.close()
    assert ask(redis_url, (job("g"), True)) == [False]  # answered, not yet played

    async def take_without_playing() -> None:
        queue = ServerQueue(redis_url, reclaim_after=PATIENCE)
        await queue.start()
        assert len(await queue.take(100)) == 1  # taken; the database was down: not done
        await queue.close()

    asyncio.run(take_without_playing())
    assert ask(redis_url, (job("g"), True)) == [False]  # still waiting to be played
    assert take_results(redis_url, reclaim_after=0) == [AiResult("g", 0, 1, "tile 0,0 1")]
    # played and removed: if the database still says the turn is due, it is asked again
    assert ask(redis_url, (job("g"), True)) == [True]


def test_an_answer_a_server_could_not_store_is_taken_again_once_left_that_long(
    redis_url: str,
) -> None:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    WorkerQueue(redis_url).close()  # creates the groups
    entry_id = client.xadd(RESULTS, AiResult("g", 3, 0, "tile 0,0 1").fields())

    async def scenario() -> list[list[AiResult | None]]:
        queue = ServerQueue(redis_url, reclaim_after=PATIENCE)
        await queue.start()
        rounds = [[result for _id, result in await queue.take(50)]]  # not done: kept
        rounds.append([result for _id, result in await queue.take(50)])
        idle(redis_url, RESULTS, entry_id, PATIENCE, SERVERS)
        rounds.append([result for _id, result in await queue.take(50)])
        await queue.done(entry_id)
        rounds.append([result for _id, result in await queue.take(50)])
        await queue.close()
        return rounds

    answer = AiResult("g", 3, 0, "tile 0,0 1")
    assert asyncio.run(scenario()) == [[answer], [], [answer], []]
