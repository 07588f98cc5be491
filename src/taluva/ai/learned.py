"""A learned evaluation: a small neural network, trained on self-play games, that says how
likely each player is to finish ahead of each other one.

Its inputs are what the heuristic already finds for every player (``Features``: pieces left,
temple and tower spots, the best expansion...), the heuristic's own potential, the builds each
player still gets, whose move it is and the tiles left (``position_inputs``). For every pair of
players still in, the network gives the chance that the first finishes ahead of the second;
a player's expected result is the mean of those chances over the opponents, as with the
heuristic's logistic duels (``Evaluator.results_of``), so the search uses it unchanged.

The weights ship in ``learned_value.npz`` beside this module (``learned_value_2p.npz`` and
``learned_value_4p.npz`` for two and four players); ``taluva.research.value_fit`` trains
them from self-play positions and ``taluva.research.rank_fit`` teaches them to rank a turn's
plans as a deeper search did (docs/ai.md, "A learned evaluation").
Inference is plain Python (the model files are read by ``taluva.ai.npz``); training needs
NumPy and scikit-learn.
"""

from __future__ import annotations

import copy
import math
import zipfile
from functools import cache
from importlib import resources
from operator import mul
from pathlib import Path
from typing import Final

from taluva.ai.evaluation import (
    DEFAULT_EVALUATOR,
    HUT_COUNT,
    SHIP_COUNT,
    TEMPLE_COUNT,
    TOWER_COUNT,
    Evaluator,
    Features,
    Situation,
    outcome_results,
    situation,
)
from taluva.ai.npz import Stored, read_npz
from taluva.engine.game import Game
from taluva.engine.options import PLAYER_COUNTS

MODEL_FORMAT: Final = "taluva-learned-value/1"
MODEL_FILE: Final = "learned_value.npz"
"""The shipped network for any number of players without a network of its own."""


def model_file(players: int) -> str:
    """The name of the shipped network trained on games of ``players`` players alone."""
    return f"learned_value_{players}p.npz"


INPUT_NAMES: Final = (
    "huts_left",
    "temples_left",
    "towers_left",
    "ships_placed",
    "temple_spots",
    "tower_spots",
    "temple_in_two",
    "best_expansion",
    "finishing_huts",
    "kinds_done",
    "turns_left",
    "moving",
    "potential",
    "building",
    "tiles_left",
    "late",
    "players",
)
"""One player's inputs, in order: their features scaled to about [0, 1], then what the
position shares (the build phase, the tiles left, how near the end, the number of players)."""


class ModelError(ValueError):
    """A model file that cannot be used: missing, of another format or of other inputs."""


def position_inputs(
    features: list[Features], where: Situation, building: bool
) -> list[list[float]]:
    """Every player's inputs to the network (see ``INPUT_NAMES``), in a position whose players
    have these features, in this situation, in the build phase or not."""
    players = len(features)
    tiles = where.tiles_left
    shared = [float(building), tiles / 24.0, 1.0 / max(1, tiles), players / 4.0]
    out = where.eliminated
    known = _PLAYER_INPUTS
    if len(known) > 200_000:
        known.clear()
    rows = []
    for p, f in enumerate(features):
        turns, moving, gone = where.turns[p], p == where.mover, p in out
        key = (*f, turns, moving, gone)
        own = known.get(key)
        if own is None:
            own = known[key] = _player_inputs(f, turns, moving, gone)
        rows.append([*own, *shared])
    return rows


_PLAYER_INPUTS: dict[tuple[int, ...], tuple[float, ...]] = {}
"""One player's own inputs, by their features, turns, whether they move and whether they are
out (the search meets the same ones often); plain tuples, which the garbage collector skips."""


def _player_inputs(f: Features, turns: int, moving: bool, out: bool) -> tuple[float, ...]:
    potential = -10.0 if out else DEFAULT_EVALUATOR.potential(f, turns, moving)
    done = (f.huts == 0) + (f.temples == 0) + (f.towers == 0) + (f.ships == 0)
    return (
        f.huts / HUT_COUNT,
        f.temples / TEMPLE_COUNT,
        f.towers / TOWER_COUNT,
        (SHIP_COUNT - f.ships) / SHIP_COUNT if f.ships >= 0 else 0.0,
        min(f.temple_spots, 3) / 3.0,
        min(f.tower_spots, 3) / 3.0,
        float(f.temple_in_two),
        min(f.best_expansion, 12) / 12.0,
        float(f.finishing_huts),
        done / 2.0,
        turns / 12.0,
        float(moving),
        max(-3.0, potential) / 3.0,
    )


SHARED_INPUTS: Final = 4
"""The last inputs of a player's row, the same for every player of a position."""

PAIR_INPUTS: Final = 2 * len(INPUT_NAMES) + 1
"""What the network reads for a pair of players: the first's inputs, the second's, and the
heuristic's logit that the first finishes ahead (``duel_logit``), a start it refines."""


def duel_logit(potential_difference: float, tiles_left: float) -> float:
    """The heuristic's logistic duel (``Evaluator.results_of``) as a logit: its slope times
    the difference of two players' potentials."""
    weights = DEFAULT_EVALUATOR.weights
    slope = weights.scale + weights.late_scale / max(1.0, float(round(tiles_left)))
    return slope * potential_difference


_POTENTIAL: Final = INPUT_NAMES.index("potential")
_TILES: Final = INPUT_NAMES.index("tiles_left")


REMEMBERED: Final = 200_000
"""How many players' rows a network remembers before it forgets them all (and their pairs)."""


_Sums = tuple[float, ...]
"""A player's share of the first layer's sums, one per hidden unit."""


class ValueNetwork:
    """The network of a model file: for a pair of players, the logit that the first finishes
    ahead of the second (``PAIR_INPUTS``; ReLU hidden layers; inputs standardised inside).
    Plain Python: a network this small is as quick without NumPy, and needs nothing."""

    __slots__ = (
        "_columns",
        "_pairs",
        "_parts",
        "_rows",
        "duel",
        "first",
        "first_bias",
        "hidden",
        "last",
        "last_bias",
        "width",
    )

    def __init__(self, arrays: dict[str, Stored], source: str) -> None:
        try:
            if "format" not in arrays or arrays["format"].items != [MODEL_FORMAT]:
                raise ModelError(f"{source}: not a learned value model ({MODEL_FORMAT})")
            names = tuple(str(n) for n in arrays["names"].items)
            if names != INPUT_NAMES:
                raise ModelError(
                    f"{source}: its inputs {names} are not this version's {INPUT_NAMES}"
                )
            layers = int(arrays["layers"].items[0])
            weights = [arrays[f"w{i}"].rows() for i in range(layers)]
            biases = [arrays[f"b{i}"].floats() for i in range(layers)]
            mean, scale = arrays["mean"].floats(), arrays["scale"].floats()
        except (KeyError, IndexError, ValueError) as problem:
            if isinstance(problem, ModelError):
                raise
            raise ModelError(f"{source}: not a complete model ({problem})") from None
        width = len(INPUT_NAMES)
        if len(weights[0]) != PAIR_INPUTS or len(mean) != PAIR_INPUTS:
            raise ModelError(f"{source}: the first layer takes {len(weights[0])} inputs")
        # standardising is folded into the first layer: (x - mean) / scale @ w
        first = [[w / s for w in row] for row, s in zip(weights[0], scale, strict=True)]
        size = len(biases[0])
        shift = [
            sum(m / s * row[j] for m, s, row in zip(mean, scale, weights[0], strict=True))
            for j in range(size)
        ]
        # the columns of each player's half, for one dot product per hidden unit
        self.first = (
            [tuple(row[j] for row in first[:width]) for j in range(size)],
            [tuple(row[j] for row in first[width : 2 * width]) for j in range(size)],
        )
        self.duel = first[2 * width]
        self.first_bias = [b - c for b, c in zip(biases[0], shift, strict=True)]
        self.hidden = [
            ([tuple(row[j] for row in w) for j in range(len(b))], b)
            for w, b in zip(weights[1:-1], biases[1:-1], strict=True)
        ]
        self.last = [row[0] for row in weights[-1]]
        self.last_bias = biases[-1][0]
        self.width = width
        own = len(INPUT_NAMES) - SHARED_INPUTS
        self._columns = [
            tuple([column[:own] for column in half] for half in self.first),
            tuple([column[own:] for column in half] for half in self.first),
        ]
        # plain tuples only, which the garbage collector skips (see ``Evaluator``)
        self._parts: dict[tuple[float, ...], tuple[_Sums, _Sums]] = {}
        self._rows: dict[tuple[float, ...], tuple[int, _Sums, _Sums]] = {}
        self._pairs: dict[tuple[int, int], float] = {}

    def _player(self, row: list[float]) -> tuple[int, _Sums, _Sums]:
        """A player's number among the rows met, and their share of the first layer as the
        pair's first player (the bias added) and as its second; remembered, and so are the
        shares of the player's own inputs and of the position's (the search meets the same
        rows, and the same players in other positions, again and again)."""
        key = tuple(row)
        found = self._rows.get(key)
        if found is None:
            if len(self._rows) > REMEMBERED:
                self._rows.clear()
                self._pairs.clear()
                self._parts.clear()
            own, shared = self._part(key[:-SHARED_INPUTS], 0), self._part(key[-SHARED_INPUTS:], 1)
            found = self._rows[key] = (
                len(self._rows),
                tuple([a + b for a, b in zip(own[0], shared[0], strict=True)]),
                tuple([a + b for a, b in zip(own[1], shared[1], strict=True)]),
            )
        return found

    def _part(self, inputs: tuple[float, ...], which: int) -> tuple[_Sums, _Sums]:
        """The first layer's sums over a player's own inputs (``which`` 0) or the shared ones
        (1, with the bias), as the pair's first player and as its second."""
        found = self._parts.get(inputs)
        if found is None:
            as_first, as_second = self._columns[which]
            firsts = [sum(map(mul, inputs, column)) for column in as_first]
            if which == 1:
                firsts = [a + c for a, c in zip(firsts, self.first_bias, strict=True)]
            found = self._parts[inputs] = (
                tuple(firsts),
                tuple([sum(map(mul, inputs, column)) for column in as_second]),
            )
        return found

    def _tanh_halves(self, rows: list[list[float]]) -> list[list[float]]:
        """tanh of half the logit of every ordered pair of rows (row p over row o at p, o;
        the diagonal zero), each pair remembered: siblings in a search differ in one
        player's row, so most of their pairs were met already."""
        players = [self._player(row) for row in rows]
        potentials = [row[_POTENTIAL] * 3.0 for row in rows]
        slope = duel_logit(1.0, rows[0][_TILES] * 24.0)
        pairs = self._pairs
        duel_weights, hidden, last, last_bias = self.duel, self.hidden, self.last, self.last_bias
        n = len(rows)
        t = [[0.0] * n for _ in range(n)]
        for p, (number, as_first, _) in enumerate(players):
            for o, (other, _, as_second) in enumerate(players):
                if p == o:
                    continue
                value = pairs.get((number, other))
                if value is None:
                    duel = slope * (potentials[p] - potentials[o])
                    h = [
                        x if (x := a + b + duel * w) > 0.0 else 0.0
                        for a, b, w in zip(as_first, as_second, duel_weights, strict=True)
                    ]
                    for columns, biases in hidden:
                        h = [
                            x if (x := sum(map(mul, h, column)) + bias) > 0.0 else 0.0
                            for column, bias in zip(columns, biases, strict=True)
                        ]
                    value = math.tanh((sum(map(mul, h, last)) + last_bias) * 0.5)
                    pairs[number, other] = value
                t[p][o] = value
        return t

    def ahead(self, rows: list[list[float]]) -> list[list[float]]:
        """The chance that each player (row) finishes ahead of each other, a square matrix
        (the diagonal one half), made symmetric: the network's p over o and o under p are
        averaged, so the two always add up to one."""
        t = self._tanh_halves(rows)
        n = len(rows)
        return [[0.5 + 0.25 * (t[p][o] - t[o][p]) for o in range(n)] for p in range(n)]

    def ahead_counts(self, rows: list[list[float]]) -> list[float]:
        """How many of the others each player is expected to finish ahead of: the row sums
        of ``ahead`` without the diagonal."""
        t = self._tanh_halves(rows)
        n = len(rows)
        return [0.5 * (n - 1) + 0.25 * sum(t[p][o] - t[o][p] for o in range(n)) for p in range(n)]


def load_network(path: str | Path | None = None, players: int | None = None) -> ValueNetwork:
    """The network in a model file; without one, the shipped network for games of
    ``players`` (``model_file``), or for any number of players (``MODEL_FILE``)."""
    if path is None:
        return _shipped(players)
    try:
        with Path(path).open("rb") as handle:
            arrays = read_npz(handle)
    except (OSError, ValueError, zipfile.BadZipFile) as problem:
        raise ModelError(f"{path}: cannot read the model ({problem})") from None
    return ValueNetwork(arrays, str(path))


@cache
def _shipped(players: int | None) -> ValueNetwork:
    folder = resources.files("taluva.ai")
    if players is not None and (folder / model_file(players)).is_file():
        return _shipped_file(model_file(players))
    return _shipped_file(MODEL_FILE)


@cache
def _shipped_file(name: str) -> ValueNetwork:
    """A shipped network, read once: the counts without their own share the general one."""
    with (resources.files("taluva.ai") / name).open("rb") as handle:
        arrays = read_npz(handle)
    return ValueNetwork(arrays, f"taluva.ai/{name}")


class LearnedEvaluator(Evaluator):
    """An ``Evaluator`` whose expected results come from the learned network; features and
    potentials stay the heuristic's (they are the network's inputs). Without a network given,
    each game is valued by the shipped network for its number of players. With ``players``,
    only games of those numbers of players are; the others get the heuristic's values (the
    levels use the network only where it beat the heuristic). With ``own`` (True: games of
    any number of players, or a set of numbers of players), a search values only its own
    player by the network and the others by the heuristic (``seen_by``), so it expects them to
    play as heuristic searches do."""

    __slots__ = ("_learned", "me", "network", "own", "players")

    def __init__(
        self,
        network: ValueNetwork | None = None,
        players: frozenset[int] | None = None,
        own: bool | frozenset[int] = False,
    ) -> None:
        super().__init__()
        self.network = network
        self.players = players
        self.own = frozenset(PLAYER_COUNTS if own is True else own or ())
        self.me: int | None = None
        self._learned: dict[tuple[object, ...], tuple[float, ...]] = {}

    def seen_by(self, player: int) -> Evaluator:
        if not self.own:
            return self
        view = copy.copy(self)  # the caches are shared
        view.me = player
        return view

    def results(self, game: Game) -> list[float]:
        if self.players is not None and game.player_count not in self.players:
            return super().results(game)
        features = [self.features(game, p) for p in range(game.player_count)]
        return self.results_from_features(game, features)

    def results_from_features(self, game: Game, features: list[Features]) -> list[float]:
        if self.players is not None and game.player_count not in self.players:
            return super().results_from_features(game, features)
        if self.me is None or game.player_count not in self.own:
            return list(self.result_tuple(game, features))
        values = super().results_from_features(game, features)
        values[self.me] = self.result_tuple(game, features)[self.me]
        return values

    def result_tuple(self, game: Game, features: list[Features]) -> tuple[float, ...]:
        """``results_from_features`` as a tuple, remembered for each situation, phase and
        features (the search asks for the same ones many times)."""
        outcome = game.result
        if outcome is not None:
            return tuple(outcome_results(outcome, game.player_count, self.weights.win_share))
        where = situation(game)
        building = game.phase != "tile"
        key = sum(features, (*where, building))
        known = self._learned
        found = known.get(key)
        if found is None:
            if len(known) > 200_000:
                known.clear()
            found = known[key] = tuple(self.learned_results(features, where, building))
        return found

    def learned_results(
        self, features: list[Features], where: Situation, building: bool
    ) -> list[float]:
        """Every player's expected result in a running position: the mean, over the other
        players, of the chance to finish ahead of them (players out rank below those still
        in, the first out lowest)."""
        players = len(features)
        out = where.eliminated
        active = [p for p in range(players) if p not in out]
        totals = [0.0] * players
        if len(active) > 1:
            rows = position_inputs(features, where, building)
            network = self.network or load_network(players=players)
            counts = network.ahead_counts([rows[p] for p in active])
            for p, count in zip(active, counts, strict=True):
                totals[p] = count
        for p in range(players):
            if p in out:
                # below every player still in, above those out before them
                totals[p] = float(sum(1 for o in out if out.index(o) < out.index(p)))
            else:
                totals[p] += len(out)
        return [t / max(1, players - 1) for t in totals]
