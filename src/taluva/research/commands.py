"""What the research command lines share: how they answer Ctrl-C."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

EXIT_INTERRUPTED: Final = 130
"""The exit status of a command stopped by Ctrl-C (128 + SIGINT), as the shell reports it."""


def interrupted(out: Path, resumable: bool) -> int:
    """Say what a command stopped by Ctrl-C leaves in ``out`` (the games finished, which
    ``--resume`` goes on from, or nothing written), and return the exit status."""
    if resumable:
        print(
            f"interrupted: the games finished are in {out}; "
            "run the same command with --resume to play the rest",
            file=sys.stderr,
        )
    else:
        print(f"interrupted: {out} was not written", file=sys.stderr)
    return EXIT_INTERRUPTED
