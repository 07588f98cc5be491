"""The server's Prometheus metrics, on a registry of their own per game service (not the
library's global one), so several applications in one process (the tests) count apart.

``GET /metrics`` (``taluva.server.http.scrape``) writes them out; docs/server-api.md, *Metrics*,
describes each one. What is counted on the move's path is one counter and one histogram
step; the games in memory and the AI queue are read only when scraped.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

STARTED = time.time()
"""When this process imported the server: a restart shows as a new value."""

CONTENT_TYPE = CONTENT_TYPE_LATEST
"""The media type of the text exposition format."""

SEAT_KINDS = {"human": "person", "ai": "ai"}
"""The ``seat`` label of ``taluva_moves_total`` for each kind of seat."""

MOVE_SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Buckets of a move's time from its arrival to its broadcast (storing it is most of it)."""
AI_WAIT_SECONDS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
"""Buckets of an AI job's wait for a worker (a person's job waits for AI-only ones rarely,
a review may wait minutes)."""

DATABASE_ERRORS = ("unreachable", "other")
"""The ``kind`` label of ``taluva_database_errors_total``."""


class Metrics:
    """The metrics of one game service; the parts that count hold this object."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        moves = Counter(
            "taluva_moves",
            "Moves accepted (stored and broadcast), by the kind of seat that played them",
            ["seat"],
            registry=self.registry,
        )
        self.moves = {kind: moves.labels(seat=label) for kind, label in SEAT_KINDS.items()}
        """The counter of each kind of seat (``human``, ``ai``), made once."""
        self.move_seconds = Histogram(
            "taluva_move_broadcast_seconds",
            "Seconds from a move's arrival at the move pipeline to its broadcast being queued",
            buckets=MOVE_SECONDS,
            registry=self.registry,
        )
        self.sockets = Gauge(
            "taluva_sockets_open", "WebSockets open to games", registry=self.registry
        )
        self.live_games = Gauge(
            "taluva_live_games",
            "Games being played (status live) held by this process",
            registry=self.registry,
        )
        self.ai_queue = Gauge(
            "taluva_ai_queue_length",
            "AI jobs (turns, hints, win chances, reviews) waiting for a worker of this process",
            registry=self.registry,
        )
        self.ai_wait = Histogram(
            "taluva_ai_wait_seconds",
            "Seconds an AI job waited before a worker of this process took it",
            buckets=AI_WAIT_SECONDS,
            registry=self.registry,
        )
        errors = Counter(
            "taluva_database_errors",
            "Database statements or connections that failed: unreachable, or another error "
            "(not a refused duplicate such as a second move for one ply)",
            ["kind"],
            registry=self.registry,
        )
        self.database_errors = {kind: errors.labels(kind=kind) for kind in DATABASE_ERRORS}
        started = Gauge(
            "taluva_process_start_time_seconds",
            "When this server process started, in seconds since the Unix epoch",
            registry=self.registry,
        )
        started.set(STARTED)
        self.live_games.set_function(lambda: 0)
        self.ai_queue.set_function(lambda: 0)

    def count_live_games(self, count: Callable[[], int]) -> None:
        """Read the games being played with ``count`` at each scrape."""
        self.live_games.set_function(count)

    def count_ai_queue(self, count: Callable[[], int]) -> None:
        """Read the AI jobs waiting with ``count`` at each scrape."""
        self.ai_queue.set_function(count)

    def move(self, seat_kind: str, arrived: float) -> None:
        """One move of a ``seat_kind`` seat accepted, broadcast now; it arrived at
        ``time.perf_counter()`` ``arrived``."""
        self.move_seconds.observe(time.perf_counter() - arrived)
        self.moves[seat_kind].inc()

    def database_error(self, unreachable: bool) -> None:
        """One database statement or connection failed (``unreachable``: for want of the
        database)."""
        self.database_errors["unreachable" if unreachable else "other"].inc()

    def exposition(self) -> bytes:
        """Every metric in the text exposition format."""
        return generate_latest(self.registry)
