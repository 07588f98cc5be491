"""Fair scheduling of AI work: which game's job the next free AI worker takes.

Every game's AI jobs (its AI seats' turns, its players' hints) wait in a queue of their own
and run one at a time. Free workers go round-robin across the games with a job waiting:
first to games where a person waits for the answer (a person against AI seats, a hint),
then to games of AI seats only, which may hold all workers but one (when there are two or
more), so a person's job never waits behind a crowd of AI-only games: at worst behind one
job of each other game where people wait.

A job may have parts that run at once (level 6's root searches, ``run_together``): its first
part takes a worker in its game's turn like any job, each further part only a worker that no
other game's job waits for (people's before AI-only ones, which keep to their share). A
person's job may then wait for those parts to end (level 6's deadline bounds them), but never
for parts that had not started when it came.

Who may create a game without people, and how many, is decided here too
(``check_ai_only_game``): AI-only games are the load that the queues keep away from people.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from taluva.engine.wording import T, Tn
from taluva.server.errors import ApiError

R = TypeVar("R")


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
class _Part:
    """One piece of work of a job, and the future that hands out its running task."""

    work: Callable[[], Awaitable[Any]]
    queued: float = field(default_factory=time.monotonic)
    started: asyncio.Future[asyncio.Future[Any]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


@dataclass(eq=False)
class _Job:
    """A game's job: parts that may run at once (most jobs have one), not yet started in
    ``waiting``, holding a slot counted in ``running``."""

    game: str
    audience: Audience
    waiting: deque[_Part]
    running: int = 0


class FairScheduler:
    """Runs jobs on ``workers`` slots: per game one job at a time, round-robin across games,
    people's games before AI-only ones (which get at most ``ai_only_workers`` slots).

    A job of several parts (``run_together``) takes its first slot in its game's turn, and a
    slot for each further part only when no other game's job waits for it, so a game never
    holds more than one slot while another game waits for its first.

    A part holds its slot until its work is done, even if whoever waits for it is cancelled
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
        """Each game's jobs not started yet."""
        self._active: dict[str, _Job] = {}
        """Each game's started job, until its last part has ended or been withdrawn."""
        self._turns: dict[Audience, deque[str]] = {audience: deque() for audience in Audience}
        """Games whose next part waits for a first slot (none of their parts running)."""
        self._extras: dict[Audience, deque[str]] = {audience: deque() for audience in Audience}
        """Games running a job with parts still waiting, which may take slots nobody wants."""
        self._closed = False
        self.waited: Callable[[float], None] | None = None
        """Told the seconds each part waited when a worker takes it (the metrics)."""

    def running(self, audience: Audience | None = None) -> int:
        """How many slots are held now (by one audience's jobs, if given)."""
        return sum(
            job.running
            for job in self._active.values()
            if audience is None or job.audience == audience
        )

    def waiting(self) -> int:
        """How many parts of jobs wait for a slot."""
        queued = sum(len(job.waiting) for jobs in self._waiting.values() for job in jobs)
        return queued + sum(len(job.waiting) for job in self._active.values())

    async def run(self, game: str, audience: Audience, work: Callable[[], Awaitable[R]]) -> R:
        """Queue ``work`` as the next job of ``game``; start it when its turn comes and
        return what it returns. Cancelling the caller withdraws a job that has not started."""
        job = self._queue(game, audience, [work])
        result: R = await self._outcome(job, job.waiting[0])
        return result

    def run_together(
        self, game: str, audience: Audience, works: Sequence[Callable[[], Awaitable[R]]]
    ) -> list[asyncio.Task[R]]:
        """Queue ``works`` as one job of ``game`` whose parts may run at once, and return a
        task for each part's result. The parts start in order: the first in the game's turn,
        the others on slots no other game's job waits for. Cancelling a part's task withdraws
        it if it has not started (the job ends when every part has ended or been withdrawn)."""
        if not works:
            raise ValueError("a job needs at least one part")
        job = self._queue(game, audience, works)
        parts = list(job.waiting)
        tasks = [asyncio.ensure_future(self._outcome(job, part)) for part in parts]
        self._dispatch()
        return tasks

    def close(self) -> None:
        """Refuse new jobs and drop the waiting ones (their callers get SchedulerClosed)."""
        self._closed = True
        jobs = [job for queued in self._waiting.values() for job in queued]
        for job in [*jobs, *self._active.values()]:
            for part in job.waiting:
                if not part.started.done():
                    part.started.set_exception(SchedulerClosed("the server is stopping"))
            job.waiting.clear()
        self._waiting.clear()
        for queue in (*self._turns.values(), *self._extras.values()):
            queue.clear()

    def _queue(
        self, game: str, audience: Audience, works: Sequence[Callable[[], Awaitable[Any]]]
    ) -> _Job:
        if self._closed:
            raise SchedulerClosed("the server is stopping")
        job = _Job(game, audience, deque(_Part(work) for work in works))
        jobs = self._waiting.setdefault(game, deque())
        jobs.append(job)
        if len(jobs) == 1 and game not in self._active:
            self._turns[audience].append(game)
        return job

    async def _outcome(self, job: _Job, part: _Part) -> Any:
        self._dispatch()
        try:
            running = await part.started
        except asyncio.CancelledError:
            self._withdraw(job, part)
            raise
        return await asyncio.shield(running)

    def _next_game(self) -> str | None:
        """The game whose next part gets a free slot: first slots before further ones,
        people's games before AI-only ones (within their share)."""
        order = (
            (self._turns, Audience.PEOPLE),
            (self._extras, Audience.PEOPLE),
            (self._turns, Audience.AI_ONLY),
            (self._extras, Audience.AI_ONLY),
        )
        for queues, audience in order:
            if audience == Audience.AI_ONLY and self.running(audience) >= self.ai_only_workers:
                return None
            if queues[audience]:
                return queues[audience].popleft()
        return None

    def _dispatch(self) -> None:
        while self.running() < self.workers and (game := self._next_game()) is not None:
            job = self._active.get(game)
            if job is None:
                jobs = self._waiting[game]
                job = self._active[game] = jobs.popleft()
                if not jobs:
                    del self._waiting[game]
            part = job.waiting.popleft()
            job.running += 1
            if self.waited is not None:
                self.waited(time.monotonic() - part.queued)
            if job.waiting:
                self._extras[job.audience].append(game)
            running = asyncio.ensure_future(part.work())
            running.add_done_callback(functools.partial(self._finished, job))
            part.started.set_result(running)

    def _finished(self, job: _Job, done: asyncio.Future[Any]) -> None:
        if not done.cancelled():
            done.exception()  # retrieved here, for a caller that stopped waiting
        job.running -= 1
        if job.running == 0:
            if job.waiting:  # its next part now waits for a first slot, like any job
                self._extras[job.audience].remove(job.game)
                self._turns[job.audience].append(job.game)
            else:
                self._end(job)
        self._dispatch()

    def _end(self, job: _Job) -> None:
        """A started job is over: its game's next job, if any, waits for its turn."""
        del self._active[job.game]
        jobs = self._waiting.get(job.game)
        if jobs and not self._closed:
            self._turns[jobs[0].audience].append(job.game)

    def _withdraw(self, job: _Job, part: _Part) -> None:
        """Take a part that has not started out of its job (and a job left empty out of its
        game's queue)."""
        if part.started.done() and not part.started.cancelled():
            return  # it started: it keeps its slot until its work ends
        if part not in job.waiting:
            return
        job.waiting.remove(part)
        if job.waiting:
            return
        game = job.game
        if self._active.get(game) is job:
            if job.running:
                self._extras[job.audience].remove(game)
            else:
                self._turns[job.audience].remove(game)
                self._end(job)
            self._dispatch()
            return
        jobs = self._waiting[game]
        first = jobs[0] is job
        jobs.remove(job)
        if jobs:
            if first and job.audience != jobs[0].audience and game not in self._active:
                self._turns[job.audience].remove(game)
                self._turns[jobs[0].audience].append(game)
            return
        del self._waiting[game]
        if game not in self._active:
            self._turns[job.audience].remove(game)


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
            T(
                "games with only AI seats are for signed-in players on this server: "
                "sign in, or make one seat human"
            ),
        )
    if quota <= 0:
        raise ApiError(
            403,
            "ai-only-off",
            T("games with only AI seats are turned off on this server: make one seat human"),
        )
    if live_of_account >= quota:
        raise ApiError(
            409,
            "ai-only-quota",
            Tn(
                "you have {live} unfinished game with only AI seats, as many as this server "
                "allows one account ({quota}): wait for one to end, or make one seat human",
                "you have {live} unfinished games with only AI seats, as many as this server "
                "allows one account ({quota}): wait for one to end, or make one seat human",
                live_of_account,
                live=live_of_account,
                quota=quota,
            ),
        )
