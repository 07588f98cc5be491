"""``taluva puzzles make``: find puzzles in seeded self-play games and stored games (``check``
replays them, ``rescreen`` withdraws those that fail the margin screen run again);
``taluva puzzle``: solve the shipped puzzles in the terminal, one after another, with a
streak (``taluva.learn.puzzles``; the web client has the same puzzles, rated)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from taluva.cli.common import FORMATTER, add_lang_option, ai_level, whole_number, wrap
from taluva.cli.errors import EXIT_CODES_HELP, InputError, UsageError, exit_codes_help, needs_extra
from taluva.lang import _, say
from taluva.terminal.words import error_words

if TYPE_CHECKING:
    from taluva.learn.puzzles import PuzzleSet

MAKE_EPILOG: Final = f"""\
examples:
  taluva puzzles make --games 1500 --seed 1 --block-every 3 --workers 2 \\
      --out src/taluva/learn/puzzles.json
                                      the shipped puzzles (docs/ai.md, "Puzzles")
  taluva puzzles make --games 300 --first 1500 --seed 1 --screen save,spoil \\
      --block-every 3 --add src/taluva/learn/puzzles.json \\
      --out src/taluva/learn/puzzles.json
                                      the saves, spoils and more blocks added to them
  taluva puzzles make --games 0 --records games.jsonl --out mine.json
                                      screen stored game records (one JSON record a line)

{EXIT_CODES_HELP}"""

CHECK_EPILOG: Final = f"""\
examples:
  taluva puzzles check                      replay the shipped puzzles, check every answer
  taluva puzzles check --level 1 --level 5  and count those levels 1 and 5 solve

{EXIT_CODES_HELP}"""


RESCREEN_EPILOG: Final = f"""\
examples:
  taluva puzzles rescreen --file src/taluva/learn/puzzles.json \\
      --out src/taluva/learn/puzzles.json
                                      screen the shipped blocks made before the margin screen

{EXIT_CODES_HELP}"""


def puzzle_epilog() -> str:
    """The end of ``taluva puzzle --help``: examples, in the player's language."""
    words = _(
        """\
examples:
  taluva puzzle                 puzzles of every theme, full screen
  taluva puzzle --theme tower   only puzzles won by the last tower
  taluva puzzle --plain         line by line: type the tile, then the build"""
    )
    return f"{words}\n\n{exit_codes_help()}"


def register(subparsers: Any) -> None:
    """Add ``puzzles`` and ``puzzle`` to the ``taluva`` command line."""
    puzzles = subparsers.add_parser(
        "puzzles",
        help="make puzzles from self-play and stored games",
        description=wrap(
            "Make puzzles: positions where exactly one build, after a suitable tile "
            "placement, wins the game at once (or stops the opponent's win at once; or only "
            "eruptions on the opponent's huts stop it; or few turns save the mover's huts "
            "from an eruption), found by trying every turn of every position of seeded "
            "self-play games (and stored games); the non-immediate ones must also give a "
            "far better winning chance than other turns, by the AI's search."
        ),
        epilog=MAKE_EPILOG,
        formatter_class=FORMATTER,
    )
    actions = puzzles.add_subparsers(dest="action", metavar="ACTION", required=True)
    make = actions.add_parser(
        "make",
        help="play and screen games, write the puzzles found",
        description=wrap(
            "Play --games seeded self-play games (and read --records), try every turn of "
            "every position, and write the puzzles found to --out. Progress goes to "
            "standard error."
        ),
        epilog=MAKE_EPILOG,
        formatter_class=FORMATTER,
    )
    make.add_argument("--games", type=whole_number(0), required=True, help="self-play games")
    make.add_argument("--seed", type=whole_number(0), default=1, help="seed of the games")
    make.add_argument(
        "--first",
        type=whole_number(0),
        default=0,
        metavar="N",
        help="number of the first self-play game (default 0): games N to N+GAMES-1",
    )
    make.add_argument(
        "--screen",
        type=screen_kinds,
        default=("wins",),
        metavar="KINDS",
        help="what to look for at every turn start, comma-separated: wins, save, spoil, "
        "block (default: wins)",
    )
    make.add_argument(
        "--add",
        metavar="FILE",
        help="add the new puzzles to this puzzle file's (keeping theirs and their ids) and "
        "write the whole to --out",
    )
    make.add_argument(
        "--block-every",
        type=whole_number(0),
        default=0,
        metavar="K",
        help="also screen every K-th self-play game (and every stored game) for a block "
        "puzzle; 0: none (default)",
    )
    make.add_argument(
        "--workers",
        type=whole_number(1),
        default=1,
        help="processes to screen games on (the puzzles do not depend on it)",
    )
    make.add_argument("--records", metavar="FILE", help="stored game records, one JSON a line")
    make.add_argument("--out", metavar="FILE", required=True, help="the puzzle file to write")
    make.set_defaults(func=_cmd_make)

    check = actions.add_parser(
        "check",
        help="replay every puzzle, check its answer, and count those the AI levels solve",
        description=wrap(
            "Replay every puzzle of FILE (default: the shipped ones) and play its answer, "
            "which must be right; with --level, also count the puzzles the AI solves at "
            "that level (its hint's turn), by theme."
        ),
        epilog=CHECK_EPILOG,
        formatter_class=FORMATTER,
    )
    check.add_argument("--file", metavar="FILE", help="a puzzle file (default: the shipped)")
    check.add_argument(
        "--level", type=ai_level, action="append", default=[], help="an AI level (repeat)"
    )
    check.set_defaults(func=_cmd_check)

    rescreen = actions.add_parser(
        "rescreen",
        help="run the margin screen on the puzzles made before it, withdraw those that fail",
        description=wrap(
            'Run the margin screen (docs/ai.md, "Puzzles") on every block, spoil and save '
            "puzzle of FILE that has not passed it, and write the whole to --out: those that "
            "pass get the screen's figures, those that fail are withdrawn (kept in the file's "
            "'withdrawn' list with their figures, no longer offered, their ids never given "
            "again). The run is recorded in the file's 'added' list. Progress goes to "
            "standard error."
        ),
        epilog=RESCREEN_EPILOG,
        formatter_class=FORMATTER,
    )
    rescreen.add_argument("--file", metavar="FILE", required=True, help="the puzzle file")
    rescreen.add_argument("--out", metavar="FILE", required=True, help="the puzzle file to write")
    rescreen.set_defaults(func=_cmd_rescreen)

    puzzle = subparsers.add_parser(
        "puzzle",
        help=_("solve puzzles: find the turn that wins at once, or stops a win"),
        description=wrap(
            _(
                "Solve the shipped puzzles: each is a position from a real game where one turn "
                "(a tile placement, then a build) wins at once, or stops the opponent's win at "
                "once. A wrong turn is answered with what it misses and the answer; right "
                "answers in a row make a streak."
            )
        ),
        epilog=puzzle_epilog(),
        formatter_class=FORMATTER,
    )
    puzzle.add_argument("--theme", help=_("only puzzles of this theme (see --list)"))
    puzzle.add_argument("--list", action="store_true", help=_("list the themes and stop"))
    puzzle.add_argument("--plain", action="store_true", help=_("line-by-line text mode"))
    puzzle.add_argument("--seed", type=int, default=None, help=_("seed of the puzzle order"))
    add_lang_option(puzzle)
    puzzle.set_defaults(func=_cmd_puzzle)


def screen_kinds(text: str) -> tuple[str, ...]:
    """The ``--screen`` list: known kinds, comma-separated, in the table's order."""
    from taluva.learn.puzzle_maker import SCREENS

    kinds = {kind.strip() for kind in text.split(",") if kind.strip()}
    unknown = sorted(kinds - set(SCREENS))
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(
            f"{text!r}: choose among {', '.join(SCREENS)}, comma-separated"
        )
    return tuple(kind for kind in SCREENS if kind in kinds)


def _read(path: str) -> PuzzleSet:
    """The puzzles of a file named on the command line (InputError if it cannot be read)."""
    from taluva.learn.puzzles import PuzzleError, read_puzzles

    try:
        return read_puzzles(Path(path))
    except PuzzleError as error:
        raise InputError(str(error)) from None


def _write(made: PuzzleSet, path: str) -> None:
    """Write a puzzle file named on the command line (InputError if it cannot be written)."""
    out = Path(path)
    try:
        made.save(out)
    except OSError as error:
        raise InputError(f"{out}: cannot write ({error.strerror or error})") from None


def _cmd_make(args: argparse.Namespace) -> int:
    from taluva.engine.errors import InvalidRecord
    from taluva.engine.game import Game
    from taluva.learn.puzzle_maker import (
        added_to,
        make_puzzles,
        puzzle_set,
        record_sources,
        self_play_sources,
    )

    base = _read(args.add) if args.add else None

    records: list[dict[str, Any]] = []
    if args.records:
        try:
            lines = Path(args.records).read_text(encoding="utf-8").splitlines()
            records = [json.loads(line) for line in lines if line.strip()]
            for record in records:
                Game.from_record(record)
        except (OSError, ValueError, InvalidRecord) as error:
            raise InputError(f"{args.records}: cannot read records ({error})") from None
    command = (
        f"taluva puzzles make --games {args.games} --seed {args.seed} "
        f"--block-every {args.block_every}"
    )
    if args.first:
        command += f" --first {args.first}"
    if args.screen != ("wins",):
        command += f" --screen {','.join(args.screen)}"
    if args.records:
        command += f" --records {Path(args.records).name}"
    if args.add:
        command += f" --add {Path(args.add).name}"

    def report(tally: Any) -> None:
        print(tally.line(), file=sys.stderr, flush=True)

    sources = self_play_sources(args.games, args.seed, args.first) + record_sources(records)
    kept, tally = make_puzzles(
        sources,
        block_every=args.block_every,
        workers=args.workers,
        progress=report,
        kinds=args.screen,
    )
    report(tally)
    made = (
        puzzle_set(kept, tally, command) if base is None else added_to(base, kept, tally, command)
    )
    _write(made, args.out)
    new = len(made.puzzles) - (0 if base is None else len(base.puzzles))
    print(f"{new} new puzzles, {len(made.puzzles)} written to {Path(args.out)}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from taluva.learn.puzzle_maker import check_puzzles
    from taluva.learn.puzzles import load_puzzles

    puzzles = load_puzzles() if args.file is None else _read(args.file)
    total = len(puzzles.puzzles)

    def report(done: int) -> None:
        if done % 50 == 0 or done == total:
            print(f"checked {done} of {total}", file=sys.stderr, flush=True)

    tally = check_puzzles(puzzles.puzzles, args.level, report)
    print(f"{tally.puzzles} puzzles replayed, {tally.answers_right} answers right")
    for level, counts in tally.solved.items():
        themes = ", ".join(
            f"{theme} {counts.get(theme, 0)}/{count}" for theme, count in tally.themes.items()
        )
        print(f"level {level} solves {counts.get('all', 0)}/{tally.puzzles} ({themes})")
    return 0 if tally.answers_right == tally.puzzles else 1


def _cmd_rescreen(args: argparse.Namespace) -> int:
    from taluva.learn.puzzle_maker import MARGIN, Margin, rescreened
    from taluva.learn.puzzles import Puzzle

    base = _read(args.file)

    def report(puzzle: Puzzle, margin: Margin | None) -> None:
        if margin is None:
            verdict = "no rival turn found: withdrawn"
        else:
            passed = "passes" if margin.value >= MARGIN else "withdrawn"
            verdict = f"{margin.answer:.0%} after the answer, {margin.rival:.0%} after "
            verdict += f"{' '.join(margin.rival_turn)}: {passed}"
        print(f"{puzzle.id}: {verdict}", file=sys.stderr, flush=True)

    made = rescreened(base, f"taluva puzzles rescreen --file {Path(args.file).name}", report)
    _write(made, args.out)
    run = made.added[-1]
    print(
        f"{run['figures']['rescreened']} puzzles screened, {len(run['withdrawn'])} withdrawn, "
        f"{len(made.puzzles)} written to {Path(args.out)}"
    )
    return 0


def _cmd_puzzle(args: argparse.Namespace) -> int:
    from taluva.learn.puzzles import THEMES, PuzzleError, load_puzzles

    puzzles = load_puzzles()
    if args.list:
        counts = puzzles.theme_counts()
        for theme, words in THEMES.items():
            print(f"{theme:<9} {counts[theme]:>4}  {say(words)}")
        return 0
    try:
        chosen = puzzles.with_theme(args.theme)
    except PuzzleError as error:
        raise UsageError(error_words(error)) from None
    if args.plain:
        from taluva.terminal.puzzle_plain import run_plain_puzzles

        return run_plain_puzzles(chosen, sys.stdin, sys.stdout, seed=args.seed)
    with needs_extra("terminal", _("the full-screen puzzles need Textual"), _(", or use --plain")):
        from taluva.terminal.puzzle_app import PuzzleApp
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(_("the full-screen puzzles need a terminal; use --plain for pipes"))

    PuzzleApp(chosen, seed=args.seed).run()
    return 0
