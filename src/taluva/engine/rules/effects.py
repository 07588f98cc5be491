"""What a move did, read from the positions before and after it: the level a tile reached,
the huts an eruption destroyed (docs/rules.md, "Volcanic eruption"), the huts a build placed
(docs/rules.md, "Building actions").

Nothing here applies a rule again: the numbers are the differences the rules themselves left
in the two positions (``destroyed``, ``supply``, ``level``), so a client that puts a move in
words never needs to know how many huts a hex holds or what a tile buries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from taluva.engine.moves import DOUBLE, TILE, Move
from taluva.engine.pieces import HUTS
from taluva.engine.position import Position
from taluva.engine.tiles import double_footprint, footprint


@dataclass(frozen=True, slots=True)
class MoveEffect:
    """One move's consequences.

    ``level``: for a tile (``tile`` or ``double``), the level it now lies at (1 on the sea,
    more for an eruption or a tile laid on top), else None. ``huts``: huts the mover took
    from their supply and put on the board (a hut: 1; an expansion: one a level on each hex
    it fills). ``destroyed``: ``(player, huts)`` for each player whose huts the tile buried,
    in the order of the hexes it covers (its footprint: volcano, ``A``, ``B``).
    """

    level: int | None = None
    huts: int = 0
    destroyed: tuple[tuple[int, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The effect as JSON, with only the keys that apply: ``level`` for a tile, ``huts``
        when huts were placed, ``destroyed`` (``[{"seat", "huts"}]``) when huts were buried."""
        out: dict[str, Any] = {}
        if self.level is not None:
            out["level"] = self.level
        if self.huts:
            out["huts"] = self.huts
        if self.destroyed:
            out["destroyed"] = [{"seat": seat, "huts": huts} for seat, huts in self.destroyed]
        return out


NO_EFFECT = MoveEffect()


def move_effect(before: Position, move: Move, after: Position) -> MoveEffect:
    """What ``move``, played in ``before``, did to make ``after`` (``turns.apply``'s result;
    a resignation in between changes none of what is read here)."""
    kind = move[0]
    if kind in (TILE, DOUBLE):
        hexes = footprint(move[1], move[2]) if kind == TILE else double_footprint(move[1], move[2])
        destroyed: tuple[tuple[int, int], ...] = ()
        if before.destroyed != after.destroyed:
            lost = [now - then for now, then in zip(after.destroyed, before.destroyed, strict=True)]
            owners = dict.fromkeys(before.building[h] >> 2 for h in hexes if h in before.building)
            destroyed = tuple((owner, lost[owner]) for owner in owners if lost[owner])
        return MoveEffect(level=after.level[move[1]], destroyed=destroyed)
    player = before.to_move
    huts = before.supply[player][HUTS] - after.supply[player][HUTS]
    return MoveEffect(huts=huts) if huts else NO_EFFECT
