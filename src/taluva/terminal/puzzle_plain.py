"""``taluva puzzle --plain``: the puzzles line by line. Each puzzle shows the island as a text
map and the pieces each side still holds; the solver types the tile placement, then the
build; the engine judges the turn, a wrong one is answered with what it misses and the winning
turn, and right answers in a row make a streak."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final, TextIO

from taluva.engine.game import Game
from taluva.engine.moves import TILE, Move
from taluva.engine.wording import T
from taluva.lang import _, say
from taluva.learn.puzzles import (
    THEMES,
    Puzzle,
    Verdict,
    check_attempt,
    task_words,
)
from taluva.terminal.mapview import draw_map
from taluva.terminal.session import count

PLAIN_HELP: Final = T(
    "Type the tile placement (e.g. 'tile 1,-2 3'), then the build (e.g. 'temple 2,0'). "
    "'moves' lists the legal moves now, 'skip' shows the answer and goes on, 'q' quits."
)
"""The line mode's commands (said in the player's language when shown)."""


def puzzle_order(puzzles: Sequence[Puzzle], seed: int | None) -> list[Puzzle]:
    """The order the puzzles come in: easiest first, shuffled within a difficulty."""
    rng = random.Random(seed)
    shuffled = list(puzzles)
    rng.shuffle(shuffled)
    return sorted(shuffled, key=lambda p: p.difficulty)


def pieces_line(game: Game, player: int) -> str:
    """``3 huts, 1 temple, 0 towers left``."""
    supply = game.supply(player)
    pieces = ", ".join(count(supply[name], name) for name in ("huts", "temples", "towers"))
    return _("{pieces} left", pieces=pieces)


class PlainPuzzles:
    """The line-mode puzzle loop on a line reader and an output stream."""

    def __init__(
        self, puzzles: Sequence[Puzzle], read: Callable[[], str], out: TextIO, seed: int | None
    ) -> None:
        self.puzzles = puzzle_order(puzzles, seed)
        self.read = read
        self.out = out
        self.streak = 0
        self.solved = 0

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def show(self, number: int, puzzle: Puzzle, game: Game) -> None:
        themes = ", ".join(say(THEMES[t]) for t in puzzle.themes)
        self.say()
        self.say(
            _(
                "Puzzle {number} of {puzzles} ({id}, {difficulty}; {themes})",
                number=number,
                puzzles=len(self.puzzles),
                id=puzzle.id,
                difficulty=say(puzzle.difficulty_name),
                themes=themes,
            )
        )
        self.say(draw_map(game, scale=2, ascii_only=True).text().strip("\n"))
        for player in range(game.player_count):
            self.say(
                _(
                    "{player}: {pieces}",
                    player=say(game.players[player]),
                    pieces=pieces_line(game, player),
                )
            )
        self.say(_("Your tile: {tile}. {task}", tile=game.tile, task=say(task_words(puzzle))))

    def ask(self, prompt: str) -> str | None:
        """The next non-empty line after the prompt, or None at the end of the input."""
        while True:
            self.out.write(prompt)
            self.out.flush()
            line = self.read()
            if not line:
                return None
            text = line.strip()
            if text:
                return text

    def solve(self, puzzle: Puzzle, game: Game) -> Verdict | str | None:
        """One attempt: the verdict, ``skip``, or None when the input ends or asks to quit."""
        tile: str | None = None
        while True:
            text = self.ask("tile> " if tile is None else "build> ")
            if text is None or text.lower() in ("q", "quit"):
                return None
            if text.lower() == "skip":
                return "skip"
            if text.lower() in ("moves", "legal"):
                self.say(" ".join(sorted(str(m) for m in game.legal_moves())))
                continue
            if text.lower() in ("?", "help"):
                self.say(say(PLAIN_HELP))
                continue
            reason = game.explain(text)
            if reason is not None:
                self.say(_("Not allowed: {reason}", reason=say(reason)))
                continue
            if tile is None:
                if Move.parse(text).kind != TILE:
                    self.say(_("Place the tile first."))
                    continue
                game.play(text)
                tile = str(game.moves[-1])
                continue
            return check_attempt(puzzle, tile, text)

    def run(self) -> int:
        self.say(say(PLAIN_HELP))
        for number, puzzle in enumerate(self.puzzles, start=1):
            game = puzzle.game()
            self.show(number, puzzle, game)
            verdict = self.solve(puzzle, game)
            if verdict is None:
                break
            if verdict == "skip":
                self.streak = 0
                tile, build = puzzle.answer
                self.say(_("The winning turn: {tile}, then {build}.", tile=tile, build=build))
                continue
            assert isinstance(verdict, Verdict)
            self.streak = self.streak + 1 if verdict.right else 0
            self.solved += verdict.right
            self.say(say(verdict.message))
            self.say(
                _(
                    "Streak: {streak}. Solved: {solved} of {number}.",
                    streak=self.streak,
                    solved=self.solved,
                    number=number,
                )
            )
        self.say(
            _("Solved {solved}; last streak {streak}.", solved=self.solved, streak=self.streak)
        )

        return 0


def run_plain_puzzles(
    puzzles: Sequence[Puzzle], stdin: TextIO, stdout: TextIO, *, seed: int | None = None
) -> int:
    """Solve puzzles line by line on the given streams; return the exit code."""
    return PlainPuzzles(puzzles, stdin.readline, stdout, seed).run()
