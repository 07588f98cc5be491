"""Pictures of a position: SVG written with the standard library only, PNG rasterized from
that SVG by resvg (the optional ``png`` extra), and the shared drawing rules (terrain and
player colours, level shading) that the terminal and the web client follow too."""

from __future__ import annotations

from taluva.render.raster import PngUnavailable, png_board
from taluva.render.style import drawing_rules
from taluva.render.svg import svg_board

__all__ = ["PngUnavailable", "drawing_rules", "png_board", "svg_board"]
