"""Make the installable app's PNG icons from the site's own icon.svg, with resvg (the ``png``
extra that ``taluva show --png`` uses).

Run it after changing icon.svg or the page colour in style.css, and commit the PNGs it writes
to ``src/taluva/server/web/static/icons/``: ``.venv/bin/python scripts/make_icons.py``. The
same inputs give the same files, so a run without changes leaves git clean.
"""

from __future__ import annotations

import re
from pathlib import Path

from taluva.render.raster import rasterizer

STATIC = Path(__file__).resolve().parent.parent / "src" / "taluva" / "server" / "web" / "static"
ICONS = STATIC / "icons"
PLAIN_SIZES = (192, 512)
"""The icons drawn as icon.svg is, on a clear background (the manifest's "any" purpose)."""
FILLED = {"maskable-512.png": 512, "apple-touch-icon.png": 180}
"""The icons on the page colour, the hexagon kept inside the middle: a phone may cut them to
a circle or a rounded square (the manifest's "maskable" purpose, the iPhone's home screen)."""
FILLED_MARGIN = 0.35
"""How far the filled icon's picture reaches past the hexagon's own box, on each side, as a
part of that box: the hexagon then stays inside the circle a mask always keeps."""


def page_colour(stylesheet: str) -> str:
    """The page's background colour, ``--bg`` of style.css."""
    found = re.search(r"--bg:\s*(#[0-9a-fA-F]{6})\s*;", stylesheet)
    if found is None:
        raise SystemExit("style.css has no --bg colour")
    return found.group(1)


def filled_svg(icon: str, background: str, size: int) -> str:
    """icon.svg drawn smaller in the middle of a square of ``background``, ``size`` pixels."""
    side = 1 + 2 * FILLED_MARGIN
    inner = icon.replace(
        "<svg ", f'<svg x="{FILLED_MARGIN}" y="{FILLED_MARGIN}" width="1" height="1" ', 1
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {side} {side}">'
        f'<rect width="{side}" height="{side}" fill="{background}"/>{inner}</svg>'
    )


def render(svg: str, size: int) -> bytes:
    """The SVG as a square PNG of ``size`` pixels."""
    picture: bytes = rasterizer().svg_to_bytes(svg_string=svg, width=size, height=size)
    return picture


def main() -> None:
    """Write every icon into ``ICONS``."""
    icon = (STATIC / "icon.svg").read_text(encoding="utf-8")
    background = page_colour((STATIC / "style.css").read_text(encoding="utf-8"))
    ICONS.mkdir(exist_ok=True)
    for size in PLAIN_SIZES:
        (ICONS / f"icon-{size}.png").write_bytes(render(icon, size))
    for name, size in FILLED.items():
        (ICONS / name).write_bytes(render(filled_svg(icon, background, size), size))
    print(f"wrote {len(PLAIN_SIZES) + len(FILLED)} icons to {ICONS}")


if __name__ == "__main__":
    main()
