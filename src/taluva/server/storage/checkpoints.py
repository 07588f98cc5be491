"""SQLite's checkpoints, taken out of the path of the moves.

In WAL mode a commit now and then copies the log back into the database file and syncs it
to disk. Done by the commit of a move, that held up every move waiting for the database
meanwhile, which made the server's slowest answers several times its usual ones under load.
The server's store is opened with ``checkpoints_apart`` and this task checkpoints from a
thread of its own, once a second, beside the writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from taluva.server.storage.store import Store

log = logging.getLogger(__name__)

CHECKPOINT_SECONDS = 1.0
"""How often the write-ahead log is copied into the database file."""


class Checkpoints:
    """Checkpoints a SQLite store regularly while started; a last, complete one at stop."""

    def __init__(self, store: Store, every: float = CHECKPOINT_SECONDS) -> None:
        self.store = store
        self.every = every
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="taluva-checkpoint")
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.store.url.startswith("sqlite"):
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        failing = False
        while True:
            await asyncio.sleep(self.every)
            try:
                await loop.run_in_executor(self._thread, self.store.checkpoint)
            except Exception:  # a busy or locked database: the next round tries again
                if not failing:  # said once, not every second
                    log.warning("SQLite checkpoint failed; trying again", exc_info=True)
                failing = True
            else:
                if failing:
                    log.info("SQLite checkpoints work again")
                failing = False

    async def stop(self) -> None:
        """Stop the rounds, then empty the log into the database file."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
            await asyncio.get_running_loop().run_in_executor(
                self._thread, partial(self.store.checkpoint, final=True)
            )
        self._thread.shutdown(wait=True)
