"""Server settings: where games are stored, how AI seats run, and the per-client limits."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from taluva.ai.review import LIVE_ITERATIONS


def default_database_url() -> str:
    """A SQLite file in the user's data folder (``$XDG_DATA_HOME/taluva/games.sqlite3``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(base) / 'taluva' / 'games.sqlite3'}"


DEFAULT_AI_ONLY_QUOTA = 2
"""Unfinished games with only AI seats one signed-in account may have at once, by default."""


DEFAULT_CLAIM_AFTER = 60.0
"""Seconds a person may be gone on their turn before the others may claim the win."""
DEFAULT_RECLAIM_AFTER = 3.0
"""Seconds an AI job (or answer) may stay untouched before another taker claims it: a worker
killed mid-thought loses its turn to another within this, while a live one claims its job
again several times as often (``taluva.server.ai.queue``)."""


DEFAULT_REVIEW_ITERATIONS = 600
DEFAULT_REVIEWS_AT_ONCE = 4
"""Search iterations per position of a game review: about a minute of one core for a game of
50 moves (measured in docs/ai.md, "Game review")."""


DEFAULT_STOP_DRAIN = 0.0
"""Seconds a stopping server stays listening while ``/readyz`` fails (``taluva serve``)."""
DEFAULT_STOP_GRACE = 10.0
"""Seconds the requests and moves under way get to finish once a stopping server stopped
listening."""
SERVICE_STOP_SECONDS = 10.0
"""Seconds the game service gets to stop (AI workers, Redis, database) after the grace; a
server still running then is ended (``taluva.cli.serving``)."""


SMTP_SECURITY = ("starttls", "tls", "none")
"""How the connection to the mail server may be secured: STARTTLS (port 587), TLS from the
start (465), or nothing (a relay on the same host)."""


def default_ai_workers() -> int:
    """One AI worker per core this process may use: AI-only games take all but one of them
    (``taluva.server.ai.scheduling``), so people's games always find one free."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores)


@dataclass(frozen=True, slots=True)
class Limits:
    """What one client may send: sizes in bytes, rates in messages per second with a burst."""

    ws_message_bytes: int = 4096
    ws_rate: float = 20.0
    ws_burst: int = 60
    http_body_bytes: int = 16384
    http_rate: float = 10.0
    http_burst: int = 60
    name_chars: int = 32
    game_name_chars: int = 60
    send_queue: int = 256
    """Messages waiting for a slow client before the server drops its connection."""
    json_depth: int = 16
    """How deeply arrays and objects may nest in one JSON body or message."""
    ws_per_address: int = 32
    """WebSockets one client address may hold open at once."""
    games_per_minute: float = 20.0
    """Games one client address may create per minute, in bursts of as many."""
    chat_chars: int = 500
    """Characters (as people count them) in one chat message."""
    chat_rate: float = 0.5
    """Chat messages per second one seat may send on average, after a burst of ``chat_burst``."""
    chat_burst: int = 5
    open_seeks: int = 3
    """Seeks one account may have waiting in the lobby at once (``games.seeks``)."""
    open_challenges: int = 5
    """Challenges one account may have sent and not yet had answered (``games.challenges``)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything ``create_app`` needs; the defaults are those of ``taluva serve``."""

    database: str = field(default_factory=default_database_url)
    ai_workers: int = field(default_factory=default_ai_workers)
    """Processes that play AI seats and compute hints; 0 plays them in threads instead."""
    ai_only_games: bool = False
    """Whether guests (not signed in) may create games whose every seat is an AI."""
    ai_only_quota: int = DEFAULT_AI_ONLY_QUOTA
    """Unfinished games with only AI seats one signed-in account may have at once."""
    hint_level: int = 3
    win_chance_iterations: int = LIVE_ITERATIONS
    """Search iterations of a win-chance bar's answer (``taluva.server.games.chances``)."""
    review_iterations: int = DEFAULT_REVIEW_ITERATIONS
    """Search iterations per position of a game review (``taluva.server.games.reviews``)."""
    reviews_at_once: int = DEFAULT_REVIEWS_AT_ONCE
    """Reviews queued or running at once in this process; more are refused until one ends."""
    limits: Limits = field(default_factory=Limits)
    finished_cache: int = 64
    """Finished games kept in memory after their last viewer leaves."""
    abandon_after: float = 14 * 86400.0
    """Seconds without a move after which an open or live game is abandoned (unrated)."""
    idle_after: float = 86400.0
    """Seconds without a move after which the lobby lists a live game apart, as waiting for a
    move, instead of among the games being played now."""
    claim_after: float = DEFAULT_CLAIM_AFTER
    """Seconds a person's seat may be gone (no client connected) on their turn, in a game with
    a real-time clock or none, before the others may claim the win against them
    (``taluva.server.games.lifecycle``, ``Lifecycle.claim``)."""
    redis: str | None = None
    """Redis URL shared by several server processes (with one PostgreSQL): broadcasts reach
    the clients of every process, and AI turns go to ``taluva ai-worker``; None: one process."""
    reclaim_after: float = DEFAULT_RECLAIM_AFTER
    """With ``redis``: seconds after which an AI answer taken by a process that stopped
    answering (or could not store it) is taken again, by it or another process."""
    forwarded_allow_ips: tuple[str, ...] = ()
    """Proxies (addresses or networks) whose ``X-Forwarded-For`` names the client; by
    default none: every limit counts the address of the connection itself."""
    smtp_host: str | None = None
    """The mail server that sends e-mail (``taluva.server.mail``); None: this server sends no
    mail, and e-mail addresses and password resets are refused with ``mail-off``."""
    smtp_port: int = 587
    smtp_security: str = "starttls"
    """How the connection to ``smtp_host`` is secured: one of ``SMTP_SECURITY``."""
    smtp_user: str | None = None
    smtp_password: str | None = field(default=None, repr=False)
    """Never shown: kept out of this object's repr, so out of every log line that prints it."""
    smtp_timeout: float = 30.0
    """Seconds one mail may take to hand over before the try counts as failed."""
    mail_from: str | None = None
    """The sender address of every mail, e.g. ``Taluva <taluva@example.org>``; needed with
    ``smtp_host``."""
    mail_retry_after: float = 60.0
    """Seconds before a mail that failed is tried again, doubled at each failure."""
    public_url: str | None = None
    """The site's address as players reach it (``https://taluva.example.org``), for the links
    in mails; None: the address the request that queued the mail came to."""
