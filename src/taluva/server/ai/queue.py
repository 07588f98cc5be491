"""The AI job queue between server processes and ``taluva ai-worker`` processes: Redis
streams with consumer groups.

A server process asks for an AI turn by adding a job (the game's record, the seat, the ply
and a seed) to one of two streams: games with a human player go first, AI-only games after.
Any worker takes it, thinks, and adds the move to the results stream, which any server
process takes and plays through the same checks as a human's move. A job or result whose
taker dies stays pending in its group and is claimed by another taker once it has been idle
for ``reclaim_after`` seconds; a worker that is still thinking claims its job again every
few seconds, so it is never taken from it. A result for a ply already played is dropped, so
a job done twice never plays twice.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("taluva.server")

HUMAN_JOBS = "taluva:ai:jobs:human"
BOT_JOBS = "taluva:ai:jobs:bots"
RESULTS = "taluva:ai:results"
WORKERS = "workers"
SERVERS = "servers"
JOB_KEY_SECONDS = 600
"""How long a (game, ply) is remembered as asked for, so two servers never both ask."""
STREAM_LENGTH = 100_000
ASK_ONCE = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
    return redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', unpack(ARGV, 3))
end
return false
"""
"""Mark a (game, ply) as asked for and add its job, or do nothing if it was asked already."""
RECLAIM_AFTER = 15.0
"""Seconds a job or result may stay untouched before another taker claims it."""


@dataclass(frozen=True, slots=True)
class AiJob:
    """One AI turn to think about: the game as a record, whose turn, and the seed to use."""

    game_id: str
    ply: int
    seat: int
    spec: str
    seed: int
    record: dict[str, Any]

    def fields(self) -> dict[str, str]:
        """The job as a stream entry."""
        return {
            "game": self.game_id,
            "ply": str(self.ply),
            "seat": str(self.seat),
            "spec": self.spec,
            "seed": str(self.seed),
            "record": json.dumps(self.record, separators=(",", ":")),
        }

    @classmethod
    def from_fields(cls, fields: dict[str, str]) -> AiJob:
        """The job of a stream entry; ValueError or KeyError if it is not one."""
        return cls(
            game_id=fields["game"],
            ply=int(fields["ply"]),
            seat=int(fields["seat"]),
            spec=fields["spec"],
            seed=int(fields["seed"]),
            record=json.loads(fields["record"]),
        )


@dataclass(frozen=True, slots=True)
class AiResult:
    """A worker's answer: the move text for one game, ply and seat."""

    game_id: str
    ply: int
    seat: int
    move: str

    def fields(self) -> dict[str, str]:
        """The result as a stream entry."""
        return {
            "game": self.game_id,
            "ply": str(self.ply),
            "seat": str(self.seat),
            "move": self.move,
        }

    @classmethod
    def from_fields(cls, fields: dict[str, str]) -> AiResult:
        """The result of a stream entry; ValueError or KeyError if it is not one."""
        return cls(fields["game"], int(fields["ply"]), int(fields["seat"]), fields["move"])


def consumer_name() -> str:
    """This process's name in a consumer group: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _ensure_group(client: Any, stream: str, group: str) -> None:
    from redis.exceptions import ResponseError

    try:
        client.xgroup_create(stream, group, id="0", mkstream=True)
    except ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise


async def _ensure_group_async(client: Any, stream: str, group: str) -> None:
    from redis.exceptions import ResponseError

    try:
        await client.xgroup_create(stream, group, id="0", mkstream=True)
    except ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise


class ServerQueue:
    """A server process's side: asks for AI turns and takes the workers' answers."""

    def __init__(self, url: str, reclaim_after: float = RECLAIM_AFTER) -> None:
        import redis.asyncio as redis

        self.client: Any = redis.Redis.from_url(url, decode_responses=True)
        self.reclaim_after = reclaim_after
        self.name = consumer_name()

    async def start(self) -> None:
        """Create the streams and groups if this is the first process."""
        for stream in (HUMAN_JOBS, BOT_JOBS):
            await _ensure_group_async(self.client, stream, WORKERS)
        await _ensure_group_async(self.client, RESULTS, SERVERS)

    async def ask(self, job: AiJob, human: bool) -> bool:
        """Add ``job`` unless this game's ply was asked for already; whether it was added.

        The check and the addition are one Redis script, so a process that dies between
        them cannot leave a ply marked as asked with no job in the stream.
        """
        key = f"taluva:ai:asked:{job.game_id}:{job.ply}"
        stream = HUMAN_JOBS if human else BOT_JOBS
        fields = [part for pair in job.fields().items() for part in pair]
        added = await self.client.eval(
            ASK_ONCE, 2, key, stream, JOB_KEY_SECONDS, STREAM_LENGTH, *fields
        )
        return bool(added)

    async def take(self, block_ms: int) -> list[tuple[str, AiResult | None]]:
        """Answers to play: first any another server left unacknowledged for too long, then
        new ones (waiting up to ``block_ms``). A malformed entry comes as ``(id, None)``."""
        idle_ms = int(self.reclaim_after * 1000)
        claimed = await self.client.xautoclaim(RESULTS, SERVERS, self.name, idle_ms, "0-0", 16)
        entries = list(claimed[1])
        if not entries:
            answer = await self.client.xreadgroup(
                SERVERS, self.name, {RESULTS: ">"}, count=64, block=block_ms
            )
            for _stream, stream_entries in answer or []:
                entries.extend(stream_entries)
        taken: list[tuple[str, AiResult | None]] = []
        for entry_id, fields in entries:
            try:
                taken.append((entry_id, AiResult.from_fields(fields)))
            except (KeyError, ValueError):
                log.error("ignored a malformed AI result %s", entry_id)
                taken.append((entry_id, None))
        return taken

    async def done(self, entry_id: str) -> None:
        """The answer ``entry_id`` was played (or was stale): remove it."""
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.xack(RESULTS, SERVERS, entry_id)
            pipe.xdel(RESULTS, entry_id)
            await pipe.execute()

    async def close(self) -> None:
        """Disconnect."""
        await self.client.aclose()


class WorkerQueue:
    """An AI worker's side: takes jobs (human games first), keeps them, answers them."""

    def __init__(self, url: str, reclaim_after: float = RECLAIM_AFTER) -> None:
        import redis

        self.client: Any = redis.Redis.from_url(url, decode_responses=True)
        self.reclaim_after = reclaim_after
        self.name = consumer_name()
        for stream in (HUMAN_JOBS, BOT_JOBS):
            _ensure_group(self.client, stream, WORKERS)
        _ensure_group(self.client, RESULTS, SERVERS)

    def take(self, block_ms: int) -> tuple[str, str, AiJob | None] | None:
        """The next job as ``(stream, entry id, job)``: one a dead worker left, else a new
        one from a human game, else from an AI-only game (waiting up to ``block_ms``)."""
        idle_ms = int(self.reclaim_after * 1000)
        for stream in (HUMAN_JOBS, BOT_JOBS):
            claimed = self.client.xautoclaim(stream, WORKERS, self.name, idle_ms, "0-0", 1)
            if claimed[1]:
                entry_id, fields = claimed[1][0]
                log.warning("took over job %s of a worker that stopped answering", entry_id)
                return self._job(stream, entry_id, fields)
        for stream in (HUMAN_JOBS, BOT_JOBS):
            answer = self.client.xreadgroup(WORKERS, self.name, {stream: ">"}, count=1)
            if answer:
                _stream, entries = answer[0]
                entry_id, fields = entries[0]
                return self._job(stream, entry_id, fields)
        answer = self.client.xreadgroup(
            WORKERS, self.name, {HUMAN_JOBS: ">", BOT_JOBS: ">"}, count=1, block=block_ms
        )
        if not answer:
            return None
        stream, entries = answer[0]
        entry_id, fields = entries[0]
        return self._job(stream, entry_id, fields)

    def _job(
        self, stream: str, entry_id: str, fields: dict[str, str]
    ) -> tuple[str, str, AiJob | None]:
        try:
            return stream, entry_id, AiJob.from_fields(fields)
        except (KeyError, ValueError):
            log.error("dropped a malformed AI job %s", entry_id)
            self.drop(stream, entry_id)
            return stream, entry_id, None

    def keep(self, stream: str, entry_id: str) -> None:
        """Claim a job again, so that it never looks abandoned while this worker thinks."""
        self.client.xclaim(stream, WORKERS, self.name, 0, [entry_id], justid=True)

    def answer(self, stream: str, entry_id: str, result: AiResult) -> None:
        """Add the move to the results and remove the job, in one transaction."""
        with self.client.pipeline(transaction=True) as pipe:
            pipe.xadd(RESULTS, result.fields(), maxlen=STREAM_LENGTH, approximate=True)
            pipe.xack(stream, WORKERS, entry_id)
            pipe.xdel(stream, entry_id)
            pipe.execute()

    def drop(self, stream: str, entry_id: str) -> None:
        """Remove a job that cannot be done."""
        with self.client.pipeline(transaction=True) as pipe:
            pipe.xack(stream, WORKERS, entry_id)
            pipe.xdel(stream, entry_id)
            pipe.execute()

    def close(self) -> None:
        """Disconnect."""
        self.client.close()
