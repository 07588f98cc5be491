"""Pictures of a position: SVG and PNG drawn with the standard library only, and the shared
drawing rules (terrain and player colours, level shading) that the terminal and the web
client follow too."""

from __future__ import annotations

from taluva.render.png import png_board
from taluva.render.style import drawing_rules
from taluva.render.svg import svg_board

__all__ = ["drawing_rules", "png_board", "svg_board"]
