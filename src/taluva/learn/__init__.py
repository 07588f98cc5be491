"""Learning to play: the "How to play" guide (``guide``), the rules as a player reads them with
pictures of real positions, shown by the web client, the terminal and ``taluva rules``.

This layer sits above the engine and the renderer and below the interfaces that show it.
"""

from __future__ import annotations

from taluva.learn.guide import Guide, GuideError, Picture, Section, load_guide

__all__ = ["Guide", "GuideError", "Picture", "Section", "load_guide"]
