"""The fan-out between server processes: every broadcast of one process reaches the clients
of all the others, through Redis pub/sub.

One process alone needs none of this (``Bus.local()`` delivers nothing elsewhere). With
``taluva serve --redis URL`` each process publishes what it broadcasts on one channel and
hands what the others publish to the service, which brings its copy of the game up to date
before passing the message on to its own clients. Redis keeps the order of one publisher's
messages, so a game's moves arrive in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("taluva.server")

CHANNEL = "taluva:broadcasts"
RECONNECT_SECONDS = (0.1, 0.5, 1.0, 2.0, 5.0)
OUTBOX_LIMIT = 100_000
"""Messages waiting to be published before the oldest are dropped (Redis unreachable)."""

Deliver = Callable[[str, int, dict[str, Any], str], Awaitable[None]]
"""What the service does with a message of another process: ``(game_id, ply, sync, text)``,
``sync`` being what the sender keeps about the game beyond the message (its status, clock)."""
Resync = Callable[[], Awaitable[None]]
"""What the service does after the connection was lost: messages may have been missed."""


def envelope(origin: str, game_id: str, ply: int, sync: dict[str, Any], text: str) -> str:
    """One published message: the sending process, the game, its ply after the change, what
    the sender keeps about the game (JSON on one line), and the JSON text its own clients
    received."""
    return f"{origin}\n{game_id}\n{ply}\n{json.dumps(sync, separators=(',', ':'))}\n{text}"


def open_envelope(data: str) -> tuple[str, str, int, dict[str, Any], str]:
    """The five parts of ``envelope``; ValueError if ``data`` is not one."""
    origin, game_id, ply, sync, text = data.split("\n", 4)
    kept = json.loads(sync)
    if not isinstance(kept, dict):
        raise ValueError("the sync part is not an object")
    return origin, game_id, int(ply), kept, text


class Bus:
    """Publishes this process's broadcasts and delivers the other processes' ones."""

    def __init__(self, url: str | None) -> None:
        self.url = url
        self.origin = secrets.token_hex(6)
        self._outbox: asyncio.Queue[str] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._client: Any = None
        self.connected = asyncio.Event()

    @classmethod
    def local(cls) -> Bus:
        """A bus for a server that runs as one process: publishes nothing."""
        return cls(None)

    @property
    def shared(self) -> bool:
        """Whether other processes may serve the same games."""
        return self.url is not None

    async def start(self, deliver: Deliver, resync: Resync) -> None:
        """Connect, and deliver every message of another process until ``stop``."""
        if self.url is None:
            return
        import redis.asyncio as redis

        self._client = redis.Redis.from_url(self.url, decode_responses=True)
        await self._client.ping()  # a wrong URL fails the start, with Redis's own words
        self._outbox = asyncio.Queue(OUTBOX_LIMIT)
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._publish_loop(), name="taluva-bus-publish"),
            loop.create_task(self._listen_loop(deliver, resync), name="taluva-bus-listen"),
        ]
        await asyncio.wait_for(self.connected.wait(), timeout=10.0)

    def publish(self, game_id: str, ply: int, sync: dict[str, Any], text: str) -> None:
        """Queue a broadcast for the other processes (never waits)."""
        if self._outbox is None:
            return
        data = envelope(self.origin, game_id, ply, sync, text)
        try:
            self._outbox.put_nowait(data)
        except asyncio.QueueFull:
            self._outbox.get_nowait()
            self._outbox.put_nowait(data)
            log.warning("the broadcast queue is full (is Redis down?): oldest dropped")

    async def _publish_loop(self) -> None:
        assert self._outbox is not None
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < 256:
                batch.append(self._outbox.get_nowait())
            for attempt in range(len(RECONNECT_SECONDS) + 1):
                try:
                    async with self._client.pipeline(transaction=False) as pipe:
                        for data in batch:
                            pipe.publish(CHANNEL, data)
                        await pipe.execute()
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as error:
                    if attempt == len(RECONNECT_SECONDS):
                        log.error("cannot publish %d broadcasts: %s", len(batch), error)
                        break
                    await asyncio.sleep(RECONNECT_SECONDS[attempt])

    async def _listen_loop(self, deliver: Deliver, resync: Resync) -> None:
        failures = 0
        while True:
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                if failures:
                    log.warning("reconnected to Redis: bringing every game up to date")
                    await resync()
                failures = 0
                self.connected.set()
                async for message in pubsub.listen():
                    await self._deliver(message, deliver)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                delay = RECONNECT_SECONDS[min(failures, len(RECONNECT_SECONDS) - 1)]
                failures += 1
                log.error("lost Redis (%s); trying again in %.1f s", error, delay)
                await asyncio.sleep(delay)
            finally:
                with contextlib.suppress(Exception):  # a connection already gone
                    await pubsub.aclose()

    async def _deliver(self, message: dict[str, Any], deliver: Deliver) -> None:
        if message.get("type") != "message":
            return
        try:
            origin, game_id, ply, sync, text = open_envelope(message["data"])
        except (ValueError, KeyError, TypeError):
            log.error("ignored a malformed broadcast on %s", CHANNEL)
            return
        if origin == self.origin:
            return
        try:
            await deliver(game_id, ply, sync, text)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("a broadcast of game %s from another process failed", game_id)

    async def reachable(self, timeout: float) -> bool:
        """Whether Redis answers a ping within ``timeout`` seconds (``/readyz``); True for a
        bus that uses none."""
        if self.url is None:
            return True
        if self._client is None:
            return False
        try:
            async with asyncio.timeout(timeout):
                return bool(await self._client.ping())
        except asyncio.CancelledError:
            raise
        except Exception:
            return False

    async def stop(self) -> None:
        """Publish what is queued (briefly), then disconnect."""
        if self._outbox is not None:
            for _ in range(20):
                if self._outbox.empty():
                    break
                await asyncio.sleep(0.05)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self._client is not None:
            await self._client.aclose()
            self._client = None
