"""SVG pictures of a position, written with the standard library only."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from taluva.render.position import position_at
from taluva.render.scene import Group, Item, Label, Scene, Shape, board_scene

if TYPE_CHECKING:
    from taluva.engine.game import Game

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


Words = Callable[[str], str]
"""How a picture says its texts (the labels are ``Text``s): ``str`` gives the English, an
interface passes ``lambda text: taluva.lang.say(text, lang)`` for its reader's language."""


def svg_board(
    game: Game,
    ply: int | None = None,
    size: float = 36.0,
    *,
    coordinates: bool = True,
    words: Words = str,
) -> str:
    """An SVG document of the position after ``ply`` moves (the current one if None).

    Each hex is a ``<g class="hex" data-hex="q,r" data-level=.. data-terrain=..>``, so
    clients and tests can find it; ``size`` is the hex radius in pixels; ``words`` says the
    labels and title.
    """
    if size <= 0:
        raise ValueError(f"size {size} must be positive")
    scene = board_scene(position_at(game, ply), size, coordinates=coordinates)
    return scene_svg(scene, words)


def scene_svg(scene: Scene, words: Words = str) -> str:
    """Write a scene as a standalone SVG document, its texts said by ``words``."""
    width, height = _number(scene.width), _number(scene.height)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f"<title>{escape(words(scene.title))}</title>",
        f'<rect width="100%" height="100%" fill="{scene.background}"/>',
    ]
    for item in scene.items:
        lines.extend(_item(item, "", words))
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def _item(item: Item, indent: str, words: Words) -> list[str]:
    if isinstance(item, Group):
        attrs = " ".join(f"{key}={quoteattr(value)}" for key, value in item.attrs.items())
        inner = [line for child in item.items for line in _item(child, indent + " ", words)]
        return [f"{indent}<g {attrs}>", *inner, f"{indent}</g>"]
    if isinstance(item, Label):
        return [indent + _label(item, words)]
    return [indent + _shape(item)]


def _shape(shape: Shape) -> str:
    points = " ".join(f"{_number(x)},{_number(y)}" for x, y in shape.points)
    tag = "polygon" if shape.closed else "polyline"
    attrs = [f'points="{points}"', f'fill="{shape.fill or "none"}"']
    if shape.stroke:
        attrs.append(f'stroke="{shape.stroke}" stroke-width="{_number(shape.width)}"')
        attrs.append('stroke-linejoin="round" stroke-linecap="round"')
        if shape.dash:
            attrs.append(f'stroke-dasharray="{_number(shape.dash)}"')
    return f"<{tag} {' '.join(attrs)}/>"


def _label(label: Label, words: Words) -> str:
    anchor = "middle" if label.anchor == "middle" else "start"
    weight = ' font-weight="bold"' if label.bold else ""
    return (
        f'<text x="{_number(label.x)}" y="{_number(label.y)}" font-size="{_number(label.size)}" '
        f'font-family="{FONT}" fill="{label.fill}" text-anchor="{anchor}" '
        f'dominant-baseline="central"{weight}>{escape(words(label.text))}</text>'
    )


def _number(value: float) -> str:
    """Short, stable text for a coordinate (two decimals, no trailing zeros)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
