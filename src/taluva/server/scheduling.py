"""Fair scheduling of AI work: which game's job the next free AI worker takes.

Every game's AI jobs (its AI seats' turns, its players' hints) wait in a queue of their own
and run one at a time. Free workers go round-robin across the games with a job waiting:
first to games where a person waits for the answer (a person against AI seats, a hint),
then to games of AI seats only, which may hold all workers but one (when there are two or
more), so a person's job never waits behind a crowd of AI-only games: at worst behind one
job of each other game where people wait.

Who may create a game without people, and how many, is decided here too
(``check_ai_only_game``): AI-only games are the load that the queues keep away from people.
"""

from __future__ import annotations

import asyncio
import enum
import functools
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from taluva.server.errors import ApiError

T = TypeVar("T")


class Audience(enum.IntEnum):
    """Who waits for a job's answer; the lower value is served first."""

    PEOPLE = 0
    """A person: the AI seat of a game with people in it, or a hint."""
    AI_ONLY = 1
    """Nobody: a game whose every seat is an AI."""


def ai_only_share(workers: int) -> int:
    """How many of ``workers`` AI-only games may hold at once: all but one, kept for people
    (the only one when there is just one)."""
    return max(1, workers - 1)


class SchedulerClosed(RuntimeError):
    """The server is stopping: a job that had not started will not run."""


@dataclass(eq=False)
class _Job:
    game: str
    audience: Audience
    work: Callable[[], Awaitable[Any]]
    started: asyncio.Future[asyncio.Future[Any]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class FairScheduler:
    """Runs jobs on ``workers`` slots: per game one at a time, round-robin across games,
    people's games before AI-only ones (which get at most ``ai_only_workers`` slots).

    A job holds its slot until its work is done, even if whoever waits for it is cancelled
    (a worker process cannot be stopped mid-search), so the pool is never oversubscribed.
    """

    def __init__(self, workers: int, ai_only_workers: int | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers must be 1 or more, not {workers}")
        self.workers = workers
        self.ai_only_workers = (
            ai_only_share(workers) if ai_only_workers is None else ai_only_workers
        )
        self._waiting: dict[str, deque[_Job]] = {}
        self._turns: dict[Audience, deque[str]] = {audience: deque() for audience in Audience}
        self._running: dict[str, Audience] = {}
        self._closed = False

    def running(self, audience: Audience | None = None) -> int:
        """How many jobs hold a slot now (of one audience, if given)."""
        if audience is None:
            return len(self._running)
        return sum(1 for held in self._running.values() if held == audience)

    def waiting(self) -> int:
        """How many jobs wait for a slot."""
        return sum(len(jobs) for jobs in self._waiting.values())

    async def run(self, game: str, audience: Audience, work: Callable[[], Awaitable[T]]) -> T:
        """Queue ``work`` as the next job of ``game``; start it when its turn comes and
        return what it returns. Cancelling the caller withdraws a job that has not started."""
        if self._closed:
            raise SchedulerClosed("the server is stopping")
        job = _Job(game, audience, work)
        jobs = self._waiting.setdefault(game, deque())
        jobs.append(job)
        if len(jobs) == 1 and game not in self._running:
            self._turns[audience].append(game)
        self._dispatch()
        try:
            running = await job.started
        except asyncio.CancelledError:
            self._withdraw(job)
            raise
        result: T = await asyncio.shield(running)
        return result

    def close(self) -> None:
        """Refuse new jobs and drop the waiting ones (their callers get SchedulerClosed)."""
        self._closed = True
        for jobs in self._waiting.values():
            for job in jobs:
                if not job.started.done():
                    job.started.set_exception(SchedulerClosed("the server is stopping"))
        self._waiting.clear()
        for turns in self._turns.values():
            turns.clear()

    def _next_game(self) -> str | None:
        if self._turns[Audience.PEOPLE]:
            return self._turns[Audience.PEOPLE].popleft()
        if self._turns[Audience.AI_ONLY] and self.running(Audience.AI_ONLY) < self.ai_only_workers:
            return self._turns[Audience.AI_ONLY].popleft()
        return None

    def _dispatch(self) -> None:
        while len(self._running) < self.workers and (game := self._next_game()) is not None:
            jobs = self._waiting[game]
            job = jobs.popleft()
            if not jobs:
                del self._waiting[game]
            self._running[game] = job.audience
            running = asyncio.ensure_future(job.work())
            running.add_done_callback(functools.partial(self._finished, game))
            job.started.set_result(running)

    def _finished(self, game: str, done: asyncio.Future[Any]) -> None:
        if not done.cancelled():
            done.exception()  # retrieved here, for a caller that stopped waiting
        del self._running[game]
        jobs = self._waiting.get(game)
        if jobs and not self._closed:
            self._turns[jobs[0].audience].append(game)
        self._dispatch()

    def _withdraw(self, job: _Job) -> None:
        """Take a job that has not started out of its game's queue."""
        if job.started.done() and not job.started.cancelled():
            return  # it started: it keeps its slot until its work ends
        jobs = self._waiting.get(job.game)
        if jobs is None or job not in jobs:
            return
        first = jobs[0] is job
        jobs.remove(job)
        if jobs:
            if first and job.audience != jobs[0].audience and job.game not in self._running:
                self._turns[job.audience].remove(job.game)
                self._turns[jobs[0].audience].append(job.game)
            return
        del self._waiting[job.game]
        if job.game not in self._running:
            self._turns[job.audience].remove(job.game)


def check_ai_only_game(
    seat_kinds: list[str],
    signed_in: bool,
    allowed_for_guests: bool,
    quota: int,
    live_of_account: int,
) -> None:
    """Refuse (ApiError) a new game whose every seat is an AI when its creator may not have
    one: guests unless the server allows them, accounts beyond their quota of live ones."""
    if any(kind != "ai" for kind in seat_kinds):
        return
    if not signed_in:
        if allowed_for_guests:
            return
        raise ApiError(
            403,
            "ai-only-off",
            "games with only AI seats are for signed-in players on this server: "
            "sign in, or make one seat human",
        )
    if quota <= 0:
        raise ApiError(
            403,
            "ai-only-off",
            "games with only AI seats are turned off on this server: make one seat human",
        )
    if live_of_account >= quota:
        raise ApiError(
            409,
            "ai-only-quota",
            f"you have {live_of_account} unfinished games with only AI seats, as many as this "
            f"server allows one account ({quota}): wait for one to end, or make one seat human",
        )
