"""Fifth player: the black pieces and 12 more tiles make a five-player game; the rules are
otherwise those of the base game (docs/rules.md, "Fifth player").

Five players imply this expansion: it has no option of its own and changes no rule, so it
plugs into nothing but the tile set (``tiles.tile_set``); its black pieces are
``pieces.Colour.BLACK``.
"""

from __future__ import annotations

from typing import Final

FIFTH_PLAYER_TILE_COUNTS: Final[dict[str, int]] = {
    "JC": 1, "CJ": 2, "JS": 2, "SJ": 2, "JL": 2, "CR": 2, "RC": 1,
}  # fmt: skip
"""The 12 tiles the fifth-player expansion adds."""


def uses_fifth_player(players: int) -> bool:
    """Whether a game of ``players`` needs the fifth-player pieces and tiles."""
    return players == 5
