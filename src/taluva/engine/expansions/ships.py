"""Ships (docs/rules.md, "Ships"): each player's two ships go into lagoons, sea the island
encloses completely; a lagoon holding a ship may never be covered.

Finding lagoons is a flood fill, so the position keeps Euler counts of the land (hexes,
neighbouring pairs, triangles) as it grows: ``1 - V + E - T`` counts the holes, and the fill
runs only when there is one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from taluva.engine.hexes import DELTAS, STRIDE, coords, format_hex
from taluva.engine.moves import SHIP, SHIP_MOVES, Move
from taluva.engine.pieces import SHIPS
from taluva.engine.position import Expansion, Position
from taluva.engine.refusals import player_words, refusal
from taluva.engine.rules.settlements import components
from taluva.engine.tiles import CODE_OFFSETS_OVER, PAIR_OFFSETS_OVER
from taluva.engine.wording import Text

NAME: Final = "ships"


def enclosed_sea(level: Mapping[int, int]) -> list[frozenset[int]]:
    """Lagoons: groups of sea hexes the island encloses completely, ordered by lowest hex.

    Sea reachable from the edge of a box one hex larger than the island is open sea; what
    remains inside the box is enclosed.
    """
    if not level:
        return []
    points = [coords(h) for h in level]
    q_low = min(q for q, _ in points) - 1
    q_high = max(q for q, _ in points) + 1
    r_low = min(r for _, r in points) - 1
    r_high = max(r for _, r in points) + 1
    inner = set()
    queue = []
    for q in range(q_low, q_high + 1):
        column = q * STRIDE
        edge = q in (q_low, q_high)
        for r in range(r_low, r_high + 1):
            hex_ = column + r
            if hex_ in level:
                continue
            if edge or r in (r_low, r_high):
                queue.append(hex_)
            else:
                inner.add(hex_)
    for hex_ in queue:
        for d in DELTAS:
            if hex_ + d in inner:
                inner.discard(hex_ + d)
                queue.append(hex_ + d)
    return components(inner)


def lagoons(s: Position) -> list[frozenset[int]]:
    """The lagoons of a position, found when first asked (kept on the position)."""
    found = s.lagoons
    if found is None:
        holes = 1 - s.land_count + s.land_edges - s.land_triangles
        found = s.lagoons = enclosed_sea(s.level) if holes > 0 else []
    return found


def lagoon_of(s: Position, hex_: int) -> frozenset[int] | None:
    """The lagoon holding ``hex_``, or None (land, open sea, or a game without Ships)."""
    if hex_ in s.level:
        return None
    return next((lagoon for lagoon in lagoons(s) if hex_ in lagoon), None)


class Ships(Expansion):
    """Ship moves, the lagoon rule, and ships as a fourth kind of piece."""

    name = NAME
    piece_types = 1

    def builds(self, position: Position, player: int) -> list[Move]:
        """A ship into each lagoon next to the player's buildings that holds none yet."""
        if not position.supply[player][SHIPS]:
            return []
        own = position.own[player]
        return [
            SHIP_MOVES[min(lagoon)]
            for lagoon in lagoons(position)
            if min(lagoon) not in position.ships
            and any(h + d in own for h in lagoon for d in DELTAS)
        ]

    def owns(self, move: Move) -> bool:
        return move[0] == SHIP

    def canonical(self, position: Position, move: Move) -> Move | None:
        """A ship names its lagoon by its lowest hex; any hex of the lagoon is accepted."""
        lagoon = lagoon_of(position, move[1])
        return None if lagoon is None else SHIP_MOVES[min(lagoon)]

    def problem(self, position: Position, move: Move) -> Text:
        player = position.to_move
        if position.supply[player][SHIPS] == 0:
            return refusal("no-ships-left", player=player_words(player))
        hex_ = move[1]
        where = format_hex(hex_)
        if hex_ in position.level:
            return refusal("ship-on-land", hex=where)
        lagoon = lagoon_of(position, hex_)
        if lagoon is None:
            return refusal("ship-on-open-sea", hex=where)
        if min(lagoon) in position.ships:
            return refusal("lagoon-has-ship", hex=format_hex(min(lagoon)))
        own = position.own[player]
        if not any(h + d in own for h in lagoon for d in DELTAS):
            return refusal("lagoon-not-touching", hex=format_hex(min(lagoon)))
        return refusal("not-a-ship")

    def play(self, position: Position, new: Position, move: Move) -> None:
        """Put a ship into its lagoon: no tile may cover that lagoon from now on."""
        lagoon = lagoon_of(position, move[1])
        assert lagoon is not None
        player = position.to_move
        new.ships = {**position.ships, min(lagoon): player}
        new.blocked = position.blocked | lagoon
        supplies = list(position.supply)
        huts, temples, towers, ships = position.supply[player]
        supplies[player] = (huts, temples, towers, ships - 1)
        new.supply = tuple(supplies)
        new.sea = position.sea.difference(h * 8 + o for h in lagoon for o in CODE_OFFSETS_OVER)
        new.sea2 = position.sea2.difference(h * 8 + o for h in lagoon for o in PAIR_OFFSETS_OVER)

    def placement_problem(self, position: Position, hexes: tuple[int, ...]) -> Text | None:
        if all(h not in position.level for h in hexes):
            for hex_ in hexes:
                if hex_ in position.blocked:
                    return refusal("covers-ship-lagoon", hex=format_hex(hex_))
        return None

    def land_added(self, position: Position, new: Position, hexes: tuple[int, ...]) -> None:
        """Count what closes lagoons: land hexes, neighbouring pairs and triangles."""
        level = position.level
        added: list[int] = []
        edges = position.land_edges
        triangles = position.land_triangles
        for hex_ in hexes:
            near = [hex_ + d in level or hex_ + d in added for d in DELTAS]
            edges += sum(near)
            triangles += sum(near[k] and near[k - 5] for k in range(6))
            added.append(hex_)
        new.land_edges = edges
        new.land_triangles = triangles
        new.lagoons = None
