"""The position heuristic every agent shares: each player's *potential*, turned into results.

A player's potential counts what decides the game (temples first, then towers, then huts,
then ships with the Ships expansion; docs/rules.md, "End of the game") plus what the board offers
them: a settlement where a temple or a tower can go at once, one that one expansion makes big
enough for a temple, the huts the best expansion would add, the danger of running out of huts
(a player who cannot build is eliminated) and a two-piece-type victory within reach. The
player to move can take an opportunity before anyone blocks it, so it counts more for them.
Potentials become expected results (1 first, 0 last, ``1/2`` a shared place between two)
through a logistic curve on their pairwise differences.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, NamedTuple

from taluva.engine.game import Game
from taluva.engine.hexes import DELTAS
from taluva.engine.outcome import Outcome
from taluva.engine.pieces import TEMPLE_KIND, TOWER_KIND
from taluva.engine.position import Position
from taluva.engine.rules.settlements import settlements_of

HUT_COUNT: Final = 20
TEMPLE_COUNT: Final = 3
TOWER_COUNT: Final = 2
SHIP_COUNT: Final = 2


@dataclass(frozen=True, slots=True)
class Weights:
    """What each feature of a position is worth, in temples."""

    temple: float = 1.0
    tower: float = 0.45
    hut: float = 0.03
    ship: float = 0.12  # Ships expansion: a ship placed (both: one of the two victory types)
    temple_spot: float = 0.8  # a settlement of 3+ hexes without temple, with a free neighbour
    second_temple_spot: float = 0.25  # another such settlement (one build a turn)
    tower_spot: float = 0.38  # a free hex at level 3+ next to a settlement without tower
    temple_in_two: float = 0.22  # one expansion makes a settlement temple-ready
    expansion_hut: float = 0.012  # per hut the best expansion would place
    blockable: float = 0.6  # share of an opportunity kept when someone else moves first
    hut_shortage: float = 0.08  # per hut under the reserve while the game goes on
    hut_reserve: int = 4
    stranded: float = 1.5  # no hut left and nothing else to build: elimination is near
    winning_build: float = 2.5  # the next build of this player wins at once
    scale: float = 1.7  # logistic slope: how sure a potential lead of one temple is
    late_scale: float = 2.5  # extra slope once few turns remain
    win_share: float = 0.0  # with 3+ players, how much finishing first counts over rank


DEFAULT_WEIGHTS: Final = Weights()


class Situation(NamedTuple):
    """What results depend on besides the players' features: who moves, who is out, how many
    builds each player still gets (the mover's pending one included) and the tiles left."""

    mover: int
    eliminated: tuple[int, ...]
    turns: tuple[int, ...]
    tiles_left: int


def situation(game: Game) -> Situation:
    """The situation of a running game (see ``Situation``); turns go round the players still
    in, and each draws one tile (or takes a face-up double-hex tile), so the pile sets them."""
    s = game.position
    return _situation(
        s.setup.player_count,
        s.to_move,
        s.eliminated,
        s.pile_left,
        len(s.doubles_left),
        s.result is not None,
    )


@lru_cache(maxsize=8192)
def _situation(
    players: int, mover: int, eliminated: tuple[int, ...], tiles: int, doubles: int, over: bool
) -> Situation:
    left = [0] * players
    active = [p for p in range(players) if p not in eliminated]
    if not over and active:
        left[mover] = 1
        order = sorted(active, key=lambda p: (p - mover - 1) % players)
        for i in range(tiles + doubles):
            left[order[i % len(order)]] += 1
    return Situation(mover, eliminated, tuple(left), tiles)


def turns_left(game: Game) -> list[int]:
    """Build actions each player still gets, the pending one of the player to move included."""
    return list(situation(game).turns)


def outcome_results(outcome: Outcome, players: int, win_share: float = 0.0) -> list[float]:
    """Each player's result in [0, 1]: the share of the others they finished ahead of (a
    shared place counts half), mixed with ``win_share`` of a win (1, split among those
    sharing first place); the two are the same with two players."""
    places = outcome.places()
    results = [0.0] * players
    for p, place in places.items():
        below = sum(1 for other in places.values() if other > place)
        tied = sum(1 for other in places.values() if other == place) - 1
        results[p] = (below + 0.5 * tied) / max(1, players - 1)
    if win_share:
        winners = outcome.ranking[0]
        for p in range(players):
            won = 1.0 / len(winners) if p in winners else 0.0
            results[p] = (1 - win_share) * results[p] + win_share * won
    return results


Share = tuple[int, int, bool, int, bool]
"""What one settlement adds to its owner's features, for a number of huts in hand: a temple
spot, a tower spot, a temple one expansion away, its best affordable expansion, and whether
an expansion would place exactly the huts left."""

Survey = tuple[frozenset[int], bool, bool, dict[int, int], dict[int, int], bool, dict[int, Share]]
"""One settlement's surroundings: the hexes it and its neighbours cover, whether it holds a
temple and a tower, huts an expansion into each terrain needs, hexes per terrain, whether a
free neighbour is at level 3 or more, and its shares found so far (by huts in hand)."""


class Features(NamedTuple):
    """What one player's potential is made of, before any weight is applied: the pieces in
    their supply and what their settlements offer now."""

    huts: int
    temples: int
    towers: int
    ships: int  # -1 without the Ships expansion
    temple_spots: int  # settlements of 3+ hexes without temple, with a free neighbour
    tower_spots: int  # settlements without tower next to a free hex at level 3+
    temple_in_two: bool  # one expansion makes a settlement temple-ready
    best_expansion: int  # huts the biggest affordable expansion places
    finishing_huts: bool  # the last hut, or an expansion placing exactly the huts left


COVERS: dict[frozenset[int], tuple[frozenset[int], frozenset[int]]] = {}
"""Each settlement met so far: the hexes next to it, and those with its own hexes (the key
of its survey). A search meets a few thousand; the table is emptied past ``COVERS_LIMIT``."""
COVERS_LIMIT: Final = 100_000


def survey_settlement(game: Game, group: frozenset[int]) -> Survey:
    """What lies around one settlement (see ``Survey``)."""
    return _survey(game.position, group)


def _cover(group: frozenset[int]) -> tuple[frozenset[int], frozenset[int]]:
    if len(COVERS) > COVERS_LIMIT:
        COVERS.clear()
    around = frozenset([h + d for h in group for d in DELTAS])
    cover = COVERS[group] = (around, around | group)
    return cover


def _survey(position: Position, group: frozenset[int]) -> Survey:
    building = position.building
    has_temple = has_tower = False
    for h in group:
        kind = building[h] & 3
        if kind == TEMPLE_KIND:
            has_temple = True
        elif kind == TOWER_KIND:
            has_tower = True
    around, covered = COVERS.get(group) or _cover(group)
    level = position.level
    terrain = position.terrain
    fields: dict[int, int] = {}
    field_sizes: dict[int, int] = {}
    high = False
    for h in around & position.free:
        t = terrain[h]
        height = level[h]
        fields[t] = fields.get(t, 0) + height
        field_sizes[t] = field_sizes.get(t, 0) + 1
        if height >= 3:
            high = True
    return covered, has_temple, has_tower, fields, field_sizes, high, {}


def _share(survey: Survey, size: int, huts: int) -> Share:
    _, has_temple, has_tower, fields, field_sizes, high, _ = survey
    if not fields:
        return 0, 0, False, 0, False
    temple_spot = int(not has_temple and size >= 3)
    tower_spot = int(high and not has_tower)
    growth = finishing = False
    best = 0
    for t, count in fields.items():
        if count <= huts:
            if count > best:
                best = count
            if count == huts:
                finishing = True
            if not has_temple and size < 3 <= size + field_sizes[t]:
                growth = True
    return temple_spot, tower_spot, growth, best, finishing


class Evaluator:
    """Computes potentials and expected results for positions, with one set of weights."""

    __slots__ = ("_known", "_outcomes", "_results", "weights")

    def __init__(self, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.weights = weights
        # The caches' keys and values are plain tuples of numbers, which Python's garbage
        # collector stops tracking: hundreds of thousands of named tuples or lists here made
        # each full collection take up to a second.
        self._known: dict[tuple[int, ...], float] = {}
        self._results: dict[tuple[float, ...], tuple[float, ...]] = {}
        self._outcomes: dict[tuple[object, ...], tuple[float, ...]] = {}

    def seen_by(self, player: int) -> Evaluator:
        """The evaluator a search on behalf of ``player`` uses: this one (a learned evaluation
        may value only that player by its network, ``LearnedEvaluator(own=True)``)."""
        return self

    def potentials(self, game: Game) -> list[float]:
        """Every player's potential, in temples (eliminated players far below the rest)."""
        features = [self.features(game, p) for p in range(game.player_count)]
        return self.combine(features, situation(game))

    def results(self, game: Game) -> list[float]:
        """Every player's expected result in [0, 1]; exact once the game is over."""
        outcome = game.result
        if outcome is not None:
            return outcome_results(outcome, game.player_count, self.weights.win_share)
        return self.results_of(self.potentials(game), situation(game))

    def results_from_features(self, game: Game, features: list[Features]) -> list[float]:
        """Expected results from every player's features (exact once the game is over)."""
        outcome = game.result
        if outcome is not None:
            return outcome_results(outcome, game.player_count, self.weights.win_share)
        where = situation(game)
        key = sum(features, where)
        known = self._outcomes
        found = known.get(key)
        if found is None:
            if len(known) > 200_000:
                known.clear()
            found = known[key] = tuple(self.results_of(self.combine(features, where), where))
        return list(found)

    def results_of(self, potentials: list[float], where: Situation) -> list[float]:
        """Expected results from potentials: the mean over opponents of a logistic duel, mixed
        with ``win_share`` of the chance to finish first (a soft-max of the potentials)."""
        key = (*potentials, where.tiles_left)
        known = self._results
        found = known.get(key)
        if found is None:
            if len(known) > 200_000:
                known.clear()
            found = known[key] = tuple(self._results_of(potentials, where.tiles_left))
        return list(found)

    def _results_of(self, potentials: list[float], tiles_left: int) -> list[float]:
        n = len(potentials)
        w = self.weights
        slope = w.scale + w.late_scale / max(1, tiles_left)
        results = []
        for p in range(n):
            total = 0.0
            for o in range(n):
                if o != p:
                    x = slope * (potentials[p] - potentials[o])
                    total += 1.0 / (1.0 + math.exp(-x)) if x > -40 else 0.0
            results.append(total / max(1, n - 1))
        if w.win_share and n > 2:
            top = max(potentials)
            chances = [math.exp(slope * (u - top)) for u in potentials]
            whole = sum(chances)
            results = [
                (1 - w.win_share) * r + w.win_share * c / whole
                for r, c in zip(results, chances, strict=True)
            ]
        return results

    def combine(self, features: list[Features], where: Situation) -> list[float]:
        """Potentials from features, given whose turn it is and how many turns each has."""
        out = where.eliminated
        known = self._known
        if len(known) > 200_000:
            known.clear()
        potentials = []
        for p, f in enumerate(features):
            if p in out:  # below everyone standing; the later out, the higher (the rules)
                potentials.append(-10.0 - (len(out) - 1 - out.index(p)))
                continue
            turns, moving = where.turns[p], p == where.mover
            key = (*f, turns, moving)
            value = known.get(key)
            if value is None:
                value = known[key] = self.potential(f, turns, moving)
            potentials.append(value)
        return potentials

    def potential(self, f: Features, turns: int, moving: bool) -> float:
        """One player's potential in temples: pieces placed, plus the opportunities of the
        builds they still get (the best one kept whole when they move first), less the risks."""
        w = self.weights
        huts, temples, towers, ships = f.huts, f.temples, f.towers, f.ships
        value = (
            w.temple * (TEMPLE_COUNT - temples)
            + w.tower * (TOWER_COUNT - towers)
            + w.hut * (HUT_COUNT - huts)
        )
        if ships >= 0:
            value += w.ship * (SHIP_COUNT - ships)
        temple_ready = temples > 0 and f.temple_spots > 0
        tower_ready = towers > 0 and f.tower_spots > 0
        if huts == 0 and not temple_ready and not tower_ready:
            value -= w.stranded
        if not turns:
            return value
        options = [w.expansion_hut * f.best_expansion]
        if temple_ready:
            options.append(w.temple_spot)
            if f.temple_spots > 1 and temples > 1:
                options.append(w.second_temple_spot)
        if tower_ready:
            options.append(w.tower_spot)
        if temples and f.temple_in_two:
            options.append(w.temple_in_two)
        options.sort(reverse=True)
        first = 1.0 if moving else w.blockable
        value += first * options[0]
        if huts < w.hut_reserve:
            value -= w.hut_shortage * (w.hut_reserve - huts) * min(turns, 4)
        if turns > 1 and len(options) > 1:
            value += w.blockable * options[1]
        done = (huts == 0) + (temples == 0) + (towers == 0) + (ships == 0)
        if done == 1 and (
            (temples == 1 and f.temple_spots > 0)
            or (towers == 1 and f.tower_spots > 0)
            or f.finishing_huts
        ):
            value += w.winning_build * first
        return value

    def features(
        self,
        game: Game,
        player: int,
        memo: dict[frozenset[int], Survey] | None = None,
        changed: frozenset[int] | set[int] = frozenset(),
    ) -> Features:
        """A player's features.

        ``memo`` keeps each settlement's survey from a first position, reused while none of
        the hexes ``changed`` since then lies in or next to the settlement.
        """
        position = game.position
        huts, temples, towers, ships = position.supply[player]
        if not position.setup.options.ships:
            ships = -1
        temple_spots = 0
        tower_spots = 0
        growth = False
        best_expansion = 0
        finishing_huts = huts == 1
        known = memo.get if memo is not None else None
        for group in settlements_of(position, player):
            survey = None if known is None else known(group)
            if survey is None or (changed and not changed.isdisjoint(survey[0])):
                survey = _survey(position, group)
                if memo is not None and not changed:
                    memo[group] = survey
            shares = survey[6]
            share = shares.get(huts)
            if share is None:
                share = shares[huts] = _share(survey, len(group), huts)
            temple_spots += share[0]
            tower_spots += share[1]
            if share[2]:
                growth = True
            if share[3] > best_expansion:
                best_expansion = share[3]
            if share[4]:
                finishing_huts = True
        return _new_features(
            Features,
            (
                huts,
                temples,
                towers,
                ships,
                temple_spots,
                tower_spots,
                growth,
                best_expansion,
                finishing_huts,
            ),
        )


_new_features = tuple.__new__
"""Makes a ``Features`` from a tuple of its fields, skipping the named tuple's own ``__new__``
(features are made tens of thousands of times a search)."""


DEFAULT_EVALUATOR: Final = Evaluator()
