"""The game screen: the controller that turns a person's keys and clicks into moves (the tile
ghost and its rotation, the build menu, typed moves, undo, hints, save and load) and keeps
the flow of play, over a GameView of the map and the side panel; AiTurns plays the AI seats.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import ClassVar

from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Input

from taluva.engine.errors import IllegalMove, InvalidRecord
from taluva.engine.game import Game
from taluva.engine.hexes import format_hex
from taluva.engine.moves import HUT, Move
from taluva.engine.wording import T
from taluva.lang import _, say
from taluva.learn.guide import load_guide
from taluva.terminal.ai_turns import AiTurns
from taluva.terminal.board import BoardView
from taluva.terminal.game_view import GameView
from taluva.terminal.menus import BuildMenu, DrawMenu
from taluva.terminal.move_line import MoveLine
from taluva.terminal.pointer import Pointer
from taluva.terminal.screens import EndScreen, HelpScreen, PathScreen
from taluva.terminal.session import SeatError, Session
from taluva.terminal.win_chance import WinChanceBar
from taluva.terminal.words import error_words, say_bindings


class GameScreen(Screen[None]):
    """The keys of the game over a Session: each moves the pointer, plays a move or opens a
    dialog, then the view is redrawn and the AI moves if it is its turn."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # before the map pane sees them: a map larger than the screen would scroll instead
        Binding("left", "cursor(3)", "W", show=False, priority=True),
        Binding("right", "cursor(0)", "E", show=False, priority=True),
        Binding("up", "cursor_row(-1)", "up", show=False, priority=True),
        Binding("down", "cursor_row(1)", "down", show=False, priority=True),
        Binding("r", "rotate(-1)", T("Rotate")),
        Binding("R", "rotate(1)", T("Rotate back"), show=False),
        Binding("enter", "select", T("Place/Build")),
        Binding("tab", "next_spot(1)", T("Next spot"), priority=True),
        Binding("shift+tab", "next_spot(-1)", T("Previous spot"), show=False, priority=True),
        Binding("colon", "command", T("Type move")),
        Binding("d", "draw_choice", T("Draw/double"), show=False),
        Binding("u", "undo", T("Undo")),
        Binding("h", "hint", T("Hint")),
        Binding("w", "win_chance", T("Win chances"), show=False),
        Binding("s", "save", T("Save")),
        Binding("l", "load", T("Load")),
        Binding("z", "zoom", T("Zoom"), show=False),
        Binding("p", "pause", T("Pause AI"), show=False),
        Binding("question_mark,f1", "help", T("Help")),
        Binding("q", "quit_game", T("Quit")),
    ]
    AUTO_FOCUS = "#board"

    def __init__(
        self, session: Session, *, ai_delay: float, hint_level: int, win_chance: bool = False
    ) -> None:
        super().__init__()
        say_bindings(self)
        self.session = session
        self.pointer = Pointer(session)
        self.ai = AiTurns(self, session, delay=ai_delay, hint_level=hint_level)
        self.chances = WinChanceBar(self, on=win_chance)
        self.view = GameView(self.pointer, self.ai, self.chances, id="main")
        self.quit_armed = False
        self.end_shown_at: int | None = None
        self.choice_open = False
        self.explained: str | None = None
        """The guide's section on the move last refused: ``?`` opens the help there."""
        self.settled = asyncio.Event()
        """Set while the game waits for a person (or is over): tests await it."""

    def compose(self) -> ComposeResult:
        yield self.view
        yield MoveLine()
        yield Footer()

    def on_mount(self) -> None:
        seed = self.session.seed
        self.app.sub_title = "" if seed is None else _("seed {seed}", seed=str(seed))
        self.pointer.reset()
        self.query_one(BoardView).focus()
        self.after_change()

    @property
    def game(self) -> Game:
        return self.session.game

    def say(self, text: str, kind: str = "") -> None:
        self.view.say(text, kind)

    def refresh_view(self) -> None:
        self.view.refresh_view()

    # ------------------------------------------------------------------ the flow of play

    def after_change(self) -> None:
        """Bring everything up to date after a move, undo or load; start the AI if due."""
        self.pointer.preview = None
        game = self.game
        if game.phase != "tile" or game.tile is not None:
            self.pointer.double = None
        self.chances.follow()
        self.refresh_view()
        if game.is_over:
            self.settled.set()
            if self.end_shown_at != game.ply:
                self.end_shown_at = game.ply
                self.app.push_screen(EndScreen(self.session.result_lines()), self.end_choice)
            return
        if self.session.ai_to_move:
            self.settled.clear()
            self.ai.take_turn()
            return
        self.settled.set()
        if self.pointer.drawing_choice() and self.pointer.double is None and not self.choice_open:
            self.action_draw_choice()

    def play_move(self, move: Move | str) -> bool:
        """Play a person's move; say why not if it is illegal."""
        try:
            played = self.session.play(move)
        except IllegalMove as error:
            words = _(
                "Not played: {reason}{rule}",
                reason=error_words(error),
                rule=self.rule_pointer(str(move)),
            )
            self.say(words, "bold red")
            self.refresh_view()
            return False
        self.explained = None
        self.pointer.hinted = None
        self.say(_("Played {move}.", move=str(played)))
        self.quit_armed = False
        if self.game.phase == "tile" and self.game.tile is not None:
            self.pointer.reset()
        elif self.game.phase == "build" and self.pointer.human_turn:
            self.pointer.to_nearest_build()
        self.after_change()
        return True

    def position_replaced(self, text: str) -> None:
        """After undo, load or a new game: drop the AI's work on the old position and start
        from the new one."""
        self.ai.forget()
        self.chances.forget()
        self.pointer.hinted = None
        self.end_shown_at = None
        self.say(text)
        self.pointer.reset()
        self.after_change()

    # ------------------------------------------------------------------ mouse

    def on_board_view_pointed(self, message: BoardView.Pointed) -> None:
        pointer, hex_ = self.pointer, message.hex
        if pointer.human_turn and hex_ != pointer.cursor and pointer.near_island(hex_):
            pointer.point_at(hex_)
            self.refresh_view()

    def on_board_view_clicked(self, message: BoardView.Clicked) -> None:
        if not self.pointer.human_turn or not self.pointer.near_island(message.hex):
            return
        self.pointer.cursor = message.hex
        if message.button == 1:
            self.action_select()
        else:
            self.action_rotate(-1)

    # ------------------------------------------------------------------ keys: the tile

    def action_cursor(self, direction: int) -> None:
        if isinstance(self.focused, Input):  # the arrows are the move line's while typing
            raise SkipAction()
        if self.pointer.human_turn and self.pointer.step(direction):
            self.quit_armed = False
            self.refresh_view()

    def action_cursor_row(self, step: int) -> None:
        if isinstance(self.focused, Input):
            raise SkipAction()
        if self.pointer.human_turn and self.pointer.step_row(step):
            self.refresh_view()

    def action_rotate(self, step: int) -> None:
        if self.game.phase == "tile" and self.pointer.human_turn:
            self.pointer.orientation = (self.pointer.orientation + step) % 6
            self.refresh_view()

    def action_next_spot(self, step: int) -> None:
        """Jump to the next (or previous) legal spot in reading order from the cursor."""
        if not self.pointer.next_spot(step):
            self.say(_("No legal spot to jump to now."))
        self.refresh_view()

    def action_zoom(self) -> None:
        self.view.zoom()

    # ------------------------------------------------------------------ keys: choosing moves

    def action_select(self) -> None:
        pointer = self.pointer
        if not pointer.human_turn:
            return
        game = self.game
        if game.phase == "tile":
            move = pointer.ghost_move()
            if move is None:
                self.action_draw_choice()
            else:
                self.play_move(move)
            return
        builds = pointer.builds_at(pointer.cursor)
        if not builds:
            refused = Move(HUT, pointer.cursor)
            explained = game.explain(refused)
            reason = _("nothing may be built here now") if explained is None else say(explained)
            rule = self.rule_pointer(str(refused))
            where = format_hex(pointer.cursor)
            self.say(
                _("No build on {hex}: {reason}{rule}", hex=where, reason=reason, rule=rule), "red"
            )
            self.refresh_view()
            return

        def chosen(key: str | None) -> None:
            pointer.preview = None
            if key is None:
                self.refresh_view()
            else:
                self.play_move(key)

        self.app.push_screen(BuildMenu(pointer, builds, self.refresh_view), chosen)

    def action_draw_choice(self) -> None:
        pointer = self.pointer
        if not (pointer.human_turn and pointer.drawing_choice()) or self.choice_open:
            return
        self.choice_open = True

        def chosen(key: str | None) -> None:
            self.choice_open = False
            if key is None:
                self.say(_("Choose with d: draw a tile or take a double-hex tile."))
                self.refresh_view()
            elif key == "draw":
                self.play_move("draw")
            else:
                pointer.double = key
                pointer.orientation = 0
                pointer.reset()
                self.refresh_view()

        self.app.push_screen(DrawMenu(pointer), chosen)

    def action_command(self) -> None:
        self.query_one(MoveLine).open()

    def on_move_line_typed(self, message: MoveLine.Typed) -> None:
        self.query_one(BoardView).focus()
        if message.text and self.pointer.human_turn:
            self.play_move(message.text)
        elif message.text:
            self.say(_("Wait for your turn to type a move."))
            self.refresh_view()

    def action_hint(self) -> None:
        self.ai.hint()

    def action_win_chance(self) -> None:
        self.chances.toggle()
        if self.chances.on:
            self.say(_("Win chances shown (w hides them)."))
        else:
            self.say(_("Win chances hidden."))
        self.refresh_view()

    # ------------------------------------------------------------------ keys: the game

    def action_undo(self) -> None:
        try:
            taken = self.session.undo()
        except IllegalMove as error:
            self.say(_("Cannot undo: {reason}.", reason=error_words(error)), "red")
            self.refresh_view()
            return
        moves = ", ".join(str(m) for m in reversed(taken))
        self.position_replaced(_("Took back {moves}.", moves=moves))

    def action_save(self) -> None:
        default = f"taluva-{datetime.now():%Y%m%d-%H%M%S}.json"

        def chosen(path: str | None) -> None:
            if path:
                try:
                    saved = self.session.save(path)
                except InvalidRecord as error:
                    self.say(_("Not saved: {reason}", reason=error_words(error)), "bold red")
                else:
                    self.say(_("Saved to {path}.", path=str(saved)))
            self.refresh_view()

        self.app.push_screen(PathScreen(_("Save the game record to:"), default), chosen)

    def action_load(self) -> None:
        def chosen(path: str | None) -> None:
            if not path:
                return
            try:
                self.session.load(path)
            except (InvalidRecord, SeatError) as error:
                self.say(_("Not loaded: {reason}", reason=error_words(error)), "bold red")
                self.refresh_view()
                return
            self.ai.paused = False
            self.position_replaced(_("Loaded {path} at ply {ply}.", path=path, ply=self.game.ply))

        self.app.push_screen(PathScreen(_("Load a game record from:"), ""), chosen)

    def action_pause(self) -> None:
        self.ai.paused = not self.ai.paused
        self.say(_("AI paused.") if self.ai.paused else _("AI resumed."))
        if self.ai.paused:
            self.refresh_view()
        else:
            self.after_change()

    def rule_pointer(self, move: str) -> str:
        """Remember the guide's section on a refused move, for ``?``; the words saying so."""
        section = load_guide().section_for_move(self.game, move)
        self.explained = None if section is None else section.id
        if section is None:
            return ""
        return " " + _("(? for the rule: {title})", title=say(section.title))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.game.expansions, self.explained))

    def action_quit_game(self) -> None:
        if self.quit_armed or self.game.is_over or self.game.ply == 0:
            self.ai.forget()
            self.app.exit()
            return
        self.quit_armed = True
        self.say(_("Press q again to quit (s saves the game first)."), "bold yellow")
        self.refresh_view()

    def end_choice(self, choice: str | None) -> None:
        if choice == "quit":
            self.app.exit()
        elif choice == "undo":
            self.action_undo()
        elif choice == "save":
            self.action_save()
        elif choice == "new":
            self.session.new_game()
            self.app.sub_title = _("seed {seed}", seed=str(self.session.seed))
            self.position_replaced(_("A new game."))
