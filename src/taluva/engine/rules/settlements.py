"""Settlements: edge-connected groups of one player's buildings, whatever their levels
(docs/rules.md, "Settlements").

Each building hex maps to the frozenset of its settlement's hexes; building joins
settlements, an eruption may split one.
"""

from __future__ import annotations

from collections.abc import Iterable

from taluva.engine.hexes import DELTAS
from taluva.engine.position import Position


def components(hexes: Iterable[int]) -> list[frozenset[int]]:
    """Split a set of hexes into its edge-connected groups (in order of lowest hex)."""
    left = set(hexes)
    groups = []
    for start in sorted(left):
        if start not in left:
            continue
        left.discard(start)
        group = [start]
        for hex_ in group:
            for d in DELTAS:
                if hex_ + d in left:
                    left.discard(hex_ + d)
                    group.append(hex_ + d)
        groups.append(frozenset(group))
    return groups


def settlements_of(s: Position, player: int) -> list[frozenset[int]]:
    """A player's settlements, each the set of its hexes, ordered by lowest hex."""
    found = s.settlement_lists[player]
    if found is None:
        unique = {id(s.settlement[h]): s.settlement[h] for h in s.own[player]}
        found = s.settlement_lists[player] = sorted(unique.values(), key=min)
    return found


def settlements_touching(s: Position, player: int, hex_: int) -> list[frozenset[int]]:
    """The player's settlements next to ``hex_``, each once."""
    adjacent = {id(s.settlement[h]): s.settlement[h] for h in s.own[player] if hex_ - h in DELTAS}
    return list(adjacent.values())


def fields(
    group: frozenset[int], free: frozenset[int], terrain: dict[int, int], kind: int
) -> set[int]:
    """Buildable hexes of one terrain next to a settlement: what expanding into it fills."""
    return {h + d for h in group for d in DELTAS if h + d in free and terrain[h + d] == kind}


def join(
    s: Position, new: Position, hexes: tuple[int, ...], player: int
) -> tuple[frozenset[int], int]:
    """Add the player's new buildings on ``hexes`` to ``new``'s settlements, merging every
    settlement they touch; return the merged settlement and the size of the smallest part
    that went into it (the new hexes, or a settlement joined)."""
    building = new.building
    settlement = new.settlement = s.settlement.copy()
    lists = new.settlement_lists = list(s.settlement_lists)  # the others' still hold
    joined = set(hexes)
    smallest = len(hexes)
    for hex_ in hexes:
        for d in DELTAS:
            neighbour = hex_ + d
            if neighbour not in joined and building.get(neighbour, -1) >> 2 == player:
                group = settlement[neighbour]
                joined |= group
                if len(group) < smallest:
                    smallest = len(group)
    merged = frozenset(joined)
    for hex_ in merged:
        settlement[hex_] = merged
    known = lists[player]
    if known is not None:  # the player's list, the settlements merged replaced by the merger
        known = [group for group in known if group.isdisjoint(merged)]
        known.append(merged)
        known.sort(key=min)
    lists[player] = known
    return merged, smallest


def split(s: Position, new: Position, removed: list[int]) -> list[frozenset[int]]:
    """Take the buildings on ``removed`` out of their settlements in ``new``, splitting what
    no longer holds together; return the settlements they belonged to."""
    settlement = new.settlement = s.settlement.copy()
    new.settlement_lists = [None] * s.setup.player_count
    groups = list({id(s.settlement[h]): s.settlement[h] for h in removed}.values())
    for group in groups:
        for hex_ in group:
            settlement.pop(hex_)
        for part in components(group.difference(removed)):
            for hex_ in part:
                settlement[hex_] = part
    return groups
