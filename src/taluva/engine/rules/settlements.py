"""Settlements: edge-connected groups of one player's buildings, whatever their levels."""

from __future__ import annotations

from collections.abc import Iterable

from taluva.engine.hexes import DELTAS


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
