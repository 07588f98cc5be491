"""What several groups of commands share: reading and writing records, argument types, the
options that several commands take (declared once here, each command's parser adds them), the
ranges of levels and player counts as help texts print them, and the layout of help texts."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Final
from urllib.parse import urlsplit, urlunsplit

from taluva.ai.levels import LEVELS
from taluva.cli.errors import InputError, UsageError, needs_extra
from taluva.engine.errors import InvalidOption, InvalidRecord
from taluva.engine.game import Game
from taluva.engine.options import EXPANSIONS, HOUSE_RULES, PLAYER_COUNTS, player_count_range

FORMATTER: Final = argparse.RawDescriptionHelpFormatter
"""Help formatting that keeps the examples' layout."""

REDIS_SCHEMES: Final = ("redis://", "rediss://", "unix://")


def check_redis_url(url: str) -> None:
    """UsageError unless ``url`` is a Redis URL (``--redis`` of serve and ai-worker)."""
    if not url.startswith(REDIS_SCHEMES):
        raise UsageError(f"--redis {safe_url(url)!r}: expected redis://HOST:PORT/DB")


def reach_redis(url: str) -> None:
    """InputError, with Redis's own reason, when the Redis at ``url`` does not answer."""
    with needs_extra("server", "--redis needs the Redis client"):
        import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=5).ping()
    except redis.RedisError as error:
        raise InputError(f"cannot reach Redis at {safe_url(url)}: {error}") from None


def read_game(source: str) -> Game:
    """Load and replay the record at ``source``, a path or ``-`` for standard input.

    Raises InputError naming the file and, for an illegal move, its index and the rule.
    """
    try:
        if source == "-":
            return Game.from_record(sys.stdin.read(), source="<stdin>")
        if Path(source).is_dir():
            raise InputError(f"{source}: is a directory, not a game record")
        return Game.load(source)
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
        game.save(output)
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


def ai_level(text: str) -> int:
    """An argparse type for an AI level, one of ``LEVELS``."""
    if text not in {str(number) for number in LEVELS}:
        raise argparse.ArgumentTypeError(
            f"level {text!r}: choose a whole number from {min(LEVELS)} to {max(LEVELS)}"
        )
    return int(text)


# ---------------------------------------------------------------- options of several commands


def add_record_argument(
    parser: argparse.ArgumentParser,
    help: str = "a game record (JSON, see docs/notation.md); '-' reads it from standard input",
) -> None:
    """The positional ``RECORD``: a game record file, ``-`` for standard input."""
    parser.add_argument("record", metavar="RECORD", help=help)


def add_players_option(parser: argparse.ArgumentParser) -> None:
    """``--players N``, the number of players of a new game (``demo``, ``new``)."""
    parser.add_argument(
        "--players",
        type=whole_number(min(PLAYER_COUNTS)),
        default=2,
        metavar="N",
        help=f"number of players, {player_count_range()} (default 2)",
    )


def add_seed_option(parser: argparse.ArgumentParser, help: str, default: int | None = None) -> None:
    """``--seed S``: what the shuffle or the search starts from, so a run can be repeated."""
    parser.add_argument("--seed", type=int, default=default, metavar="S", help=help)


def add_level_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--level N``, an AI level (default 5) that the parser checks against ``LEVELS``."""
    parser.add_argument("--level", type=ai_level, default=5, metavar="N", help=help)


def add_json_option(
    parser: argparse.ArgumentParser, help: str = "print one JSON object instead"
) -> None:
    """``--json``: print the answer as JSON for programs, not as text for people."""
    parser.add_argument("--json", action="store_true", help=help)


def add_progress_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--progress``/``--no-progress``; unset (None), ``progress_wanted`` decides."""
    parser.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None, help=help
    )


ENV_PREFIX: Final = "TALUVA_"
"""Environment variables named ``TALUVA_`` and an option's name (``--claim-after``:
``TALUVA_CLAIM_AFTER``) give the options of the long-running commands their defaults."""
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def environment_defaults(parser: argparse.ArgumentParser) -> None:
    """Let every option of ``parser`` be given as ``TALUVA_<NAME>`` in the environment (the
    command line wins), so that a host keeps secrets such as database passwords out of argv.
    A value that does not fit its option is not used; ``environment_problems`` names it."""
    problems: list[str] = []
    for action in parser._actions:  # argparse keeps no public list of a parser's options
        if not action.option_strings or action.dest in ("help", "func"):
            continue
        name = ENV_PREFIX + action.dest.upper()
        raw = os.environ.get(name)
        if raw is None:
            continue
        value: object = raw
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            if raw.strip().lower() not in _TRUE + _FALSE:
                problems.append(f"{name}={raw!r} is not true or false")
                continue
            value = raw.strip().lower() in _TRUE
        else:
            try:
                converted = action.type(raw) if callable(action.type) else raw
            except (TypeError, ValueError):
                problems.append(f"{name}={raw!r} does not fit {action.option_strings[0]}")
                continue
            if action.choices is not None and converted not in action.choices:
                choices = ", ".join(str(choice) for choice in action.choices)
                problems.append(f"{name}={raw!r} is not one of {choices}")
                continue
            value = converted
        parser.set_defaults(**{action.dest: value})
        action.required = False  # given by the environment
    parser.set_defaults(environment_problems=problems)


def check_environment(args: argparse.Namespace) -> None:
    """Refuse (UsageError) a command whose ``TALUVA_`` environment variables did not fit."""
    problems = getattr(args, "environment_problems", [])
    if problems:
        raise UsageError("; ".join(problems))


def safe_url(url: str) -> str:
    """A database or Redis URL with its password hidden (``redis://:***@host``)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))


def add_redis_option(parser: argparse.ArgumentParser, help: str, required: bool = False) -> None:
    """``--redis URL``, the Redis that the server processes and AI workers share."""
    parser.add_argument("--redis", metavar="URL", required=required, default=None, help=help)


def add_reclaim_after_option(parser: argparse.ArgumentParser, help: str, default: float) -> None:
    """``--reclaim-after S``: seconds after which a silent worker's AI job goes to another."""
    parser.add_argument("--reclaim-after", type=float, default=default, metavar="S", help=help)


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: the log of a long-running process keeps warnings and errors only."""
    parser.add_argument("--quiet", action="store_true", help="log warnings and errors only")


def add_game_options(
    parser: argparse.ArgumentParser,
    expansion_help: str = f"an expansion to play with (repeat for more): {', '.join(EXPANSIONS)}",
) -> None:
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
        help=expansion_help,
    )
    parser.add_argument(
        "--house-rule",
        action="append",
        dest="house_rules",
        default=[],
        metavar="R",
        help=f"a house rule (repeat for more): {', '.join(HOUSE_RULES)}",
    )
