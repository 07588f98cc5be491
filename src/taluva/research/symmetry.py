"""The six rotations about ``0,0``: exact symmetries of Taluva, for data augmentation.

Turning the whole island by a sixth of a turn maps every legal move to a legal move and every
game to a game with the same tiles drawn and the same result (the first volcano stays on
``0,0``). Reflections are *not* symmetries: tiles are chiral, so the mirror image of ``JC``
is ``CJ`` (docs/rules.md). A Game Board zone breaks the rotations too unless it is itself
rotation-symmetric, so ``rotate_game`` refuses games played on one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from taluva.engine.game import Game
from taluva.engine.hexes import coords, hex_at
from taluva.engine.moves import DOUBLE, DRAW, EXPAND, SHIP, TILE, Move
from taluva.research.actions import ActionSpace, expansion_settlements


def rotate_hex(hex_: int, k: int) -> int:
    """A hex turned ``k`` sixths of a turn counter-clockwise about ``0,0`` (E becomes NE).

    >>> from taluva import format_hex, parse_hex
    >>> format_hex(rotate_hex(parse_hex("1,0"), 1)), format_hex(rotate_hex(parse_hex("2,-1"), 6))
    ('1,-1', '2,-1')
    """
    q, r = coords(hex_)
    for _ in range(k % 6):
        q, r = q + r, -q
    return hex_at(q, r)


def rotate_move(move: Move, k: int) -> Move:
    """A move turned ``k`` sixths of a turn; a ship keeps naming its lagoon by the turned hex
    (any hex of a lagoon names it on input; the engine prints the lowest)."""
    k %= 6
    kind = move.kind
    if kind == TILE:
        return Move.place_tile(rotate_hex(move.hex, k), (move.orientation + k) % 6)
    if kind == DOUBLE:
        return Move.place_double(move.tile, rotate_hex(move.hex, k), (move.orientation + k) % 6)
    if kind == EXPAND:
        return Move.expand(move.terrain, [rotate_hex(h, k) for h in move.hexes])
    if kind == DRAW:
        return move
    return Move(kind, rotate_hex(move.hex, k))


def rotate_game(game: Game, k: int) -> Game:
    """The same game with every move turned: same players, deck and result.

    Raises ValueError for a game played on a Game Board zone (not rotation-symmetric).
    """
    record = game.to_record()
    zones = [e for e in record["options"]["expansions"] if e.startswith("board:")]
    if zones:
        raise ValueError(f"a game on {zones[0]} cannot be turned: the zone is not symmetric")
    record["moves"] = [str(rotate_move(move, k)) for move in game.moves]
    return Game.from_record(record)


def rotate_action(game: Game, action: int, k: int, space: ActionSpace) -> int:
    """The action that names the turned move in the turned position.

    An expansion's anchor and a ship's hex are the lowest hex of a settlement or lagoon,
    which a rotation does not keep lowest, so those two kinds need the position.
    """
    k %= 6
    move = space.decode(game, action)
    kind = move.kind
    if kind == EXPAND:
        groups = expansion_settlements(game)[(move.terrain, move.hexes)]
        anchor = min(min(rotate_hex(h, k) for h in group) for group in groups)
        return space.expand_base + 5 * space.hex_index(anchor) + move.terrain - 1
    if kind == SHIP:
        lagoons = getattr(game, "lagoons", None)
        lagoon = next((lag for lag in lagoons() if move.hex in lag), None) if lagoons else None
        if lagoon is None:
            raise ValueError(f"{move}: no lagoon there in this position")
        return space.ship_base + space.hex_index(min(rotate_hex(h, k) for h in lagoon))
    return space.encode(None, rotate_move(move, k))


def rotate_policy(
    game: Game, policy: npt.NDArray[Any], k: int, space: ActionSpace
) -> npt.NDArray[Any]:
    """A vector over the action space (a policy target or a legal mask) turned: the value of
    each non-zero action moves to its turned action."""
    turned = np.zeros_like(policy)
    for action in np.flatnonzero(policy):
        turned[rotate_action(game, int(action), k, space)] = policy[action]
    return turned


def mirror_hex(hex_: int) -> int:
    """A hex reflected in the line through ``0,0`` and ``1,0`` (E stays E, NE becomes SE).

    Not a symmetry of the game (tiles are chiral); tests use it to show so.
    """
    q, r = coords(hex_)
    return hex_at(q + r, -r)
