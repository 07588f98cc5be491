"""The AI job queue between server processes and ``taluva ai-worker`` processes: Redis
streams with consumer groups.

A server process asks for an AI turn by adding a job (the game's record, the seat, the ply
and a seed) to one of two streams: games with a human player go first, AI-only games after.
Any worker takes it, thinks, and adds the move to the results stream, which any server
process takes and plays through the same checks as a human's move.

Redis holds only work in flight, never a fact: the database says which AI turns are due,
and each server process asks again, every second, for any due turn with no live job
(``games.cluster``). A job is live while its entry, or its answer's, is still in a stream:
the key ``taluva:ai:asked:{game}:{ply}:{seat}`` names that entry, so asking twice adds one
job, and a job lost with Redis's data is asked for again. A job or answer whose taker dies
stays pending in its group and is claimed by another taker once it has been idle for
``reclaim_after`` seconds; a worker that is still thinking claims its job again every
``reclaim_after / KEEPS`` seconds, so it is never taken from it. An answer a server cannot
store (the database down) stays pending too, and is taken again after ``reclaim_after``.
An answer for a ply already played is dropped, so a job done twice never plays twice.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from dataclasses import dataclass
from typing import Any

from taluva.server.config import DEFAULT_RECLAIM_AFTER

log = logging.getLogger("taluva.server")

HUMAN_JOBS = "taluva:ai:jobs:human"
BOT_JOBS = "taluva:ai:jobs:bots"
RESULTS = "taluva:ai:results"
WORKERS = "workers"
SERVERS = "servers"
JOB_KEY_SECONDS = 600
"""How long the key naming a turn's job outlives the last time anyone asked for that turn."""
STREAM_LENGTH = 100_000
ASK_UNLESS_LIVE = """
local held = redis.call('GET', KEYS[1])
if held then
    local stream, id = string.match(held, '^(.-)|(.+)$')
    if stream and #redis.call('XRANGE', stream, id, id) > 0 then
        redis.call('EXPIRE', KEYS[1], ARGV[1])
        return false
    end
end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', unpack(ARGV, 3))
redis.call('SET', KEYS[1], KEYS[2] .. '|' .. id, 'EX', ARGV[1])
return id
"""
"""Add a turn's job unless its job or its answer is still in a stream, and name the new
entry in the turn's key; return the entry's id, or nothing if a live one was there."""
ANSWER = """
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', unpack(ARGV, 5))
redis.call('XACK', KEYS[2], ARGV[2], ARGV[3])
redis.call('XDEL', KEYS[2], ARGV[3])
redis.call('SET', KEYS[3], KEYS[1] .. '|' .. id, 'EX', ARGV[4])
return id
"""
"""Add a worker's answer, remove its job, and name the answer in the turn's key: the turn
stays live until a server has played the answer."""
RECLAIM_AFTER = DEFAULT_RECLAIM_AFTER
"""Seconds a job or answer may stay untouched before another taker claims it (the setting's
default)."""
KEEPS = 3
"""How many times a thinking worker claims its job again within ``reclaim_after``: two of
them may be late before the job looks abandoned."""


def asked_key(game_id: str, ply: int, seat: int) -> str:
    """The Redis key naming the live job (or answer) of one AI turn."""
    return f"taluva:ai:asked:{game_id}:{ply}:{seat}"


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
    """A worker's answer: the move text for one game, ply and seat (the ply is the game's
    version: an answer for any other ply is not played)."""

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


def _lost_group(error: Exception) -> bool:
    """Whether Redis refused a call because the consumer group is gone (its data was lost):
    NOGROUP, or UNBLOCKED for a read that was waiting on the stream when it went."""
    from redis.exceptions import ResponseError

    return isinstance(error, ResponseError) and str(error).startswith(("NOGROUP", "UNBLOCKED"))


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
        """Create the streams and groups if they are not there (the first process, or
        Redis lost its data)."""
        for stream in (HUMAN_JOBS, BOT_JOBS):
            await _ensure_group_async(self.client, stream, WORKERS)
        await _ensure_group_async(self.client, RESULTS, SERVERS)

    async def ask(self, job: AiJob, human: bool) -> bool:
        """Add ``job`` unless a live job or answer of its turn is in a stream; whether it was
        added. The check and the addition are one Redis script, so of several processes
        asking at once exactly one adds it, and a job lost with Redis's data is added again."""
        stream = HUMAN_JOBS if human else BOT_JOBS
        fields = [part for pair in job.fields().items() for part in pair]
        key = asked_key(job.game_id, job.ply, job.seat)
        added = await self.client.eval(
            ASK_UNLESS_LIVE, 2, key, stream, JOB_KEY_SECONDS, STREAM_LENGTH, *fields
        )
        return added is not None

    async def take(self, block_ms: int) -> list[tuple[str, AiResult | None]]:
        """Answers to play: first any left unacknowledged for ``reclaim_after`` (by a server
        that died, or by one that could not store them), then new ones (waiting up to
        ``block_ms``). A malformed entry comes as ``(id, None)``."""
        try:
            entries = await self._entries(block_ms)
        except Exception as error:
            if not _lost_group(error):
                raise
            log.warning("the AI answers' group was lost with Redis's data: created again")
            await self.start()
            entries = await self._entries(block_ms)
        taken: list[tuple[str, AiResult | None]] = []
        for entry_id, fields in entries:
            try:
                taken.append((entry_id, AiResult.from_fields(fields)))
            except (KeyError, ValueError):
                log.error("ignored a malformed AI result %s", entry_id)
                taken.append((entry_id, None))
        return taken

    async def _entries(self, block_ms: int) -> list[tuple[str, dict[str, str]]]:
        idle_ms = int(self.reclaim_after * 1000)
        claimed = await self.client.xautoclaim(RESULTS, SERVERS, self.name, idle_ms, "0-0", 16)
        entries = list(claimed[1])
        if not entries:
            answer = await self.client.xreadgroup(
                SERVERS, self.name, {RESULTS: ">"}, count=64, block=block_ms
            )
            for _stream, stream_entries in answer or []:
                entries.extend(stream_entries)
        return entries

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
        self.start()

    def start(self) -> None:
        """Create the streams and groups if they are not there (the first process, or
        Redis lost its data)."""
        for stream in (HUMAN_JOBS, BOT_JOBS):
            _ensure_group(self.client, stream, WORKERS)
        _ensure_group(self.client, RESULTS, SERVERS)

    @property
    def keep_every(self) -> float:
        """Seconds between two claims of the job this worker thinks about."""
        return self.reclaim_after / KEEPS

    def take(self, block_ms: int) -> tuple[str, str, AiJob | None] | None:
        """The next job as ``(stream, entry id, job)``: one a dead worker left, else a new
        one from a human game, else from an AI-only game (waiting up to ``block_ms``)."""
        try:
            return self._take(block_ms)
        except Exception as error:
            if not _lost_group(error):
                raise
            log.warning("the AI jobs' groups were lost with Redis's data: created again")
            self.start()
            return self._take(block_ms)

    def _take(self, block_ms: int) -> tuple[str, str, AiJob | None] | None:
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
        """Add the move to the results and remove the job, in one script."""
        fields = [part for pair in result.fields().items() for part in pair]
        key = asked_key(result.game_id, result.ply, result.seat)
        self.client.eval(
            ANSWER,
            3,
            RESULTS,
            stream,
            key,
            STREAM_LENGTH,
            WORKERS,
            entry_id,
            JOB_KEY_SECONDS,
            *fields,
        )

    def drop(self, stream: str, entry_id: str) -> None:
        """Remove a job that cannot be done."""
        with self.client.pipeline(transaction=True) as pipe:
            pipe.xack(stream, WORKERS, entry_id)
            pipe.xdel(stream, entry_id)
            pipe.execute()

    def close(self) -> None:
        """Disconnect."""
        self.client.close()
