"""Fifth player: the black pieces and 12 more tiles make a five-player game; the rules are
otherwise those of the base game (docs/rules.md, "Fifth player").

Five players imply this expansion: it has no option of its own and changes no rule, so it
overrides no hook. Its 12 tiles are in the tile table (``tiles.FIFTH_PLAYER_TILE_COUNTS``,
dealt by ``tiles.tile_set``) and its black pieces are ``pieces.Colour.BLACK``.
"""

from __future__ import annotations

from taluva.engine.position import Expansion
from taluva.engine.tiles import FIFTH_PLAYER_COUNT, FIFTH_PLAYER_TILE_COUNTS

__all__ = ["FIFTH_PLAYER_COUNT", "FIFTH_PLAYER_TILE_COUNTS", "FifthPlayer"]


class FifthPlayer(Expansion):
    """The fifth seat: more tiles in the box, the same rules."""

    name = "fifth_player"
