"""The fan-out between server processes: every broadcast of one process reaches the other
processes that hold the same game, through Redis pub/sub.

One process alone needs none of this (``Bus.local()`` delivers nothing elsewhere). With
``taluva serve --redis URL`` each process publishes what it broadcasts on its game's own
channel (``channel``), follows the channels of the games it holds (``follow``, ``unfollow``),
and hands what the others publish there to the service, which brings its copy of the game up
to date before passing the message on to its own clients. A process that does not hold a game
receives nothing of it. Redis keeps the order of one publisher's messages, so a game's moves
arrive in order.
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

CHANNEL = "taluva:bus"
"""The channel every process subscribes to from its start: it keeps the connection open while
no game is held (nothing is published on it)."""
GAME_CHANNEL = "taluva:game:"
"""The prefix of each game's channel: ``taluva:game:`` and the game's id."""
POLL_SECONDS = 0.02
"""How long the listener waits for a message before it sends the subscriptions asked for
meanwhile (a message is handled as soon as it comes)."""
RECONNECT_SECONDS = (0.1, 0.5, 1.0, 2.0, 5.0)
OUTBOX_LIMIT = 100_000
"""Messages waiting to be published before the oldest are dropped (Redis unreachable)."""

Deliver = Callable[[str, int, dict[str, Any], str], Awaitable[None]]
"""What the service does with a message of another process: ``(game_id, ply, sync, text)``,
``sync`` being what the sender keeps about the game beyond the message (its status, clock)."""
Resync = Callable[[], Awaitable[None]]
"""What the service does after the connection was lost: messages may have been missed."""


def channel(game_id: str) -> str:
    """The channel of one game's broadcasts."""
    return GAME_CHANNEL + game_id


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
        self._outbox: asyncio.Queue[tuple[str, str]] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._client: Any = None
        self.connected = asyncio.Event()
        self.following: set[str] = set()
        """The games whose channels this process follows (those it holds)."""
        self._subscribed: set[str] = set()
        """The games whose subscription was sent on the current connection."""
        self._confirmed: set[str] = set()
        self._waiting: dict[str, list[asyncio.Future[None]]] = {}
        self._changed = True
        """Whether ``following`` changed since the subscriptions were last sent."""

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

    def follow(self, game_id: str) -> asyncio.Future[None]:
        """Subscribe to a game's broadcasts (sent within ``POLL_SECONDS``); the future is
        done once Redis confirmed it, so that whatever is stored after that is heard."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.url is None:
            future.set_result(None)
            return future
        self.following.add(game_id)  # kept even if an unfollow has not been sent yet
        self._changed = True
        if game_id in self._confirmed:
            future.set_result(None)
        else:
            self._waiting.setdefault(game_id, []).append(future)
        return future

    def unfollow(self, game_id: str) -> None:
        """Stop receiving a game's broadcasts (the process let the game go)."""
        self.following.discard(game_id)
        self._changed = True
        for future in self._waiting.pop(game_id, []):
            if not future.done():
                future.set_result(None)

    def publish(self, game_id: str, ply: int, sync: dict[str, Any], text: str) -> None:
        """Queue a broadcast for the other processes that hold the game (never waits)."""
        if self._outbox is None:
            return
        data = (channel(game_id), envelope(self.origin, game_id, ply, sync, text))
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
                        for name, data in batch:
                            pipe.publish(name, data)
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
            pubsub = self._client.pubsub()
            self._subscribed, self._confirmed = set(), set()
            self._changed = True
            try:
                await pubsub.subscribe(CHANNEL)
                await self._subscribe(pubsub)
                if failures:
                    log.warning("reconnected to Redis: bringing every game up to date")
                    await resync()
                failures = 0
                self.connected.set()
                while True:
                    message = await pubsub.get_message(timeout=POLL_SECONDS)
                    if message is not None:
                        await self._deliver(message, deliver)
                    await self._subscribe(pubsub)
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

    async def _subscribe(self, pubsub: Any) -> None:
        """Send the subscriptions and unsubscriptions asked for since the last time."""
        if not self._changed:
            return
        self._changed = False
        joining = self.following - self._subscribed
        leaving = self._subscribed - self.following
        if joining:
            await pubsub.subscribe(*(channel(game_id) for game_id in sorted(joining)))
            self._subscribed |= joining
        if leaving:
            await pubsub.unsubscribe(*(channel(game_id) for game_id in sorted(leaving)))
            self._subscribed -= leaving
            self._confirmed -= leaving

    def _confirm(self, name: str) -> None:
        """Redis confirmed a subscription: the loads waiting for it may read their game."""
        game_id = name.removeprefix(GAME_CHANNEL)
        if name == game_id or game_id not in self._subscribed:
            return
        self._confirmed.add(game_id)
        for future in self._waiting.pop(game_id, []):
            if not future.done():
                future.set_result(None)

    async def _deliver(self, message: dict[str, Any], deliver: Deliver) -> None:
        if message.get("type") == "subscribe":
            self._confirm(str(message.get("channel")))
            return
        if message.get("type") != "message":
            return
        try:
            origin, game_id, ply, sync, text = open_envelope(message["data"])
        except (ValueError, KeyError, TypeError):
            log.error("ignored a malformed broadcast on %s", message.get("channel"))
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
