"""``taluva ai-worker``: processes that play the AI turns of every server process, on this
host or another, through the Redis job queue of ``taluva.server.ai.queue``.

A worker needs no database: each job carries the game's record, and the answer goes back
through the queue to a server process, which checks and stores it like any move.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
import time

from taluva.engine.game import Game
from taluva.server.ai.queue import RECLAIM_AFTER, AiResult, WorkerQueue
from taluva.server.ai.workers import choose_move, die_with_parent, fallback_move

log = logging.getLogger("taluva.ai-worker")

BLOCK_MS = 1000
REDIS_RETRY_SECONDS = 0.5
"""Seconds between two tries while Redis cannot be reached."""


def think(job_record: dict[str, object], spec: str, seed: int) -> str:
    """The agent's move for a job; a random legal move if the agent fails."""
    try:
        return choose_move(job_record, spec, seed)
    except Exception:
        log.exception("the agent %s failed: a random move instead", spec)
        return fallback_move(Game.from_record(job_record), seed)


def work(
    url: str, reclaim_after: float = RECLAIM_AFTER, stop: threading.Event | None = None
) -> None:
    """Take jobs and answer them until ``stop`` is set (forever in a worker process).

    Redis going away stops nothing: the worker waits for it and goes on (a job lost with
    its data is asked for again by a server process); an answer it cannot hand over yet is
    tried again until it can.
    """
    from redis.exceptions import RedisError

    stop = stop or threading.Event()
    queue = WorkerQueue(url, reclaim_after)
    log.info("AI worker %s waiting for jobs", queue.name)
    try:
        while not stop.is_set():
            try:
                taken = queue.take(BLOCK_MS)
            except RedisError as error:
                log.warning("cannot take AI jobs from Redis (%s): trying again", error)
                stop.wait(REDIS_RETRY_SECONDS)
                continue
            if taken is None:
                continue
            stream, entry_id, job = taken
            if job is None:
                continue
            started = time.perf_counter()
            thinking = threading.Event()
            keeper = threading.Thread(
                target=_keep,
                args=(queue, stream, entry_id, thinking, queue.keep_every),
                name="taluva-keep-job",
                daemon=True,
            )
            keeper.start()
            try:
                move = think(job.record, job.spec, job.seed)
            finally:
                thinking.set()
                keeper.join()
            result = AiResult(job.game_id, job.ply, job.seat, move)
            while not stop.is_set():
                try:
                    queue.answer(stream, entry_id, result)
                    break
                except RedisError as error:
                    log.warning("cannot hand over the answer (%s): trying again", error)
                    stop.wait(REDIS_RETRY_SECONDS)
            log.info(
                "game %s ply %d (%s): %s in %.2f s",
                job.game_id,
                job.ply,
                job.spec,
                move,
                time.perf_counter() - started,
            )
    finally:
        queue.close()


def _keep(
    queue: WorkerQueue, stream: str, entry_id: str, done: threading.Event, every: float
) -> None:
    while not done.wait(every):
        try:
            queue.keep(stream, entry_id)
        except Exception as error:
            log.warning("cannot keep job %s: %s", entry_id, error)


def _worker_main(parent: int, url: str, reclaim_after: float, quiet: bool) -> None:
    die_with_parent(parent)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    logging.basicConfig(
        level=logging.WARNING if quiet else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    work(url, reclaim_after)


def run_workers(url: str, processes: int, reclaim_after: float, quiet: bool) -> int:
    """Run ``processes`` workers until Ctrl-C or SIGTERM; a worker that dies is replaced."""
    context = multiprocessing.get_context("spawn")
    stopping = threading.Event()

    def stop(_signum: int, _frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    children: list[multiprocessing.process.BaseProcess] = []

    def start_one() -> multiprocessing.process.BaseProcess:
        child = context.Process(
            target=_worker_main,
            args=(os.getpid(), url, reclaim_after, quiet),
            name="taluva-ai-worker",
        )
        child.start()
        return child

    children = [start_one() for _ in range(processes)]
    try:
        while not stopping.wait(0.5):
            for index, child in enumerate(children):
                if not child.is_alive():
                    log.error(
                        "AI worker process %s ended (code %s); starting another",
                        child.pid,
                        child.exitcode,
                    )
                    children[index] = start_one()
    finally:
        for child in children:
            child.terminate()
        for child in children:
            child.join(timeout=5.0)
    return 0
