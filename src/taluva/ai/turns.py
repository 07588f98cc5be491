"""Whole turns as the AI sees them: a tile placement and the build that follows, scored together.

A turn offers a few hundred placements times dozens of builds. Most sea placements far from
any building change nothing that matters, and most new settlements far from everything are
alike, so those are represented by a few of their kind; every eruption, every placement that
touches a building, and every expansion, temple, tower and ship is looked at. Moves are handled
by their kind and text only, so expansions' moves (``draw``, ``double``, ``ship``) need no
special code: ``draw`` ends a turn plan early, because the tile it reveals is a chance event.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from dataclasses import dataclass

from taluva.ai.evaluation import Evaluator, Features, Survey
from taluva.engine.game import Game
from taluva.engine.hexes import DELTAS
from taluva.engine.moves import DOUBLE, DRAW, EXPAND, HUT, TILE, TILE_KINDS, TILE_MOVES, Move
from taluva.engine.tiles import NEXT_DELTAS, double_footprint, footprint

QUIET_TILES = 3
"""How many placements touching no building stand for all of them."""
FAR_HUTS = 3
"""How many new settlements away from every building stand for all of them."""
SHORTLIST = 6
"""After a placement that touches none of the mover's buildings, the mover's builds are
nearly those after any other such placement: the best few of the first one are tried, with
new settlements on the tile itself."""


def hut_at(hex_: int) -> Move:
    """The move founding a settlement on a hex."""
    return Move(HUT, hex_)


@dataclass(frozen=True, slots=True)
class Turn:
    """A plan for the rest of the mover's turn: its moves and every player's expected result."""

    moves: tuple[Move, ...]
    results: tuple[float, ...]

    def __str__(self) -> str:
        return " + ".join(str(m) for m in self.moves)


def ordered(moves: list[Move]) -> list[Move]:
    """Moves in a fixed order, so that seeded choices do not depend on set iteration."""
    return sorted(moves)


def near_buildings(buildings: Iterable[int]) -> set[int]:
    """The hexes holding a building or next to one."""
    near = set(buildings)
    near.update([h + d for h in near for d in DELTAS])
    return near


def move_hexes(move: Move) -> tuple[int, ...]:
    """The hexes a move puts something on (a tile's three or two, a build's one or more)."""
    kind = move.kind
    if kind == TILE:
        return footprint(move[1], move[2])
    if kind == DOUBLE:
        return double_footprint(move[1], move[2])
    if kind == EXPAND:
        return move[3]
    if kind == DRAW:
        return ()
    return (move[1],)


def ordered_placements(moves: list[Move]) -> list[Move]:
    """``ordered(moves)`` for a list of tile placements, faster: placement codes
    (``volcano * 8 + orientation``) sort as the moves do."""
    codes = []
    for move in moves:
        if move.kind != TILE:
            return ordered(moves)
        codes.append(move[1] * 8 + move[2])
    codes.sort()
    return [TILE_MOVES[code] for code in codes]


def relevant_tile_moves(game: Game, rng: random.Random, quiet: int = QUIET_TILES) -> list[Move]:
    """The tile-phase moves worth a look: eruptions, placements next to buildings, every
    non-tile choice (``draw``, ``double``), and a few quiet sea placements standing for the rest."""
    position = game.position
    near = near_buildings(position.building)
    level = position.level
    relevant: list[Move] = []
    calm: list[Move] = []
    for move in ordered_placements(game.legal_moves()):
        kind = move.kind
        if kind == TILE:
            volcano, k = move[1], move[2]
            if (
                volcano in level
                or volcano in near
                or volcano + DELTAS[k] in near
                or volcano + NEXT_DELTAS[k] in near
            ):
                relevant.append(move)
            else:
                calm.append(move)
        elif kind != DOUBLE or move[1] in level or not near.isdisjoint(move_hexes(move)):
            relevant.append(move)
        else:
            calm.append(move)
    if len(calm) > quiet:
        calm = rng.sample(calm, quiet)
    return relevant + calm


def relevant_builds(game: Game, rng: random.Random, fresh: tuple[int, ...] = ()) -> list[Move]:
    """Builds worth a look: all but new settlements, which are kept next to buildings, on the
    hexes ``fresh`` (the tile just placed) and a few more, the roomiest."""
    position = game.position
    buildings = position.building
    terrain = position.terrain
    keep: list[Move] = []
    far: list[tuple[int, Move]] = []
    for move in ordered(game.legal_moves()):
        if move.kind != HUT:
            keep.append(move)
            continue
        h = move[1]
        if h in fresh:
            keep.append(move)
            continue
        room = 0  # neighbours on land that is no volcano (terrain 0), none holding a building
        for d in DELTAS:
            if h + d in buildings:
                keep.append(move)
                break
            if terrain.get(h + d):
                room += 1
        else:
            far.append((room, move))
    if far:
        rng.shuffle(far)
        far.sort(key=lambda item: -item[0])
        keep.extend(move for _, move in far[:FAR_HUTS])
    return keep


class _Scorer:
    """Scores positions reached by a move or two from one position, recomputing only the
    players whose surroundings the moves touched (the mover always, after a build), and only
    the settlements the moves came near."""

    __slots__ = ("base", "evaluator", "game", "layers", "memo", "mover", "near")

    def __init__(self, game: Game, evaluator: Evaluator) -> None:
        self.game = game
        self.evaluator = evaluator
        self.mover = game.to_move
        self.memo: dict[frozenset[int], Survey] = {}
        self.base = [evaluator.features(game, p, self.memo) for p in range(game.player_count)]
        # after a first move that builds are tried after: its features and surveys
        self.layers: dict[Move, tuple[list[Features], dict[frozenset[int], Survey]]] = {}
        near: dict[int, set[int]] = {}
        for h, piece in game.position.building.items():
            owner = piece >> 2
            for n in (h, *[h + d for d in DELTAS]):
                owners = near.get(n)
                if owners is None:
                    near[n] = {owner}
                else:
                    owners.add(owner)
        self.near = near

    def after(self, move: Move) -> list[Features]:
        """Features after one move from the first position."""
        hexes = move_hexes(move)
        # a tile changes no supply: it changes only the features of players it comes near
        builds = move.kind not in TILE_KINDS
        return self._update(list(self.base), hexes, self.memo, frozenset(hexes), builds)

    def enter(self, move: Move) -> list[Features]:
        """Features after one move from the first position (as ``after``), keeping them and
        that position's surveys for the moves tried after it (``after_both``)."""
        layer = self.layers.get(move)
        if layer is not None:
            return layer[0]
        hexes = move_hexes(move)
        # the surveys the move did not come near hold after it too
        memo = {g: survey for g, survey in self.memo.items() if survey[0].isdisjoint(hexes)}
        builds = move.kind not in TILE_KINDS
        feats = self._update(list(self.base), hexes, memo, frozenset(), builds)
        self.layers[move] = (feats, memo)
        return feats

    def after_both(self, first: Move, second: Move) -> list[Features]:
        """Features after ``second``, played after ``first``, which ``enter`` saw before."""
        hexes = move_hexes(second)
        start, memo = self.layers[first]
        return self._update(list(start), hexes, memo, frozenset(hexes), True)

    def _update(
        self,
        feats: list[Features],
        hexes: tuple[int, ...],
        memo: dict[frozenset[int], Survey],
        changed: frozenset[int],
        builds: bool,
    ) -> list[Features]:
        touched = {self.mover} if builds else set()
        near = self.near
        for h in hexes:
            owners = near.get(h)
            if owners:
                touched |= owners
        features = self.evaluator.features
        for p in touched:
            feats[p] = features(self.game, p, memo, changed)
        return feats

    def results(self, feats: list[Features]) -> tuple[float, ...]:
        return tuple(self.evaluator.results_from_features(self.game, feats))


def plan_turns(
    game: Game,
    evaluator: Evaluator,
    rng: random.Random,
    tile_limit: int | None = None,
    tile_sample: int | None = None,
    deadline: float | None = None,
) -> list[Turn]:
    """Every worthwhile plan for the rest of the mover's turn, best for the mover first.

    In the tile phase each relevant placement is scored with its builds; ``tile_limit`` keeps
    only the placements that look best before their builds are tried (a quick mode for deep in
    a search tree; 0 ranks them all), ``tile_sample`` first draws that many placements at
    random, and past ``deadline`` (a ``time.perf_counter`` value) the placements not yet tried
    are dropped. The game is played on (``push``: every move tried is legal) and always
    restored.
    """
    if game.result is not None:
        return []
    mover = game.to_move
    scorer = _Scorer(game, evaluator)
    plans: list[Turn] = []
    if game.phase != "tile":
        for build in relevant_builds(game, rng):
            game.push(build)
            plans.append(Turn((build,), scorer.results(scorer.after(build))))
            game.pop()
        plans.sort(key=lambda t: -t.results[mover])
        return plans
    tiles = relevant_tile_moves(game, rng)
    if tile_sample is not None and len(tiles) > tile_sample:
        tiles = rng.sample(tiles, tile_sample)
    before = scorer.results(scorer.base)
    if tile_limit is not None and (tile_limit == 0 or len(tiles) > tile_limit):
        scored: list[tuple[float, int, Move]] = []
        for tile in tiles:
            if tile.kind == DRAW:
                value = before[mover]
            else:
                game.push(tile)
                # when every placement gets its builds, keep what they start from
                feats = scorer.enter(tile) if tile_limit == 0 else scorer.after(tile)
                value = scorer.results(feats)[mover]
                game.pop()
            scored.append((-value, len(scored), tile))
            if deadline is not None and time.perf_counter() > deadline:
                break
        scored.sort()
        tiles = [tile for _, _, tile in scored[: tile_limit or None]]
    near = scorer.near
    shortlist: list[Move] | None = None
    for tile in tiles:
        if tile.kind == DRAW:
            plans.append(Turn((tile,), before))
            continue
        game.push(tile)
        hexes = move_hexes(tile)
        if game.phase == "build" and game.to_move == mover:
            feats = scorer.enter(tile)
            mine = any(mover in near.get(h, ()) for h in hexes)
            if mine or shortlist is None:
                builds = relevant_builds(game, rng, hexes)
            else:
                builds = [b for b in shortlist if game.is_legal(b)]
                builds += [hut_at(h) for h in hexes if game.is_legal(hut_at(h))]
            tried = []
            for build in builds:
                game.push(build)
                turn = Turn((tile, build), scorer.results(scorer.after_both(tile, build)))
                game.pop()
                plans.append(turn)
                tried.append(turn)
                if deadline is not None and time.perf_counter() > deadline:
                    break
            if not mine and shortlist is None:
                tried.sort(key=lambda t: -t.results[mover])
                shortlist = [
                    t.moves[1] for t in tried if not set(move_hexes(t.moves[1])) & set(hexes)
                ][:SHORTLIST]
        else:
            plans.append(Turn((tile,), scorer.results(scorer.after(tile))))
        game.pop()
        if deadline is not None and plans and time.perf_counter() > deadline:
            break
    plans.sort(key=lambda t: -t.results[mover])
    return plans
