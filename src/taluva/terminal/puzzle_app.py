"""``taluva puzzle`` full screen: the game screen of ``taluva play`` on a puzzle's position, the
task and the streak above the map. The solver places the tile and builds as in a game; the
build is judged by the engine (``taluva.learn.puzzles.check_attempt``): a right turn is played
and wins, a wrong one is taken back and answered with what it misses, the winning tile shown
as the ghost. ``n`` goes to the next puzzle, ``a`` shows the answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text as RichText
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from taluva.engine.moves import TILE, Move
from taluva.engine.wording import T
from taluva.lang import _, say
from taluva.learn.puzzles import THEMES, Puzzle, Verdict, check_attempt, task_words
from taluva.terminal.app import TaluvaApp
from taluva.terminal.game_screen import GameScreen
from taluva.terminal.puzzle_plain import puzzle_order
from taluva.terminal.session import Seat, Session
from taluva.terminal.words import say_bindings


class PuzzleSession(Session):
    """The puzzles in order, the current one's game (every seat a person: nobody replies),
    and the solver's streak."""

    def __init__(self, puzzles: Sequence[Puzzle], seed: int | None) -> None:
        self.order = puzzle_order(puzzles, seed)
        self.number = 0
        self.streak = 0
        self.solved = 0
        self.verdict: Verdict | None = None
        game = self.puzzle.game()
        super().__init__(game, [Seat(name) for name in game.players], seed)

    @property
    def puzzle(self) -> Puzzle:
        return self.order[self.number % len(self.order)]

    def next_puzzle(self) -> None:
        """Go on to the next puzzle (round again after the last)."""
        self.number += 1
        self.verdict = None
        self.game = self.puzzle.game()

    def judge(self, build: Move | str) -> Verdict:
        """Judge the turn made of the tile just placed and ``build``; count the streak."""
        tile = str(self.game.moves[-1])
        verdict = check_attempt(self.puzzle, tile, str(build))
        self.verdict = verdict
        self.streak = self.streak + 1 if verdict.right else 0
        self.solved += verdict.right
        return verdict


class PuzzleScreen(GameScreen):
    """The game screen of a puzzle (see the module's words), with its own keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next", T("Next puzzle")),
        Binding("a", "answer", T("Answer")),
        Binding("h", "answer", T("Answer"), show=False),
        Binding("l", "load", T("Load"), show=False),
    ]
    DEFAULT_CSS = """
    #puzzle { dock: top; height: auto; max-height: 40%; padding: 0 1;
        background: $boost; border-bottom: solid $accent; }
    """

    session: PuzzleSession

    def compose(self) -> ComposeResult:
        yield Static(id="puzzle")
        yield from super().compose()

    def after_change(self) -> None:
        if self.game.is_over:
            self.end_shown_at = self.game.ply  # the verdict says it all: no end screen
        super().after_change()
        self.show_task()

    def show_task(self) -> None:
        """The words above the map: the puzzle, the task or the verdict, the streak."""
        session = self.session
        puzzle = session.puzzle
        themes = "; ".join(say(THEMES[t]) for t in puzzle.themes)
        heading = _(
            "Puzzle {number} of {puzzles} ({difficulty}):",
            number=session.number + 1,
            puzzles=len(session.order),
            difficulty=say(puzzle.difficulty_name),
        )
        text = RichText(heading + " ", "bold")
        text.append(themes + "\n")
        verdict = session.verdict
        if verdict is None:
            text.append(say(task_words(puzzle)) + "\n", "bold yellow")
        else:
            style = "bold green" if verdict.right else "bold red"
            text.append(say(verdict.message) + "\n", style)
        keys = _(
            "Streak {streak}, solved {solved}.  n: next puzzle  a: the answer",
            streak=session.streak,
            solved=session.solved,
        )
        text.append(keys, "dim")
        self.query_one("#puzzle", Static).update(text)

    def play_move(self, move: Move | str) -> bool:
        """Place the tile as in a game; a build completes the turn and is judged."""
        game = self.game
        if self.session.verdict is not None:
            self.say(_("This puzzle is done: press n for the next one."))
            self.refresh_view()
            return False
        if game.phase != "build" or game.explain(move) is not None:
            return super().play_move(move)
        verdict = self.session.judge(move)
        if verdict.right:
            return super().play_move(move)
        self.session.undo()
        self.pointer.follow_hint(Move.parse(verdict.answer[0]))
        self.say(_("The winning tile is shown: {tile}.", tile=verdict.answer[0]), "bold magenta")
        self.after_change()
        return False

    def action_next(self) -> None:
        self.session.next_puzzle()
        self.position_replaced(_("A new puzzle."))

    def action_answer(self) -> None:
        tile, build = self.session.puzzle.answer
        move = Move.parse(tile if self.game.phase == "tile" else build)
        if move.kind == TILE or self.game.explain(move) is None:
            self.pointer.follow_hint(move)
        self.say(
            _("The winning turn: {tile}, then {build}.", tile=tile, build=build), "bold magenta"
        )
        self.refresh_view()

    def action_load(self) -> None:
        self.say(_("Puzzles come from the puzzle file: load games with 'taluva play --load'."))
        self.refresh_view()


class PuzzleApp(TaluvaApp):
    """The full-screen puzzles. It has TaluvaApp's views of the game (for its tests)."""

    TITLE = "Taluva: puzzles"

    def __init__(self, puzzles: Sequence[Puzzle], *, seed: int | None = None) -> None:
        App.__init__(self)  # TaluvaApp's own game screen is replaced by the puzzles'
        say_bindings(self)
        self.title = _("Taluva: puzzles")

        self.session = PuzzleSession(puzzles, seed)
        self.game_screen = PuzzleScreen(self.session, ai_delay=0.0, hint_level=2)
