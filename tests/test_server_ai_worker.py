"""``taluva ai-worker``'s loop: it takes a job from Redis and answers with a legal move."""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
import redis
from test_server_support import redis_server

from taluva.engine.game import Game
from taluva.server.ai.queue import HUMAN_JOBS, RECLAIM_AFTER, WORKERS, AiJob, AiResult, ServerQueue
from taluva.server.ai.worker import work

HUNG = 120.0
"""Seconds after which a wait is taken to hang: only stops a broken test, never a slow one."""


@pytest.fixture
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


def test_a_worker_answers_each_job_with_a_legal_move_of_its_position(redis_url: str) -> None:
    game = Game.new(players=["Ana", "AI"], seed=5)
    game.play(game.legal_moves()[0])
    game.play(game.legal_moves()[0])
    job = AiJob("g", game.ply, game.to_move, "level:1", 11, game.to_record())

    async def ask_and_wait() -> list[AiResult | None]:
        queue = ServerQueue(redis_url)
        await queue.start()
        await queue.ask(job, human=True)
        taken: list[tuple[str, AiResult | None]] = []
        deadline = time.monotonic() + HUNG
        while not taken:  # until the worker has answered, however long it takes
            assert time.monotonic() < deadline, "the worker never answered"
            taken = await queue.take(200)
        await queue.close()
        return [result for _id, result in taken]

    stop = threading.Event()
    worker = threading.Thread(target=work, args=(redis_url, 5.0, stop), daemon=True)
    worker.start()
    try:
        results = asyncio.run(ask_and_wait())
    finally:
        stop.set()
        worker.join(timeout=HUNG)  # it stops within a take's wait (BLOCK_MS)
    assert not worker.is_alive()
    assert len(results) == 1 and results[0] is not None
    answer = results[0]
    assert (answer.game_id, answer.ply, answer.seat) == ("g", 2, game.to_move)
    assert answer.move in {str(move) for move in game.legal_moves()}


SLOW_WORKER = """
import sys, time
import taluva.server.ai.worker as worker
worker.think = lambda *_job: time.sleep(3600)  # thinks until killed
worker.work(sys.argv[1], float(sys.argv[2]))
"""
"""A real worker loop (taking, keeping and answering as ``taluva ai-worker`` does) whose
agent never finishes thinking."""


def holder(url: str) -> tuple[str, int] | None:
    """Who holds the one job of the people's stream, and how many times it was handed out."""
    client = redis.Redis.from_url(url, decode_responses=True)
    pending = client.xpending_range(HUMAN_JOBS, WORKERS, min="-", max="+", count=1)
    client.close()
    if not pending:
        return None
    return str(pending[0]["consumer"]), int(pending[0]["times_delivered"])


def test_a_worker_killed_mid_thought_loses_its_turn_to_another_through_the_reclaim(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    game = Game.new(players=["Ana", "AI"], seed=8)
    job = AiJob("g", game.ply, game.to_move, "level:1", 3, game.to_record())
    reclaim = RECLAIM_AFTER  # what the servers and workers use unless told otherwise

    async def ask() -> None:
        queue = ServerQueue(redis_url)
        await queue.start()
        await queue.ask(job, human=True)
        await queue.close()

    asyncio.run(ask())
    slow = subprocess.Popen([sys.executable, "-c", SLOW_WORKER, redis_url, str(reclaim)])
    stop = threading.Event()
    other = threading.Thread(target=work, args=(redis_url, reclaim, stop), daemon=True)
    try:
        slow_name = f"{socket.gethostname()}:{slow.pid}"
        deadline = time.monotonic() + HUNG
        while holder(redis_url) is None:
            assert time.monotonic() < deadline, "the slow worker never took the job"
            time.sleep(0.05)
        assert holder(redis_url) == (slow_name, 1)
        caplog.set_level(logging.INFO, logger="taluva.server")
        other.start()
        # The slow worker thinks for twice the reclaim time while another worker waits for
        # jobs: it claims its job again as it thinks, so the job stays with it.
        time.sleep(2 * reclaim)
        assert holder(redis_url) == (slow_name, 1)
        assert not any("took over job" in r.getMessage() for r in caplog.records)
        slow.send_signal(signal.SIGKILL)
        slow.wait()
        killed = time.monotonic()

        async def answer() -> list[AiResult | None]:
            queue = ServerQueue(redis_url)
            await queue.start()
            taken: list[tuple[str, AiResult | None]] = []
            while not taken:
                assert time.monotonic() < killed + HUNG, "nobody took the dead worker's job"
                taken = await queue.take(100)
            await queue.close()
            return [result for _id, result in taken]

        results = asyncio.run(answer())
        seconds = time.monotonic() - killed
    finally:
        stop.set()
        if other.is_alive():
            other.join(timeout=HUNG)
        if slow.poll() is None:
            slow.kill()
            slow.wait()
    # The other worker took the job through the reclaim (once it had been left reclaim
    # seconds), not as a new job, and answered it with a legal move of its position.
    assert [r.getMessage() for r in caplog.records if "took over job" in r.getMessage()] != []
    assert len(results) == 1 and results[0] is not None
    assert (results[0].game_id, results[0].ply) == ("g", 0)
    assert results[0].move in {str(move) for move in game.legal_moves()}
    print(f"\nturn played {seconds:.2f} s after the worker was killed (reclaim {reclaim:g} s)")
