"""The ``taluva`` command line: verb subcommands for playing, checking and measuring games.

Each layer adds its own subcommands from its own module: a module named in
``COMMAND_MODULES`` defines ``register(subparsers) -> None``, adds parsers with
``subparsers.add_parser(name, help=..., description=..., epilog=...)`` and gives each one a
handler with ``parser.set_defaults(func=handler)``, where ``handler(args) -> int`` returns
the exit code. A handler reports a user's mistake by raising ``UsageError`` (exit 2) or
``InputError`` (exit 1); ``main`` prints it as one line ``taluva: error: ...``. Every command
module is imported on every run, so ``register`` should stay cheap: import heavy libraries
inside the handlers. A module that cannot be imported disables only its own commands and is
named in ``taluva --help``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Final, NoReturn

import taluva
from taluva.engine.errors import IllegalMove, InvalidOption, InvalidRecord
from taluva.engine.expansions.board_zones import ZONES
from taluva.engine.game import Game
from taluva.engine.outcome import STARTING_SUPPLY
from taluva.engine.perft import perft
from taluva.engine.record import game_from_record, load_record, save_record

COMMAND_MODULES: list[str] = [
    "taluva.server.commands",
    "taluva.terminal.commands",
    "taluva.ai.commands",
    "taluva.research.commands",
]
"""Modules whose ``register(subparsers)`` adds more subcommands (one per layer)."""

ENGINE_COMMANDS: Final = ("moves", "perft", "demo", "new")
"""The commands defined here, which need none of the other layers."""

EXIT_OK: Final = 0
EXIT_INPUT: Final = 1
EXIT_USAGE: Final = 2
EXIT_INTERRUPTED: Final = 130

EXIT_CODES_HELP: Final = """\
exit codes:
  0    success
  1    an input file is missing, unreadable, not JSON or not a valid game record
       (or an output file cannot be written)
  2    the command line is wrong (unknown command or option, bad value)
  130  interrupted (Ctrl-C)"""

_PLACES: Final = ("1st", "2nd", "3rd", "4th", "5th")
_REASON_WORDS: Final = {
    "victory": "a player placed all pieces of two kinds",
    "last-standing": "every other player was eliminated",
    "tiles": "the tiles ran out",
    "no-placement": "no tile could be placed",
}


class UsageError(Exception):
    """The command line asks for something that does not exist or makes no sense (exit 2)."""

    exit_code = EXIT_USAGE


class InputError(Exception):
    """An input file (usually a game record) cannot be read or is not valid (exit 1)."""

    exit_code = EXIT_INPUT

    @classmethod
    def unwritable(cls, path: object, error: OSError) -> InputError:
        """The error for an output file that cannot be written, with the system's reason."""
        return cls(f"{path}: cannot write ({error.strerror or error})")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors become one line, with a pointer to the right help."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


Handler = Callable[[argparse.Namespace], int | None]


# --------------------------------------------------------------------------- helpers


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


def _whole_number(minimum: int) -> Callable[[str], int]:
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


def _new_game(
    players: int,
    seed: int | None,
    tiles_per_player: int = 12,
    expansions: Sequence[str] = (),
    house_rules: Sequence[str] = (),
) -> Game:
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


def _progress_wanted(choice: bool | None, stream: IO[str]) -> bool:
    if choice is not None:
        return choice
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


# --------------------------------------------------------------------------- moves


def _cmd_moves(args: argparse.Namespace) -> int:
    game = read_game(args.record)
    texts = sorted(str(move) for move in game.legal_moves())
    if texts:
        sys.stdout.write("\n".join(texts) + "\n")
    if game.result is not None:
        print(f"taluva: the game is over ({game.result.reason}): no moves", file=sys.stderr)
    return EXIT_OK


# --------------------------------------------------------------------------- perft


def count_by_first_move(
    game: Game, depth: int, report: Callable[[int, int, str, int], None] | None = None
) -> dict[str, int]:
    """Perft of ``depth`` split by first move (canonical text, sorted).

    ``report(done, total, move_text, count)`` is called after each first move, for progress.
    """
    moves = game.legal_moves()
    counts: dict[str, int] = {}
    for done, move in enumerate(moves, start=1):
        game.play(move)
        count = 1 if depth <= 1 or game.is_over else perft(game, depth - 1)
        game.undo()
        counts[str(move)] = count
        if report is not None:
            report(done, len(moves), str(move), count)
    return dict(sorted(counts.items()))


def _cmd_perft(args: argparse.Namespace) -> int:
    game = read_game(args.record)
    report = None
    if _progress_wanted(args.progress, sys.stderr):
        started = time.perf_counter()

        def report(done: int, total: int, text: str, count: int) -> None:
            elapsed = time.perf_counter() - started
            print(
                f"[{done}/{total}] {text}: {count} ({elapsed:.1f} s)", file=sys.stderr, flush=True
            )

    start = time.perf_counter()
    counts = count_by_first_move(game, args.depth, report)
    elapsed = time.perf_counter() - start
    total = sum(counts.values())
    if args.divide:
        for text, count in counts.items():
            print(f"{text}: {count}")
        print(f"total: {total}")
    else:
        print(total)
    rate = f"{total / elapsed:,.0f} leaves/s" if elapsed > 0 else "too fast to time"
    print(
        f"perft {args.depth}: {total:,} leaves in {elapsed:.3f} s ({rate})",
        file=sys.stderr,
    )
    return EXIT_OK


# --------------------------------------------------------------------------- demo


def _describe_turn(game: Game, player: int, moves: list[str], eliminated: bool) -> str:
    line = f"{game.players[player]}: {', '.join(moves)}"
    return line + " - cannot build, eliminated" if eliminated else line


def _count(number: int, plural: str) -> str:
    return f"{number} {plural[:-1] if number == 1 else plural}"


def _result_lines(game: Game) -> list[str]:
    outcome = game.result
    if outcome is None:
        return ["The game is not over."]
    lines = [f"Result: {outcome.reason} - {_REASON_WORDS[str(outcome.reason)]}"]
    kinds = [(1, "temples"), (2, "towers"), (0, "huts")]
    if "ships" in game.options["expansions"]:
        kinds.append((3, "ships"))
    place = 1
    for group in outcome.ranking:
        for player in group:
            supply = game.supply(player)
            placed = ", ".join(
                _count(STARTING_SUPPLY[index] - supply[name], name) for index, name in kinds
            )
            out = ", eliminated" if player in game.eliminated else ""
            lines.append(
                f"  {_PLACES[place - 1]} {game.players[player]}: score {game.score(player)} "
                f"({placed} placed{out})"
            )
        place += len(group)
    return lines


def play_random_game(game: Game, rng: random.Random) -> list[str]:
    """Play uniformly random legal moves to the end; return one line per turn."""
    turns: list[str] = []
    while not game.is_over:
        player = game.to_move
        out_before = len(game.eliminated)
        texts: list[str] = []
        while True:
            move = rng.choice(game.legal_moves())
            game.play(move)
            texts.append(str(move))
            if game.is_over or not move.is_tile_move or len(game.eliminated) > out_before:
                break
        eliminated = len(game.eliminated) > out_before
        turns.append(_describe_turn(game, player, texts, eliminated))
    return turns


def _cmd_demo(args: argparse.Namespace) -> int:
    if args.seed is None:
        args.seed = random.randrange(10**6)
    game = _new_game(
        args.players, args.seed, args.tiles_per_player, args.expansions, args.house_rules
    )
    rng = random.Random(args.seed)
    print(
        f"Taluva: {game.player_count} random players, seed {args.seed} "
        f"(same game again: taluva demo {_game_options_text(args)})"
    )
    print()
    for number, line in enumerate(play_random_game(game, rng), start=1):
        print(f"{number:>3}. {line}")
    print()
    print(game)
    owners = ", ".join(f"{'abcde'[p]} = {name}" for p, name in enumerate(game.players))
    print(
        f"\nEach hex: terrain letter and level, then the owner ({owners}): "
        "lower case a hut, upper case a temple, * a tower."
    )
    print()
    print("\n".join(_result_lines(game)))
    if args.output is not None:
        _save(game, args.output)
    return EXIT_OK


def _save(game: Game, output: str) -> None:
    if output == "-":
        sys.stdout.write(json.dumps(game.to_record(), indent=1) + "\n")
        return
    try:
        save_record(game, output)
    except OSError as error:
        raise InputError.unwritable(output, error) from None


# --------------------------------------------------------------------------- new


def _cmd_new(args: argparse.Namespace) -> int:
    game = _new_game(
        args.players,
        args.seed,
        args.tiles_per_player,
        args.expansions,
        args.house_rules,
    )
    _save(game, args.output)
    return EXIT_OK


# --------------------------------------------------------------------------- the parser

_MAIN_EPILOG: Final = f"""\
examples:
  taluva demo --seed 7                      watch two random players play a whole game
  taluva new --players 3 --seed 1 -o g.json write a fresh game record
  taluva moves g.json                       list the legal moves where the record stops
  taluva perft g.json 3 --divide            count move sequences, split by first move
  taluva COMMAND --help                     what a command does, with examples

Records are JSON files (see NOTATION.md); '-' reads one from standard input.

{EXIT_CODES_HELP}"""


def _add_record_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "record",
        metavar="RECORD",
        help="a game record (JSON, see NOTATION.md); '-' reads it from standard input",
    )


def _wrap(text: str) -> str:
    """A paragraph wrapped for the terminal (raw help formatting keeps the examples' layout)."""
    return textwrap.fill(text, width=79)


def _add_game_options(parser: argparse.ArgumentParser) -> None:
    zones = ", ".join(f"board:{name}" for name in ZONES)
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
        help=f"an expansion to play with (repeat for more): ships, double_hex, {zones}",
    )
    parser.add_argument(
        "--house-rule",
        action="append",
        dest="house_rules",
        default=[],
        metavar="R",
        help="a house rule (repeat for more): adjacent_hut, all_tiles",
    )


def _game_options_text(args: argparse.Namespace) -> str:
    """The game options of a command line, written back as options (for a replay hint)."""
    words = [f"--players {args.players}", f"--seed {args.seed}"]
    if args.tiles_per_player != 12:
        words.append(f"--tiles-per-player {args.tiles_per_player}")
    words += [f"--expansion {name}" for name in args.expansions]
    words += [f"--house-rule {name}" for name in args.house_rules]
    return " ".join(words)


def _register_engine_commands(subparsers: Any) -> None:
    formatter = argparse.RawDescriptionHelpFormatter

    moves = subparsers.add_parser(
        "moves",
        help="list the legal moves of a position",
        description=_wrap(
            "Replay a game record and print every legal move of the position it "
            "reaches, one canonical move text per line, sorted. Nothing else goes to standard "
            "output, so the list can be piped."
        ),
        epilog=f"examples:\n  taluva moves game.json\n  taluva new --seed 3 | taluva moves -"
        f"\n\n{EXIT_CODES_HELP}",
        formatter_class=formatter,
    )
    _add_record_argument(moves)
    moves.set_defaults(func=_cmd_moves)

    perft_parser = subparsers.add_parser(
        "perft",
        help="count the move sequences of a given depth (perft)",
        description=_wrap(
            "Count the distinct sequences of DEPTH legal moves from the position a "
            "record reaches, drawing tiles from the record's deck; a move that ends the game "
            "ends its sequence. Two implementations that agree on these counts agree on the "
            "rules. The count goes to standard output; the time taken goes to standard error."
        ),
        epilog="examples:\n"
        "  taluva perft game.json 3             just the count\n"
        "  taluva perft game.json 3 --divide    a 'MOVE: COUNT' line per first move, then "
        "'total: N'\n"
        "  diff <(taluva perft a.json 2 --divide) <(other-engine divide a.json 2)\n"
        "                                       find the first move where two engines part\n"
        f"\n{EXIT_CODES_HELP}",
        formatter_class=formatter,
    )
    _add_record_argument(perft_parser)
    perft_parser.add_argument(
        "depth",
        metavar="DEPTH",
        type=_whole_number(1),
        help="number of moves (plies) per sequence, 1 or more; a turn is two plies "
        "(three when a Double-Hex turn starts with 'draw')",
    )
    perft_parser.add_argument(
        "--divide", action="store_true", help="print the count of each first move, then the total"
    )
    perft_parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="report each finished first move on standard error "
        "(default: on when standard error is a terminal)",
    )
    perft_parser.set_defaults(func=_cmd_perft)

    players_help = "number of players, 2 to 5 (default 2)"
    seed_help = "seed for the shuffle (and the random players): the same seed, the same game"
    demo = subparsers.add_parser(
        "demo",
        help="watch random players play a whole game",
        description=_wrap(
            "Play a whole game between players who pick uniformly random legal "
            "moves, then print every turn, the final island and the result."
        ),
        epilog="examples:\n  taluva demo\n  taluva demo --players 4 --seed 12\n"
        "  taluva demo --expansion ships --expansion double_hex\n"
        "  taluva demo --seed 12 -o game.json && taluva moves game.json"
        f"\n\n{EXIT_CODES_HELP}",
        formatter_class=formatter,
    )
    demo.add_argument("--players", type=_whole_number(2), default=2, metavar="N", help=players_help)
    demo.add_argument("--seed", type=int, metavar="S", help=seed_help)
    _add_game_options(demo)
    demo.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="also save the game's record to FILE ('-' for standard output)",
    )
    demo.set_defaults(func=_cmd_demo)

    new = subparsers.add_parser(
        "new",
        help="write the record of a fresh game",
        description=_wrap(
            "Shuffle a new game and write its record (JSON, no moves yet): a "
            "starting point for other commands and scripts."
        ),
        epilog="examples:\n"
        "  taluva new -o game.json\n"
        "  taluva new --players 2 --tiles-per-player 24 --seed 5 -o long.json\n"
        "  taluva new --players 4 --house-rule all_tiles\n"
        f"\n{EXIT_CODES_HELP}",
        formatter_class=formatter,
    )
    new.add_argument("--players", type=_whole_number(2), default=2, metavar="N", help=players_help)
    new.add_argument("--seed", type=int, metavar="S", help=seed_help + " (default: random)")
    _add_game_options(new)
    new.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default="-",
        help="where to write the record (default: standard output)",
    )
    new.set_defaults(func=_cmd_new)


def _load_command_modules(subparsers: Any) -> list[str]:
    """Let each module of COMMAND_MODULES register its commands; describe those that fail."""
    problems = []
    for name in COMMAND_MODULES:
        commands = dict(subparsers.choices)
        listed = list(subparsers._choices_actions)
        try:
            module = importlib.import_module(name)
            module.register(subparsers)
        except Exception as error:  # one broken layer must not take the others down
            problems.append(f"{name} ({type(error).__name__}: {error})")
            # forget the commands it added before failing: they would be half built
            subparsers.choices.clear()
            subparsers.choices.update(commands)
            subparsers._choices_actions[:] = listed
    return problems


def build_parser(
    with_modules: bool = True,
) -> tuple[argparse.ArgumentParser, list[str]]:
    """The parser, and a description of each command module that could not be loaded.

    ``with_modules=False`` leaves out the COMMAND_MODULES: the engine's own commands then
    neither wait for nor depend on the other layers.
    """
    parser = _Parser(
        prog="taluva",
        description=_wrap("Taluva, the volcanic island board game: play it, check it, measure it."),
        epilog=_MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"taluva {taluva.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    _register_engine_commands(subparsers)
    problems = _load_command_modules(subparsers) if with_modules else []
    if problems:
        assert parser.epilog is not None
        parser.epilog += "\n\ncommands not available here:\n" + "\n".join(
            f"  {problem}" for problem in problems
        )
    return parser, problems


def _check_command(argv: Sequence[str], commands: Sequence[str], problems: list[str]) -> None:
    """Refuse a missing or unknown command with a message that lists the real ones."""
    if argv and argv[0].startswith("-"):
        return  # an option of taluva itself (--help, --version): argparse checks it
    choices = ", ".join(commands)
    if not argv:
        raise UsageError(f"no command given: choose one of {choices} (see 'taluva --help')")
    if argv[0] not in commands:
        not_loaded = f"; not loaded: {'; '.join(problems)}" if problems else ""
        raise UsageError(f"unknown command {argv[0]!r}: choose one of {choices}{not_loaded}")


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: the process's arguments); return the exit
    code. User errors print one line ``taluva: error: ...`` on standard error."""
    args_list = sys.argv[1:] if argv is None else list(argv)
    try:
        engine_only = bool(args_list) and args_list[0] in ENGINE_COMMANDS
        parser, problems = build_parser(with_modules=not engine_only)
        commands = list(subcommand_names(parser))
        _check_command(args_list, commands, problems)
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


def subcommand_names(parser: argparse.ArgumentParser) -> list[str]:
    """The names of a parser's subcommands, in the order they were added."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
