"""``taluva play`` and ``taluva replay`` full screen: a Textual app over a Session.

The island is a coloured hex map; a ghost of the drawn tile follows the cursor (arrow keys
or mouse) and legal spots are marked. AI seats think in a worker thread so the screen never
freezes, and each AI move stays visible for a short pause.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, ClassVar, Final

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.geometry import Region
from textual.message import Message
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from taluva.engine.errors import IllegalMove, InvalidRecord
from taluva.engine.game import Game
from taluva.engine.hexes import DELTAS, coords, format_hex, hex_at, pixel_centre
from taluva.engine.moves import DOUBLE, HUT, Move
from taluva.engine.tiles import (
    TERRAIN_NAMES,
    double_footprint,
    double_terrains,
    footprint,
    tile_terrains,
)
from taluva.render import style
from taluva.render.position import (
    doubles_of,
    lagoons_of,
    move_hexes,
    position_at,
)
from taluva.terminal.mapview import GLYPHS, MapPicture, Overlay, draw_map, key_colours
from taluva.terminal.replay import describe_ply
from taluva.terminal.session import (
    SeatError,
    Session,
    ai_hint,
    tile_words,
)

KEYS: Final = (
    ("arrows, mouse", "move the cursor (the ghost tile follows it)"),
    ("r / R, right click", "rotate the tile clockwise / anticlockwise"),
    ("Enter, click", "place the tile; in the build phase: choose a build on this hex"),
    ("Tab / Shift+Tab", "jump to the next / previous legal spot"),
    (":", "type a move in notation, e.g. tile 1,-2 3 or expand sand 1,0 2,-1"),
    ("d", "Double-Hex: choose again between drawing and a double-hex tile"),
    ("u", "undo (against the AI: back to your previous decision)"),
    ("h", "hint: the AI's suggestion for you"),
    ("s / l", "save the game record / load one"),
    ("z", "zoom: large hexes with coordinates, or compact"),
    ("p", "pause or resume the AI (when only AIs play)"),
    ("?", "this help"),
    ("q", "quit (press twice)"),
)
"""Every key of the game screen, for the help screen."""

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


# ------------------------------------------------------------------------------- widgets


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


class ChoiceScreen(ModalScreen[str | None]):
    """A list of choices; highlighting one can preview it on the board."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    ChoiceScreen { align: center bottom; background: transparent; }
    ChoiceScreen > Vertical { width: 72; height: auto; max-height: 80%;
        border: thick $accent; background: $surface; padding: 0 1; }
    ChoiceScreen OptionList { height: auto; max-height: 20; }
    """

    def __init__(
        self,
        title: str,
        choices: list[tuple[str, str]],
        on_highlight: Callable[[str | None], None] | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.on_highlight = on_highlight

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="choice-title")
            yield OptionList(*(Option(label, id=key) for key, label in self.choices))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.on_highlight is not None:
            self.on_highlight(event.option_id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PathScreen(ModalScreen[str | None]):
    """Ask for a file name (save or load)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    PathScreen { align: center middle; }
    PathScreen > Vertical { width: 72; height: auto; border: thick $accent;
        background: $surface; padding: 0 1; }
    """

    def __init__(self, title: str, default: str) -> None:
        super().__init__()
        self.title_text = title
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text)
            yield Input(value=self.default, id="path")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """Every key of the game."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q,enter", "close", "Close")
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Static { width: 90; height: auto; border: thick $accent;
        background: $surface; padding: 1 2; }
    """

    def compose(self) -> ComposeResult:
        text = Text("Taluva: keys\n\n", style="bold")
        for keys, meaning in KEYS:
            text.append(f"{keys:>20}  ", style="bold cyan")
            text.append(meaning + "\n")
        text.append(
            "\nThe map: each hex shows its terrain (colour and letter), its level (the number; "
            "higher hexes are lighter) and its piece in the owner's colour: "
            f"{GLYPHS['hut']} hut, {GLYPHS['temple']} temple, {GLYPHS['tower']} tower, "
            f"{GLYPHS['ship']} ship. Yellow edges outline the last turn, + marks legal spots "
            "for the tile as it is turned now. Press Escape to close."
        )
        yield Static(text)

    def action_close(self) -> None:
        self.dismiss(None)


class EndScreen(ModalScreen[str | None]):
    """The ranking and why the game ended."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "choose('look')", "Look at the board"),
        Binding("n", "choose('new')", "New game"),
        Binding("u", "choose('undo')", "Undo"),
        Binding("s", "choose('save')", "Save"),
        Binding("q", "choose('quit')", "Quit"),
    ]
    DEFAULT_CSS = """
    EndScreen { align: center middle; }
    EndScreen > Static { width: 90; height: auto; border: thick $success;
        background: $surface; padding: 1 2; }
    """

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        text = Text(self.lines[0] + "\n\n", style="bold")
        for line in self.lines[1:]:
            text.append(line + "\n")
        text.append("\nn new game   u undo   s save   Escape look at the board   q quit", "dim")
        yield Static(text, id="end-text")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)


# ------------------------------------------------------------------------------- the game


def tile_spots(legal: list[Move], kind: str, code: str, orientation: int) -> frozenset[int]:
    """Anchor hexes where the tile (or double-hex ``code``) fits in ``orientation``."""
    spots = set()
    for move in legal:
        if move.kind != kind or (kind == "double" and move.tile != code):
            continue
        if move.orientation == orientation:
            spots.add(move.hex)
        if kind == "double" and code in ("VV", "JJ") and move.orientation + 3 == orientation:
            spots.add(move.hex + DELTAS[move.orientation])
    return frozenset(spots)


def ghost_cells(move: Move, tile: str | None) -> dict[int, int]:
    """Hex to terrain for the ghost of a tile or double-hex move (``tile``: the drawn code)."""
    if move.kind == "tile":
        hexes: tuple[int, ...] = footprint(move.hex, move.orientation)
        terrains: tuple[int, ...] = tile_terrains(tile or "")
    else:
        hexes = double_footprint(move.hex, move.orientation)
        terrains = double_terrains(move.tile)
    return dict(zip(hexes, terrains, strict=True))


def build_label(move: Move, game: Game) -> str:
    """``Expand into sand: 3 huts on 1,0 2,-1`` and the like, for the action menu."""
    where = " ".join(format_hex(h) for h in move_hexes(move))
    if move.kind == "hut":
        return f"Hut: found a new settlement on {where}"
    if move.kind == "expand":
        huts = sum(game.level(h) for h in move.hexes)
        return (
            f"Expand into {TERRAIN_NAMES[move.terrain]}: {huts} hut{'s' * (huts != 1)} on {where}"
        )
    if move.kind == "temple":
        return f"Temple on {where}"
    if move.kind == "tower":
        return f"Tower on {where}"
    if move.kind == "ship":
        return f"Ship into the lagoon at {where}"
    return str(move)


class TaluvaApp(App[None]):
    """The full-screen game."""

    TITLE = "Taluva"
    CSS = (
        """
    Screen { layout: vertical; }
    #main { height: 1fr; }
    #map-pane { width: 1fr; height: 1fr; background: """
        + style.SEA
        + """; align: center middle; }
    #side { width: 38%; max-width: 46; min-width: 28; height: 1fr; padding: 0 1;
        background: $panel; }
    #players { height: auto; margin-bottom: 1; }
    #tile { height: auto; }
    #status { height: auto; margin-bottom: 1; }
    #log-pane { height: 1fr; border-top: solid $accent; }
    #command { dock: bottom; display: none; }
    #command.shown { display: block; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(3)", "W", show=False),
        Binding("right", "cursor(0)", "E", show=False),
        Binding("up", "cursor_row(-1)", "up", show=False),
        Binding("down", "cursor_row(1)", "down", show=False),
        Binding("r", "rotate(-1)", "Rotate"),
        Binding("R", "rotate(1)", "Rotate back", show=False),
        Binding("enter", "select", "Place/Build"),
        Binding("tab", "next_spot(1)", "Next spot", priority=True),
        Binding("shift+tab", "next_spot(-1)", "Previous spot", show=False, priority=True),
        Binding("colon", "command", "Type move"),
        Binding("d", "draw_choice", "Draw/double", show=False),
        Binding("u", "undo", "Undo"),
        Binding("h", "hint", "Hint"),
        Binding("s", "save", "Save"),
        Binding("l", "load", "Load"),
        Binding("z", "zoom", "Zoom", show=False),
        Binding("p", "pause", "Pause AI", show=False),
        Binding("question_mark,f1", "help", "Help"),
        Binding("q", "quit_game", "Quit"),
    ]

    def __init__(self, session: Session, *, ai_delay: float = 0.8, hint_level: int = 5) -> None:
        super().__init__()
        self.session = session
        self.ai_delay = ai_delay
        self.hint_level = hint_level
        self.cursor = hex_at(0, 0)
        self.column = 0
        self.orientation = 0
        self.double: str | None = None
        self.scale = 1
        self.preview: Move | None = None
        self.hinted: Move | None = None
        self.message = ""
        self.message_style = ""
        self.token = 0
        self.ai_running = False
        self.ai_paused = False
        self.ai_timer: Any = None
        self.quit_armed = False
        self.end_shown_at: int | None = None
        self.choice_open = False
        self.redraw_pending = False
        self.shown: dict[str, Text] = {}
        self.settled = asyncio.Event()
        """Set while the app waits for a person (or the game is over): tests await it."""

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with ScrollableContainer(id="map-pane"):
                yield BoardView(id="board")
            with Vertical(id="side"):
                yield Static(id="players")
                yield Static(id="tile")
                yield Static(id="status")
                with VerticalScroll(id="log-pane"):
                    yield Static(id="log")
        yield Input(placeholder="move in notation, e.g. tile 1,-2 3 or hut 1,0", id="command")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"seed {self.session.seed}" if self.session.seed is not None else ""
        self.reset_cursor()
        self.query_one(BoardView).focus()
        self.after_change()

    # ------------------------------------------------------------------ state helpers

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def human_turn(self) -> bool:
        return not self.game.is_over and not self.session.ai_to_move

    def legal(self) -> list[Move]:
        return self.game.legal_moves()

    def drawing_choice(self) -> bool:
        """Whether the player to move must first choose between drawing and a double-hex."""
        game = self.game
        return game.phase == "tile" and game.tile is None and not game.is_over

    def ghost_move(self) -> Move | None:
        """The tile move the ghost stands for at the cursor, if any tile is in hand."""
        game = self.game
        if game.phase != "tile" or not self.human_turn:
            return None
        if game.tile is not None:
            return Move.place_tile(self.cursor, self.orientation)
        if self.double is not None:
            return Move.place_double(self.double, self.cursor, self.orientation)
        return None

    def reset_cursor(self) -> None:
        """Put the cursor on the legal spot nearest the middle of the island."""
        spots = self.spot_moves()
        land = self.game.land()
        if land:
            points = [pixel_centre(h) for h in land]
            middle = (
                sum(x for x, _ in points) / len(points),
                sum(y for _, y in points) / len(points),
            )
        else:
            middle = (0.0, 0.0)

        def distance(hex_: int) -> float:
            x, y = pixel_centre(hex_)
            return (x - middle[0]) ** 2 + (y - middle[1]) ** 2

        if spots:
            self.cursor, orientation = min(spots, key=lambda spot: (distance(spot[0]), spot))
            if self.game.phase == "tile":
                self.orientation = orientation
        elif land:
            self.cursor = min(land, key=distance)
        q, r = coords(self.cursor)
        self.column = 2 * q + r

    def spot_moves(self) -> list[tuple[int, int]]:
        """``(hex, orientation)`` of every legal spot, in reading order (for Tab)."""
        game = self.game
        if not self.human_turn:
            return []
        legal = self.legal()
        if game.phase == "tile":
            kind = "tile" if game.tile is not None else "double"
            if kind == "double" and self.double is None:
                return []
            found = [
                (move.hex, move.orientation)
                for move in legal
                if move.kind == kind and (kind == "tile" or move.tile == self.double)
            ]
        else:
            found = sorted({(h, 0) for move in legal for h in self.action_hexes(move)})
        return sorted(found, key=lambda spot: (coords(spot[0])[1], coords(spot[0])[0], spot[1]))

    def action_hexes(self, move: Move) -> tuple[int, ...]:
        """Hexes where a build can be chosen: its own, or every hex of a ship's lagoon."""
        if move.kind == "ship":
            for lagoon in lagoons_of(self.game):
                if move.hex in lagoon:
                    return tuple(sorted(lagoon))
        return move_hexes(move)

    def builds_at(self, hex_: int) -> list[Move]:
        return sorted(
            (move for move in self.legal() if hex_ in self.action_hexes(move)),
            key=lambda move: (["hut", "expand", "temple", "tower", "ship"].index(move.kind),
                              str(move)),
        )  # fmt: skip

    def say(self, text: str, kind: str = "") -> None:
        self.message = text
        self.message_style = kind

    # ------------------------------------------------------------------ drawing

    def overlay(self) -> Overlay:
        game = self.game
        overlay = Overlay(cursor=self.cursor if self.human_turn else None)
        move = self.ghost_move()
        if move is not None:
            overlay.ghost = ghost_cells(move, game.tile)
            overlay.ghost_legal = move in set(self.legal())
            kind = "tile" if game.tile is not None else "double"
            overlay.spots = tile_spots(self.legal(), kind, self.double or "", self.orientation)
        shown = self.preview or self.hinted
        if shown is not None and shown.kind not in ("tile", "double", "draw"):
            overlay.preview = frozenset(move_hexes(shown))
            overlay.preview_kind = "hut" if shown.kind == "expand" else shown.kind
            overlay.preview_owner = game.to_move
        elif shown is not None and shown.kind in ("tile", "double") and move is None:
            overlay.highlight = frozenset(move_hexes(shown))
        return overlay

    def refresh_view(self) -> None:
        """Redraw soon: the many changes of one event make a single redraw."""
        if not self.redraw_pending:
            self.redraw_pending = True
            self.call_later(self.redraw)

    def redraw(self) -> None:
        """Update the widgets whose content changed (re-rendering them is what costs)."""
        self.redraw_pending = False
        game = self.game
        board = self.query_one(BoardView)
        picture = draw_map(game, self.overlay(), scale=self.scale, margin=2)
        if board.picture is None or (board.picture.chars, board.picture.keys) != (
            picture.chars,
            picture.keys,
        ):
            board.show(picture)
        pane = self.query_one("#map-pane", ScrollableContainer)
        sea = style.OUTSIDE_ZONE if game.zone else style.SEA
        if pane.styles.background.hex.lower() != sea:
            pane.styles.background = sea
        if self.human_turn:
            x, y = picture.cell_of(self.cursor)
            pane.scroll_to_region(
                _region(x - 8 * self.scale, y - 3 * self.scale, 16 * self.scale, 7 * self.scale),
                animate=False,
            )
        self.show_text("#players", self.players_text())
        self.show_text("#tile", self.tile_text())
        self.show_text("#status", self.status_text())
        if self.show_text("#log", self.log_text()):
            self.query_one("#log-pane", VerticalScroll).scroll_end(animate=False)

    def show_text(self, selector: str, text: Text) -> bool:
        """Show ``text`` in a Static unless it already shows exactly that; say if it changed."""
        if self.shown.get(selector) == text:
            return False
        self.shown[selector] = text
        self.query_one(selector, Static).update(text)
        return True

    def players_text(self) -> Text:
        session = self.session
        game = self.game
        text = Text()
        for player, seat in enumerate(session.seats):
            colour = style.player_colour(player)
            turn = not game.is_over and player == game.to_move
            text.append("▶ " if turn else "  ", "bold yellow")
            text.append(f" {'abcde'[player]} ", Style(color=style.contrast_text(colour),
                                                       bgcolor=colour, bold=True))  # fmt: skip
            text.append(f" {game.players[player]}", "bold" if turn else "")
            text.append(f"  {seat.spec or 'person'}\n", "dim")
            supply = game.supply(player)
            pieces = (
                f"    {GLYPHS['hut']} {supply['huts']:>2}  {GLYPHS['temple']} {supply['temples']}"
                f"  {GLYPHS['tower']} {supply['towers']}"
            )
            if "ships" in game.options.get("expansions", []):
                pieces += f"  {GLYPHS['ship']} {supply['ships']}"
            text.append(pieces + f"   score {game.score(player)}")
            if player in game.eliminated:
                text.append("  out", "bold red")
            text.append("\n")
        return text

    def tile_text(self) -> Text:
        game = self.game
        text = Text()
        if game.is_over:
            text.append("Game over.\n", "bold")
            return text
        text.append(f"Tiles left: {game.tiles_left}", "bold")
        doubles = doubles_of(game)
        if doubles:
            text.append(f"   double-hex: {' '.join(doubles)}")
        text.append("\n")
        code = game.tile if game.phase == "tile" else None
        double = self.double if game.phase == "tile" and game.tile is None else None
        if code or double:
            empty = Game.new(players=2, deck=[])
            if code:
                move = Move.place_tile(hex_at(0, 0), self.orientation)
                text.append(f"Tile {tile_words(code)}, orientation {self.orientation}\n")
            else:
                assert double is not None
                move = Move(DOUBLE, hex_at(0, 0), self.orientation, (), double)
                words = tile_words(double, True)
                text.append(f"Double-hex {words}, orientation {self.orientation}\n")
            overlay = Overlay(ghost=ghost_cells(move, code), highlight=frozenset())
            text.append_text(picture_text(draw_map(empty, overlay, margin=0)))
            text.append("\n")
        elif self.drawing_choice():
            text.append("Draw a tile or take a double-hex tile (d).\n")
        return text

    def status_text(self) -> Text:
        session = self.session
        game = self.game
        text = Text()
        if game.is_over:
            for line in session.result_lines():
                text.append(line + "\n")
        elif session.ai_to_move:
            paused = " (paused: p resumes)" if self.ai_paused else " is thinking…"
            text.append(f"{session.player_label(game.to_move)}{paused}\n", "italic")
        else:
            task = session.task()
            if self.double is not None and self.drawing_choice():
                words = tile_words(self.double, True)
                who = session.player_label(game.to_move)
                task = f"{who}: place the double-hex tile {words} (d: choose again)"
            text.append(task + "\n", "bold")
            text.append(f"Cursor {format_hex(self.cursor)}: {self.hex_words(self.cursor)}\n")
            move = self.ghost_move()
            if move is not None:
                reason = game.explain(move)
                if reason is None:
                    text.append(f"{move}: fits here, Enter places it\n", "green")
                else:
                    text.append(f"{move}: {reason}\n", "red")
            elif game.phase == "build":
                count = len(self.builds_at(self.cursor))
                hint = ": Enter to choose" if count else "; Tab finds one"
                text.append(f"{count} build{'s' * (count != 1)} here{hint}\n")
        if self.message:
            text.append(self.message + "\n", self.message_style or "cyan")
        return text

    def hex_words(self, hex_: int) -> str:
        game = self.game
        terrain = game.terrain(hex_)
        if terrain is None:
            ship = getattr(game, "ship_at", lambda _h: None)(hex_)
            return "sea" + ("" if ship is None else f", ship of {game.players[ship]}")
        words = f"{TERRAIN_NAMES[terrain]}, level {game.level(hex_)}"
        piece = game.building(hex_)
        if piece is not None:
            words += f", {piece[1]} of {game.players[piece[0]]}"
        return words

    def log_text(self) -> Text:
        game = self.game
        text = Text()
        replay = game.copy()
        movers = []
        for _ in range(game.ply):
            replay.undo()
            movers.append(replay.to_move)
        movers.reverse()
        for index, (move, mover) in enumerate(zip(game.moves, movers, strict=True), start=1):
            colour = style.player_colour(mover)
            text.append(f"{index:>3} ", "dim")
            text.append(f" {'abcde'[mover]} ", Style(color=style.contrast_text(colour),
                                                     bgcolor=colour))  # fmt: skip
            text.append(f" {move}\n")
        return text

    # ------------------------------------------------------------------ the flow of play

    def after_change(self) -> None:
        """Bring everything up to date after a move, undo or load; start the AI if due."""
        self.preview = None
        game = self.game
        if game.phase != "tile" or game.tile is not None:
            self.double = None
        self.refresh_view()
        if game.is_over:
            self.settled.set()
            if self.end_shown_at != game.ply:
                self.end_shown_at = game.ply
                self.push_screen(EndScreen(self.session.result_lines()), self.end_choice)
            return
        if self.session.ai_to_move:
            self.settled.clear()
            self.schedule_ai()
            return
        self.settled.set()
        if self.drawing_choice() and self.double is None and not self.choice_open:
            self.action_draw_choice()

    def play_move(self, move: Move | str) -> bool:
        """Play a person's move; say why not if it is illegal."""
        try:
            played = self.session.play(move)
        except IllegalMove as error:
            self.say(f"Not played: {error}", "bold red")
            self.refresh_view()
            return False
        self.hinted = None
        self.say(f"Played {played}.")
        self.quit_armed = False
        if self.game.phase == "tile" and self.game.tile is not None:
            self.reset_cursor()
        elif self.game.phase == "build" and self.human_turn:
            self.cursor_to_nearest_build()
        self.after_change()
        return True

    def cursor_to_nearest_build(self) -> None:
        """After placing a tile, put the cursor on the nearest hex with a build."""
        hexes = {spot for spot, _ in self.spot_moves()}
        if hexes and self.cursor not in hexes:
            here = pixel_centre(self.cursor)
            self.cursor = min(
                hexes,
                key=lambda h: ((pixel_centre(h)[0] - here[0]) ** 2
                               + (pixel_centre(h)[1] - here[1]) ** 2, h),
            )  # fmt: skip
            q, r = coords(self.cursor)
            self.column = 2 * q + r

    def schedule_ai(self) -> None:
        if self.ai_running or self.ai_paused or not self.session.ai_to_move:
            return
        self.ai_running = True
        token = self.token
        game = self.game.copy()
        self.refresh_view()
        self.run_worker(partial(self.think, token, game), thread=True, group="ai",
                        exit_on_error=False)  # fmt: skip

    def think(self, token: int, game: Game) -> None:
        """Worker thread: ask the AI, then hand the move back to the interface thread."""
        error: Exception | None = None
        move: Move | None = None
        try:
            move = self.session.choose_ai_move(game)
        except Exception as failure:  # shown on screen: an AI bug must not kill the game
            error = failure
        self.call_from_thread(self.ai_done, token, move, error)

    def ai_done(self, token: int, move: Move | None, error: Exception | None) -> None:
        self.ai_running = False
        if token != self.token:
            self.after_change()  # the position changed meanwhile (undo, load): think again
            return
        if error is not None or move is None:
            self.ai_paused = True
            self.say(f"The AI failed: {error}. Undo, load or quit.", "bold red")
            self.refresh_view()
            self.settled.set()
            return
        try:
            self.session.play(move)
        except IllegalMove as failure:
            self.ai_paused = True
            self.say(f"The AI chose an illegal move: {failure}", "bold red")
            self.refresh_view()
            self.settled.set()
            return
        self.say(f"{self.game.players[self._mover_of_last()]} played {move}.")
        if self.session.ai_to_move and self.ai_delay > 0:
            self.refresh_view()
            self.ai_timer = self.set_timer(self.ai_delay, self.after_ai_pause)
        else:
            if not self.session.ai_to_move:
                self.reset_cursor()
            self.after_change()

    def after_ai_pause(self) -> None:
        self.ai_timer = None
        self.after_change()

    def _mover_of_last(self) -> int:
        probe = self.game.copy()
        probe.undo()
        return probe.to_move

    def new_token(self) -> None:
        """Forget any AI move being computed or waiting: the position changed under it."""
        self.token += 1
        if self.ai_timer is not None:
            self.ai_timer.stop()
            self.ai_timer = None

    # ------------------------------------------------------------------ mouse

    def on_board_view_pointed(self, message: BoardView.Pointed) -> None:
        if self.human_turn and message.hex != self.cursor and self.near_island(message.hex):
            self.cursor = message.hex
            q, r = coords(message.hex)
            self.column = 2 * q + r
            self.refresh_view()

    def on_board_view_clicked(self, message: BoardView.Clicked) -> None:
        if not self.human_turn or not self.near_island(message.hex):
            return
        self.cursor = message.hex
        if message.button == 1:
            self.action_select()
        else:
            self.action_rotate(-1)

    def near_island(self, hex_: int) -> bool:
        land = self.game.land()
        if not land:
            return hex_ in {hex_at(0, 0)} | {hex_at(0, 0) + d for d in DELTAS}
        q, r = coords(hex_)
        return any(
            max(abs(q - lq), abs(r - lr), abs(q + r - lq - lr)) <= 3 for lq, lr in map(coords, land)
        )

    # ------------------------------------------------------------------ actions (keys)

    def action_cursor(self, direction: int) -> None:
        if not self.human_turn:
            return
        target = self.cursor + DELTAS[direction]
        if self.near_island(target):
            self.cursor = target
            q, r = coords(target)
            self.column = 2 * q + r
            self.quit_armed = False
            self.refresh_view()

    def action_cursor_row(self, step: int) -> None:
        if not self.human_turn:
            return
        _, r = coords(self.cursor)
        row = r + step
        q = (self.column - row + 1) // 2
        target = hex_at(q, row)
        if self.near_island(target):
            self.cursor = target
            self.refresh_view()

    def action_rotate(self, step: int) -> None:
        if self.game.phase == "tile" and self.human_turn:
            self.orientation = (self.orientation + step) % 6
            self.refresh_view()

    def action_next_spot(self, step: int) -> None:
        """Jump to the next (or previous) legal spot in reading order from the cursor."""
        spots = self.spot_moves()
        if not spots:
            self.say("No legal spot to jump to now.")
            self.refresh_view()
            return
        q, r = coords(self.cursor)
        here = (r, q, self.orientation if self.game.phase == "tile" else 0)
        keys = [(coords(h)[1], coords(h)[0], k) for h, k in spots]
        if step > 0:
            index = next((i for i, key in enumerate(keys) if key > here), 0)
        else:
            index = next((i for i in reversed(range(len(keys))) if keys[i] < here), -1)
        self.cursor, orientation = spots[index]
        if self.game.phase == "tile":
            self.orientation = orientation
        q, r = coords(self.cursor)
        self.column = 2 * q + r
        self.refresh_view()

    def action_select(self) -> None:
        if not self.human_turn:
            return
        game = self.game
        if game.phase == "tile":
            move = self.ghost_move()
            if move is None:
                self.action_draw_choice()
            else:
                self.play_move(move)
            return
        builds = self.builds_at(self.cursor)
        if not builds:
            self.say(f"No build on {format_hex(self.cursor)}: {self.why_no_build()}", "red")
            self.refresh_view()
            return
        choices = [(str(move), build_label(move, game)) for move in builds]

        def preview(key: str | None) -> None:
            self.preview = None if key is None else Move.parse(key)
            self.refresh_view()

        def chosen(key: str | None) -> None:
            self.preview = None
            if key is None:
                self.refresh_view()
            else:
                self.play_move(key)

        self.push_screen(
            ChoiceScreen(f"Build on {format_hex(self.cursor)}:", choices, preview), chosen
        )

    def why_no_build(self) -> str:
        reason = self.game.explain(Move(HUT, self.cursor))
        return reason or "nothing may be built here now"

    def action_draw_choice(self) -> None:
        if not (self.human_turn and self.drawing_choice()) or self.choice_open:
            return
        choices = [("draw", "Draw a tile from the pile")]
        for code in doubles_of(self.game):
            if any(m.kind == "double" and m.tile == code for m in self.legal()):
                choices.append((code, f"Take the double-hex tile {tile_words(code, True)}"))
        self.choice_open = True

        def chosen(key: str | None) -> None:
            self.choice_open = False
            if key is None:
                self.say("Choose with d: draw a tile or take a double-hex tile.")
                self.refresh_view()
            elif key == "draw":
                self.play_move("draw")
            else:
                self.double = key
                self.orientation = 0
                self.reset_cursor()
                self.refresh_view()

        self.push_screen(ChoiceScreen("Start of your turn:", choices), chosen)

    def action_command(self) -> None:
        field = self.query_one("#command", Input)
        field.add_class("shown")
        field.value = ""
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "command":
            return
        text = event.value.strip()
        event.input.remove_class("shown")
        self.query_one(BoardView).focus()
        if text and self.human_turn:
            self.play_move(text)
        elif text:
            self.say("Wait for your turn to type a move.")
            self.refresh_view()

    def on_key(self, event: events.Key) -> None:
        field = self.query_one("#command", Input)
        if event.key == "escape" and field.has_class("shown"):
            field.remove_class("shown")
            self.query_one(BoardView).focus()
            event.stop()

    def action_undo(self) -> None:
        try:
            taken = self.session.undo()
        except IllegalMove as error:
            self.say(f"Cannot undo: {error}.", "red")
            self.refresh_view()
            return
        self.new_token()
        self.hinted = None
        self.end_shown_at = None
        self.say("Took back " + ", ".join(str(m) for m in reversed(taken)) + ".")
        self.reset_cursor()
        self.after_change()

    def action_hint(self) -> None:
        if not self.human_turn or (self.drawing_choice() and self.double is None):
            self.say("A hint is for a person about to place a tile or build.")
            self.refresh_view()
            return
        self.say("Asking the AI for a hint…")
        self.refresh_view()
        token = self.token
        game = self.game.copy()

        def work() -> None:
            try:
                move, value = ai_hint(game, self.hint_level)
            except Exception as error:  # shown on screen
                self.call_from_thread(self.hint_done, token, None, 0.0, str(error))
            else:
                self.call_from_thread(self.hint_done, token, move, value, "")

        self.run_worker(work, thread=True, group="hint", exit_on_error=False)

    def hint_done(self, token: int, move: Move | None, value: float, error: str) -> None:
        if token != self.token or not self.human_turn:
            return
        if move is None:
            self.say(f"No hint: {error}", "red")
        else:
            self.hinted = move
            if move.kind in ("tile", "double"):
                self.cursor, self.orientation = move.hex, move.orientation
                q, r = coords(self.cursor)
                self.column = 2 * q + r
            elif move.kind != "draw":
                self.cursor = move_hexes(move)[0]
            self.say(f"Hint: {move} (AI rates your position {value:.2f})", "bold magenta")
        self.refresh_view()

    def action_save(self) -> None:
        default = f"taluva-{datetime.now():%Y%m%d-%H%M%S}.json"

        def chosen(path: str | None) -> None:
            if path:
                try:
                    saved = self.session.save(path)
                except InvalidRecord as error:
                    self.say(f"Not saved: {error}", "bold red")
                else:
                    self.say(f"Saved to {saved}.")
            self.refresh_view()

        self.push_screen(PathScreen("Save the game record to:", default), chosen)

    def action_load(self) -> None:
        def chosen(path: str | None) -> None:
            if not path:
                return
            try:
                self.session.load(path)
            except (InvalidRecord, SeatError) as error:
                self.say(f"Not loaded: {error}", "bold red")
                self.refresh_view()
                return
            self.new_token()
            self.hinted = None
            self.end_shown_at = None
            self.ai_paused = False
            self.say(f"Loaded {path} at ply {self.game.ply}.")
            self.reset_cursor()
            self.after_change()

        self.push_screen(PathScreen("Load a game record from:", ""), chosen)

    def action_zoom(self) -> None:
        self.scale = 3 - self.scale
        self.refresh_view()

    def action_pause(self) -> None:
        self.ai_paused = not self.ai_paused
        self.say("AI paused." if self.ai_paused else "AI resumed.")
        if self.ai_paused:
            self.refresh_view()
        else:
            self.after_change()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_quit_game(self) -> None:
        if self.quit_armed or self.game.is_over or self.game.ply == 0:
            self.new_token()
            self.exit()
            return
        self.quit_armed = True
        self.say("Press q again to quit (s saves the game first).", "bold yellow")
        self.refresh_view()

    def end_choice(self, choice: str | None) -> None:
        if choice == "quit":
            self.exit()
        elif choice == "undo":
            self.action_undo()
        elif choice == "save":
            self.action_save()
        elif choice == "new":
            self.new_game()

    def new_game(self) -> None:
        """Same seats and options, a new shuffle."""
        old = self.game
        options = old.options
        seed = (self.session.seed or 0) + 1
        game = Game.new(
            players=list(old.players),
            seed=seed,
            tiles_per_player=options["tiles_per_player"],
            expansions=options["expansions"],
            house_rules=options["house_rules"],
        )
        self.new_token()
        self.session = Session(game, self.session.seats, seed)
        self.sub_title = f"seed {seed}"
        self.end_shown_at = None
        self.say("A new game.")
        self.reset_cursor()
        self.after_change()


def _region(x: int, y: int, width: int, height: int) -> Region:
    """A region of the map clipped at its top-left corner."""
    return Region(max(0, x), max(0, y), width, height)


# ------------------------------------------------------------------------------- replay


class ReplayApp(App[None]):
    """Step through a recorded game."""

    TITLE = "Taluva replay"
    CSS = (
        """
    #map-pane { width: 1fr; height: 1fr; background: """
        + style.SEA
        + """; align: center middle; }
    #side { width: 46; padding: 0 1; background: $panel; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n,space", "step(1)", "Next"),
        Binding("left,p,backspace", "step(-1)", "Previous"),
        Binding("home", "jump(0)", "Start"),
        Binding("end", "jump(-1)", "End"),
        Binding("z", "zoom", "Zoom"),
        Binding("q,escape", "quit", "Quit"),
    ]

    def __init__(self, game: Game, start: int = 0) -> None:
        super().__init__()
        self.record_game = game
        self.ply = start
        self.scale = 1

    def compose(self) -> ComposeResult:
        with Horizontal():
            with ScrollableContainer(id="map-pane"):
                yield BoardView(id="board")
            with Vertical(id="side"):
                yield Static(id="info")
        yield Footer()

    def on_mount(self) -> None:
        self.show_ply()

    def show_ply(self) -> None:
        game = self.record_game
        position = position_at(game, self.ply)
        self.query_one(BoardView).show(draw_map(position, scale=self.scale, margin=1))
        text = Text(describe_ply(game, self.ply) + "\n\n", "bold")
        for player, name in enumerate(position.players):
            text.append(f"{name}: {position.score(player)} points\n")
        if self.ply == game.ply and game.result is not None:
            text.append(f"\nThe game ended: {game.result.reason}.\n")
        text.append("\n←/→ step, Home/End jump, z zoom, q quit", "dim")
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
