"""The line at the bottom of the game screen where a move is typed in notation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input

from taluva.lang import _


class MoveLine(Input):
    """Hidden until opened (the ``:`` key); Enter or Escape closes it and says what was
    typed."""

    DEFAULT_CSS = """
    MoveLine { dock: bottom; display: none; }
    MoveLine.shown { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", show=False)]

    @dataclass
    class Typed(Message):
        """The line closed: the move typed, or "" if nothing was (or Escape was pressed)."""

        text: str

    def __init__(self) -> None:
        super().__init__(
            placeholder=_("move in notation, e.g. tile 1,-2 3 or hut 1,0"), id="command"
        )

    def open(self) -> None:
        self.add_class("shown")
        self.value = ""
        self.focus()

    def action_close(self) -> None:
        self.remove_class("shown")
        self.post_message(self.Typed(""))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.remove_class("shown")
        self.post_message(self.Typed(event.value.strip()))
