"""The server's command: ``taluva serve`` runs the game server with uvicorn (the ``server``
extra: FastAPI, uvicorn, SQLAlchemy, Alembic)."""

from __future__ import annotations

import argparse
import gc
import logging
import socket
import threading
import time
from pathlib import Path
from typing import Any

from taluva.ai.levels import LEVELS, level_range
from taluva.ai.review import LIVE_ITERATIONS
from taluva.cli.common import (
    add_quiet_option,
    add_reclaim_after_option,
    add_redis_option,
    check_environment,
    check_redis_url,
    environment_defaults,
    reach_redis,
    safe_url,
)
from taluva.cli.errors import InputError, UsageError, needs_extra
from taluva.server.config import (
    DEFAULT_AI_ONLY_QUOTA,
    DEFAULT_CLAIM_AFTER,
    DEFAULT_RECLAIM_AFTER,
    DEFAULT_REVIEW_ITERATIONS,
    DEFAULT_REVIEWS_AT_ONCE,
    DEFAULT_STOP_DRAIN,
    DEFAULT_STOP_GRACE,
    SERVICE_STOP_SECONDS,
    SMTP_SECURITY,
    Limits,
    Settings,
    default_ai_workers,
    default_database_url,
)
from taluva.server.limits import parse_networks
from taluva.server.logs import FORMATS as LOG_FORMATS
from taluva.server.logs import configure as configure_logs

log = logging.getLogger(__name__)

DEFAULT_LIMITS = Limits()

EPILOG = f"""\
examples:
  taluva serve                                  http://127.0.0.1:8000/, games in a SQLite file
  taluva serve --port 8080 --database sqlite:///club.sqlite3
  taluva serve --database postgresql+psycopg://taluva:secret@localhost/taluva
  taluva serve --host 0.0.0.0                   let other machines of the club connect
  taluva serve --forwarded-allow-ips 127.0.0.1  behind a reverse proxy on this machine
  taluva serve --ai-workers 4 --ai-only-games   4 AI processes; guests may pit AIs together

The database's schema is created or upgraded at start; unfinished games resume where
they stopped. The API is described at /docs and in docs/server-api.md.

Every option may also come from the environment, as TALUVA_ and its name in capitals
(--database: TALUVA_DATABASE, --claim-after: TALUVA_CLAIM_AFTER), or from a TOML file
given by --config FILE (or TALUVA_CONFIG), its keys the options' names
(database = "postgresql+psycopg://...", ai-workers = 2). The command line wins over the
environment, which wins over the file. Keep passwords there, not in the command line,
which every user of the machine can read; docs/deploy.md lists every setting.

exit codes:
  0    the server stopped normally (Ctrl-C or SIGTERM)
  1    the database cannot be opened, the port cannot be used, or a stop did not
       end in time (--stop-drain + --stop-grace + {SERVICE_STOP_SECONDS:g} s) and was cut short
  2    the command line is wrong"""


def register(subparsers: Any) -> None:
    """Add the ``serve`` subcommand."""
    _add_serve(subparsers)


def _add_serve(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the game server: lobby, online play, AI seats, replays",
        description="Serve the browser client and the HTTP/WebSocket API. Players open the "
        "printed address, create a game in the lobby (seats for people or AI levels "
        f"{level_range()}), and send the join link to the others.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_address_options(parser)
    _add_ai_options(parser)
    _add_limit_options(parser)
    add_redis_option(
        parser,
        "run as one of several server processes sharing this Redis (redis://HOST:PORT/DB) "
        "and one PostgreSQL --database; AI seats are then played by 'taluva ai-worker' "
        "(docs/deploy.md)",
    )
    add_reclaim_after_option(
        parser,
        "with --redis: seconds after which an AI answer taken by a server process that "
        f"died (or could not store it) is taken again (default {DEFAULT_RECLAIM_AFTER:g})",
        DEFAULT_RECLAIM_AFTER,
    )
    parser.add_argument(
        "--abandon-after",
        type=float,
        default=14.0,
        metavar="DAYS",
        help="days without a move after which an open or live game ends as abandoned, not "
        "rated (default 14; checked at start and every few minutes)",
    )
    parser.add_argument(
        "--claim-after",
        type=float,
        default=DEFAULT_CLAIM_AFTER,
        metavar="SECONDS",
        help="seconds a player may be gone (no browser connected) on their turn, in a game "
        "with a real-time clock or none, before the others may claim the win "
        f"(default {DEFAULT_CLAIM_AFTER:g})",
    )
    parser.add_argument(
        "--stop-drain",
        type=float,
        default=DEFAULT_STOP_DRAIN,
        metavar="SECONDS",
        help="on SIGTERM or Ctrl-C: seconds /readyz fails (and new WebSockets are turned "
        "away) before the server stops listening, for a balancer to notice "
        f"(default {DEFAULT_STOP_DRAIN:g})",
    )
    parser.add_argument(
        "--stop-grace",
        type=float,
        default=DEFAULT_STOP_GRACE,
        metavar="SECONDS",
        help="then seconds the requests and moves under way get to finish before the "
        f"connections left are closed (default {DEFAULT_STOP_GRACE:g}); the process ends "
        f"at the latest {SERVICE_STOP_SECONDS:g} s after that",
    )
    _add_mail_options(parser)
    add_quiet_option(parser)
    parser.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default=LOG_FORMATS[0],
        help="log lines as text, or as one JSON object a line with the game and request "
        "ids, uvicorn's access lines included (default text)",
    )
    parser.set_defaults(func=_cmd_serve)
    environment_defaults(parser, secrets=[("smtp-password", SMTP_PASSWORD_HELP)])


SMTP_PASSWORD_HELP = (
    "the password of --smtp-user at the SMTP server; no option, so that it is never in argv"
)


def _add_mail_options(parser: argparse.ArgumentParser) -> None:
    """Where the server's mail goes (docs/deploy.md, "Mail"); its password only ever comes
    from the environment (``TALUVA_SMTP_PASSWORD``), never from argv."""
    mail = parser.add_argument_group(
        "mail",
        "e-mail addresses, password resets and 'your move' mails; the SMTP password "
        "is read from the environment variable TALUVA_SMTP_PASSWORD only",
    )
    mail.add_argument("--smtp-host", metavar="HOST", help="the SMTP server (default: no mail)")
    mail.add_argument(
        "--smtp-port", type=int, default=587, metavar="PORT", help="its port (default 587)"
    )
    mail.add_argument(
        "--smtp-security",
        choices=SMTP_SECURITY,
        default=SMTP_SECURITY[0],
        help="how the connection is secured (default starttls)",
    )
    mail.add_argument("--smtp-user", metavar="NAME", help="the account at the SMTP server")
    mail.add_argument(
        "--mail-from",
        metavar="ADDRESS",
        help="the sender of every mail, e.g. 'Taluva <taluva@example.org>'",
    )
    mail.add_argument(
        "--public-url",
        metavar="URL",
        help="the site's address as players reach it, for the links in mails",
    )


def _add_address_options(parser: argparse.ArgumentParser) -> None:
    """Where the server listens and where it keeps the games."""
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--database",
        metavar="URL",
        default=None,
        help="SQLAlchemy URL: sqlite:///FILE or postgresql+psycopg://USER:PASS@HOST/DB "
        "(default: games.sqlite3 in the folder taluva of $XDG_DATA_HOME, or of "
        "~/.local/share)",
    )


def _add_ai_options(parser: argparse.ArgumentParser) -> None:
    """The AI seats, hints, reviews and win chances, and the processes that compute them."""
    parser.add_argument(
        "--ai-workers",
        type=int,
        default=default_ai_workers(),
        metavar="N",
        help="processes that play AI seats and compute hints, taken in turn by the games "
        "waiting for one, people's games first; games with only AI seats get all but one, "
        "at low CPU priority (0: threads; default: one per core this process may use)",
    )
    parser.add_argument(
        "--ai-only-games",
        action="store_true",
        help="let guests (not signed in) create games with only AI seats (default: only "
        "signed-in players, up to --ai-only-quota each)",
    )
    parser.add_argument(
        "--ai-only-quota",
        type=int,
        default=DEFAULT_AI_ONLY_QUOTA,
        metavar="N",
        help="unfinished games with only AI seats one signed-in account may have at once "
        f"(0: none; default {DEFAULT_AI_ONLY_QUOTA})",
    )
    parser.add_argument(
        "--hint-level",
        type=int,
        default=3,
        choices=list(LEVELS),
        metavar="L",
        help=f"AI level of the hint button, {level_range()} (default 3)",
    )
    parser.add_argument(
        "--review-iterations",
        type=int,
        default=DEFAULT_REVIEW_ITERATIONS,
        metavar="N",
        help="search iterations per position of a game review asked for in the browser "
        f"(default {DEFAULT_REVIEW_ITERATIONS}: about a minute of one core for 50 moves)",
    )
    parser.add_argument(
        "--reviews-at-once",
        type=int,
        default=DEFAULT_REVIEWS_AT_ONCE,
        metavar="N",
        help="game reviews queued or running at once; a request for one more is refused "
        f"until one ends (default {DEFAULT_REVIEWS_AT_ONCE})",
    )
    parser.add_argument(
        "--win-chance-iterations",
        type=int,
        default=LIVE_ITERATIONS,
        metavar="N",
        help="search iterations behind the win-chance bar of unrated games (default "
        f"{LIVE_ITERATIONS}: a few tenths of a second a position)",
    )


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """What one connection or client address may ask of the server."""
    parser.add_argument(
        "--ws-rate",
        type=float,
        default=DEFAULT_LIMITS.ws_rate,
        metavar="R",
        help=f"messages per second one connection may send (default {DEFAULT_LIMITS.ws_rate:g})",
    )
    parser.add_argument(
        "--http-rate",
        type=float,
        default=DEFAULT_LIMITS.http_rate,
        metavar="R",
        help="game creations, joins and moves per second per client address "
        f"(default {DEFAULT_LIMITS.http_rate:g})",
    )
    parser.add_argument(
        "--ws-per-address",
        type=int,
        default=DEFAULT_LIMITS.ws_per_address,
        metavar="N",
        help="WebSockets one client address may hold open at once "
        f"(default {DEFAULT_LIMITS.ws_per_address})",
    )
    parser.add_argument(
        "--games-per-minute",
        type=float,
        default=DEFAULT_LIMITS.games_per_minute,
        metavar="N",
        help="games one client address may create per minute, in bursts of N "
        f"(default {DEFAULT_LIMITS.games_per_minute:g})",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        default="",
        metavar="LIST",
        help="comma-separated addresses or networks of reverse proxies whose "
        "X-Forwarded-For header names the client (default: none, every limit counts the "
        "address that connects)",
    )


def _cmd_serve(args: argparse.Namespace) -> int:
    """Start uvicorn with the app; return when it stops."""
    with needs_extra("server", "the game server needs FastAPI, uvicorn and SQLAlchemy"):
        import uvicorn

        from taluva.cli.serving import GracefulServer
        from taluva.server.http.app import create_app

    check_environment(args)
    _check_serve_numbers(args)
    proxies = _trusted_proxies(args.forwarded_allow_ips)
    database = _database_url(args.database)
    if args.redis is not None:
        check_redis_url(args.redis)
        if not database.startswith("postgresql"):
            raise UsageError(
                "--redis: several server processes share one PostgreSQL database; "
                "give --database postgresql+psycopg://..."
            )
    _check_port(args.host, args.port)
    _check_database(database)
    if args.redis is not None:
        reach_redis(args.redis)
    settings = _settings(args, database, proxies)
    level = logging.WARNING if args.quiet else logging.INFO
    configure_logs(args.log_format, level)
    json_logs = args.log_format == "json"
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"Taluva server: open http://{shown_host}:{args.port}/ in your browser", flush=True)
    print(f"games are stored in {safe_url(database)}", flush=True)
    app = create_app(settings)
    tune_garbage_collector()
    freeze_survivors(threading.Event())
    try:
        config = uvicorn.Config(
            app,
            host=args.host,
            port=args.port,
            log_level="warning" if args.quiet else "info",
            # JSON: uvicorn's lines go through the root logger's JSON lines, one per request
            **({"log_config": None, "access_log": True} if json_logs else {"access_log": False}),
            # The app reads X-Forwarded-For itself, and only from --forwarded-allow-ips;
            # uvicorn's own reading would trust any local peer.
            proxy_headers=False,
            ws_max_size=64 * 1024,
            # Compressing every state costs more CPU than the bytes it saves on a club's network.
            ws_per_message_deflate=False,
            ws_ping_interval=20.0,
            ws_ping_timeout=20.0,
            timeout_graceful_shutdown=args.stop_grace,
        )
        server = GracefulServer(config, app.state.site, args.stop_drain, args.stop_grace)
        server.run()
    except OSError as error:
        raise InputError(f"cannot serve on {args.host}:{args.port}: {error}") from None
    if not server.started:
        raise InputError(f"cannot serve on {args.host}:{args.port} (see the lines above)")
    return 0


def _check_serve_numbers(args: argparse.Namespace) -> None:
    """Refuse (UsageError) a port, count, rate or time of ``serve`` out of its range."""
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a port number (1-65535)")
    if args.ai_workers < 0:
        raise UsageError("--ai-workers must be 0 or more")
    if args.ai_only_quota < 0:
        raise UsageError("--ai-only-quota must be 0 or more")
    if args.review_iterations < 1:
        raise UsageError("--review-iterations must be 1 or more")
    if args.reviews_at_once < 1:
        raise UsageError("--reviews-at-once must be 1 or more")
    if args.win_chance_iterations < 1:
        raise UsageError("--win-chance-iterations must be 1 or more")
    if args.ws_rate <= 0 or args.http_rate <= 0 or args.games_per_minute <= 0:
        raise UsageError("rates must be positive")
    if args.abandon_after <= 0:
        raise UsageError("--abandon-after must be a positive number of days")
    if args.claim_after <= 0:
        raise UsageError("--claim-after must be a positive number of seconds")
    if args.ws_per_address < 1:
        raise UsageError("--ws-per-address must be 1 or more")
    if args.reclaim_after <= 0:
        raise UsageError("--reclaim-after must be positive")
    if args.stop_drain < 0 or args.stop_grace < 0:
        raise UsageError("--stop-drain and --stop-grace must be 0 or more seconds")


def _trusted_proxies(text: str) -> tuple[str, ...]:
    """``--forwarded-allow-ips`` as a tuple of addresses and networks (UsageError if bad)."""
    proxies = tuple(part.strip() for part in text.split(",") if part.strip())
    try:
        parse_networks(proxies)
    except ValueError as error:
        raise UsageError(f"--forwarded-allow-ips: {error}") from None
    return proxies


def _database_url(given: str | None) -> str:
    """``--database``, or the default SQLite file, whose folder is made if need be."""
    database = given or default_database_url()
    if database.startswith("sqlite:///"):
        path = Path(database.removeprefix("sqlite:///"))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"{path.parent}: cannot create ({error.strerror})") from None
    elif not database.startswith(("sqlite", "postgresql")):
        raise UsageError(
            f"--database {safe_url(database)!r}: expected sqlite:///FILE or postgresql+psycopg://"
        )
    return database


def _settings(args: argparse.Namespace, database: str, proxies: tuple[str, ...]) -> Settings:
    """The server's settings from ``serve``'s checked options."""
    limits = Limits(
        ws_rate=args.ws_rate,
        ws_burst=max(DEFAULT_LIMITS.ws_burst, int(args.ws_rate * 3)),
        http_rate=args.http_rate,
        http_burst=max(DEFAULT_LIMITS.http_burst, int(args.http_rate * 6)),
        ws_per_address=args.ws_per_address,
        games_per_minute=args.games_per_minute,
    )
    return Settings(
        database=database,
        ai_workers=args.ai_workers,
        ai_only_games=args.ai_only_games,
        ai_only_quota=args.ai_only_quota,
        hint_level=args.hint_level,
        review_iterations=args.review_iterations,
        reviews_at_once=args.reviews_at_once,
        win_chance_iterations=args.win_chance_iterations,
        abandon_after=args.abandon_after * 86400,
        claim_after=args.claim_after,
        limits=limits,
        forwarded_allow_ips=proxies,
        redis=args.redis,
        reclaim_after=args.reclaim_after,
        smtp_host=args.smtp_host,
        smtp_port=args.smtp_port,
        smtp_security=args.smtp_security,
        smtp_user=args.smtp_user,
        smtp_password=args.smtp_password,
        mail_from=args.mail_from,
        public_url=args.public_url,
    )


def tune_garbage_collector() -> None:
    """Collect cyclic garbage less often in the server process. With Python's defaults, the
    collector ran every 700 new containers, each state sent allocating hundreds, and every
    so often walked the whole heap (every game's position and view): a quarter of the
    server's CPU and pauses that every move waiting at the time shared
    (docs/server-performance.md). What was loaded at start (code, resumed games) is frozen
    out of the collector's walks for good."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


GC_THRESHOLDS = (20_000, 20, 20)
"""Containers between collections of the youngest generation, then collections of one
generation between collections of the next (Python's defaults: 700, 10, 10)."""

FREEZE_SECONDS = 1.0
"""How often the server moves what the collector tracks out of its walks."""
THAW_SECONDS = 120.0
"""How often the server puts it all back and collects everything once."""


def freeze_survivors(
    stop: threading.Event, every: float = FREEZE_SECONDS, thaw_every: float = THAW_SECONDS
) -> threading.Thread:
    """Freeze what the collector tracks every ``every`` seconds, until ``stop`` is set.

    A live game keeps a position per move until it ends, each with sets of hundreds of
    placements; the collector walked them at every collection of their generation, pauses
    of 20 ms and more that every waiting move shared (docs/server-performance.md). Frozen,
    they are walked no more, and still freed as soon as nothing refers to them. Garbage in
    cycles frozen meanwhile is reclaimed by a full collection every ``thaw_every`` seconds.
    """

    def run() -> None:
        thawed = time.monotonic()
        while not stop.wait(every):
            if time.monotonic() - thawed >= thaw_every:
                started = time.perf_counter()
                gc.unfreeze()
                found = gc.collect()
                log.debug(
                    "collected %d objects in %.0f ms",
                    found,
                    (time.perf_counter() - started) * 1000,
                )
                thawed = time.monotonic()
            gc.freeze()

    thread = threading.Thread(target=run, name="gc-freezer", daemon=True)
    thread.start()
    return thread


def _check_port(host: str, port: int) -> None:
    """Fail with one clear line when the address cannot be listened on (in use, unknown)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise InputError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise InputError(f"cannot listen on {host}:{port}: {error.strerror}") from None


def _check_database(url: str) -> None:
    """Open the database and apply the migrations now, so a bad URL is one clear line."""
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from taluva.server.storage.store import Store

    try:
        store = Store(url, game_end=None)
    except (ArgumentError, ImportError, ValueError) as error:
        raise UsageError(f"--database {safe_url(url)}: {safe_url(str(error))}") from None
    try:
        store.migrate()
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise InputError(f"cannot open the database {safe_url(url)}: {safe_url(reason)}") from None
    finally:
        store.close()
