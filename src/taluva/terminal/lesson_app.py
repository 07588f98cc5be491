"""``taluva learn`` full screen: the game screen of ``taluva play`` with the lesson's words
above the map, the step's hexes outlined in yellow, only the taught move played (any other
move answered in one line), the opponents' scripted replies played as AI turns, and at the
end a choice to play the computer at its first level."""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text as RichText
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static

from taluva.engine.hexes import format_hex
from taluva.engine.moves import Move
from taluva.engine.wording import T
from taluva.lang import _, say
from taluva.terminal.app import TaluvaApp
from taluva.terminal.game_screen import GameScreen
from taluva.terminal.game_view import GameView
from taluva.terminal.lesson import FIRST_LEVEL, LessonSession, answer_words, step_heading
from taluva.terminal.mapview import Overlay
from taluva.terminal.pointer import Pointer
from taluva.terminal.words import say_bindings

PLAY_LEVEL: Final = "play"
"""``LessonApp.choice`` when the person asked to play the computer after the lesson."""


class LessonPointer(Pointer):
    """The pointer of the lesson: the step's hexes are outlined (in the colour of a last
    move) while the learner is to move, and only the legal spots among them are marked (the
    lesson shows one place, not the dozens a real turn offers)."""

    session: LessonSession

    def overlay(self) -> Overlay:
        overlay = super().overlay()
        step = self.session.step
        if step is not None and self.human_turn:
            overlay.highlight = frozenset(step.highlight)
            overlay.spots &= overlay.highlight
        return overlay


class IntroScreen(ModalScreen[None]):
    """The lesson's first words, before the board."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,escape,space", "close", T("Start"))]
    DEFAULT_CSS = """
    IntroScreen { align: center middle; }
    IntroScreen > Static { width: 90; max-width: 100%; height: auto; border: thick $accent;
        background: $surface; padding: 1 2; }
    """

    def __init__(self, session: LessonSession) -> None:
        super().__init__()
        say_bindings(self)
        self.session = session

    def compose(self) -> ComposeResult:
        tutorial = self.session.tutorial
        text = RichText(say(tutorial.title) + "\n\n", "bold")
        for paragraph in tutorial.intro:
            text.append(say(paragraph) + "\n\n")
        keys = _(
            "Keys: arrows or the mouse move the tile, r turns it, Enter places it or opens the "
            "builds of a hex, h shows the step's move, : types a move, ? lists every key."
        )
        text.append(keys + "\n\n", "dim")
        text.append(_("Press Enter to start."), "bold")
        yield Static(text, id="intro-text")

    def action_close(self) -> None:
        self.dismiss(None)


class EndScreen(ModalScreen[str | None]):
    """The won game: the result in the engine's words, the lesson's last words, and what
    next."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "p,enter",
            "choose('play')",
            T("Play the computer (level {level})", level=str(FIRST_LEVEL)),
        ),
        Binding("escape", "choose('look')", T("Look at the board")),
        Binding("q", "choose('quit')", T("Quit")),
    ]
    DEFAULT_CSS = """
    EndScreen { align: center middle; }
    EndScreen > Static { width: 90; max-width: 100%; height: auto; border: thick $success;
        background: $surface; padding: 1 2; }
    """

    def __init__(self, session: LessonSession) -> None:
        super().__init__()
        say_bindings(self)
        self.session = session

    def compose(self) -> ComposeResult:
        headline, *lines = self.session.result_lines()
        text = RichText(headline + "\n", "bold")
        text.append("".join(line + "\n" for line in lines))
        for paragraph in self.session.tutorial.ending:
            text.append("\n" + say(paragraph) + "\n")
        keys = _(
            "Enter or p: play the computer (level {level})   Escape: look at the board   q: quit",
            level=str(FIRST_LEVEL),
        )
        text.append("\n" + keys, "bold")
        yield Static(text, id="end-text")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)


class LessonScreen(GameScreen):
    """The game screen of the lesson (see the module's words), with its own keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "hint", T("Show the move")),
        Binding("u", "undo", T("Undo"), show=False),
        Binding("l", "load", T("Load"), show=False),
    ]
    DEFAULT_CSS = """
    #lesson { dock: top; height: auto; max-height: 45%; padding: 0 1;
        background: $boost; border-bottom: solid $accent; overflow-y: auto; }
    """

    session: LessonSession

    def __init__(self, session: LessonSession, *, ai_delay: float) -> None:
        super().__init__(session, ai_delay=ai_delay, hint_level=FIRST_LEVEL)
        self.pointer = LessonPointer(session)
        self.view = GameView(self.pointer, self.ai, self.chances, id="main")
        self.choice: str | None = None
        self.pointed: int | None = None
        """The ply of the step whose hexes the cursor was put on."""

    def compose(self) -> ComposeResult:
        yield Static(id="lesson")
        yield from super().compose()

    def on_mount(self) -> None:
        super().on_mount()
        self.app.push_screen(IntroScreen(self.session))

    # ------------------------------------------------------------------ the lesson's flow

    def after_change(self) -> None:
        game = self.game
        if game.is_over and self.end_shown_at != game.ply:
            self.end_shown_at = game.ply  # the lesson's end screen, not the game's
            super().after_change()
            self.app.push_screen(EndScreen(self.session), self.lesson_end)
        else:
            super().after_change()
        step = self.session.step
        if step is not None and self.pointed != step.ply:
            self.pointed = step.ply  # a new step: the cursor goes to its hexes, the map with it
            self.pointer.point_at(step.highlight[0])
            self.refresh_view()
        self.show_lesson()

    def show_lesson(self) -> None:
        """The words above the map: what the opponents did, then the step (what to do, why,
        where), or the end."""
        session = self.session
        step = session.step
        text = RichText()
        before = session.last_step
        if before is not None and before.then and (step is not None or session.ai_to_move):
            text.append(_("Meanwhile:") + " ", "bold")
            text.append(" ".join(say(paragraph) for paragraph in before.then) + "\n")
        if session.game.is_over:
            text.append(_("You won the lesson's game.") + " ", "bold green")
            text.append(
                _(
                    "Press p for a game against the computer (level {level}).",
                    level=str(FIRST_LEVEL),
                )
            )
        elif step is None:
            text.append(_("Your opponents are playing…"), "italic")
        else:
            text.append(step_heading(session, step) + "\n", "bold yellow")
            text.append(" ".join(say(paragraph) for paragraph in step.why) + "\n")
            where = " ".join(format_hex(h) for h in step.highlight)
            text.append(_("Outlined in yellow: {hexes}.  h shows the move.", hexes=where), "dim")
        self.query_one("#lesson", Static).update(text)

    def play_move(self, move: Move | str) -> bool:
        """Play the step's move; answer any other move in one line and keep the step."""
        answer = self.session.answer(str(move))
        if answer.verdict != "taught":
            style = "bold yellow" if answer.verdict == "other" else "bold red"
            self.say(answer_words(answer), style)
            self.refresh_view()
            return False
        return super().play_move(move)

    def action_hint(self) -> None:
        """Show the step's move: the ghost tile goes there, or the cursor on the build."""
        step = self.session.step
        if step is None:
            self.say(_("Wait for your turn: the step's move is shown then."))
        else:
            self.pointer.follow_hint(step.move)
            words = _("This step's move: {move}. Press Enter to play it.", move=str(step.move))
            self.say(words, "bold magenta")
        self.refresh_view()

    def action_load(self) -> None:
        self.say(_("The lesson plays its own game: load records with 'taluva play --load'."))
        self.refresh_view()

    def lesson_end(self, choice: str | None) -> None:
        if choice == "play":
            self.choice = PLAY_LEVEL
            self.app.exit()
        elif choice == "quit":
            self.app.exit()
        else:
            self.say(
                _(
                    "Press p to play the computer (level {level}), q to quit.",
                    level=str(FIRST_LEVEL),
                )
            )
            self.refresh_view()

    def action_pause(self) -> None:
        """p pauses the opponents while they move; once the lesson is won, it starts a game
        against the computer."""
        if self.game.is_over:
            self.lesson_end("play")
        else:
            super().action_pause()


class LessonApp(TaluvaApp):
    """The full-screen lesson; ``choice`` says what the person chose at the end (``play``:
    a game against the computer). It has TaluvaApp's views of the game (for its tests)."""

    TITLE = "Taluva: learn to play"

    def __init__(self, session: LessonSession, *, ai_delay: float = 0.8) -> None:
        App.__init__(self)  # TaluvaApp's own game screen is replaced by the lesson's
        say_bindings(self)
        self.title = _("Taluva: learn to play")
        self.session = session

        self.game_screen = LessonScreen(session, ai_delay=ai_delay)

    @property
    def choice(self) -> str | None:
        return self.game_screen.choice if isinstance(self.game_screen, LessonScreen) else None
