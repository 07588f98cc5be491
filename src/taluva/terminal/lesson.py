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
from taluva.engine.wording import T
from taluva.lang import _, ngettext, say
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
            reason = T("the lesson is over") if self.game.is_over else T("wait for your turn")
            return Answer("illegal", reason)
        return step.answer(self.game, text)

    def undo(self) -> list[Move]:
        raise IllegalMove(T("the lesson has no undo: each step follows the one game"))

    def load(self, path: object) -> None:
        raise IllegalMove(T("the lesson plays its own game: start 'taluva play --load' instead"))

    def new_game(self) -> None:
        raise IllegalMove(T("the lesson plays its own game: start 'taluva play' for a new one"))


def step_heading(session: LessonSession, step: Step) -> str:
    """``Step 3 of 8: Erupt here...``."""
    return _(
        "Step {number} of {steps}: {task}",
        number=step.number + 1,
        steps=len(session.tutorial.steps),
        task=say(step.say),
    )


def answer_words(answer: Answer) -> str:
    """How a refused move is told: another legal move gets the step's answer, an illegal
    one the engine's reason."""
    message = say(answer.message)
    words = message if message.endswith(".") else message + "."
    return words if answer.verdict == "other" else _("Not allowed: {reason}", reason=words)


PLAIN_HELP: Final = T("""\
Type the move the step asks for, in notation (as 'taluva play --plain' reads it), or:
  hint    show the move this step teaches
  board   draw the board again;  moves  list every legal move now
  help    this text;  quit  stop the lesson""")
"""The lesson's line-mode commands; the command words stay English, like moves."""


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
        self.say(say(tutorial.title).upper())
        for paragraph in tutorial.intro:
            self.say()
            self.say(say(paragraph))
        self.say()
        self.say(say(PLAIN_HELP), wrap=False)
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
                self.say(_("The input ended before the lesson did."))
                return 1
            if self.answer(line.strip()) == "quit":
                self.say(_("Lesson left unfinished: 'taluva learn' starts it again."))
                return 0
        self.show_board()
        for line in session.result_lines():
            self.say(line)
        for paragraph in tutorial.ending:
            self.say()
            self.say(say(paragraph))
        self.say()
        self.say(
            _(
                "Next: 'taluva play --players human,ai:{level}' plays the computer.",
                level=str(FIRST_LEVEL),
            )
        )
        return 0

    def show_step(self, step: Step) -> None:
        session = self.session
        before = session.last_step
        if before is not None and before.then:
            self.say()
            for paragraph in before.then:
                self.say(say(paragraph))
        self.show_board()
        self.say()
        self.say(step_heading(session, step))
        for paragraph in step.why:
            self.say(say(paragraph))
        outlined = " ".join(format_hex(h) for h in step.highlight)
        self.say(_("The hexes to use: {hexes} (marked *** on the board).", hexes=outlined))

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
            out = _(" (out of the game)") if player in session.game.eliminated else ""
            label, pieces = session.player_label(player), session.pieces_line(player)
            self.say(_("{player}: {pieces}", player=label, pieces=pieces) + out)
        game = session.game
        if not game.is_over:
            self.say(_("{task}. Tiles left: {n}.", task=session.task(), n=game.tiles_left))

    def reply(self) -> None:
        """Play the opponents' next scripted move and print it."""
        session = self.session
        player = session.game.to_move
        move = session.choose_ai_move()
        session.play(move)
        line = f"{session.game.ply}. {say(session.game.players[player])}: {move}"
        if player in session.game.eliminated:
            line = _("{move} and cannot build: out of the game", move=line)
        self.say(line)

    def answer(self, line: str) -> str | None:
        session = self.session
        command = line.lower()
        step = session.step
        if not line:
            return None
        if command in ("quit", "exit", "q"):
            return "quit"
        if command in ("help", "?"):
            self.say(say(PLAIN_HELP), wrap=False)
        elif command == "board":
            self.show_board()
        elif command == "moves":
            texts = sorted(str(move) for move in session.game.legal_moves())
            count = len(texts)
            self.say(
                ngettext(
                    "{n} legal move: {moves}",
                    "{n} legal moves: {moves}",
                    count,
                    n=count,
                    moves="; ".join(texts),
                )
            )
        elif command == "hint" and step is not None:
            self.say(_("This step's move: {move}", move=str(step.move)))
        else:
            answer = session.answer(line)
            if answer.verdict != "taught":
                self.say(_("{answer} Type 'hint' to see the move.", answer=answer_words(answer)))
                return None

            move = session.play(line)
            self.say(
                f"{session.game.ply}. {say(session.game.players[session.tutorial.learner])}: {move}"
            )
        return None


def run_plain_lesson(
    session: LessonSession, stdin: TextIO, stdout: TextIO, *, scale: int = 2
) -> int:
    """Run the lesson line by line on the given streams; return the exit code."""
    return PlainLesson(session, stdin.readline, stdout, scale=scale).run()
