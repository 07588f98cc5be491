"""``taluva learn``: the interactive first game (``taluva.learn.tutorial``) in the terminal,
full screen (the ``terminal`` extra: Textual) or line by line with ``--plain`` (nothing
beyond the engine); after the won game, one key starts a game against the computer."""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from taluva.cli.common import FORMATTER, add_lang_option
from taluva.cli.errors import UsageError, exit_codes_help, needs_extra
from taluva.lang import _


def learn_epilog() -> str:
    """The end of ``taluva learn --help``: examples and keys, in the player's language."""
    words = _(
        """\
examples:
  taluva learn                  the lesson full screen: about ten minutes, a won game
  taluva learn --plain          line by line: type each step's move in notation
  taluva learn --plain --compact    a smaller board for narrow terminals

keys of the full-screen lesson: the game's keys ('taluva play', press ? for the list),
  h shows the step's move; at the end, p plays the computer at its first level"""
    )
    ending = _("  with --plain, 1 also means that the input ended before the lesson did")
    return f"{words}\n\n{exit_codes_help()}\n{ending}"


def register(subparsers: Any) -> None:
    """Add ``learn`` to the ``taluva`` command line."""
    learn = subparsers.add_parser(
        "learn",
        help=_("learn to play: a guided first game against scripted opponents"),
        description=_(
            "Play a guided first game: each step says what to do and why, outlines the hexes "
            "to use and accepts only the move it teaches (any other move is answered in one "
            "line). Every rule of the base game comes up, and the game ends with your win; "
            "then one key starts a game against the computer."
        ),
        epilog=learn_epilog(),
        formatter_class=FORMATTER,
    )
    learn.add_argument(
        "--plain", action="store_true", help=_("line-by-line text mode instead of full screen")
    )
    learn.add_argument(
        "--compact",
        action="store_true",
        help=_("with --plain: a smaller board without coordinates"),
    )
    learn.add_argument(
        "--ai-delay",
        type=float,
        default=0.8,
        metavar="SECONDS",
        help=_("full screen: pause after each opponent's move so you can follow it (default 0.8)"),
    )
    add_lang_option(learn)
    learn.set_defaults(func=_cmd_learn)


def _cmd_learn(args: argparse.Namespace) -> int:
    from taluva.learn.tutorial import load_tutorial
    from taluva.terminal.lesson import LessonSession, run_plain_lesson

    if args.ai_delay < 0:
        raise UsageError(
            _("--ai-delay {delay}: a pause cannot be negative", delay=str(args.ai_delay))
        )
    session = LessonSession(load_tutorial())
    if args.plain:
        return run_plain_lesson(session, sys.stdin, sys.stdout, scale=1 if args.compact else 2)
    with needs_extra("terminal", _("the full-screen lesson needs Textual"), _(", or use --plain")):
        from taluva.terminal.app import TaluvaApp
        from taluva.terminal.lesson import FIRST_LEVEL
        from taluva.terminal.lesson_app import PLAY_LEVEL, LessonApp
        from taluva.terminal.session import Session, parse_seats
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(_("the full-screen lesson needs a terminal; use --plain for pipes"))

    lesson = LessonApp(session, ai_delay=args.ai_delay)
    lesson.run()
    if lesson.choice == PLAY_LEVEL:
        from taluva.engine.game import Game

        seed = random.randrange(1_000_000)
        seats = parse_seats(f"human,ai:{FIRST_LEVEL}")
        game = Game.new(players=[seat.name for seat in seats], seed=seed)
        TaluvaApp(Session(game, seats, seed), ai_delay=args.ai_delay).run()
    return 0
