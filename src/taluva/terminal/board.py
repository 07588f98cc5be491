"""The island on screen: the map drawing as rich text and as a Textual widget that reports the
hex under the mouse and clicks on hexes, inside a scrolling sea."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from taluva.render import style
from taluva.terminal.mapview import MapPicture, key_colours

_STYLE_CACHE: dict[str, Style] = {}


def rich_style(key: str) -> Style:
    """The rich style of a map style key (cached: a map has a few dozen keys)."""
    found = _STYLE_CACHE.get(key)
    if found is None:
        fg, bg, bold = key_colours(key)
        found = _STYLE_CACHE[key] = Style(color=fg, bgcolor=bg, bold=bold)
    return found


def picture_text(picture: MapPicture) -> Text:
    """The map as rich Text, each run of equally styled cells as one span."""
    text = Text(no_wrap=True, overflow="crop")
    for y, row in enumerate(picture.chars):
        keys = picture.keys[y]
        start = 0
        for x in range(1, len(row) + 1):
            if x == len(row) or keys[x] != keys[start]:
                text.append("".join(row[start:x]), rich_style(keys[start]))
                start = x
        if y < picture.height - 1:
            text.append("\n")
    return text


def picture_strips(picture: MapPicture) -> list[Strip]:
    """The map as one Strip of styled segments per line (for the line API)."""
    strips = []
    for y, row in enumerate(picture.chars):
        keys = picture.keys[y]
        segments = []
        start = 0
        for x in range(1, len(row) + 1):
            if x == len(row) or keys[x] != keys[start]:
                segments.append(Segment("".join(row[start:x]), rich_style(keys[start])))
                start = x
        strips.append(Strip(segments, len(row)))
    return strips


def _region(x: int, y: int, width: int, height: int) -> Region:
    """A region of the map clipped at its top-left corner."""
    return Region(max(0, x), max(0, y), width, height)


class BoardView(Widget, can_focus=True):
    """The island, drawn line by line (only visible lines are rendered); reports the hex
    under the mouse and clicks on hexes."""

    @dataclass
    class Pointed(Message):
        """The mouse moved over a hex."""

        hex: int

    @dataclass
    class Clicked(Message):
        """A hex was clicked (button 1 selects, other buttons rotate)."""

        hex: int
        button: int

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.picture: MapPicture | None = None
        self.strips: list[Strip] = []

    def show(self, picture: MapPicture) -> None:
        resized = self.picture is None or (self.picture.width, self.picture.height) != (
            picture.width,
            picture.height,
        )
        self.picture = picture
        self.strips = picture_strips(picture)
        if resized:
            self.styles.width = picture.width
            self.styles.height = picture.height
        self.refresh(layout=resized)

    def render_line(self, y: int) -> Strip:
        if 0 <= y < len(self.strips):
            return self.strips[y]
        return Strip.blank(self.size.width)

    def _hex_of(self, event: events.MouseEvent) -> int | None:
        if self.picture is None:
            return None
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        return self.picture.hex_at_cell(offset.x, offset.y)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hex_ = self._hex_of(event)
        if hex_ is not None:
            self.post_message(self.Pointed(hex_))

    def on_click(self, event: events.Click) -> None:
        hex_ = self._hex_of(event)
        if hex_ is not None:
            self.post_message(self.Clicked(hex_, event.button))


class MapPane(ScrollableContainer):
    """The sea around the island: scrolls the board and keeps the cursor in sight."""

    DEFAULT_CSS = (
        f"MapPane {{ width: 1fr; height: 1fr; background: {style.SEA}; align: center middle; }}"
    )

    def compose(self) -> ComposeResult:
        yield BoardView(id="board")

    def show(self, picture: MapPicture, *, sea: str, cursor: int | None) -> None:
        """Show the map (unless it is unchanged) on a sea of colour ``sea``, scrolled so the
        hexes around ``cursor`` are visible."""
        board = self.query_one(BoardView)
        if board.picture is None or (board.picture.chars, board.picture.keys) != (
            picture.chars,
            picture.keys,
        ):
            board.show(picture)
        if self.styles.background.hex.lower() != sea:
            self.styles.background = sea
        if cursor is not None:
            x, y = picture.cell_of(cursor)
            scale = picture.scale
            self.scroll_to_region(
                _region(x - 8 * scale, y - 3 * scale, 16 * scale, 7 * scale), animate=False
            )
