"""The terminal's commands: ``play``, ``replay`` and ``show``.

Only the full-screen game needs an extra (``terminal``: Textual) and ``show --png`` another
(``png``: resvg); ``--plain`` and ``show`` as text or SVG need nothing but the engine.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from taluva.ai.levels import LEVELS, level_range
from taluva.cli.common import (
    FORMATTER,
    add_game_options,
    add_lang_option,
    add_record_argument,
    add_seed_option,
    new_game,
    read_game,
    write_bytes,
)
from taluva.cli.errors import UsageError, exit_codes_help, needs_extra
from taluva.engine.game import Game
from taluva.engine.options import ZONE_NAMES, player_count_range
from taluva.lang import _
from taluva.terminal.words import error_words

DEFAULT_SEATS: Final = "human,ai:3"


def play_epilog() -> str:
    """The end of ``taluva play --help``: the seats, examples and keys, in the player's
    language."""
    words = _(
        """\
seats (--players, {players}, comma-separated):
  human, human:NAME     a person at this terminal (several people take turns: hot-seat)
  ai:LEVEL              the AI at {levels}; 'ai' alone is level 3
  ai:SPEC               any AI spec: random, greedy, mcts, mcts:iterations=N, mcts:time=S

examples:
  taluva play                                   you against the AI at level 3
  taluva play --players human,ai:2,ai:5         three players, two of them AI
  taluva play --players human:Ana,human:Ben     hot-seat for two people
  taluva play --expansion ships --expansion double_hex
  taluva play --load game.json                  continue a saved game
  taluva play --plain --players ai:1,ai:1 --seed 4   watch two AIs play, line by line

keys of the full-screen game: press ? in the game for the whole list
  arrows or mouse move, r/R rotate, Enter place or build, Tab next legal spot,
  : type a move, u undo, h hint, w win chances, s save, l load, z zoom, q quit""",
        players=player_count_range(),
        levels=_(
            "level {lowest} (quick) to {highest} (on every core)",
            lowest=str(min(LEVELS)),
            highest=str(max(LEVELS)),
        ),
    )
    ending = _("  with --plain, 1 also means that the input ended before the game did")
    return f"{words}\n\n{exit_codes_help()}\n{ending}"


def register(subparsers: Any) -> None:
    """Add ``play``, ``replay`` and ``show`` to the ``taluva`` command line."""
    _add_play(subparsers)
    _add_replay(subparsers)
    _add_show(subparsers)


def _add_play(subparsers: Any) -> None:
    play = subparsers.add_parser(
        "play",
        help=_("play a game in the terminal (full screen, or line by line with --plain)"),
        description=_(
            "Play Taluva in the terminal against the AI or other people at the same keyboard. "
            "The full-screen game shows the island in colour; --plain draws it with text and "
            "reads moves line by line (for scripts, screen readers and dumb terminals), and "
            "with AI seats only plays the whole game without input."
        ),
        epilog=play_epilog(),
        formatter_class=FORMATTER,
    )
    play.add_argument(
        "--players",
        default=None,
        metavar="SEATS",
        help=_(
            "who plays, in seat order (default {seats}); see 'seats' below", seats=DEFAULT_SEATS
        ),
    )
    add_seed_option(play, _("seed for the shuffle and the AI"))
    add_game_options(
        play,
        expansion_help=_(
            "an expansion (repeat for more): ships, double_hex, board:ZONE with ZONE one of "
            "{zones}",
            zones=", ".join(ZONE_NAMES),
        ),
    )
    play.add_argument("--load", metavar="RECORD", help=_("continue the game saved in RECORD"))
    play.add_argument(
        "--plain", action="store_true", help=_("line-by-line text mode instead of full screen")
    )
    play.add_argument(
        "--compact",
        action="store_true",
        help=_("with --plain: a smaller board without coordinates"),
    )
    play.add_argument(
        "--ai-delay",
        type=float,
        default=0.8,
        metavar="SECONDS",
        help=_("full screen: pause after each AI move so you can follow it (default 0.8)"),
    )
    play.add_argument(
        "--hint-level",
        type=int,
        default=5,
        metavar="N",
        help=_("AI level of the hints, {levels}", levels=level_range()),
    )
    play.add_argument(
        "--win-chance",
        action="store_true",
        help=_(
            "show each player's chance to win after each move, as 'taluva review' reckons it "
            "(full screen: w shows or hides it; --plain: a line after each move)"
        ),
    )
    add_lang_option(play)
    play.set_defaults(func=_cmd_play)


def _add_replay(subparsers: Any) -> None:
    replay = subparsers.add_parser(
        "replay",
        help=_("step through a saved game forwards and backwards"),
        description=_(
            "Replay a game record move by move: right/left arrows (or n/p) step, Home/End "
            "jump to the start or the end. With --plain, type n, p, a ply number or q."
        ),
        epilog=_("examples:") + "\n  taluva replay game.json\n  taluva replay game.json --ply 20\n"
        f"  taluva replay game.json --plain < steps.txt\n\n{exit_codes_help()}",
        formatter_class=FORMATTER,
    )
    add_record_argument(replay, _("a game record (JSON); '-' reads standard input"))
    replay.add_argument("--ply", type=int, metavar="N", help=_("start at ply N (default 0)"))
    replay.add_argument("--plain", action="store_true", help=_("line-by-line text mode"))
    add_lang_option(replay)
    replay.set_defaults(func=_cmd_replay)


def _add_show(subparsers: Any) -> None:
    show = subparsers.add_parser(
        "show",
        help=_("draw a position: as text, or as an SVG or PNG picture"),
        description=_(
            "Draw the position a record reaches (or the one after --ply N moves): terrain "
            "colours, levels (shading, rings and numbers), tile outlines, buildings in player "
            "colours and the last turn outlined. Without --svg or --png the board is printed "
            "as text."
        ),
        epilog=_("examples:") + "\n  taluva show game.json\n  taluva show game.json --ply 12 --svg "
        "move12.svg\n  taluva show game.json --png board.png --size 48\n\n" + exit_codes_help(),
        formatter_class=FORMATTER,
    )
    add_record_argument(show, _("a game record (JSON); '-' reads standard input"))
    show.add_argument("--ply", type=int, metavar="N", help=_("the position after N moves"))
    show.add_argument("--svg", metavar="FILE", help=_("write an SVG picture ('-' for stdout)"))
    show.add_argument("--png", metavar="FILE", help=_("write a PNG picture"))
    show.add_argument(
        "--size",
        type=float,
        default=36.0,
        metavar="PX",
        help=_("hex radius in pixels (default 36)"),
    )
    show.add_argument(
        "--no-coordinates", action="store_true", help=_("leave the q,r labels out of the picture")
    )
    add_lang_option(show)
    show.set_defaults(func=_cmd_show)


def _cmd_play(args: argparse.Namespace) -> int:
    from taluva.terminal.session import SeatError, Session, parse_seats

    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    try:
        seats = parse_seats(args.players or DEFAULT_SEATS)
        if args.load:
            game = read_game(args.load)
            if args.players is None:
                seats = parse_seats(",".join(["human"] + ["ai"] * (game.player_count - 1)))
        else:
            game = new_game(
                [seat.name for seat in seats],
                seed,
                args.tiles_per_player,
                args.expansions or (),
                args.house_rules or (),
            )
        if args.hint_level not in LEVELS:
            raise UsageError(
                _(
                    "--hint-level {level}: choose {lowest} to {highest}",
                    level=str(args.hint_level),
                    lowest=str(min(LEVELS)),
                    highest=str(max(LEVELS)),
                )
            )
        if args.ai_delay < 0:
            raise UsageError(
                _("--ai-delay {delay}: a pause cannot be negative", delay=str(args.ai_delay))
            )
        session = Session(game, seats, seed)
    except SeatError as error:
        raise UsageError(error_words(error)) from None
    if args.plain:
        from taluva.terminal.plain import run_plain

        scale = 1 if args.compact else 2
        return run_plain(session, sys.stdin, sys.stdout, scale=scale, win_chance=args.win_chance)
    app = _app_module().TaluvaApp(
        session, ai_delay=args.ai_delay, hint_level=args.hint_level, win_chance=args.win_chance
    )
    app.run()
    return 0


def _app_module() -> ModuleType:
    """The Textual app, or a clear error saying how to get it (or to use --plain)."""
    with needs_extra("terminal", _("the full-screen game needs Textual"), _(", or use --plain")):
        from taluva.terminal import app
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            _("the full-screen game needs a terminal; use --plain for pipes and scripts")
        )
    return app


def _cmd_replay(args: argparse.Namespace) -> int:
    game = read_game(args.record)
    start = _checked_ply(game, args.ply) if args.ply is not None else 0
    if args.plain:
        from taluva.terminal.replay import run_plain_replay

        return run_plain_replay(game, start, sys.stdin, sys.stdout)
    _app_module().ReplayApp(game, start).run()
    return 0


def _checked_ply(game: Game, ply: int) -> int:
    if not 0 <= ply <= game.ply:
        raise UsageError(
            _(
                "--ply {ply} is out of range: this game has plies 0 to {plies}",
                ply=str(ply),
                plies=str(game.ply),
            )
        )
    return ply


def _cmd_show(args: argparse.Namespace) -> int:
    from taluva.render.position import position_at

    game = read_game(args.record)
    ply = None if args.ply is None else _checked_ply(game, args.ply)
    if not 4 <= args.size <= 400:
        raise UsageError(
            _(
                "--size {size}: choose a hex radius from 4 to 400 pixels",
                size=format(args.size, "g"),
            )
        )
    coordinates = not args.no_coordinates
    if args.svg is None and args.png is None:
        from taluva.terminal.mapview import draw_map

        position = position_at(game, ply)
        print(draw_map(position, scale=2, ascii_only=True).text().strip("\n"))
        if position.moves:
            print(
                _(
                    "Ply {ply} of {plies}, last move {move}",
                    ply=position.ply,
                    plies=game.ply,
                    move=str(position.moves[-1]),
                )
            )
        else:
            print(_("Ply {ply} of {plies}", ply=position.ply, plies=game.ply))
        return 0
    if args.svg is not None:
        from taluva.render.svg import svg_board

        text = svg_board(game, ply, args.size, coordinates=coordinates)
        if args.svg == "-":
            sys.stdout.write(text)
        else:
            write_bytes(Path(args.svg), text.encode("utf-8"))
    if args.png is not None:
        from taluva.render.raster import PngUnavailable, png_board

        if args.png == "-":
            raise UsageError(_("--png needs a file name (a PNG is not written to a terminal)"))
        try:
            picture = png_board(game, ply, args.size, coordinates=coordinates)
        except PngUnavailable as error:
            raise UsageError(error_words(error)) from None

        write_bytes(Path(args.png), picture)
    return 0
