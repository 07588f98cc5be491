"""A learned evaluation: a small neural network, trained on self-play games, that says how
likely each player is to finish ahead of each other one.

Its inputs are what the heuristic already finds for every player (``Features``: pieces left,
temple and tower spots, the best expansion...), the heuristic's own potential, the builds each
player still gets, whose move it is and the tiles left (``position_inputs``). For every pair of
players still in, the network gives the chance that the first finishes ahead of the second;
a player's expected result is the mean of those chances over the opponents, as with the
heuristic's logistic duels (``Evaluator.results_of``), so the search uses it unchanged.

The weights ship in ``learned_value.npz`` beside this module; ``taluva.research.value_fit``
trains them from ``taluva.research.selfplay`` positions (docs/ai.md, "A learned evaluation").
Inference needs NumPy only.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

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
from taluva.engine.game import Game

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
        key = (f, where.turns[p], p == where.mover, p in out)
        own = known.get(key)
        if own is None:
            own = known[key] = _player_inputs(*key)
        rows.append(own + shared)
    return rows


_PLAYER_INPUTS: dict[tuple[Features, int, bool, bool], list[float]] = {}
"""One player's own inputs, by what they depend on (the search meets the same ones often)."""


def _player_inputs(f: Features, turns: int, moving: bool, out: bool) -> list[float]:
    potential = -10.0 if out else DEFAULT_EVALUATOR.potential(f, turns, moving)
    done = (f.huts == 0) + (f.temples == 0) + (f.towers == 0) + (f.ships == 0)
    return [
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
    ]


PAIR_INPUTS: Final = 2 * len(INPUT_NAMES) + 1
"""What the network reads for a pair of players: the first's inputs, the second's, and the
heuristic's logit that the first finishes ahead (``duel_logits``), a start it refines."""


def duel_logits(potentials: npt.NDArray[np.float64], tiles_left: float) -> Any:
    """The heuristic's logistic duel (``Evaluator.results_of``) as logits: its slope times
    the difference of the players' potentials, for every pair (or pairs given side by side)."""
    weights = DEFAULT_EVALUATOR.weights
    slope = weights.scale + weights.late_scale / np.maximum(1.0, np.round(tiles_left))
    return slope * potentials


_POTENTIAL: Final = INPUT_NAMES.index("potential")
_TILES: Final = INPUT_NAMES.index("tiles_left")


class ValueNetwork:
    """The network of a model file: for a pair of players, the logit that the first finishes
    ahead of the second (``PAIR_INPUTS``; ReLU hidden layers; inputs standardised inside)."""

    __slots__ = ("duel", "first", "first_bias", "hidden", "last", "last_bias", "width")

    def __init__(self, arrays: dict[str, npt.NDArray[Any]], source: str) -> None:
        if "format" not in arrays or str(arrays["format"]) != MODEL_FORMAT:
            raise ModelError(f"{source}: not a learned value model ({MODEL_FORMAT})")
        names = tuple(str(n) for n in arrays["names"])
        if names != INPUT_NAMES:
            raise ModelError(f"{source}: its inputs {names} are not this version's {INPUT_NAMES}")
        layers = int(arrays["layers"])
        weights = [arrays[f"w{i}"].astype(np.float64) for i in range(layers)]
        biases = [arrays[f"b{i}"].astype(np.float64) for i in range(layers)]
        mean = arrays["mean"].astype(np.float64)
        scale = arrays["scale"].astype(np.float64)
        width = len(INPUT_NAMES)
        if weights[0].shape[0] != PAIR_INPUTS or mean.shape != (PAIR_INPUTS,):
            raise ModelError(f"{source}: the first layer takes {weights[0].shape[0]} inputs")
        # standardising is folded into the first layer, whose two players' halves are put
        # side by side: one product gives every player's share as first and as second
        first = weights[0] / scale[:, None]
        self.first = np.hstack([first[:width], first[width : 2 * width]])
        self.duel = first[2 * width]
        self.first_bias = biases[0] - (mean / scale) @ weights[0]
        self.hidden = list(zip(weights[1:-1], biases[1:-1], strict=True))
        self.last = weights[-1][:, 0]
        self.last_bias = float(biases[-1][0])
        self.width = width

    def _tanh_halves(self, rows: list[list[float]]) -> npt.NDArray[np.float64]:
        """tanh of half the logit of every ordered pair of rows (row p over row o at p, o)."""
        x = np.array(rows)
        both = x @ self.first
        size = len(self.first_bias)
        potentials = x[:, _POTENTIAL] * 3.0
        duel = duel_logits(potentials[:, None] - potentials[None, :], x[0, _TILES] * 24.0)
        h = both[:, None, :size] + both[None, :, size:] + duel[:, :, None] * self.duel
        h += self.first_bias
        np.maximum(h, 0.0, out=h)
        for weight, bias in self.hidden:
            h = h @ weight + bias
            np.maximum(h, 0.0, out=h)
        halves: npt.NDArray[np.float64] = np.tanh((h @ self.last + self.last_bias) * 0.5)
        return halves

    def ahead(self, rows: list[list[float]]) -> npt.NDArray[np.float64]:
        """The chance that each player (row) finishes ahead of each other, a square matrix
        (the diagonal one half), made symmetric: the network's p over o and o under p are
        averaged, so the two always add up to one."""
        t = self._tanh_halves(rows)
        chances: npt.NDArray[np.float64] = 0.5 + 0.25 * (t - t.T)
        return chances

    def ahead_counts(self, rows: list[list[float]]) -> list[float]:
        """How many of the others each player is expected to finish ahead of: the row sums
        of ``ahead`` without the diagonal."""
        t = self._tanh_halves(rows)
        counts = 0.5 * (len(rows) - 1) + 0.25 * (t.sum(axis=1) - t.sum(axis=0))
        return [float(c) for c in counts]


def load_network(path: str | Path | None = None, players: int | None = None) -> ValueNetwork:
    """The network in a model file; without one, the shipped network for games of
    ``players`` (``model_file``), or for any number of players (``MODEL_FILE``)."""
    if path is None:
        return _shipped(players)
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError) as problem:
        raise ModelError(f"{path}: cannot read the model ({problem})") from None
    return ValueNetwork(arrays, str(path))


@cache
def _shipped(players: int | None) -> ValueNetwork:
    folder = resources.files("taluva.ai")
    name = MODEL_FILE
    if players is not None and (folder / model_file(players)).is_file():
        name = model_file(players)
    with (folder / name).open("rb") as handle, np.load(handle, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    return ValueNetwork(arrays, f"taluva.ai/{name}")


class LearnedEvaluator(Evaluator):
    """An ``Evaluator`` whose expected results come from the learned network; features and
    potentials stay the heuristic's (they are the network's inputs). Without a network given,
    each game is valued by the shipped network for its number of players."""

    __slots__ = ("_learned", "network")

    def __init__(self, network: ValueNetwork | None = None) -> None:
        super().__init__()
        self.network = network
        self._learned: dict[tuple[object, ...], tuple[float, ...]] = {}

    def results(self, game: Game) -> list[float]:
        features = [self.features(game, p) for p in range(game.player_count)]
        return self.results_from_features(game, features)

    def results_from_features(self, game: Game, features: list[Features]) -> list[float]:
        return list(self.result_tuple(game, features))

    def result_tuple(self, game: Game, features: list[Features]) -> tuple[float, ...]:
        """``results_from_features`` as a tuple, remembered for each situation, phase and
        features (the search asks for the same ones many times)."""
        outcome = game.result
        if outcome is not None:
            return tuple(outcome_results(outcome, game.player_count, self.weights.win_share))
        where = situation(game)
        building = game.phase != "tile"
        key = (where, building, *features)
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
