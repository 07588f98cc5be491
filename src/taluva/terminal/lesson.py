"""``taluva learn``: the interactive first game (``taluva.learn.tutorial``) in the terminal.

A LessonSession is a Session whose opponents play the tutorial's script and whose person
must make each step's taught move; ``--plain`` runs it line by line (here, without Textual),
the full-screen game in ``lesson_app``. Both judge a move with ``Step.answer`` in the game
being played, so they say what the web client says.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from typing import Final, TextIO

from taluva.ai import Agent
from taluva.ai.levels import LEVELS
from taluva.engine.errors import IllegalMove
from taluva.engine.game import Game
from taluva.engine.hexes import format_hex
from taluva.engine.moves import Move
from taluva.learn.tutorial import Answer, Step, Tutorial
from taluva.terminal.mapview import Overlay, draw_map
from taluva.terminal.session import Seat, Session

SCRIPTED: Final = "script"
"""The agent spec shown for the tutorial's opponents."""

FIRST_LEVEL: Final = min(LEVELS)
"""The AI level offered once the lesson is won."""


class ScriptedAgent(Agent):
    """An opponent of the tutorial: the script's move for the ply it is asked at."""

    def __init__(self, script: Mapping[int, Move]) -> None:
        super().__init__(SCRIPTED, 0)
        self.script = dict(script)

    def choose(self, game: Game) -> Move:
        return self.script[game.ply]


class LessonSession(Session):
    """The tutorial's game with its seats: the learner, and opponents who follow the script.
    There is no undo and no loading: the steps follow one game."""

    def __init__(self, tutorial: Tutorial) -> None:
        learner = tutorial.learner
        people = [Seat(name) for name in tutorial.players]
        super().__init__(tutorial.start(), people)
        self.tutorial = tutorial
        self.seats = [
            seat if index == learner else Seat(seat.name, SCRIPTED)
            for index, seat in enumerate(people)
        ]
        agent = ScriptedAgent(tutorial.script())
        self.agents = {index: agent for index in range(len(people)) if index != learner}

    @property
    def step(self) -> Step | None:
        """The step awaiting the learner's move now (None while the opponents move, and at
        the end)."""
        return self.tutorial.step_at(self.game.ply)

    @property
    def last_step(self) -> Step | None:
        """The latest step whose move the learner has made (its ``then`` tells what the
        opponents did since)."""
        done = [step for step in self.tutorial.steps if step.ply < self.game.ply]
        return done[-1] if done else None

    def answer(self, text: str) -> Answer:
        """The step's answer to a move (the game being over, or the opponents to move,
        make any move illegal, in the engine's words)."""
        step = self.step
        if step is None:
            reason = "the lesson is over" if self.game.is_over else "wait for your turn"
            return Answer("illegal", reason)
        return step.answer(self.game, text)

    def undo(self) -> list[Move]:
        raise IllegalMove("the lesson has no undo: each step follows the one game")

    def load(self, path: object) -> None:
        raise IllegalMove("the lesson plays its own game: start 'taluva play --load' instead")

    def new_game(self) -> None:
        raise IllegalMove("the lesson plays its own game: start 'taluva play' for a new one")


def step_heading(session: LessonSession, step: Step) -> str:
    """``Step 3 of 8: Erupt here...``."""
    return f"Step {step.number + 1} of {len(session.tutorial.steps)}: {step.say}"


def answer_words(answer: Answer) -> str:
    """How a refused move is told: another legal move gets the step's answer, an illegal
    one the engine's reason."""
    words = answer.message if answer.message.endswith(".") else answer.message + "."
    return words if answer.verdict == "other" else f"Not allowed: {words}"


PLAIN_HELP: Final = """\
Type the move the step asks for, in notation (as 'taluva play --plain' reads it), or:
  hint    show the move this step teaches
  board   draw the board again;  moves  list every legal move now
  help    this text;  quit  stop the lesson"""


class PlainLesson:
    """The lesson line by line: the board, each step's words, a move read and answered, the
    opponents' replies printed, and the ending."""

    def __init__(
        self, session: LessonSession, read_line: Callable[[], str], out: TextIO, *, scale: int = 2
    ) -> None:
        self.session = session
        self.read_line = read_line
        self.out = out
        self.scale = scale

    def say(self, text: str = "", *, wrap: bool = True) -> None:
        self.out.write((textwrap.fill(text, 100) if wrap and text else text) + "\n")
        self.out.flush()

    def run(self) -> int:
        """Play the lesson to its end (0), or until the person quits (0) or the input ends
        (1)."""
        session = self.session
        tutorial = session.tutorial
        self.say(tutorial.title.upper())
        for paragraph in tutorial.intro:
            self.say()
            self.say(paragraph)
        self.say()
        self.say(PLAIN_HELP, wrap=False)
        shown: Step | None = None
        while not session.game.is_over:
            step = session.step
            if step is None:
                self.reply()
                continue
            if step is not shown:
                shown = step
                self.show_step(step)
            self.out.write("> ")
            self.out.flush()
            line = self.read_line()
            if not line:
                self.say()
                self.say("The input ended before the lesson did.")
                return 1
            if self.answer(line.strip()) == "quit":
                self.say("Lesson left unfinished: 'taluva learn' starts it again.")
                return 0
        self.show_board()
        for line in session.result_lines():
            self.say(line)
        for paragraph in tutorial.ending:
            self.say()
            self.say(paragraph)
        self.say()
        self.say(f"Next: 'taluva play --players human,ai:{FIRST_LEVEL}' plays the computer.")
        return 0

    def show_step(self, step: Step) -> None:
        session = self.session
        before = session.last_step
        if before is not None and before.then:
            self.say()
            for paragraph in before.then:
                self.say(paragraph)
        self.show_board()
        self.say()
        self.say(step_heading(session, step))
        for paragraph in step.why:
            self.say(paragraph)
        outlined = " ".join(format_hex(h) for h in step.highlight)
        self.say(f"The hexes to use: {outlined} (marked *** on the board).")

    def show_board(self) -> None:
        session = self.session
        step = session.step
        self.say()
        marked = frozenset(step.highlight) if step is not None else None
        picture = draw_map(
            session.game, Overlay(highlight=marked), scale=self.scale, ascii_only=True
        )
        self.say(picture.text().strip("\n"), wrap=False)
        for player in range(session.game.player_count):
            out = " (out of the game)" if player in session.game.eliminated else ""
            self.say(f"{session.player_label(player)}: {session.pieces_line(player)}{out}")
        game = session.game
        if not game.is_over:
            self.say(session.task() + f". Tiles left: {game.tiles_left}.")

    def reply(self) -> None:
        """Play the opponents' next scripted move and print it."""
        session = self.session
        player = session.game.to_move
        move = session.choose_ai_move()
        session.play(move)
        out = " and cannot build: out of the game" if player in session.game.eliminated else ""
        self.say(f"{session.game.ply}. {session.game.players[player]}: {move}{out}")

    def answer(self, line: str) -> str | None:
        session = self.session
        command = line.lower()
        step = session.step
        if not line:
            return None
        if command in ("quit", "exit", "q"):
            return "quit"
        if command in ("help", "?"):
            self.say(PLAIN_HELP, wrap=False)
        elif command == "board":
            self.show_board()
        elif command == "moves":
            texts = sorted(str(move) for move in session.game.legal_moves())
            self.say(f"{len(texts)} legal moves: " + "; ".join(texts))
        elif command == "hint" and step is not None:
            self.say(f"This step's move: {step.move}")
        else:
            answer = session.answer(line)
            if answer.verdict != "taught":
                self.say(answer_words(answer) + " Type 'hint' to see the move.")
                return None
            move = session.play(line)
            self.say(
                f"{session.game.ply}. {session.game.players[session.tutorial.learner]}: {move}"
            )
        return None


def run_plain_lesson(
    session: LessonSession, stdin: TextIO, stdout: TextIO, *, scale: int = 2
) -> int:
    """Run the lesson line by line on the given streams; return the exit code."""
    return PlainLesson(session, stdin.readline, stdout, scale=scale).run()
