"""The ``taluva`` command line: verb subcommands for playing, checking and measuring games.

The command line is the top layer: it may use every other layer, and none of them uses it.
Each group of commands lives in its own module (``engine``: moves, perft, demo, new;
``server``: serve; ``cluster``: ai-worker; ``backup``: backup, restore; ``terminal``: play,
replay, show; ``learn``: rules; ``tutorial``: learn; ``puzzles``: puzzles, puzzle; ``ai``:
hint, review, arena, engine; ``research``: export) whose
``register(subparsers)`` calls one small function per command (``_add_serve(subparsers)``) that
adds its parser, with the options that several commands take declared once in ``common``
(``add_seed_option``, ``add_game_options``...), and gives it a handler ``handler(args) -> int``
returning the exit code. A handler reports a user's mistake by raising ``UsageError`` (exit 2)
or ``InputError`` (exit 1); ``main`` prints it as one line ``taluva: error: ...``. Every group
is registered on every run, so registering stays cheap: a handler imports the layer it drives,
and an optional library it needs inside ``needs_extra``, which names the extra to install when
the library is missing.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn

import taluva
from taluva.cli import (
    ai,
    backup,
    cluster,
    engine,
    learn,
    puzzles,
    research,
    server,
    terminal,
    tutorial,
)
from taluva.cli.common import wrap
from taluva.cli.errors import (
    EXIT_CODES_HELP,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    InputError,
    UsageError,
)
from taluva.engine.errors import IllegalMove

__all__ = ["CommandLine", "build_parser", "main"]

GROUPS: Final = (
    engine,
    server,
    cluster,
    backup,
    terminal,
    tutorial,
    learn,
    puzzles,
    ai,
    research,
)
"""The modules that add commands, in the order ``taluva --help`` lists them."""

Handler = Callable[[argparse.Namespace], int | None]

_MAIN_EPILOG: Final = f"""\
examples:
  taluva demo --seed 7                      watch two random players play a whole game
  taluva new --players 3 --seed 1 -o g.json write a fresh game record
  taluva moves g.json                       list the legal moves where the record stops
  taluva perft g.json 3 --divide            count move sequences, split by first move
  taluva COMMAND --help                     what a command does, with examples

Records are JSON files (see docs/notation.md); '-' reads one from standard input.

{EXIT_CODES_HELP}"""


class CommandLine(argparse.ArgumentParser):
    """An argument parser whose errors become one line, with a pointer to the right help;
    ``commands`` names its subcommands in the order they were added."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.commands: list[str] = []

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> CommandLine:
    """The parser of the whole command line, every group's commands included."""
    parser = CommandLine(
        prog="taluva",
        description=wrap("Taluva, the volcanic island board game: play it, check it, measure it."),
        epilog=_MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"taluva {taluva.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for group in GROUPS:
        group.register(subparsers)
    parser.commands = list(subparsers.choices or ())
    return parser


def _check_command(argv: Sequence[str], commands: Sequence[str]) -> None:
    """Refuse a missing or unknown command with a message that lists the real ones."""
    if argv and argv[0].startswith("-"):
        return  # an option of taluva itself (--help, --version): argparse checks it
    choices = ", ".join(commands)
    if not argv:
        raise UsageError(f"no command given: choose one of {choices} (see 'taluva --help')")
    if argv[0] not in commands:
        raise UsageError(f"unknown command {argv[0]!r}: choose one of {choices}")


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: the process's arguments); return the exit
    code. User errors print one line ``taluva: error: ...`` on standard error."""
    args_list = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser()
        _check_command(args_list, parser.commands)
        try:
            args, extra = parser.parse_known_args(args_list)
        except SystemExit as done:  # --help and --version finish here
            return done.code if isinstance(done.code, int) else EXIT_OK
        handler: Handler | None = getattr(args, "func", None)
        if extra:
            where = f"taluva {args.command}" if handler is not None else "taluva"
            raise UsageError(f"unrecognized arguments: {' '.join(extra)} (see '{where} --help')")
        if handler is None:
            raise UsageError("no command given (see 'taluva --help')")
        code = handler(args)
        sys.stdout.flush()
        return EXIT_OK if code is None else code
    except (UsageError, InputError) as error:
        print(f"taluva: error: {error}", file=sys.stderr)
        return error.exit_code
    except IllegalMove as error:
        print(f"taluva: error: {error}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("taluva: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``taluva moves g.json | head``): stop quietly.
        _silence_stdout()
        return EXIT_OK


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
