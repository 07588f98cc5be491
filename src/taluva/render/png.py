"""PNG pictures of a position without any dependency: a scanline polygon rasterizer, a pixel
font, 2x2 supersampling for smooth edges, and a zlib/struct PNG writer."""

from __future__ import annotations

import itertools
import math
import struct
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from taluva.render import font
from taluva.render.position import position_at
from taluva.render.scene import Group, Item, Label, Point, Scene, Shape, board_scene
from taluva.render.style import parse_colour

if TYPE_CHECKING:
    from taluva.engine.game import Game

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_PIXELS = 40_000_000
"""Refuse pictures beyond this many (supersampled) pixels instead of filling the memory."""


class Canvas:
    """An RGB pixel buffer that fills polygons, strokes lines and writes pixel-font text."""

    def __init__(self, width: int, height: int, background: str) -> None:
        if width <= 0 or height <= 0 or width * height > MAX_PIXELS:
            raise ValueError(f"a {width}x{height} picture is too large or empty")
        self.width = width
        self.height = height
        self.pixels = bytearray(bytes(parse_colour(background)) * (width * height))

    def fill_polygon(self, points: Sequence[Point], colour: str) -> None:
        """Fill a polygon (even-odd rule), sampling each pixel at its centre."""
        if len(points) < 3:
            return
        rgb = bytes(parse_colour(colour))
        edges = []
        count = len(points)
        for i in range(count):
            x1, y1 = points[i]
            x2, y2 = points[(i + 1) % count]
            if y1 != y2:
                if y1 > y2:
                    x1, y1, x2, y2 = x2, y2, x1, y1
                edges.append((y1, y2, x1, (x2 - x1) / (y2 - y1)))
        if not edges:
            return
        top = max(0, math.floor(min(e[0] for e in edges)))
        bottom = min(self.height, math.ceil(max(e[1] for e in edges)))
        width = self.width
        pixels = self.pixels
        for y in range(top, bottom):
            centre = y + 0.5
            crossings = sorted(
                x + (centre - y1) * slope for y1, y2, x, slope in edges if y1 <= centre < y2
            )
            row = y * width * 3
            for i in range(0, len(crossings) - 1, 2):
                start = max(0, math.ceil(crossings[i] - 0.5))
                end = min(width, math.ceil(crossings[i + 1] - 0.5))
                if end > start:
                    pixels[row + start * 3 : row + end * 3] = rgb * (end - start)

    def stroke(
        self,
        points: Sequence[Point],
        colour: str,
        width: float,
        closed: bool = False,
        dash: float = 0.0,
    ) -> None:
        """Draw a line of ``width`` through ``points`` with round joins (dashed if ``dash``)."""
        path = list(points) + ([points[0]] if closed else [])
        half = width / 2
        for (x1, y1), (x2, y2) in itertools.pairwise(path):
            for (ax, ay), (bx, by) in _dashes((x1, y1), (x2, y2), dash):
                length = math.hypot(bx - ax, by - ay)
                if length > 0:
                    nx, ny = -(by - ay) / length * half, (bx - ax) / length * half
                    quad = ((ax + nx, ay + ny), (bx + nx, by + ny),
                            (bx - nx, by - ny), (ax - nx, ay - ny))  # fmt: skip
                    self.fill_polygon(quad, colour)
                if half >= 0.75:
                    self.fill_polygon(_disc(ax, ay, half), colour)
                    self.fill_polygon(_disc(bx, by, half), colour)

    def text(self, label: Label, scale: float) -> None:
        """Write a label with the pixel font, its capitals about 0.72 of the font size high."""
        pixel = label.size * scale * 0.72 / font.HEIGHT
        pixels = font.text_pixels(label.text)
        span = (len(label.text) * font.ADVANCE - 1) * pixel
        left = label.x * scale - (span / 2 if label.anchor == "middle" else 0.0)
        top = label.y * scale - font.HEIGHT * pixel / 2
        grow = pixel * 0.25 if label.bold else 0.0
        rgb = bytes(parse_colour(label.fill))
        for column, row in pixels:
            x = left + column * pixel - grow
            y = top + row * pixel
            self.fill_rect(x, y, x + pixel + 2 * grow, y + pixel, rgb)

    def fill_rect(self, x1: float, y1: float, x2: float, y2: float, rgb: bytes) -> None:
        """Fill the pixels whose centres lie in an axis-aligned rectangle."""
        start = max(0, math.ceil(x1 - 0.5))
        end = min(self.width, math.ceil(x2 - 0.5))
        if end <= start:
            return
        span = rgb * (end - start)
        stride = self.width * 3
        for y in range(max(0, math.ceil(y1 - 0.5)), min(self.height, math.ceil(y2 - 0.5))):
            self.pixels[y * stride + start * 3 : y * stride + end * 3] = span

    def downsample(self, factor: int) -> Canvas:
        """Average each ``factor`` x ``factor`` block into one pixel (smooths the edges).

        Rows are added as big integers with a 16-bit lane per colour byte, which keeps the
        work in C: ``factor`` must be a power of two so that dividing is a shift.
        """
        if factor == 1:
            return self
        if factor not in (2, 4):
            raise ValueError(f"downsampling factor {factor} must be 1, 2 or 4")
        width, height = self.width // factor, self.height // factor
        result = Canvas(width, height, "#000000")
        stride = self.width * 3
        used = width * factor * 3
        lanes = bytearray(used * 2)
        shift = factor.bit_length() - 1
        rounding = int.from_bytes(bytes([0, (factor * factor) // 2]) * used, "big")
        mask = int.from_bytes(b"\x00\xff" * used, "big")
        out = bytearray(width * 3)
        for y in range(height):
            total = 0
            for extra in range(factor):
                start = (y * factor + extra) * stride
                lanes[1::2] = self.pixels[start : start + used]
                total += int.from_bytes(lanes, "big")
            total += total >> 48  # pixel x + 1 now also holds pixel x
            if factor == 4:
                total += total >> 96  # pixel x + 3 now holds pixels x to x + 3
            total = ((total + rounding) >> (2 * shift)) & mask
            low = total.to_bytes(used * 2, "big")[1::2]
            for channel in range(3):
                out[channel::3] = low[(factor - 1) * 3 + channel :: 3 * factor]
            result.pixels[y * width * 3 : (y + 1) * width * 3] = out
        return result

    def png(self) -> bytes:
        """The canvas as a PNG file (8-bit RGB, no filtering, zlib level 6)."""
        stride = self.width * 3
        raw = b"".join(
            b"\x00" + self.pixels[y * stride : (y + 1) * stride] for y in range(self.height)
        )
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            PNG_SIGNATURE
            + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(raw, 6))
            + _chunk(b"IEND", b"")
        )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _disc(x: float, y: float, radius: float) -> tuple[Point, ...]:
    """A 12-sided polygon standing in for a round line join."""
    return tuple(
        (x + radius * math.cos(i * math.pi / 6), y + radius * math.sin(i * math.pi / 6))
        for i in range(12)
    )


def _dashes(a: Point, b: Point, dash: float) -> list[tuple[Point, Point]]:
    """A segment cut into dashes of length ``dash`` with equal gaps (whole if no dash)."""
    if dash <= 0:
        return [(a, b)]
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    pieces = []
    position = 0.0
    while position < length:
        end = min(length, position + dash)
        t0, t1 = position / length, end / length
        pieces.append(
            (
                (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0),
                (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1),
            )
        )
        position += 2 * dash
    return pieces


def rasterize(scene: Scene, supersample: int = 2) -> bytes:
    """Paint a scene into a PNG, drawing at ``supersample`` times the size and averaging."""
    if supersample not in (1, 2, 4):
        raise ValueError(f"supersample {supersample} must be 1, 2 or 4")
    width, height = math.ceil(scene.width), math.ceil(scene.height)
    canvas = Canvas(width * supersample, height * supersample, scene.background)
    for item in scene.items:
        _paint(canvas, item, float(supersample))
    return canvas.downsample(supersample).png()


def _paint(canvas: Canvas, item: Item, scale: float) -> None:
    if isinstance(item, Group):
        for child in item.items:
            _paint(canvas, child, scale)
    elif isinstance(item, Label):
        canvas.text(item, scale)
    elif isinstance(item, Shape):
        points = [(x * scale, y * scale) for x, y in item.points]
        if item.fill and item.closed:
            canvas.fill_polygon(points, item.fill)
        if item.stroke and item.width > 0:
            canvas.stroke(points, item.stroke, item.width * scale, item.closed, item.dash * scale)


def png_board(
    game: Game,
    ply: int | None = None,
    size: float = 36.0,
    *,
    coordinates: bool = True,
    supersample: int = 2,
) -> bytes:
    """A PNG picture of the position after ``ply`` moves: the same drawing as ``svg_board``."""
    if size <= 0:
        raise ValueError(f"size {size} must be positive")
    scene = board_scene(position_at(game, ply), size, coordinates=coordinates)
    return rasterize(scene, supersample)
