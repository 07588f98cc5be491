"""``taluva ai-worker``'s loop: it takes a job from Redis and answers with a legal move."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest
from test_server_support import redis_server

from taluva.engine.game import Game
from taluva.server.ai.queue import AiJob, AiResult, ServerQueue
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
