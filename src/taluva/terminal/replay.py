"""Stepping through a recorded game: the line-mode replay (the full-screen one is in app)."""

from __future__ import annotations

from typing import TextIO

from taluva.engine.game import Game
from taluva.engine.wording import T
from taluva.lang import _, say
from taluva.render.position import position_at
from taluva.terminal.mapview import draw_map

REPLAY_HELP = T(
    "Enter or n: next move; p: previous move; a number: go to that ply; start, end; q: quit."
)
"""The line-mode replay's commands (said in the player's language when shown)."""


def describe_ply(game: Game, ply: int) -> str:
    """``Ply 3 of 40: Ana played hut 1,0`` (the move that led to the position)."""
    if ply == 0:
        return _("Ply 0 of {plies}: the start of the game.", plies=game.ply)
    position = position_at(game, ply - 1)
    mover = game.players[position.to_move]
    return _(
        "Ply {ply} of {plies}: {player} played {move}.",
        ply=ply,
        plies=game.ply,
        player=mover,
        move=str(game.moves[ply - 1]),
    )


def step(game: Game, ply: int, command: str) -> tuple[int, str | None]:
    """The ply a replay command leads to, and a message if the command makes no sense there."""
    word = command.strip().lower()
    if word in ("", "n", "next"):
        target = ply + 1
    elif word in ("p", "prev", "previous", "b", "back"):
        target = ply - 1
    elif word in ("start", "home"):
        target = 0
    elif word in ("end",):
        target = game.ply
    elif word.lstrip("-").isdigit():
        target = int(word)
    else:
        return ply, _(
            "{command} is not a replay command. {commands}",
            command=repr(command.strip()),
            commands=say(REPLAY_HELP),
        )
    if not 0 <= target <= game.ply:
        return ply, _(
            "There is no ply {ply}: this game has plies 0 to {plies}.", ply=target, plies=game.ply
        )
    return target, None


def run_plain_replay(game: Game, start: int, stdin: TextIO, stdout: TextIO) -> int:
    """Show the position at ``start`` and follow the commands read from ``stdin``."""
    ply = start
    stdout.write(say(REPLAY_HELP) + "\n")
    shown = -1
    while True:
        if ply != shown:
            position = position_at(game, ply)
            stdout.write(draw_map(position, scale=2, ascii_only=True).text().strip("\n") + "\n")
            stdout.write(describe_ply(game, ply) + "\n")
            if position.is_over:
                headline, lines = position.result_in_words()
                stdout.write("".join(say(text) + "\n" for text in (headline, *lines)))

            shown = ply
        stdout.write("replay> ")
        stdout.flush()
        line = stdin.readline()
        if not line or line.strip().lower() in ("q", "quit", "exit"):
            stdout.write("\n")
            return 0
        ply, problem = step(game, ply, line)
        if problem:
            stdout.write(problem + "\n")
