"""The command of a server that spans several processes or hosts: ``taluva ai-worker``
plays AI turns for every ``taluva serve --redis URL`` process (the ``server`` extra)."""

from __future__ import annotations

import argparse
import logging
import os
from typing import Any

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
from taluva.cli.errors import UsageError, needs_extra
from taluva.server.config import DEFAULT_RECLAIM_AFTER

EPILOG = """\
examples:
  taluva ai-worker --redis redis://localhost:6379/0
  taluva ai-worker --redis redis://db.club.example:6379/0 --processes 8

Start the servers with the same --redis URL (and one PostgreSQL --database). Workers may
run on any host that reaches Redis; they need no database. A job whose worker dies is taken
over by another worker after --reclaim-after seconds; a move is never played twice.
docs/deploy.md shows a whole setup.

exit codes:
  0    the workers stopped normally (Ctrl-C or SIGTERM)
  1    Redis cannot be reached
  2    the command line is wrong"""


def register(subparsers: Any) -> None:
    """Add the ``ai-worker`` subcommand."""
    _add_ai_worker(subparsers)


def _add_ai_worker(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ai-worker",
        help="play the AI turns of servers started with --redis (on this host or another)",
        description="Take AI turns from the servers' Redis job queue, games with a human "
        "player first, and answer them. Run as many as the AI load needs, on any host.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_redis_option(
        parser, "the Redis the servers use, e.g. redis://localhost:6379/0", required=True
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=max(1, os.cpu_count() or 1),
        metavar="N",
        help="worker processes, each thinking about one turn at a time (default: cores)",
    )
    add_reclaim_after_option(
        parser,
        f"seconds after which a silent worker's job goes to another "
        f"(default {DEFAULT_RECLAIM_AFTER:g})",
        DEFAULT_RECLAIM_AFTER,
    )
    add_quiet_option(parser)
    parser.set_defaults(func=_cmd_ai_worker)
    environment_defaults(parser)


def _cmd_ai_worker(args: argparse.Namespace) -> int:
    """Check Redis, then run the workers until stopped."""
    with needs_extra("server", "the AI worker needs the Redis client"):
        from taluva.server.ai.worker import run_workers

    check_environment(args)
    if args.processes < 1:
        raise UsageError("--processes must be 1 or more")
    if args.reclaim_after <= 0:
        raise UsageError("--reclaim-after must be positive")
    check_redis_url(args.redis)
    reach_redis(args.redis)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    print(f"AI workers: {args.processes} taking jobs from {safe_url(args.redis)}", flush=True)
    return run_workers(args.redis, args.processes, args.reclaim_after, args.quiet)
