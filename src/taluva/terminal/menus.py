"""The two menus of a person's turn: drawing or taking a double-hex tile, and the builds
on a hex (each previewed on the board while highlighted); in both, ``?`` opens the rule of the
choice highlighted."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import OptionList

from taluva.engine.game import Game
from taluva.engine.hexes import format_hex
from taluva.engine.moves import DOUBLE, EXPAND, HUT, SHIP, TEMPLE, TOWER, Move
from taluva.engine.tiles import TERRAIN_NAMES
from taluva.learn.guide import load_guide
from taluva.render.position import doubles_of, move_hexes
from taluva.terminal.pointer import Pointer
from taluva.terminal.screens import ChoiceScreen, HelpScreen
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


class RuleMenu(ChoiceScreen):
    """A menu of moves in which ``?`` opens the help at the guide's section on the move
    highlighted."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "rule", "How to play this"),
    ]

    def __init__(
        self,
        pointer: Pointer,
        title: str,
        choices: list[tuple[str, str]],
        on_highlight: Callable[[str | None], None] | None = None,
    ) -> None:
        self.pointer = pointer
        super().__init__(f"{title}  (? the rule)", choices, on_highlight)

    def section_of(self, key: str) -> str | None:
        """The guide's section on the choice ``key`` (a move's text)."""
        section = load_guide().section_for_move(self.pointer.game, key)
        return None if section is None else section.id

    def action_rule(self) -> None:
        option = self.query_one(OptionList).highlighted_option
        section = None if option is None or option.id is None else self.section_of(option.id)
        self.app.push_screen(HelpScreen(self.pointer.game.expansions, section))


class BuildMenu(RuleMenu):
    """The builds that may be chosen on the cursor's hex; the one highlighted is shown on
    the board as the pointer's preview (``redraw`` shows it)."""

    def __init__(self, pointer: Pointer, builds: list[Move], redraw: Callable[[], None]) -> None:
        self.redraw = redraw
        choices = [(str(move), build_label(move, pointer.game)) for move in builds]
        super().__init__(pointer, f"Build on {format_hex(pointer.cursor)}:", choices, self.preview)

    def preview(self, key: str | None) -> None:
        self.pointer.preview = None if key is None else Move.parse(key)
        self.redraw()


class DrawMenu(RuleMenu):
    """The start of a Double-Hex turn: draw a tile from the pile, or take one of the
    double-hex tiles that can be placed now."""

    def __init__(self, pointer: Pointer) -> None:
        choices = [("draw", "Draw a tile from the pile")]
        for code in doubles_of(pointer.game):
            if any(m.kind == DOUBLE and m.tile == code for m in pointer.legal()):
                choices.append((code, f"Take the double-hex tile {tile_words(code, True)}"))
        super().__init__(pointer, "Start of your turn:", choices)

    def section_of(self, key: str) -> str | None:
        """Drawing and the double-hex tiles have one section."""
        return load_guide().topic_sections().get("draw")
