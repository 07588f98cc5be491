"""The dialogs over the game: a list of choices (the build menu, drawing or a double-hex tile),
a file name to save or load, the help with every key and how to play, and the end of the
game."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar, Final

from rich.text import Text as RichText
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from taluva.engine.wording import T
from taluva.lang import _, say
from taluva.learn.guide import Section, load_guide, spans
from taluva.terminal.board import picture_text
from taluva.terminal.guide_view import picture_map, picture_notes
from taluva.terminal.mapview import GLYPHS
from taluva.terminal.words import say_bindings

KEYS: Final = (
    (T("arrows, mouse"), T("move the cursor (the ghost tile follows it)")),
    (T("r / R, right click"), T("rotate the tile clockwise / anticlockwise")),
    (T("Enter, click"), T("place the tile; in the build phase: choose a build on this hex")),
    (T("Tab / Shift+Tab"), T("jump to the next / previous legal spot")),
    (":", T("type a move in notation, e.g. tile 1,-2 3 or expand sand 1,0 2,-1")),
    ("d", T("Double-Hex: choose again between drawing and a double-hex tile")),
    ("u", T("undo (against the AI: back to your previous decision)")),
    ("h", T("hint: the AI's suggestion for you")),
    ("w", T("win chances: show or hide each player's chance to win, as the AI reckons it")),
    ("s / l", T("save the game record / load one")),
    ("z", T("zoom: large hexes with coordinates, or compact")),
    ("p", T("pause or resume the AI (when only AIs play)")),
    ("?", T("this help and how to play (after a refused move: its rule)")),
    ("q", T("quit (press twice)")),
)
"""Every key of the game screen, for the help screen (said in the player's language there)."""


class ChoiceScreen(ModalScreen[str | None]):
    """A list of choices; highlighting one can preview it on the board."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", T("Cancel"))]
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
        say_bindings(self)
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

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", T("Cancel"))]
    DEFAULT_CSS = """
    PathScreen { align: center middle; }
    PathScreen > Vertical { width: 72; height: auto; border: thick $accent;
        background: $surface; padding: 0 1; }
    """

    def __init__(self, title: str, default: str) -> None:
        super().__init__()
        say_bindings(self)
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


HELP_WIDTH: Final = 86
"""Columns of the help's text (the dialog is four wider, with its border and padding)."""


def rule_text(section: Section, width: int = HELP_WIDTH) -> RichText:
    """A section of the guide in colour: its title, its words, and each picture as a text
    board with its caption and the engine's word on it (a refusal in red)."""
    text = RichText()
    text.append(f"{say(section.title)}\n", style="bold underline")
    for block in section.blocks:
        text.append("\n")
        for number, item in enumerate(block.items, start=1):
            marker = {"paragraph": "", "points": "• ", "steps": f"{number}. "}[block.kind]
            text.append(marker)
            for run, bold in spans(say(item)):
                text.append(run, style="bold" if bold else "")
            text.append("\n")
    for number, picture in enumerate(section.pictures, start=1):
        caption, note = picture_notes(picture)
        words = _("Picture {number}: {caption}", number=number, caption=caption)
        text.append(f"\n{words}\n", style="italic")
        text.append_text(picture_text(picture_map(picture, width, ascii_only=False)))
        text.append("\n")
        if note is not None:
            refused = picture.refused is not None
            text.append(note + "\n", style="bold red" if refused else "bold green")
    return text


class HelpScreen(ModalScreen[None]):
    """Every key of the game, then how to play: the guide's sections for this game (an
    expansion's only when the game has it; every one for None), each picture a text board in
    colour. ``section`` opens the help at that section."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q,enter", "close", T("Close"))
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 94; max-width: 100%; height: 90%;
        border: thick $accent; background: $surface; padding: 1 2; }
    HelpScreen Static { height: auto; }
    HelpScreen .rule { margin-top: 1; }
    """

    def __init__(self, expansions: Iterable[str] | None = None, section: str | None = None) -> None:
        super().__init__()
        say_bindings(self)
        self.sections = load_guide().for_game(expansions)
        self.section = section if any(s.id == section for s in self.sections) else None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(self.keys_text(), id="keys")
            for section in self.sections:
                yield Static(rule_text(section), id=f"rule-{section.id}", classes="rule")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()
        if self.section is not None:
            self.call_after_refresh(self.show_section, self.section)

    def show_section(self, section_id: str) -> None:
        """Scroll the help so that the section's title is at the top."""
        target = self.query_one(f"#rule-{section_id}", Static)
        self.query_one(VerticalScroll).scroll_to_widget(target, top=True, animate=False)

    def keys_text(self) -> RichText:
        text = RichText(_("Taluva: keys") + "\n\n", style="bold")
        for keys, meaning in KEYS:
            text.append(f"{say(keys):>20}  ", style="bold cyan")
            text.append(say(meaning) + "\n")
        legend = _(
            "The map: each hex shows its terrain (colour and letter), its level (the number; "
            "higher hexes are lighter) and its piece in the owner's colour: {hut} hut, "
            "{temple} temple, {tower} tower, {ship} ship. Yellow edges outline the last turn, "
            "+ marks legal spots for the tile as it is turned now. Press Escape to close.",
            hut=GLYPHS["hut"],
            temple=GLYPHS["temple"],
            tower=GLYPHS["tower"],
            ship=GLYPHS["ship"],
        )
        text.append("\n" + legend + "\n\n")
        text.append(
            _(
                "How to play follows: the rules, each with pictures of real positions (the move "
                "shown outlined in yellow, a refused one in red). The arrows and Page Up/Down "
                "scroll; 'taluva rules' prints the same, and the web client has it as a page."
            )
        )

        return text

    def action_close(self) -> None:
        self.dismiss(None)


class EndScreen(ModalScreen[str | None]):
    """The end of the game: ``lines`` are the headline (who won and why), then one line a
    place (``Session.result_lines``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "choose('look')", T("Look at the board")),
        Binding("n", "choose('new')", T("New game")),
        Binding("u", "choose('undo')", T("Undo")),
        Binding("s", "choose('save')", T("Save")),
        Binding("q", "choose('quit')", T("Quit")),
    ]
    DEFAULT_CSS = """
    EndScreen { align: center middle; }
    EndScreen > Static { width: 90; height: auto; border: thick $success;
        background: $surface; padding: 1 2; }
    """

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        say_bindings(self)
        self.lines = lines

    def compose(self) -> ComposeResult:
        text = RichText(self.lines[0] + "\n\n", style="bold")
        for line in self.lines[1:]:
            text.append(line + "\n")
        keys = _("n new game   u undo   s save   Escape look at the board   q quit")
        text.append("\n" + keys, "dim")

        yield Static(text, id="end-text")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)
