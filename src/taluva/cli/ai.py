"""The AI's commands: ``hint``, ``review``, ``arena`` and ``engine``.

``hint``, ``review`` and ``engine`` need nothing but the engine and the AI; ``arena`` needs
the ``ai`` extra (openskill for the ratings, tqdm for the progress bar), and ``arena --ray``
the ``research`` extra (Ray).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from taluva.ai.levels import level_range
from taluva.cli.common import (
    FORMATTER,
    add_json_option,
    add_lang_option,
    add_level_option,
    add_progress_option,
    add_record_argument,
    add_seed_option,
    progress_wanted,
    read_game,
)
from taluva.cli.errors import InputError, UsageError, needs_extra
from taluva.engine.options import PLAYER_COUNTS, TILES_PER_PLAYER_CHOICES, player_count_range
from taluva.lang import _, say
from taluva.terminal.words import decimal

if TYPE_CHECKING:  # the arena needs the ai extra, so it is imported when a command runs
    from taluva.ai.arena import MapFunction, Task, TaskResult

_EXIT_CODES: Final = """\
exit codes:
  0    success
  1    an input file is missing, unreadable or not a valid game record
  2    the command line is wrong (unknown option, bad value, unknown agent)"""


def register(subparsers: Any) -> None:
    """Add ``hint``, ``review``, ``arena`` and ``engine`` to the ``taluva`` command line."""
    _add_hint(subparsers)
    _add_review(subparsers)
    _add_arena(subparsers)
    _add_engine(subparsers)


_RECORD_HELP: Final = "a game record; '-' reads standard input"


def _add_hint(subparsers: Any) -> None:
    hint = subparsers.add_parser(
        "hint",
        help="suggest the best move for the side to move, with its evaluation",
        description="Replay a game record and print the move the AI would play for the side "
        "to move, its whole plan for the turn, and its evaluation: the expected result for "
        "that player, from 0 (sure loss) to 1 (sure win).",
        epilog="examples:\n  taluva hint game.json\n  taluva hint game.json --level 3 --json\n"
        "  taluva new --seed 3 | taluva hint -\n\n" + _EXIT_CODES,
        formatter_class=FORMATTER,
    )
    add_record_argument(hint, _RECORD_HELP)
    add_level_option(hint, f"AI level {level_range()} (default 5)")
    add_json_option(hint)
    add_lang_option(hint)
    hint.set_defaults(func=_cmd_hint)


def _add_review(subparsers: Any) -> None:
    review = subparsers.add_parser(
        "review",
        help="review a game: each move's cost in winning chance, mistakes and blunders",
        description="Replay a game record and search every position: for each move, the "
        "mover's winning chance before and after it (the expected result, 0 to 1), and for "
        "a move that gave away at least the mistake threshold, the plan the search "
        "preferred. Ends with a chart of each player's winning chance. Seeded: the same "
        "record and options give the same review. See docs/ai.md, 'Game review'.",
        epilog="examples:\n  taluva review game.json\n"
        "  taluva review game.json --iterations 400 --blunder 0.3\n"
        "  taluva review game.json --from 30 --to 40 --json\n\n" + _EXIT_CODES,
        formatter_class=FORMATTER,
    )
    add_record_argument(review, _RECORD_HELP)
    review.add_argument(
        "--iterations",
        type=_positive,
        default=200,
        metavar="N",
        help="search iterations per position (default 200; more is slower and surer)",
    )
    review.add_argument(
        "--mistake",
        type=_share,
        default=0.10,
        metavar="X",
        help="winning chance a move must lose to be a mistake (default 0.10)",
    )
    review.add_argument(
        "--blunder",
        type=_share,
        default=0.25,
        metavar="X",
        help="winning chance a move must lose to be a blunder (default 0.25)",
    )
    review.add_argument(
        "--from",
        dest="first",
        type=_positive,
        default=1,
        metavar="M",
        help="first move to review, counting from 1 (default 1)",
    )
    review.add_argument(
        "--to",
        dest="last",
        type=_positive,
        default=None,
        metavar="M",
        help="last move to review (default: the last move of the record)",
    )
    add_json_option(review)
    add_progress_option(
        review, "report progress on standard error (default: when it is a terminal)"
    )
    add_lang_option(review)
    review.set_defaults(func=_cmd_review)


def _add_arena(subparsers: Any) -> None:
    arena = subparsers.add_parser(
        "arena",
        help="play many games between agents and rate them",
        description="Play games between agents: each deck (shuffled from the seed) is played "
        "once in every rotation of the seats, so tile luck cancels out. Prints win rates "
        "with 95% intervals and openskill (Plackett-Luce) ratings; the same seed gives the "
        "same games. Agents: random, greedy, mcts, mcts:iterations=N, mcts:time=SECONDS, "
        f"level:N ({level_range()}), engine:COMMAND (an outside engine, see "
        "docs/engine-protocol.md).",
        epilog="examples:\n"
        "  taluva arena greedy random --games 20\n"
        "  taluva arena level:5 greedy greedy greedy --games 8 --records games.jsonl\n"
        "  taluva arena greedy --engine 'python my_bot.py' --games 10\n"
        "  taluva arena mcts greedy --ray 10.0.0.5:6379\n\n" + _EXIT_CODES,
        formatter_class=FORMATTER,
    )
    arena.add_argument("agents", nargs="*", metavar="AGENT", help="one agent per seat")
    arena.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="COMMAND",
        help="add an outside engine as a player (repeatable)",
    )
    arena.add_argument(
        "--games", type=_positive, default=10, metavar="N", help="games to play (default 10)"
    )
    add_seed_option(arena, "arena seed (default 1)", default=1)
    arena.add_argument(
        "--workers",
        type=_positive,
        default=None,
        metavar="N",
        help="worker processes (default: one per core)",
    )
    arena.add_argument(
        "--engine-timeout",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds an outside engine may take over one answer before it forfeits the "
        "game (default 60)",
    )
    arena.add_argument(
        "--records", metavar="FILE", help="write every game as JSON Lines, as each one ends"
    )
    add_json_option(arena, "print the report as JSON")
    arena.add_argument(
        "--tiles-per-player", type=int, default=12, choices=TILES_PER_PLAYER_CHOICES, metavar="T"
    )
    arena.add_argument("--expansions", default="", metavar="A,B", help="comma-separated expansions")
    arena.add_argument(
        "--ray", metavar="ADDRESS", help="run the games on a Ray cluster (needs Ray installed)"
    )
    add_progress_option(arena, "show a progress bar (default: when standard error is a terminal)")
    arena.set_defaults(func=_cmd_arena)


def _add_engine(subparsers: Any) -> None:
    engine = subparsers.add_parser(
        "engine",
        help="speak the engine protocol on standard input and output",
        description="Answer engine-protocol commands (info, options, set, newgame, play, "
        "undo, validmoves, bestmove, record, status, quit), one per line; every answer ends "
        "with 'ok'. See docs/engine-protocol.md.",
        epilog="example:\n  printf 'newgame players=2 seed=1\\nbestmove iterations 20\\n' | "
        "taluva engine\n\n" + _EXIT_CODES,
        formatter_class=FORMATTER,
    )
    add_level_option(
        engine, f"level {level_range()} of a 'bestmove' sent without a budget (default 5)"
    )
    add_seed_option(engine, "search seed (default 0)", default=0)
    engine.set_defaults(func=_cmd_engine)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be 1 or more")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} must be a positive number of seconds")
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not a share of winning chance in (0, 1]")
    return value


def _cmd_review(args: argparse.Namespace) -> int:
    from taluva.ai.review import review

    game = read_game(args.record)
    if not game.ply:
        raise InputError(_("{path}: the record has no moves to review", path=args.record))
    last = game.ply if args.last is None else args.last
    if args.first > last or last > game.ply:
        raise UsageError(
            _(
                "--from {first} --to {last}: {path} has moves 1 to {moves}",
                first=str(args.first),
                last=str(last),
                path=args.record,
                moves=str(game.ply),
            )
        )
    if args.mistake > args.blunder:
        raise UsageError(
            _(
                "--mistake {mistake} is above --blunder {blunder}: a blunder is the bigger loss",
                mistake=format(args.mistake, "g"),
                blunder=format(args.blunder, "g"),
            )
        )
    show = progress_wanted(args.progress, sys.stderr)
    result = review(
        game,
        iterations=args.iterations,
        mistake=args.mistake,
        blunder=args.blunder,
        first=args.first - 1,
        last=last,
        progress=_review_progress(sys.stderr) if show else None,
    )
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print("\n".join(say(line) for line in result.lines()))
    return 0


def _review_progress(stream: Any) -> Callable[[int, int], None]:
    """Progress of a review on ``stream``: one line rewritten on a terminal, else a line
    every tenth of the positions."""
    tty = bool(getattr(stream, "isatty", None) and stream.isatty())

    def show(done: int, total: int) -> None:
        words = _("reviewing: position {done} of {total}", done=done, total=total)
        if tty:
            end = "\n" if done == total else ""
            stream.write(f"\r{words}{end}")
        elif done == total or done % max(1, total // 10) == 0:
            stream.write(f"{words}\n")
        stream.flush()

    return show


def _cmd_hint(args: argparse.Namespace) -> int:
    from taluva.ai.hint import hint_plan

    game = read_game(args.record)
    if game.result is not None:
        raise UsageError(
            _("{path}: the game is over, there is no move to suggest", path=args.record)
        )
    move, value, plan = hint_plan(game, args.level)
    player = game.players[game.to_move]
    if args.json:
        print(
            json.dumps(
                {
                    "move": str(move),
                    "plan": [str(m) for m in plan.moves],
                    "evaluation": round(value, 4),
                    "player": game.to_move,
                    "level": args.level,
                }
            )
        )
        return 0
    print(_("best move: {move}", move=str(move)))
    if len(plan.moves) > 1:
        then = _(", then ")
        print(_("plan for the turn: {moves}", moves=then.join(str(m) for m in plan.moves)))
    print(
        _(
            "evaluation: {value} for {player} (expected result, 0 = loss, 1 = win)",
            value=decimal(value),
            player=say(player),
        )
    )
    return 0


def _cmd_arena(args: argparse.Namespace) -> int:
    with needs_extra("ai", "the arena needs openskill and tqdm"):
        from taluva.ai import arena
    from taluva.ai.specs import InvalidAgentSpec, make_agent
    from taluva.engine.game import Game

    specs = list(args.agents) + [f"engine:{command}" for command in args.engine]
    if len(specs) not in PLAYER_COUNTS:
        raise UsageError(
            f"{len(specs)} agents given: a game needs {player_count_range()} (one per seat)"
        )
    for spec in specs:
        if spec.startswith("engine:"):
            continue
        try:
            make_agent(spec, 0)
        except InvalidAgentSpec as error:
            raise UsageError(str(error)) from None
    options = {
        "tiles_per_player": args.tiles_per_player,
        "expansions": [e.strip() for e in args.expansions.split(",") if e.strip()],
    }
    try:
        Game.new(players=len(specs), seed=0, **options)
    except ValueError as error:
        raise UsageError(str(error)) from None
    workers = args.workers or os.cpu_count() or 1
    mapper = _ray_map(args.ray) if args.ray else arena.local_map(workers)
    if args.engine_timeout is not None:
        options["engine_timeout"] = args.engine_timeout
    tasks = arena.make_tasks(specs, args.games, args.seed, options)
    show = progress_wanted(args.progress, sys.stderr)
    out = None
    if args.records:
        try:
            out = open(args.records, "w", encoding="utf-8")  # noqa: SIM115 - open while playing
        except OSError as error:
            raise InputError.unwritable(args.records, error) from None

    def save(result: dict[str, Any]) -> None:
        if out is not None:
            try:
                arena.write_records([result], out)
                out.flush()
            except OSError as error:
                raise InputError.unwritable(args.records, error) from None

    start = time.perf_counter()
    try:
        results = arena.run_tasks(tasks, mapper, arena.stderr_progress() if show else None, save)
    finally:
        if out is not None:
            out.close()
    elapsed = time.perf_counter() - start
    summary = arena.report(results)
    if args.json:
        print(json.dumps({**summary.to_json(), "seconds": round(elapsed, 1)}))
    else:
        print("\n".join(summary.lines()))
        print(f"took {elapsed:.1f} s")
    return 0


def _ray_map(address: str) -> MapFunction:
    """The arena's map on the Ray cluster at ``address``; a cluster that cannot be reached
    (or Ray missing) is a UsageError saying why."""
    from taluva.research.ray_backend import RayUnavailable, ray_map

    def run(fn: Callable[[Task], TaskResult], tasks: Sequence[Task]) -> list[TaskResult]:
        try:
            return ray_map(fn, tasks, address)
        except RayUnavailable as error:
            raise UsageError(str(error)) from None

    return run


def _cmd_engine(args: argparse.Namespace) -> int:
    from taluva.ai.protocol import serve

    return serve(level=args.level, seed=args.seed)
