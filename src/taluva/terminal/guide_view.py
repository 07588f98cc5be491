"""The "How to play" guide (``taluva.learn``) in the terminal: each picture as a text board of
the map drawing, with the move it shows marked, and whole sections as plain text for
``taluva rules`` and the ``rules`` command of ``taluva play --plain``. The help screen
(``screens.HelpScreen``) shows the same sections in colour.

Needs nothing beyond the engine: no Textual, no rich.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import Final

from taluva.engine.game import Game
from taluva.engine.moves import EXPAND, Move
from taluva.engine.wording import T
from taluva.lang import _, say
from taluva.learn.guide import Picture, Section, marked_hexes, plain, refused_tile
from taluva.terminal.mapview import MapPicture, Overlay, draw_map

BOARD_LEGEND: Final = T(
    "Each picture is drawn as in 'taluva play --plain': a hex shows its terrain letter, its "
    "coordinates, its level and any piece (a or b: the owner; h hut, T temple, W tower, "
    "S ship). *** marks the move a picture shows, or the move the rules refuse."
)


def picture_overlay(picture: Picture, *, ascii_only: bool) -> tuple[Game, Overlay]:
    """The picture's position and what is drawn over it: the move shown outlined, or the
    refused move as a ghost tile (red in colour) or as the pieces it would place. Without
    colour, *** marks the hexes of either."""
    game = picture.draw().game
    marked = marked_hexes(picture, game)
    if picture.refused is None:
        return game, Overlay(highlight=marked)
    move = Move.parse(picture.refused)
    ghost = refused_tile(game, move)
    if ghost:
        return game, Overlay(ghost=ghost, ghost_legal=False, highlight=marked)
    kind = "hut" if move.kind == EXPAND else str(move.kind)
    highlight = marked if ascii_only else frozenset()  # in colour, yellow means a legal move
    overlay = Overlay(
        highlight=highlight, preview=marked, preview_kind=kind, preview_owner=game.to_move
    )
    return game, overlay


def picture_map(picture: Picture, width: int, *, ascii_only: bool) -> MapPicture:
    """The picture as a text board: large hexes with coordinates when they fit in ``width``
    columns, compact ones otherwise."""
    game, overlay = picture_overlay(picture, ascii_only=ascii_only)
    large = draw_map(game, overlay, scale=2, ascii_only=ascii_only)
    if large.width <= width:
        return large
    return draw_map(game, overlay, scale=1, ascii_only=ascii_only)


def picture_notes(picture: Picture) -> tuple[str, str | None]:
    """The caption, and the engine's word on the picture: its refusal of the refused move,
    or how the game ended (None when it says nothing)."""
    drawing = picture.draw()
    caption = plain(say(picture.caption))
    if drawing.refusal is not None:
        return caption, _("Refused: {reason}.", reason=say(drawing.refusal))
    if drawing.result is not None:
        return caption, _("The end: {result}.", result=say(drawing.result))
    return caption, None


def section_plain(section: Section, *, boards: bool = True, width: int = 79) -> str:
    """A section as plain text: its words, then each picture's caption, its text board (with
    ``boards``) and the engine's word on it."""
    lines = [say(section.plain_text(width)).rstrip("\n")]
    for number, picture in enumerate(section.pictures, start=1):
        caption, note = picture_notes(picture)
        lines.append("")
        lines.append(
            textwrap.fill(_("Picture {number}: {caption}", number=number, caption=caption), width)
        )
        if boards:
            lines.append(picture_map(picture, width, ascii_only=True).text().strip("\n"))
        if note is not None:
            lines.append(textwrap.fill(note, width))
    return "\n".join(lines) + "\n"


def guide_plain(sections: Iterable[Section], *, boards: bool = True, width: int = 79) -> str:
    """Sections one after the other, with the board legend first when boards are drawn."""
    parts = [textwrap.fill(say(BOARD_LEGEND), width) + "\n"] if boards else []

    parts.extend(section_plain(section, boards=boards, width=width) for section in sections)
    return "\n".join(parts)
