"""The two menus of a person's turn: drawing or taking a double-hex tile, and the builds
on a hex (each previewed on the board while highlighted)."""

from __future__ import annotations

from collections.abc import Callable

from taluva.engine.game import Game
from taluva.engine.hexes import format_hex
from taluva.engine.moves import DOUBLE, EXPAND, HUT, SHIP, TEMPLE, TOWER, Move
from taluva.engine.tiles import TERRAIN_NAMES
from taluva.render.position import doubles_of, move_hexes
from taluva.terminal.pointer import Pointer
from taluva.terminal.screens import ChoiceScreen
from taluva.terminal.session import tile_words


def build_label(move: Move, game: Game) -> str:
    """``Expand into sand: 3 huts on 1,0 2,-1`` and the like, for the action menu."""
    where = " ".join(format_hex(h) for h in move_hexes(move))
    if move.kind == HUT:
        return f"Hut: found a new settlement on {where}"
    if move.kind == EXPAND:
        huts = sum(game.level(h) for h in move.hexes)
        return (
            f"Expand into {TERRAIN_NAMES[move.terrain]}: {huts} hut{'s' * (huts != 1)} on {where}"
        )
    if move.kind == TEMPLE:
        return f"Temple on {where}"
    if move.kind == TOWER:
        return f"Tower on {where}"
    if move.kind == SHIP:
        return f"Ship into the lagoon at {where}"
    return str(move)


class BuildMenu(ChoiceScreen):
    """The builds that may be chosen on the cursor's hex; the one highlighted is shown on
    the board as the pointer's preview (``redraw`` shows it)."""

    def __init__(self, pointer: Pointer, builds: list[Move], redraw: Callable[[], None]) -> None:
        self.pointer = pointer
        self.redraw = redraw
        choices = [(str(move), build_label(move, pointer.game)) for move in builds]
        super().__init__(f"Build on {format_hex(pointer.cursor)}:", choices, self.preview)

    def preview(self, key: str | None) -> None:
        self.pointer.preview = None if key is None else Move.parse(key)
        self.redraw()


class DrawMenu(ChoiceScreen):
    """The start of a Double-Hex turn: draw a tile from the pile, or take one of the
    double-hex tiles that can be placed now."""

    def __init__(self, pointer: Pointer) -> None:
        choices = [("draw", "Draw a tile from the pile")]
        for code in doubles_of(pointer.game):
            if any(m.kind == DOUBLE and m.tile == code for m in pointer.legal()):
                choices.append((code, f"Take the double-hex tile {tile_words(code, True)}"))
        super().__init__("Start of your turn:", choices)
