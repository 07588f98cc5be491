"""How ``taluva serve`` stops: on SIGTERM or Ctrl-C readiness fails at once and new
WebSockets are turned away; after the drain, uvicorn stops listening, lets the requests and
moves under way finish for the grace, closes the remaining WebSockets with 1012 (clients
reconnect, to another process behind a balancer) and stops the game service. A watchdog
ends the process if all that has not ended in time, so a stop never hangs."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from types import FrameType

import uvicorn

from taluva.server.config import SERVICE_STOP_SECONDS
from taluva.server.http.site import Site

log = logging.getLogger("taluva.server")

EXIT_STUCK = 1
"""The exit status of a process the watchdog ended."""


class GracefulServer(uvicorn.Server):
    """uvicorn's server, stopping in the order above within ``drain + grace +
    service_stop`` seconds of the first signal (``exit_now`` ends the process otherwise)."""

    def __init__(
        self,
        config: uvicorn.Config,
        site: Site,
        drain: float,
        grace: float,
        exit_now: Callable[[int], None] = os._exit,
        service_stop: float = SERVICE_STOP_SECONDS,
    ) -> None:
        super().__init__(config)
        self.site = site
        self.drain = drain
        self.grace = grace
        self.exit_now = exit_now
        self.service_stop = service_stop
        self._loop: asyncio.AbstractEventLoop | None = None
        self._signalled = False

    @property
    def deadline(self) -> float:
        """Seconds from the first signal within which the process ends, whatever happens."""
        return self.drain + self.grace + self.service_stop

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """The signal handler: only flags and a wake-up here (the loop does the rest), since a
        handler may run in the middle of anything, logging included."""
        if self._signalled or self._loop is None:
            if sig == signal.SIGINT:  # a second Ctrl-C: stop waiting for anything
                self.force_exit = True
            self.should_exit = True
            return
        self._signalled = True
        self.site.stopping = True
        self._loop.call_soon_threadsafe(self._begin, sig)

    def _begin(self, sig: int) -> None:
        log.warning(
            "stopping (%s): not ready from now; closing in %g s, then %g s for what is under way",
            signal.Signals(sig).name,
            self.drain,
            self.grace,
        )
        threading.Thread(target=self._watch, name="taluva-stop-watchdog", daemon=True).start()
        assert self._loop is not None
        self._loop.call_later(self.drain, self._close)

    def _close(self) -> None:
        self.should_exit = True

    def _watch(self) -> None:
        """End the process at the deadline (a daemon thread: a process that stopped in time
        has ended before)."""
        time.sleep(self.deadline)
        log.error("the server did not stop within %g s of the signal: ending it now", self.deadline)
        logging.shutdown()
        self.exit_now(EXIT_STUCK)
