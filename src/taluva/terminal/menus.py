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
from taluva.engine.wording import T
from taluva.lang import _, ngettext
from taluva.learn.guide import load_guide
from taluva.render.position import doubles_of, move_hexes
from taluva.terminal.pointer import Pointer
from taluva.terminal.screens import ChoiceScreen, HelpScreen
from taluva.terminal.session import tile_words
from taluva.terminal.words import terrain_word


def build_label(move: Move, game: Game) -> str:
    """``Expand into sand: 3 huts on 1,0 2,-1`` and the like, for the action menu."""
    where = " ".join(format_hex(h) for h in move_hexes(move))
    if move.kind == HUT:
        return _("Hut: found a new settlement on {hexes}", hexes=where)
    if move.kind == EXPAND:
        huts = sum(game.level(h) for h in move.hexes)
        return ngettext(
            "Expand into {terrain}: {n} hut on {hexes}",
            "Expand into {terrain}: {n} huts on {hexes}",
            huts,
            n=huts,
            terrain=terrain_word(move.terrain),
            hexes=where,
        )
    if move.kind == TEMPLE:
        return _("Temple on {hexes}", hexes=where)
    if move.kind == TOWER:
        return _("Tower on {hexes}", hexes=where)
    if move.kind == SHIP:
        return _("Ship into the lagoon at {hexes}", hexes=where)
    return str(move)


class RuleMenu(ChoiceScreen):
    """A menu of moves in which ``?`` opens the help at the guide's section on the move
    highlighted."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "rule", T("How to play this")),
    ]

    def __init__(
        self,
        pointer: Pointer,
        title: str,
        choices: list[tuple[str, str]],
        on_highlight: Callable[[str | None], None] | None = None,
    ) -> None:
        self.pointer = pointer
        super().__init__(_("{title}  (? the rule)", title=title), choices, on_highlight)

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
        title = _("Build on {hex}:", hex=format_hex(pointer.cursor))
        super().__init__(pointer, title, choices, self.preview)

    def preview(self, key: str | None) -> None:
        self.pointer.preview = None if key is None else Move.parse(key)
        self.redraw()


class DrawMenu(RuleMenu):
    """The start of a Double-Hex turn: draw a tile from the pile, or take one of the
    double-hex tiles that can be placed now."""

    def __init__(self, pointer: Pointer) -> None:
        choices = [("draw", _("Draw a tile from the pile"))]
        for code in doubles_of(pointer.game):
            if any(m.kind == DOUBLE and m.tile == code for m in pointer.legal()):
                words = _("Take the double-hex tile {tile}", tile=tile_words(code, True))
                choices.append((code, words))
        super().__init__(pointer, _("Start of your turn:"), choices)

    def section_of(self, key: str) -> str | None:
        """Drawing and the double-hex tiles have one section."""
        return load_guide().topic_sections().get("draw")
