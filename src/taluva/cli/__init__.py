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
from collections.abc import Callable, Mapping, Sequence
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
from taluva.cli.common import add_lang_option, wrap
from taluva.cli.errors import (
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    InputError,
    UsageError,
    exit_codes_help,
)
from taluva.engine.errors import IllegalMove
from taluva.lang import DEFAULT, LANGUAGES, _, from_environment, use
from taluva.lang.choice import shipped
from taluva.terminal.words import error_words

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


def _main_epilog() -> str:
    """The end of ``taluva --help``: examples and the exit codes, in the player's language."""
    words = _(
        """\
examples:
  taluva demo --seed 7                      watch two random players play a whole game
  taluva new --players 3 --seed 1 -o g.json write a fresh game record
  taluva moves g.json                       list the legal moves where the record stops
  taluva perft g.json 3 --divide            count move sequences, split by first move
  taluva COMMAND --help                     what a command does, with examples

Records are JSON files (see docs/notation.md); '-' reads one from standard input."""
    )
    return f"{words}\n\n{exit_codes_help()}"


class CommandLine(argparse.ArgumentParser):
    """An argument parser whose errors become one line, with a pointer to the right help;
    ``commands`` names its subcommands in the order they were added."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.commands: list[str] = []

    def error(self, message: str) -> NoReturn:
        raise UsageError(
            _("{problem} (see '{command} --help')", problem=message, command=self.prog)
        )


def build_parser() -> CommandLine:
    """The parser of the whole command line, every group's commands included."""
    parser = CommandLine(
        prog="taluva",
        description=wrap(
            _("Taluva, the volcanic island board game: play it, check it, measure it.")
        ),
        epilog=_main_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"taluva {taluva.__version__}")
    add_lang_option(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for group in GROUPS:
        group.register(subparsers)
    parser.commands = list(subparsers.choices or ())
    return parser


def _check_command(argv: Sequence[str], commands: Sequence[str]) -> None:
    """Refuse a missing or unknown command with a message that lists the real ones."""
    if argv and argv[0].startswith("-"):
        return  # an option of taluva itself (--help, --version, --lang): argparse checks it
    choices = ", ".join(commands)
    if not argv:
        raise UsageError(
            _("no command given: choose one of {commands} (see 'taluva --help')", commands=choices)
        )
    if argv[0] not in commands:
        raise UsageError(
            _(
                "unknown command {command}: choose one of {commands}",
                command=repr(argv[0]),
                commands=choices,
            )
        )


def _lang_asked(argv: Sequence[str]) -> str | None:
    """The ``--lang`` given anywhere on the command line (before a ``--``), or None."""
    for index, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--lang="):
            return arg.partition("=")[2]
    return None


def language(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: ``--lang``, else the environment's (``LANGUAGE``, ``LC_ALL``,
    ``LC_MESSAGES``, ``LANG``), else English; an unknown ``--lang`` is a UsageError (said in
    the environment's language) listing the shipped ones."""
    fallback = from_environment(environ) or DEFAULT
    asked = _lang_asked(argv)
    if asked is None:
        return fallback
    code = shipped(asked)
    if code is None:
        shipped_ones = ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
        with use(fallback):
            raise UsageError(
                _(
                    "--lang {code}: no such language; choose one of {languages}",
                    code=repr(asked),
                    languages=shipped_ones,
                )
            )
    return code


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: the process's arguments); return the exit
    code. User errors print one line ``taluva: error: ...`` on standard error. Everything a
    player reads is in the language of ``--lang`` or the environment (``language``)."""
    args_list = sys.argv[1:] if argv is None else list(argv)
    try:
        lang = language(args_list)
    except UsageError as error:
        print(f"taluva: error: {error}", file=sys.stderr)
        return error.exit_code
    with use(lang):
        return _run(args_list)


def _run(args_list: list[str]) -> int:
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
            raise UsageError(
                _(
                    "unrecognized arguments: {arguments} (see '{command} --help')",
                    arguments=" ".join(extra),
                    command=where,
                )
            )
        if handler is None:
            raise UsageError(_("no command given (see 'taluva --help')"))
        code = handler(args)
        sys.stdout.flush()
        return EXIT_OK if code is None else code
    except (UsageError, InputError) as error:
        print(f"taluva: error: {error_words(error)}", file=sys.stderr)
        return error.exit_code
    except IllegalMove as error:
        print(f"taluva: error: {error_words(error)}", file=sys.stderr)
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
