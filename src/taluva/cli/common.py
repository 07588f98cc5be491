"""What several groups of commands share: reading and writing records, argument types, the
game options and the layout of help texts."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Final

from taluva.cli.errors import InputError, UsageError, needs_extra
from taluva.engine.errors import InvalidOption, InvalidRecord
from taluva.engine.game import Game, game_from_record, load_record, save_record
from taluva.engine.options import EXPANSIONS, HOUSE_RULES

FORMATTER: Final = argparse.RawDescriptionHelpFormatter
"""Help formatting that keeps the examples' layout."""

REDIS_SCHEMES: Final = ("redis://", "rediss://", "unix://")


def check_redis_url(url: str) -> None:
    """UsageError unless ``url`` is a Redis URL (``--redis`` of serve and ai-worker)."""
    if not url.startswith(REDIS_SCHEMES):
        raise UsageError(f"--redis {url!r}: expected redis://HOST:PORT/DB")


def reach_redis(url: str) -> None:
    """InputError, with Redis's own reason, when the Redis at ``url`` does not answer."""
    with needs_extra("server", "--redis needs the Redis client"):
        import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=5).ping()
    except redis.RedisError as error:
        raise InputError(f"cannot reach Redis at {url}: {error}") from None


def read_game(source: str) -> Game:
    """Load and replay the record at ``source``, a path or ``-`` for standard input.

    Raises InputError naming the file and, for an illegal move, its index and the rule.
    """
    try:
        if source == "-":
            return game_from_record(sys.stdin.read(), source="<stdin>")
        if Path(source).is_dir():
            raise InputError(f"{source}: is a directory, not a game record")
        return load_record(source)
    except InvalidRecord as error:
        raise InputError(str(error)) from None
    except UnicodeDecodeError:
        raise InputError("<stdin>: not UTF-8 text") from None


def write_game(game: Game, output: str) -> None:
    """Save the game's record to ``output`` (``-``: standard output)."""
    if output == "-":
        sys.stdout.write(json.dumps(game.to_record(), indent=1) + "\n")
        return
    try:
        save_record(game, output)
    except OSError as error:
        raise InputError.unwritable(output, error) from None


def write_bytes(path: Path, data: bytes) -> None:
    """Write an output file; an InputError with the system's reason if it cannot be."""
    try:
        path.write_bytes(data)
    except OSError as error:
        raise InputError.unwritable(path, error) from None


def new_game(
    players: int | Sequence[str],
    seed: int | None,
    tiles_per_player: int = 12,
    expansions: Sequence[str] = (),
    house_rules: Sequence[str] = (),
) -> Game:
    """A fresh game; options the engine refuses are a UsageError with the engine's reason."""
    try:
        return Game.new(
            players=players,
            seed=seed,
            tiles_per_player=tiles_per_player,
            expansions=expansions,
            house_rules=house_rules,
        )
    except InvalidOption as error:
        raise UsageError(str(error)) from None


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type for a whole number of at least ``minimum``."""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {minimum} or more, got {value}")
        return value

    return convert


def progress_wanted(choice: bool | None, stream: IO[str]) -> bool:
    """Whether to show progress: as asked, else when ``stream`` is a terminal."""
    if choice is not None:
        return choice
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def wrap(text: str) -> str:
    """A paragraph wrapped for the terminal (raw help formatting keeps the examples' layout)."""
    return textwrap.fill(text, width=79)


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """``--tiles-per-player``, ``--expansion`` and ``--house-rule``."""
    parser.add_argument(
        "--tiles-per-player",
        type=int,
        default=12,
        metavar="T",
        help="12 (default), or 18 or 24 in a two-player game",
    )
    parser.add_argument(
        "--expansion",
        action="append",
        dest="expansions",
        default=[],
        metavar="E",
        help=f"an expansion to play with (repeat for more): {', '.join(EXPANSIONS)}",
    )
    parser.add_argument(
        "--house-rule",
        action="append",
        dest="house_rules",
        default=[],
        metavar="R",
        help=f"a house rule (repeat for more): {', '.join(HOUSE_RULES)}",
    )
