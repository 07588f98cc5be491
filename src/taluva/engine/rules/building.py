"""Building actions (docs/rules.md, "Building actions"): found a settlement with a hut, expand
a settlement into every neighbouring hex of one terrain, build a temple or a tower; and the
``adjacent_hut`` house rule. Expansions add their own (Ships).

A player with no building action after placing the tile is eliminated (``ending``), so
``can_build`` is asked after every tile.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Final

from taluva.engine.hexes import DELTAS, format_hex
from taluva.engine.moves import (
    EXPAND,
    HUT,
    HUT_MOVES,
    TEMPLE,
    TEMPLE_MOVES,
    TOWER,
    TOWER_MOVES,
    Move,
    MoveKind,
)
from taluva.engine.pieces import (
    HUT_KIND,
    HUTS,
    TEMPLE_KIND,
    TEMPLES,
    TOWER_KIND,
    TOWERS,
)
from taluva.engine.position import Position
from taluva.engine.refusals import player_words, refusal
from taluva.engine.rules.settlements import fields, join, settlements_touching
from taluva.engine.tiles import TERRAIN_WORDS, VOLCANO
from taluva.engine.wording import Text

KIND_OF_BUILD = {HUT: HUT_KIND, EXPAND: HUT_KIND, TEMPLE: TEMPLE_KIND, TOWER: TOWER_KIND}
"""The building each base building action places."""
SUPPLY_OF_BUILD = {HUT: HUTS, EXPAND: HUTS, TEMPLE: TEMPLES, TOWER: TOWERS}
"""The pile each base building action takes from."""
BASE_BUILDS: frozenset[MoveKind] = frozenset(KIND_OF_BUILD)
"""The building actions of the base game."""


def build_moves(s: Position) -> list[Move]:
    """Every legal building action of the player to move (kept on the position)."""
    moves = s.builds
    if moves is None:
        moves = s.builds = generate_builds(s, s.to_move)
    return moves


def generate_builds(s: Position, player: int) -> list[Move]:
    """New settlements, then what each settlement allows, then the expansions' builds.

    The founding rule (a free hex at level 1 not next to the player's own buildings, unless
    the ``adjacent_hut`` house rule is played) is also checked, hex by hex, by ``can_build``
    and ``sample_build``, which run every turn and stop at the first hex that passes.
    """
    huts, temples, towers, _ships = s.supply[player]
    level = s.level
    free = s.free
    own = s.own[player]
    moves: list[Move] = []
    if huts:
        if s.setup.adjacent_hut or not own:
            moves = [HUT_MOVES[h] for h in free if level[h] == 1]
        else:
            near = {h + d for h in own for d in DELTAS}
            moves = [HUT_MOVES[h] for h in free if level[h] == 1 and h not in near]
    if own:
        settlement = s.settlement
        seen: set[int] = set()
        builds: dict[Move, None] = {}  # a dict, not a set: keeps the order reproducible
        for start in own:
            group = settlement[start]
            if id(group) not in seen:
                seen.add(id(group))
                builds.update(dict.fromkeys(settlement_builds(s, group, huts, temples, towers)))
        moves += builds
        for hook in s.setup.build_hooks:
            moves += hook.builds(s, player)
    return moves


def settlement_builds(
    s: Position, group: frozenset[int], huts: int, temples: int, towers: int
) -> list[Move]:
    """The expansions, temples and towers one settlement allows: every hex of a terrain next to
    it (if the huts suffice), a temple beside 3+ hexes, a tower on level 3+."""
    free = s.free
    border = {h + d for h in group for d in DELTAS} & free
    if not border:
        return []
    level = s.level
    moves = []
    if huts:
        terrain = s.terrain
        by_terrain: dict[int, list[int]] = {}
        for hex_ in border:
            by_terrain.setdefault(terrain[hex_], []).append(hex_)
        for kind, field in by_terrain.items():
            if len(field) == 1:
                if level[field[0]] <= huts:
                    moves.append(Move(EXPAND, field[0], kind, (field[0],)))
            elif sum(level[h] for h in field) <= huts:
                field.sort()
                moves.append(Move(EXPAND, field[0], kind, tuple(field)))
    if temples or towers:
        building = s.building
        kinds = {building[h] & 3 for h in group}
        if temples and len(group) >= 3 and TEMPLE_KIND not in kinds:
            moves += [TEMPLE_MOVES[h] for h in border]
        if towers and TOWER_KIND not in kinds:
            moves += [TOWER_MOVES[h] for h in border if level[h] >= 3]
    return moves


def can_build(s: Position, player: int) -> bool:
    """Whether the player has any building action, usually decided by the first free hex."""
    if s.supply[player][HUTS]:
        own = s.own[player]
        level = s.level
        anywhere = s.setup.adjacent_hut
        for hex_ in s.free:  # the founding rule, as in generate_builds
            if level[hex_] == 1:
                if anywhere:
                    return True
                for d in DELTAS:
                    if hex_ + d in own:
                        break
                else:
                    return True
    return bool(build_moves(s))


def sample_build(s: Position, rng: random.Random) -> Move:
    """A legal build: a new settlement on a random free hex, or a random build that a random
    settlement of the player allows; the full list when neither turns one up."""
    random_ = rng.random
    player = s.to_move
    own = s.own[player]
    if s.builds is None:
        huts, temples, towers, _ships = s.supply[player]
        if own and random_() < 0.5:
            hexes = tuple(own)
            group = s.settlement[hexes[int(random_() * len(hexes))]]
            options = settlement_builds(s, group, huts, temples, towers)
            if options:
                return options[int(random_() * len(options))]
        if huts:
            free = s.free
            level = s.level
            anywhere = s.setup.adjacent_hut
            land = s.land_order
            count = s.land_count
            for _ in range(16):
                hex_ = land[int(random_() * count)]
                if (  # the founding rule, as in generate_builds
                    hex_ in free
                    and level[hex_] == 1
                    and (anywhere or not any(hex_ + d in own for d in DELTAS))
                ):
                    return HUT_MOVES[hex_]
    moves = build_moves(s)
    return moves[int(random_() * len(moves))]


def huts_needed(s: Position, hexes: Iterable[int]) -> int:
    """The huts a settlement founded or expanded on ``hexes`` takes: one per level of each
    hex (the build and move generation sum the same levels inline, for speed)."""
    level = s.level
    return sum(level[h] for h in hexes)


def build(s: Position, new: Position, move: Move, player: int) -> None:
    """Place the move's buildings in ``new``: take them from the supply (a hut per level on
    each hex of an expansion) and join them to the player's settlements."""
    kind = KIND_OF_BUILD[move[0]]
    hexes = move[3] or (move[1],)
    piece = player * 4 + kind
    building = new.building = s.building.copy()
    for hex_ in hexes:
        building[hex_] = piece
    new.free = s.free.difference(hexes)
    if kind != HUT_KIND:
        cost = 1
    elif len(hexes) == 1:
        cost = s.level[hexes[0]]
    else:
        level = s.level
        cost = sum([level[h] for h in hexes])
    supply = list(s.supply[player])
    supply[SUPPLY_OF_BUILD[move[0]]] -= cost
    supplies = list(s.supply)
    supplies[player] = (supply[0], supply[1], supply[2], supply[3])
    new.supply = tuple(supplies)
    own = list(s.own)
    own[player] = own[player].union(hexes)
    new.own = tuple(own)
    merged, smallest = join(s, new, hexes, player)
    # a settlement of two hexes or fewer may lie wholly under a tile; once it grows past two,
    # eruptions over any of its hexes may have become legal
    new.dirty = (s.dirty, merged if smallest <= 2 else hexes)


def build_problem(s: Position, move: Move) -> Text:
    """Why a base building action is not legal here, in words (a refusal with its code)."""
    player = s.to_move
    kind = move[0]
    supply = s.supply[player]
    needed = SUPPLY_OF_BUILD[kind]
    if supply[needed] == 0:
        return refusal(NONE_LEFT[needed], player=player_words(player))
    for hex_ in move[3] or (move[1],):
        where = format_hex(hex_)
        if hex_ not in s.level:
            return refusal("on-sea", hex=where)
        if s.terrain[hex_] == VOLCANO:
            return refusal("on-volcano", hex=where)
        if hex_ in s.building:
            return refusal("occupied", hex=where)
    if kind == HUT:
        return _founding_problem(s, move[1], player)
    if kind == EXPAND:
        return _expansion_problem(s, move, supply[HUTS])
    adjacent = settlements_touching(s, player, move[1])
    if not adjacent:
        return refusal("not-adjacent", hex=format_hex(move[1]))
    if kind == TEMPLE:
        if all(len(group) < 3 for group in adjacent):
            return refusal("temple-settlement-too-small")
        return refusal("temple-already")
    if s.level[move[1]] < 3:
        return refusal("tower-too-low", hex=format_hex(move[1]), level=s.level[move[1]])
    return refusal("tower-already")


NONE_LEFT: Final = ("no-huts-left", "no-temples-left", "no-towers-left", "no-ships-left")
"""The refusal of a build whose pile is empty, by pile (``HUTS``...)."""


def _founding_problem(s: Position, hex_: int, player: int) -> Text:
    if s.level[hex_] != 1:
        return refusal("hut-not-level-1", hex=format_hex(hex_), level=s.level[hex_])
    near = [h for h in s.own[player] if hex_ - h in DELTAS]
    if near:
        return refusal("hut-touches-own", hex=format_hex(hex_), near=format_hex(near[0]))
    return refusal("not-a-hut")


def _expansion_problem(s: Position, move: Move, huts: int) -> Text:
    terrain = move[2]
    for hex_ in move[3]:
        if s.terrain[hex_] != terrain:
            return refusal(
                "expansion-wrong-terrain",
                hex=format_hex(hex_),
                terrain=TERRAIN_WORDS[s.terrain[hex_]],
                expected=TERRAIN_WORDS[terrain],
            )
    player = s.to_move
    groups = {id(s.settlement[h]): s.settlement[h] for h in s.own[player]}
    for group in groups.values():
        reach = fields(group, s.free, s.terrain, terrain)
        if reach and set(move[3]) <= reach:
            if set(move[3]) != reach:
                missing = ", ".join(format_hex(h) for h in sorted(reach - set(move[3])))
                return refusal(
                    "expansion-incomplete", terrain=TERRAIN_WORDS[terrain], missing=missing
                )
            need = huts_needed(s, reach)
            return refusal(
                "expansion-too-few-huts", need=need, player=player_words(player), huts=huts
            )
    return refusal("expansion-no-settlement", terrain=TERRAIN_WORDS[terrain])
