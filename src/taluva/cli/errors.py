"""How the command line reports a user's mistake: exit codes, the two kinds of error, and the
error for an optional library that is not installed (the extra that brings it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from taluva.engine.wording import N_
from taluva.lang import _

EXIT_OK: Final = 0
EXIT_INPUT: Final = 1
EXIT_USAGE: Final = 2
EXIT_INTERRUPTED: Final = 130

EXIT_CODES_HELP: Final = N_(
    """\
exit codes:
  0    success
  1    an input file is missing, unreadable, not JSON or not a valid game record
       (or an output file cannot be written)
  2    the command line is wrong (unknown command or option, bad value)
  130  interrupted (Ctrl-C)"""
)
"""The exit codes as every command's help ends with them (English: the operators' commands)."""


def exit_codes_help() -> str:
    """The exit codes in the player's language, for the help of the commands players use."""
    return _(EXIT_CODES_HELP)


class UsageError(Exception):
    """The command line asks for something that does not exist or makes no sense (exit 2)."""

    exit_code = EXIT_USAGE


class InputError(Exception):
    """An input file (usually a game record) cannot be read or is not valid (exit 1)."""

    exit_code = EXIT_INPUT

    @classmethod
    def unwritable(cls, path: object, error: OSError) -> InputError:
        """The error for an output file that cannot be written, with the system's reason."""
        return cls(
            _(
                "{path}: cannot write ({reason})",
                path=str(path),
                reason=error.strerror or str(error),
            )
        )


@contextmanager
def needs_extra(extra: str, what: str, alternative: str = "") -> Iterator[None]:
    """Turn an optional library that fails to import inside the block into a UsageError
    naming the extra that installs it: ``{what} ({reason}): pip install 'taluva[{extra}]'``.

    ``what`` says what needs the library (``the game server needs FastAPI``); a missing
    part of taluva itself is a bug, not a missing extra, and goes through unchanged.
    """
    try:
        yield
    except ImportError as error:
        if (error.name or "taluva").partition(".")[0] == "taluva":
            raise
        raise UsageError(f"{what} ({error}): pip install 'taluva[{extra}]'{alternative}") from None
