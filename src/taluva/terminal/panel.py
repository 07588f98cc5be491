"""The side panel of the game screen: the players with their pieces placed and left, the tile
in hand, what to do now (the result at the end, with the latest message) and the move log."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from taluva.engine.game import Game
from taluva.engine.hexes import format_hex, hex_at
from taluva.engine.moves import DOUBLE, Move
from taluva.lang import _, ngettext, say
from taluva.render import style
from taluva.render.position import doubles_of
from taluva.terminal.board import picture_text
from taluva.terminal.mapview import Overlay, draw_map
from taluva.terminal.pointer import Pointer, ghost_cells
from taluva.terminal.session import Session, pieces_in_words, tile_words
from taluva.terminal.words import piece_of, terrain_word


def players_text(session: Session) -> Text:
    """Each seat: whose turn, the owner chip, name, kind, then the pieces placed and left."""
    game = session.game
    text = Text()
    for player, seat in enumerate(session.seats):
        colour = style.player_colour(player)
        turn = not game.is_over and player == game.to_move
        text.append("▶ " if turn else "  ", "bold yellow")
        text.append(f" {'abcde'[player]} ", Style(color=style.contrast_text(colour),
                                                   bgcolor=colour, bold=True))  # fmt: skip
        text.append(f" {say(game.players[player])}", "bold" if turn else "")
        text.append("  " + (seat.spec or _("person")), "dim")
        if player in game.eliminated:
            text.append("  " + _("out"), "bold red")
        placed, left = pieces_in_words(game, player)
        text.append("\n    " + _("placed {pieces}", pieces=placed))
        text.append("\n    " + _("left {pieces}", pieces=left) + "\n")
    return text


def tile_text(pointer: Pointer) -> Text:
    """The tiles left and the tile in hand (or the double-hex chosen), drawn as turned now."""
    game = pointer.game
    text = Text()
    if game.is_over:
        text.append(_("Game over.") + "\n", "bold")
        return text
    text.append(_("Tiles left: {n}", n=game.tiles_left), "bold")
    doubles = doubles_of(game)
    if doubles:
        text.append("   " + _("double-hex: {tiles}", tiles=" ".join(doubles)))
    text.append("\n")
    code = game.tile if game.phase == "tile" else None
    double = pointer.double if game.phase == "tile" and game.tile is None else None
    orientation = pointer.orientation
    if code or double:
        empty = Game.new(players=2, deck=[])
        if code:
            move = Move.place_tile(hex_at(0, 0), orientation)
            words = tile_words(code)
            line = _("Tile {tile}, orientation {n}", tile=words, n=orientation)
            text.append(line + "\n")
        else:
            assert double is not None
            move = Move(DOUBLE, hex_at(0, 0), orientation, (), double)
            words = tile_words(double, True)
            line = _("Double-hex {tile}, orientation {n}", tile=words, n=orientation)
            text.append(line + "\n")
        overlay = Overlay(ghost=ghost_cells(move, code), highlight=frozenset())
        text.append_text(picture_text(draw_map(empty, overlay, margin=0)))
        text.append("\n")
    elif pointer.drawing_choice():
        text.append(_("Draw a tile or take a double-hex tile (d).") + "\n")
    return text


def hex_words(game: Game, hex_: int) -> str:
    """``sand, level 2, hut of Ana``: a hex with its terrain, level and piece."""
    terrain = game.terrain(hex_)
    if terrain is None:
        ship = getattr(game, "ship_at", lambda _h: None)(hex_)
        if ship is None:
            return _("sea")
        return _("sea, {ship}", ship=piece_of("ship", say(game.players[ship])))
    words = _("{terrain}, level {level}", terrain=terrain_word(terrain), level=game.level(hex_))
    piece = game.building(hex_)
    if piece is not None:
        words += ", " + piece_of(piece[1], say(game.players[piece[0]]))
    return words


def status_text(pointer: Pointer, *, ai_paused: bool, message: str, message_style: str) -> Text:
    """What happens now: the ranking, the AI thinking, or the person's task with the hex under
    the cursor and whether the ghost fits there; then the latest message."""
    session = pointer.session
    game = session.game
    text = Text()
    if game.is_over:
        headline, *lines = session.result_lines()
        text.append(headline + "\n", "bold")
        for line in lines:
            text.append(line + "\n")
    elif session.ai_to_move:
        who = session.player_label(game.to_move)
        if ai_paused:
            thinking = _("{player} (paused: p resumes)", player=who)
        else:
            thinking = _("{player} is thinking…", player=who)
        text.append(thinking + "\n", "italic")
    else:
        task = session.task()
        if pointer.double is not None and pointer.drawing_choice():
            words = tile_words(pointer.double, True)
            who = session.player_label(game.to_move)
            task = _(
                "{player}: place the double-hex tile {tile} (d: choose again)",
                player=who,
                tile=words,
            )
        text.append(task + "\n", "bold")
        cursor = pointer.cursor
        where = _("Cursor {hex}: {words}", hex=format_hex(cursor), words=hex_words(game, cursor))
        text.append(where + "\n")
        move = pointer.ghost_move()
        if move is not None:
            reason = game.explain(move)
            if reason is None:
                text.append(_("{move}: fits here, Enter places it", move=str(move)) + "\n", "green")
            else:
                text.append(f"{move}: {say(reason)}\n", "red")
        elif game.phase == "build":
            count = len(pointer.builds_at(cursor))
            if count:
                here = ngettext(
                    "{n} build here: Enter to choose",
                    "{n} builds here: Enter to choose",
                    count,
                    n=count,
                )
            else:
                here = _("0 builds here; Tab finds one")
            text.append(here + "\n")
    if message:
        text.append(message + "\n", message_style or "cyan")
    return text


def log_text(game: Game) -> Text:
    """Every move so far, numbered, with the mover's chip."""
    text = Text()
    replay = game.copy()
    movers = []
    for _undone in range(game.ply):
        replay.pop()
        movers.append(replay.to_move)
    movers.reverse()
    for index, (move, mover) in enumerate(zip(game.moves, movers, strict=True), start=1):
        colour = style.player_colour(mover)
        text.append(f"{index:>3} ", "dim")
        text.append(f" {'abcde'[mover]} ", Style(color=style.contrast_text(colour),
                                                 bgcolor=colour))  # fmt: skip
        text.append(f" {move}\n")
    return text


class SidePanel(Vertical):
    """The players, the tile in hand, the status and the move log, one Static each."""

    DEFAULT_CSS = """
    SidePanel { width: 38%; max-width: 46; min-width: 28; height: 1fr; padding: 0 1;
        background: $panel; }
    #players { height: auto; margin-bottom: 1; }
    #chances { height: auto; margin-bottom: 1; }
    #tile { height: auto; }
    #status { height: auto; margin-bottom: 1; }
    #log-pane { height: 1fr; border-top: solid $accent; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.shown: dict[str, Text] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="players")
        yield Static(id="chances")
        yield Static(id="tile")
        yield Static(id="status")
        with VerticalScroll(id="log-pane"):
            yield Static(id="log")

    def show(
        self,
        pointer: Pointer,
        *,
        ai_paused: bool,
        message: str,
        message_style: str,
        chances: Text | None = None,
    ) -> None:
        """Bring every part up to date (only those whose text changed are re-rendered);
        ``chances`` is the win-chance bar (None: hidden)."""
        self.show_text("#players", players_text(pointer.session))
        self.query_one("#chances", Static).display = chances is not None
        if chances is not None:
            self.show_text("#chances", chances)
        self.show_text("#tile", tile_text(pointer))
        status = status_text(
            pointer, ai_paused=ai_paused, message=message, message_style=message_style
        )
        self.show_text("#status", status)
        if self.show_text("#log", log_text(pointer.game)):
            self.query_one("#log-pane", VerticalScroll).scroll_end(animate=False)

    def show_text(self, selector: str, text: Text) -> bool:
        """Show ``text`` in a Static unless it already shows exactly that; say if it changed."""
        if self.shown.get(selector) == text:
            return False
        self.shown[selector] = text
        self.query_one(selector, Static).update(text)
        return True
