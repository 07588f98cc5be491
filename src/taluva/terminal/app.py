"""``taluva play`` and ``taluva replay`` full screen: the Textual apps.

TaluvaApp shows one GameScreen over a Session (the island as a coloured hex map with a ghost
of the drawn tile following the cursor, the side panel, the keys; AI seats think in a worker
thread so the screen never freezes). ReplayApp steps through a recorded game.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.text import Text as RichText
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Footer, Static

from taluva.engine.game import Game
from taluva.engine.moves import Move
from taluva.engine.wording import T
from taluva.lang import _, say
from taluva.render.position import position_at
from taluva.terminal.board import BoardView, MapPane
from taluva.terminal.game_screen import GameScreen
from taluva.terminal.mapview import Overlay, draw_map
from taluva.terminal.replay import describe_ply
from taluva.terminal.session import Session, pieces_in_words
from taluva.terminal.words import say_bindings


class TaluvaApp(App[None]):
    """The full-screen game: a GameScreen over ``session``; its properties show what the
    screen shows (the game, the cursor, the message, the AI's state)."""

    TITLE = "Taluva"

    def __init__(
        self,
        session: Session,
        *,
        ai_delay: float = 0.8,
        hint_level: int = 5,
        win_chance: bool = False,
    ) -> None:
        super().__init__()
        say_bindings(self)
        self.session = session
        self.game_screen = GameScreen(
            session, ai_delay=ai_delay, hint_level=hint_level, win_chance=win_chance
        )

    def get_default_screen(self) -> GameScreen:
        return self.game_screen

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def settled(self) -> asyncio.Event:
        """Set while the game waits for a person (or is over)."""
        return self.game_screen.settled

    @property
    def message(self) -> str:
        return self.game_screen.view.message

    @property
    def cursor(self) -> int:
        return self.game_screen.pointer.cursor

    @cursor.setter
    def cursor(self, hex_: int) -> None:
        self.game_screen.pointer.cursor = hex_

    @property
    def orientation(self) -> int:
        return self.game_screen.pointer.orientation

    @property
    def double(self) -> str | None:
        return self.game_screen.pointer.double

    @property
    def preview(self) -> Move | None:
        return self.game_screen.pointer.preview

    def ghost_move(self) -> Move | None:
        return self.game_screen.pointer.ghost_move()

    def overlay(self) -> Overlay:
        return self.game_screen.pointer.overlay()

    @property
    def ai_running(self) -> bool:
        return self.game_screen.ai.running

    @property
    def ai_timer(self) -> Timer | None:
        return self.game_screen.ai.timer


class ReplayApp(App[None]):
    """Step through a recorded game."""

    TITLE = "Taluva replay"
    CSS = "#side { width: 46; padding: 0 1; background: $panel; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n,space", "step(1)", T("Next")),
        Binding("left,p,backspace", "step(-1)", T("Previous")),
        Binding("home", "jump(0)", T("Start")),
        Binding("end", "jump(-1)", T("End")),
        Binding("z", "zoom", T("Zoom")),
        Binding("q,escape", "quit", T("Quit")),
    ]

    def __init__(self, game: Game, start: int = 0) -> None:
        super().__init__()
        say_bindings(self)
        self.title = _("Taluva replay")
        self.record_game = game
        self.ply = start
        self.scale = 1

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield MapPane(id="map-pane")
            with Vertical(id="side"):
                yield Static(id="info")
        yield Footer()

    def on_mount(self) -> None:
        self.show_ply()

    def show_ply(self) -> None:
        game = self.record_game
        position = position_at(game, self.ply)
        self.query_one(BoardView).show(draw_map(position, scale=self.scale, margin=1))
        text = RichText(describe_ply(game, self.ply) + "\n\n", "bold")
        for player, name in enumerate(position.players):
            placed, left = pieces_in_words(position, player)
            pieces = _("placed {placed}; left {left}", placed=placed, left=left)
            text.append(_("{player}: {pieces}", player=say(name), pieces=pieces) + "\n")
        if position.is_over:
            headline, lines = position.result_in_words()
            text.append(f"\n{say(headline)}\n", "bold")
            text.append("".join(say(line) + "\n" for line in lines))
        text.append("\n" + _("←/→ step, Home/End jump, z zoom, q quit"), "dim")

        self.query_one("#info", Static).update(text)

    def action_step(self, step: int) -> None:
        self.ply = max(0, min(self.record_game.ply, self.ply + step))
        self.show_ply()

    def action_jump(self, where: int) -> None:
        self.ply = self.record_game.ply if where < 0 else 0
        self.show_ply()

    def action_zoom(self) -> None:
        self.scale = 3 - self.scale
        self.show_ply()
