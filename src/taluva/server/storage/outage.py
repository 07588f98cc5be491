"""Whether the database can be reached, as the engine finds out: a failed connect or a
dropped connection starts an outage, the next connection made or statement run ends it.
Each is logged once (not once per request), and a request that met the outage is answered
503 with ``Retry-After`` instead of a traceback (``taluva.server.http.errors``)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import IntegrityError

log = logging.getLogger("taluva.server")

RETRY_AFTER = 5.0
"""Seconds a client is told to wait before trying again while the database is down."""
MARK = "taluva_unreachable"
"""Attribute set on an exception raised because the database could not be reached."""


class Outage:
    """The database's reachability, kept by the events of one engine."""

    def __init__(self, engine: Engine) -> None:
        self.since: float | None = None
        """``time.monotonic()`` when the current outage began; None while reachable."""
        self.report = False
        """Whether outages are logged: only by a serving process (``GameService.start``), not
        by a one-off store whose caller reports the failure itself."""
        self.failed: Callable[[bool], None] | None = None
        """Told of each failed statement or connection, and whether it failed for want of
        the database (the metrics); a refused duplicate (an integrity error) is not a failure."""
        self._lock = threading.Lock()
        event.listen(engine, "handle_error", self._failed)
        event.listen(engine, "connect", self._reached)
        event.listen(engine, "after_cursor_execute", self._ran)

    @property
    def down(self) -> bool:
        """Whether the database could not be reached the last time it was tried."""
        return self.since is not None

    def _failed(self, context: ExceptionContext) -> None:
        # No connection: connecting failed. is_disconnect: an open connection was dropped.
        down = context.is_disconnect or context.connection is None
        if self.failed is not None and not isinstance(context.sqlalchemy_exception, IntegrityError):
            self.failed(down)
        if not down:
            return
        error = context.sqlalchemy_exception
        if error is not None:
            setattr(error, MARK, True)
        with self._lock:
            if self.since is not None:
                return
            self.since = time.monotonic()
        if not self.report:
            return
        reason = str(context.original_exception).strip().splitlines()
        log.error(
            "the database cannot be reached (%s): answering 503 until it is back",
            reason[0] if reason else type(context.original_exception).__name__,
        )

    def _reached(self, *_args: Any) -> None:
        if self.since is None:
            return
        with self._lock:
            if self.since is None:
                return
            lasted = time.monotonic() - self.since
            self.since = None
        if self.report:
            log.warning("the database is reachable again, after %.0f s", lasted)

    def _ran(self, *_args: Any) -> None:
        if self.since is not None:
            self._reached()


def unreachable(error: BaseException) -> bool:
    """Whether ``error`` was raised because the database could not be reached."""
    return bool(getattr(error, MARK, False))
