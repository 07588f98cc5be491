"""Leaving a game (docs/rules.md, ruling 22): a player resigns, or runs out of time, at any
moment, whoever is to move. It is not a move: legal moves and perft never show it.

The player is out as if eliminated (``ending.eliminate``): the game goes on without them,
they rank with the eliminated, and when one player is left standing that player wins.
"""

from __future__ import annotations

from taluva.engine.errors import IllegalMove
from taluva.engine.outcome import LEAVING_CHOICES, LEAVING_REASONS, Reason, Resignation
from taluva.engine.position import OVER, TILE_PHASE, Position
from taluva.engine.refusals import refusal
from taluva.engine.rules import ending, turns
from taluva.engine.wording import Text


def resignation_problem(s: Position, player: int) -> Text | None:
    """Why ``player`` cannot leave the game now, in words, or None if they can."""
    count = s.setup.player_count
    if type(player) is not int or not 0 <= player < count:
        return refusal("no-such-player", player=repr(player), last=count - 1)
    if s.phase == OVER:
        return refusal("game-over")
    if player in s.eliminated:
        return refusal("already-out", name=s.setup.players[player])
    return None


def resign(s: Position, player: int, reason: Reason | str, ply: int) -> Position:
    """The position after ``player`` leaves (``reason``: resigned or ran out of time) once
    ``ply`` moves have been played; raise IllegalMove, changing nothing, if they cannot.

    A player who leaves on their own turn before placing the drawn tile puts it back on top
    of the pile, so the next player takes it; a tile already placed stays on the island.
    """
    if reason not in LEAVING_REASONS:
        raise IllegalMove(
            refusal("unknown-leaving-reason", choices=LEAVING_CHOICES, reason=repr(str(reason)))
        )
    problem = resignation_problem(s, player)
    if problem is not None:
        raise IllegalMove(problem)
    new = s.successor()
    new.resignations = (*s.resignations, Resignation(ply, player, Reason(reason)))
    own_turn = player == s.to_move
    if own_turn and s.phase == TILE_PHASE and s.tile is not None:
        new.deck_pos -= 1
        new.tile = None
    new.eliminated = (*s.eliminated, player)
    standing = [p for p in range(s.setup.player_count) if p not in new.eliminated]
    if len(standing) == 1:
        ending.end(new, Reason(reason), standing[0])
    elif own_turn:
        turns.start_turn(new, turns.next_player(new, player))
    return new
