"""Settlements: edge-connected groups of one player's buildings, whatever their levels."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from taluva.hexes import DELTAS


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


def settlements_from_scratch(building: Mapping[int, int]) -> dict[int, frozenset[int]]:
    """Every building hex mapped to its settlement, computed without any incremental state.

    ``building`` maps a hex to ``player * 4 + kind``.
    """
    by_player: dict[int, list[int]] = {}
    for hex_, piece in building.items():
        by_player.setdefault(piece >> 2, []).append(hex_)
    result = {}
    for hexes in by_player.values():
        for group in components(hexes):
            for hex_ in group:
                result[hex_] = group
    return result
