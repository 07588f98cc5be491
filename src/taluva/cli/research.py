"""The research layer's command: ``taluva export`` turns arena records into training data
(the ``research`` extra: NumPy)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from taluva.cli.errors import InputError, UsageError, needs_extra
from taluva.engine.errors import InvalidRecord
from taluva.engine.game import Game

_EXPORT_EPILOG = """\
examples:
  taluva export games.jsonl -o samples.npz
  taluva export games.jsonl -o samples.npz --radius 8
  cat a.jsonl b.jsonl | taluva export - -o samples.npz

The file holds, per move of every finished game: planes (uint8), scalars, the legal
actions (np.packbits of the mask), the action chosen, the mover's final value in [-1, 1],
the seat, the ply and the game's index; taluva.research.dataset.load_npz reads it back.
See docs/research.md for the planes, scalars and action numbering.

exit codes:
  0    success
  1    a record is missing, malformed or illegal (the message names file and line)
  2    the command line is wrong"""


def register(subparsers: Any) -> None:
    """Add ``taluva export`` to the command line."""
    _add_export(subparsers)


def _add_export(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="turn game records (JSON Lines) into training samples (.npz)",
        description="Replay every game of a JSON Lines file (one game record per line, as "
        "'taluva arena' writes them) and save one training sample per move: what the mover "
        "saw, which actions were legal, the action taken and how the game ended for them.",
        epilog=_EXPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("records", metavar="RECORDS", help="a .jsonl file, or '-' for stdin")
    parser.add_argument(
        "-o", "--output", metavar="FILE", required=True, help="where to write the .npz file"
    )
    parser.add_argument(
        "--radius",
        type=int,
        default=None,
        metavar="R",
        help="action window radius in hexes around 0,0 (default 12)",
    )
    parser.set_defaults(func=_cmd_export)


def _cmd_export(args: argparse.Namespace) -> int:
    from taluva.research.actions import DEFAULT_RADIUS

    with needs_extra("research", "taluva export needs NumPy"):
        from taluva.research.dataset import export_npz, read_records

    radius = DEFAULT_RADIUS if args.radius is None else args.radius
    if radius < 2:
        raise UsageError(f"--radius {radius}: choose a whole number, 2 or more")

    def games() -> Iterator[Game]:
        for entry in read_records(args.records):
            yield entry.game()

    try:
        stats = export_npz(games(), args.output, radius)
    except InvalidRecord as error:
        raise InputError(str(error)) from None
    except ValueError as error:
        raise InputError(f"{args.records}: {error}") from None
    except OSError as error:
        raise InputError.unwritable(args.output, error) from None
    notes = []
    if stats.unfinished:
        notes.append(f"{stats.unfinished} unfinished game(s) skipped")
    if stats.outside_window:
        notes.append(f"{stats.outside_window} game(s) cut where the island left the window")
    extra = f" ({'; '.join(notes)})" if notes else ""
    print(
        f"{stats.samples} samples from {stats.games} games written to {args.output}{extra}",
        file=sys.stderr,
    )
    return 0
