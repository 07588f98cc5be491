"""Game reviews on the server: ``taluva.ai.review`` of a finished game, computed in the
background on the AI workers, with progress for everyone watching, and stored once done.

A review is cut into chunks of ``CHUNK_PLIES`` moves. Each chunk is one job of the AI
scheduler at the AI-only priority, so people's AI opponents and hints go first, and reviews
plies ``a`` to ``b`` while searching position ``b`` too: the review's searches are seeded by
position, so two chunks that meet at ``b`` find the same there, and the merged chunks are
exactly the review of the whole game (``merge``). After each chunk the game's watchers get a
``review`` message with the positions searched; the last one carries the review, which is
stored (table ``reviews``) and served at once from then on. One review runs per game: asking
again joins it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from taluva.engine.game import Game
from taluva.engine.wording import T
from taluva.server.ai.scheduling import SchedulerClosed
from taluva.server.errors import ApiError
from taluva.server.games.view import review_view
from taluva.server.games.words import reason_of
from taluva.server.storage.models import Base, ReviewRow
from taluva.server.storage.store import FINISHED, now

if TYPE_CHECKING:
    from taluva.server.games.room import Room
    from taluva.server.games.service import GameService

log = logging.getLogger("taluva.server")

CHUNK_PLIES: Final = 4
"""Moves a chunk reviews: a job of a few seconds, so others' jobs are never held up long."""
QUEUED: Final = "queued"
RUNNING: Final = "running"
DONE: Final = "done"
FAILED: Final = "failed"

_REVIEWS = Base.metadata.tables[ReviewRow.__tablename__]


def chunks(plies: int, size: int = CHUNK_PLIES) -> list[tuple[int, int]]:
    """The chunks ``(first, last)`` of a game of ``plies`` moves: consecutive chunks share
    their ends, and a game without moves is one chunk that searches its first position.

    >>> chunks(10, 4), chunks(0, 4)
    ([(0, 4), (4, 8), (8, 10)], [(0, 0)])
    """
    if plies == 0:
        return [(0, 0)]
    return [(first, min(first + size, plies)) for first in range(0, plies, size)]


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One review document from the documents of consecutive chunks (``taluva review --json``
    of plies a..b, b..c, ...): their moves in order, and each position's chances once."""
    first = parts[0]
    merged = {**first, "moves": list(first["moves"]), "chances": list(first["chances"])}
    for part in parts[1:]:
        merged["moves"].extend(part["moves"])
        merged["chances"].extend(part["chances"][1:])
    return merged


def not_finished(game_id: str) -> ApiError:
    """A review was asked for a game that is still going on (or never started): the code a
    rematch of such a game gets too."""
    return ApiError(
        409,
        "not-finished",
        T("game {game} is not over: a review is of a finished game", game=game_id),
    )


# ---------------------------------------------------------------------- storage


def load_review(engine: Engine, game_id: str) -> dict[str, Any] | None:
    """The stored review of a game, or None."""
    with engine.connect() as connection:
        row = connection.execute(
            select(_REVIEWS.c.review).where(_REVIEWS.c.game_id == game_id)
        ).first()
    return None if row is None else dict(row.review)


def store_review(engine: Engine, game_id: str, review: dict[str, Any], iterations: int) -> None:
    """Store a game's review; one already stored (by another server process) is kept."""
    try:
        with engine.begin() as connection:
            connection.execute(
                insert(_REVIEWS),
                {
                    "game_id": game_id,
                    "iterations": iterations,
                    "review": review,
                    "created_at": now(),
                },
            )
    except IntegrityError:
        pass


# ---------------------------------------------------------------------- reviews in progress


@dataclass(eq=False)
class ReviewJob:
    """One game's review as it goes: positions searched of ``total``, then the review."""

    game_id: str
    total: int
    status: str = QUEUED
    done: int = 0
    review: dict[str, Any] | None = None
    error: str | None = None
    task: asyncio.Task[None] | None = None

    def view(self, game: Game) -> dict[str, Any]:
        """What ``GET /api/games/{id}/review`` answers and the ``review`` message carries; the
        marked moves' better plans are put in the engine's facts against ``game``."""
        out: dict[str, Any] = {
            "game": self.game_id,
            "status": self.status,
            "done": self.done,
            "total": self.total,
        }
        if self.review is not None:
            out["review"] = review_view(self.review, game)
        if self.error is not None:
            out["error"] = self.error
        return out


def done_job(game_id: str, review: dict[str, Any]) -> ReviewJob:
    """The job of a review already computed."""
    positions = len(review["chances"])
    return ReviewJob(game_id, positions, DONE, positions, review)


class Reviews:
    """The reviews of the server's games: asked for, in progress, done (and stored)."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.jobs: dict[str, ReviewJob] = {}
        """Reviews running or failed in this process, by game (done ones are in the database)."""
        self._asking = asyncio.Lock()
        """Held from looking a review up to starting it, so two askers start one review."""

    async def ask(self, room: Room) -> ReviewJob:
        """Start the review of a finished game, or join the one that runs; a stored review
        is answered at once, and a failed one is tried again."""
        async with self._asking:
            job = await self.find(room)
            if job is not None and job.status != FAILED:
                return job
            at_once = self.service.settings.reviews_at_once
            busy = sum(1 for other in self.jobs.values() if other.status in (QUEUED, RUNNING))
            if busy >= at_once:
                raise ApiError(
                    429,
                    "rate-limited",
                    T(
                        "the server is reviewing as many games as it takes at once ({at_once}): "
                        "ask again when one is done",
                        at_once=at_once,
                    ),
                    retry_after=60,
                )
            record = room.public_record()
            job = ReviewJob(room.id, len(record["moves"]) + 1)
            self.jobs[room.id] = job
            job.task = asyncio.get_running_loop().create_task(self._run(job, room, record))
        self.tell(job, room)
        return job

    async def find(self, room: Room) -> ReviewJob | None:
        """The review of a finished game, as it stands (None if nobody asked for one);
        ApiError 409 ``not-finished`` before the game ends."""
        if room.meta.status != FINISHED:
            raise not_finished(room.id)
        job = self.jobs.get(room.id)
        if job is not None:
            return job
        stored = await self.service.db(load_review, self.service.store.engine, room.id)
        return None if stored is None else done_job(room.id, stored)

    async def _run(self, job: ReviewJob, room: Room, record: dict[str, Any]) -> None:
        service = self.service
        iterations = service.settings.review_iterations
        parts = []
        try:
            for first, last in chunks(job.total - 1):
                part = await service.ai.review(
                    record,
                    iterations,
                    first,
                    last,
                    game=f"{room.id}:review",
                    started=lambda: self._started(job, room),
                )
                parts.append(part)
                job.done = last + 1
                self.tell(job, room)
            review = merge(parts)
            await service.db(store_review, service.store.engine, room.id, review, iterations)
        except asyncio.CancelledError:
            raise
        except SchedulerClosed:
            return  # the server is stopping; ask again after the restart
        except Exception as error:
            log.exception("the review of game %s failed", room.id)
            job.status = FAILED
            job.error = T("the review failed: {error}", error=reason_of(error))
            self.tell(job, room)
            return
        job.status = DONE
        job.review = review
        self.jobs.pop(room.id, None)
        self.tell(job, room)

    def tell(self, job: ReviewJob, room: Room) -> None:
        """Send a review's progress to everyone watching its game, in the game's room as the
        server holds it now (the room a review started in may have been let go and loaded
        again since)."""
        service = self.service
        current = service.finished.get(job.game_id) or service.rooms.get(job.game_id) or room
        current.broadcast({"type": "review", **job.view(current.game)})

    def _started(self, job: ReviewJob, room: Room) -> None:
        """A worker took one of the review's chunks: the first one marks it running."""
        if job.status == QUEUED:
            job.status = RUNNING
            self.tell(job, room)

    async def stop(self) -> None:
        """Stop every review in progress (the server is stopping)."""
        tasks = [job.task for job in self.jobs.values() if job.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
