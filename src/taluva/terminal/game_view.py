"""What the game screen shows: the map beside the side panel, drawn from a pointer's game
with the latest message and the zoom, and redrawn at most once per event."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal

from taluva.render import style
from taluva.terminal.ai_turns import AiTurns
from taluva.terminal.board import MapPane
from taluva.terminal.mapview import draw_map
from taluva.terminal.panel import SidePanel
from taluva.terminal.pointer import Pointer
from taluva.terminal.win_chance import WinChanceBar


class GameView(Horizontal):
    """The map and the side panel of ``pointer``'s game (with whether ``ai`` is paused and,
    if given, the win-chance bar)."""

    DEFAULT_CSS = "GameView { height: 1fr; }"

    def __init__(
        self, pointer: Pointer, ai: AiTurns, chances: WinChanceBar | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.pointer = pointer
        self.ai = ai
        self.chances = chances
        self.scale = 1
        self.message = ""
        self.message_style = ""
        self.redraw_pending = False

    def compose(self) -> ComposeResult:
        yield MapPane(id="map-pane")
        yield SidePanel(id="side")

    def say(self, text: str, kind: str = "") -> None:
        """Show ``text`` under the status (in the rich style ``kind``) from the next redraw."""
        self.message = text
        self.message_style = kind

    def zoom(self) -> None:
        """Switch between compact hexes and large ones with coordinates."""
        self.scale = 3 - self.scale
        self.refresh_view()

    def refresh_view(self) -> None:
        """Redraw soon: the many changes of one event make a single redraw."""
        if not self.redraw_pending:
            self.redraw_pending = True
            self.call_later(self.redraw)

    def redraw(self) -> None:
        """Update the widgets whose content changed (re-rendering them is what costs)."""
        self.redraw_pending = False
        pointer = self.pointer
        game = pointer.game
        picture = draw_map(game, pointer.overlay(), scale=self.scale, margin=2)
        self.query_one(MapPane).show(
            picture,
            sea=style.OUTSIDE_ZONE if game.zone else style.SEA,
            cursor=pointer.cursor if pointer.human_turn else None,
        )
        self.query_one(SidePanel).show(
            pointer,
            ai_paused=self.ai.paused,
            message=self.message,
            message_style=self.message_style,
            chances=self.chances.text() if self.chances is not None else None,
        )
