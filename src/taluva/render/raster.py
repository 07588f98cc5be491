"""PNG pictures of a position: the SVG of ``taluva.render.svg``, rasterized by resvg.

resvg (its Python binding ``resvg-py``) is the optional ``png`` extra, ``pip install
'taluva[png]'``, imported only when a picture is made. It draws the labels as real text with
a font of the system: the SVG asks for DejaVu Sans (then Verdana, Arial, any sans-serif), and
any installed font stands in for a missing one. A system without any font (a bare container)
gets an error saying so rather than a picture without its text; on Debian ``apt-get install
fonts-dejavu-core`` gives the intended font.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

from taluva.render.position import position_at
from taluva.render.scene import board_scene
from taluva.render.svg import FONT, Words, scene_svg

if TYPE_CHECKING:
    from taluva.engine.game import Game

PNG_EXTRA = "pip install 'taluva[png]'"
FONT_PACKAGE = "fonts-dejavu-core"
MAX_PIXELS = 40_000_000
"""Refuse pictures beyond this many pixels instead of filling the memory."""

_PROBE = '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="20">{}</svg>'
_PROBE_TEXT = f'<text x="2" y="16" font-size="16" font-family="{FONT}">H</text>'


class PngUnavailable(RuntimeError):
    """PNG pictures cannot be made here: resvg (the ``png`` extra) or any font is missing."""


def png_board(
    game: Game,
    ply: int | None = None,
    size: float = 36.0,
    *,
    coordinates: bool = True,
    words: Words = str,
) -> bytes:
    """A PNG picture of the position after ``ply`` moves (the current one if None).

    It is ``svg_board(game, ply, size, coordinates=coordinates)`` rasterized at one pixel a
    unit: the same picture, at the SVG's size. Raises ValueError for a bad ply or size, and
    PngUnavailable (saying what to install) without resvg or without any font.
    """
    if size <= 0:
        raise ValueError(f"size {size} must be positive")
    scene = board_scene(position_at(game, ply), size, coordinates=coordinates)
    if scene.width * scene.height > MAX_PIXELS:
        raise ValueError(f"a {scene.width:.0f}x{scene.height:.0f} picture is too large")
    return svg_to_png(scene_svg(scene, words))


def svg_to_png(svg: str) -> bytes:
    """Rasterize an SVG document at its own size (RGBA PNG bytes)."""
    resvg = rasterizer()
    probe_text = resvg.svg_to_bytes(svg_string=_PROBE.format(_PROBE_TEXT))
    if probe_text == resvg.svg_to_bytes(svg_string=_PROBE.format("")):
        raise PngUnavailable(
            "PNG pictures need a font for their text and resvg found none on this system: "
            f"install one (Debian: apt-get install {FONT_PACKAGE})"
        )
    picture: bytes = resvg.svg_to_bytes(svg_string=svg)
    return picture


def rasterizer() -> ModuleType:
    """The ``resvg_py`` module, or PngUnavailable naming the extra that installs it."""
    try:
        import resvg_py
    except ImportError as error:
        raise PngUnavailable(f"PNG pictures need the 'png' extra ({error}): {PNG_EXTRA}") from None
    return resvg_py
