"""The engine's own commands, which need nothing but the engine: ``moves``, ``perft``,
``demo`` and ``new``."""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from taluva.cli.common import (
    FORMATTER,
    add_game_options,
    add_players_option,
    add_progress_option,
    add_record_argument,
    add_seed_option,
    new_game,
    progress_wanted,
    read_game,
    whole_number,
    wrap,
    write_game,
)
from taluva.cli.errors import EXIT_CODES_HELP, EXIT_OK
from taluva.engine.game import Game
from taluva.engine.perft import perft

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
        game.pop()
        counts[str(move)] = count
        if report is not None:
            report(done, len(moves), str(move), count)
    return dict(sorted(counts.items()))


def _cmd_perft(args: argparse.Namespace) -> int:
    game = read_game(args.record)
    report = None
    if progress_wanted(args.progress, sys.stderr):
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
    game = new_game(
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
    headline, lines = game.result_in_words()  # played to the end
    print(headline)
    print("\n".join(f"  {line}" for line in lines))
    if args.output is not None:
        write_game(game, args.output)
    return EXIT_OK


def _game_options_text(args: argparse.Namespace) -> str:
    """The game options of a command line, written back as options (for a replay hint)."""
    words = [f"--players {args.players}", f"--seed {args.seed}"]
    if args.tiles_per_player != 12:
        words.append(f"--tiles-per-player {args.tiles_per_player}")
    words += [f"--expansion {name}" for name in args.expansions]
    words += [f"--house-rule {name}" for name in args.house_rules]
    return " ".join(words)


# --------------------------------------------------------------------------- new


def _cmd_new(args: argparse.Namespace) -> int:
    game = new_game(
        args.players,
        args.seed,
        args.tiles_per_player,
        args.expansions,
        args.house_rules,
    )
    write_game(game, args.output)
    return EXIT_OK


# --------------------------------------------------------------------------- the parsers

_SEED_HELP = "seed for the shuffle (and the random players): the same seed, the same game"


def register(subparsers: Any) -> None:
    """Add ``moves``, ``perft``, ``demo`` and ``new`` to the ``taluva`` command line."""
    _add_moves(subparsers)
    _add_perft(subparsers)
    _add_demo(subparsers)
    _add_new(subparsers)


def _add_moves(subparsers: Any) -> None:
    moves = subparsers.add_parser(
        "moves",
        help="list the legal moves of a position",
        description=wrap(
            "Replay a game record and print every legal move of the position it "
            "reaches, one canonical move text per line, sorted. Nothing else goes to standard "
            "output, so the list can be piped."
        ),
        epilog=f"examples:\n  taluva moves game.json\n  taluva new --seed 3 | taluva moves -"
        f"\n\n{EXIT_CODES_HELP}",
        formatter_class=FORMATTER,
    )
    add_record_argument(moves)
    moves.set_defaults(func=_cmd_moves)


def _add_perft(subparsers: Any) -> None:
    perft_parser = subparsers.add_parser(
        "perft",
        help="count the move sequences of a given depth (perft)",
        description=wrap(
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
        formatter_class=FORMATTER,
    )
    add_record_argument(perft_parser)
    perft_parser.add_argument(
        "depth",
        metavar="DEPTH",
        type=whole_number(1),
        help="number of moves (plies) per sequence, 1 or more; a turn is two plies "
        "(three when a Double-Hex turn starts with 'draw')",
    )
    perft_parser.add_argument(
        "--divide", action="store_true", help="print the count of each first move, then the total"
    )
    add_progress_option(
        perft_parser,
        "report each finished first move on standard error "
        "(default: on when standard error is a terminal)",
    )
    perft_parser.set_defaults(func=_cmd_perft)


def _add_demo(subparsers: Any) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="watch random players play a whole game",
        description=wrap(
            "Play a whole game between players who pick uniformly random legal "
            "moves, then print every turn, the final island and the result."
        ),
        epilog="examples:\n  taluva demo\n  taluva demo --players 4 --seed 12\n"
        "  taluva demo --expansion ships --expansion double_hex\n"
        "  taluva demo --seed 12 -o game.json && taluva moves game.json"
        f"\n\n{EXIT_CODES_HELP}",
        formatter_class=FORMATTER,
    )
    add_players_option(demo)
    add_seed_option(demo, _SEED_HELP)
    add_game_options(demo)
    demo.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="also save the game's record to FILE ('-' for standard output)",
    )
    demo.set_defaults(func=_cmd_demo)


def _add_new(subparsers: Any) -> None:
    new = subparsers.add_parser(
        "new",
        help="write the record of a fresh game",
        description=wrap(
            "Shuffle a new game and write its record (JSON, no moves yet): a "
            "starting point for other commands and scripts."
        ),
        epilog="examples:\n"
        "  taluva new -o game.json\n"
        "  taluva new --players 2 --tiles-per-player 24 --seed 5 -o long.json\n"
        "  taluva new --players 4 --house-rule all_tiles\n"
        f"\n{EXIT_CODES_HELP}",
        formatter_class=FORMATTER,
    )
    add_players_option(new)
    add_seed_option(new, _SEED_HELP + " (default: random)")
    add_game_options(new)
    new.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default="-",
        help="where to write the record (default: standard output)",
    )
    new.set_defaults(func=_cmd_new)
