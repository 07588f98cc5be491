"""The end of the game (docs/rules.md, "End of the game"): elimination, early victory, last
player standing, tiles run out, no placement. How the players then rank is
``outcome.rank_players``."""

from __future__ import annotations

from taluva.engine.outcome import Outcome, Reason, rank_players, score
from taluva.engine.position import OVER, Position

__all__ = ["eliminate", "end", "has_won", "rank_players", "score"]


def has_won(s: Position, player: int) -> bool:
    """Early victory: the player has placed every piece of two kinds (of the kinds in play)."""
    return s.supply[player][: s.setup.piece_types].count(0) >= 2


def end(s: Position, reason: Reason, winner: int | None = None) -> None:
    """End the game in ``s``: rank the players and record why."""
    s.phase = OVER
    s.tile = None
    s.tile_moves = None
    s.result = Outcome(rank_players(s.supply, s.eliminated, winner, s.setup.options.ships), reason)


def eliminate(s: Position, player: int) -> bool:
    """Take out a player who cannot build; end the game if one player is left standing.
    Return whether the game is over."""
    s.eliminated = (*s.eliminated, player)
    standing = [p for p in range(s.setup.player_count) if p not in s.eliminated]
    if len(standing) == 1:
        end(s, Reason.LAST_STANDING, standing[0])
        return True
    return False
