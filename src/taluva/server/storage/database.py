"""The store seen from the event loop: its calls run on database threads, moves in group commits.

SQLite takes one writer at a time, so it gets one thread; PostgreSQL gets four. Moves are
the busiest writes, so those submitted while a write is under way are stored together.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from taluva.server.storage.store import NewMove, Store

T = TypeVar("T")


class Database:
    """Runs a ``Store``'s blocking calls off the event loop and batches the moves' writes."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pool = ThreadPoolExecutor(
            max_workers=1 if store.url.startswith("sqlite") else 4,
            thread_name_prefix="taluva-db",
        )
        self._unwritten: list[tuple[NewMove, asyncio.Future[None]]] = []
        self._writing: asyncio.Task[None] | None = None

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """Run a storage call in a database thread and wait for it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, function, *args)

    async def store_move(self, move: NewMove) -> None:
        """Store one move; return once it is committed (PlyTaken if its ply was taken).

        Group commit: the moves submitted while a write is under way wait for it to end and
        are then stored together, in one transaction, so a busy server commits once per batch
        rather than once per move, and no move waits for more than the write before its own.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._unwritten.append((move, future))
        if self._writing is None:
            self._writing = asyncio.get_running_loop().create_task(self._write_moves())
        await future

    async def _write_moves(self) -> None:
        try:
            while self._unwritten:
                batch, self._unwritten = self._unwritten, []
                try:
                    outcomes = await self.run(self.store.append_moves, [move for move, _ in batch])
                except Exception as error:
                    for _move, future in batch:
                        if not future.done():
                            future.set_exception(error)
                    continue
                for (_move, future), outcome in zip(batch, outcomes, strict=True):
                    if future.done():
                        continue
                    if outcome is None:
                        future.set_result(None)
                    else:
                        future.set_exception(outcome)
        finally:
            self._writing = None
            for _move, future in self._unwritten:
                if not future.done():
                    future.set_exception(RuntimeError("the server is stopping"))
            self._unwritten = []

    def close(self) -> None:
        """Wait for the calls under way, then stop the threads (the store stays open)."""
        self._pool.shutdown(wait=True)
