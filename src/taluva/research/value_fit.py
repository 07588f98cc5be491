"""Train the learned evaluation's network (``taluva.ai.learned``) on self-play positions.

Every position of ``taluva.research.selfplay positions`` gives one sample per ordered pair of
players still in who did not share a place: both players' inputs, and whether the first
finished ahead. A multi-layer perceptron (scikit-learn's ``MLPClassifier``, ReLU, fixed seed)
learns those chances from both players' inputs and the heuristic's own logit; its weights and
the inputs' standardisation go to a small ``.npz`` that ``taluva.ai.learned.load_network``
reads with NumPy alone. Games numbered 5, 15, 25... decide when to stop; games 0, 10, 20...
are held out: the log-loss and accuracy of the network and of the heuristic's logistic duel
(``Evaluator.results_of``) on their pairs are printed, overall and by number of players.

  python -m taluva.research.value_fit positions.npz --out src/taluva/ai/learned_value.npz

Needs the ``[train]`` extra (scikit-learn).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from taluva.ai.evaluation import DEFAULT_EVALUATOR
from taluva.ai.learned import (
    INPUT_NAMES,
    MODEL_FORMAT,
    PAIR_INPUTS,
    load_network,
)
from taluva.research.commands import interrupted
from taluva.research.selfplay import POSITIONS_FORMAT

HELD_OUT: Final = 10
"""Every this-many-th game is held out from training (game numbers 0, 10, 20...)."""
VALIDATION: Final = 5
"""Games numbered 5, 15, 25... decide when training stops."""
PATIENCE: Final = 4
"""Epochs without a better validation loss before training stops."""

Floats = npt.NDArray[np.float64]


def read_inputs_file(path: Path, kind: str, form: str, remake: str) -> dict[str, npt.NDArray[Any]]:
    """The arrays of an ``.npz`` of model inputs, checked to be a ``kind`` of format ``form``
    written with this version's inputs (else: run ``remake`` again)."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    if "format" not in arrays or str(arrays["format"]) != form:
        raise ValueError(f"{path}: not a {kind} ({form})")
    if tuple(str(n) for n in arrays["names"]) != INPUT_NAMES:
        raise ValueError(f"{path}: written with other inputs; run {remake} again")
    return arrays


def read_positions(path: Path) -> dict[str, npt.NDArray[Any]]:
    """The arrays of a positions file, checked to be one with this version's inputs."""
    return read_inputs_file(path, "positions file", POSITIONS_FORMAT, "selfplay positions")


def of_players(
    arrays: dict[str, npt.NDArray[Any]], players: int, path: Path
) -> dict[str, npt.NDArray[Any]]:
    """The positions of a positions file's ``arrays`` from games of ``players`` players."""
    keep = np.round(arrays["inputs"][:, INPUT_NAMES.index("players")] * 4) == players
    if not keep.any():
        raise ValueError(f"{path}: no position of a {players}-player game")
    return {k: v[keep] if v.ndim and len(v) == len(keep) else v for k, v in arrays.items()}


def pair_inputs(first: Floats, second: Floats) -> Floats:
    """The network's inputs for pairs of players' rows: both rows and the heuristic's duel
    logit (``taluva.ai.learned.duel_logit``)."""
    potential, tiles = INPUT_NAMES.index("potential"), INPUT_NAMES.index("tiles_left")
    lead = 3.0 * (first[:, potential] - second[:, potential])
    duel = duel_logits(lead, first[:, tiles] * 24.0)
    return np.hstack([first, second, duel[:, None]])


def pairs(
    arrays: dict[str, npt.NDArray[Any]], blend: float = 0.0
) -> tuple[Floats, Floats, npt.NDArray[np.int32]]:
    """Pair samples of every position: (inputs of the first then the second player, the
    target chance that the first finishes ahead, the game of the position).

    With ``blend`` 0 the target is the game's result (1 or 0) and pairs who shared a place are
    left out. Otherwise it is ``blend`` times the search's chance (``search_chance``) plus the
    rest times the result (a shared place counting one half), for every pair.
    """
    if blend and "search" not in arrays:
        raise ValueError("--blend needs positions with the search's values (research.distill)")
    inputs = arrays["inputs"].astype(np.float64)
    rank = arrays["rank"]
    position = arrays["position"]
    eliminated = arrays["eliminated"]
    game = arrays["game"]
    starts = np.flatnonzero(np.r_[True, position[1:] != position[:-1]])
    ends = np.r_[starts[1:], len(position)]
    left: list[int] = []
    right: list[int] = []
    for start, end in zip(starts, ends, strict=True):
        for p in range(start, end):
            if eliminated[p]:
                continue
            for o in range(start, end):
                if o != p and not eliminated[o] and (blend or rank[p] != rank[o]):
                    left.append(p)
                    right.append(o)
    first = np.array(left, np.int64)
    second = np.array(right, np.int64)
    x = pair_inputs(inputs[first], inputs[second])
    y = (rank[first] < rank[second]) + 0.5 * (rank[first] == rank[second])
    if blend:
        players = np.round(inputs[first, INPUT_NAMES.index("players")] * 4.0)
        searched = search_chance(arrays["search"][first], arrays["search"][second], players)
        y = blend * searched + (1.0 - blend) * y
    return x, y.astype(np.float64), game[first].astype(np.int32)


def duel_logits(lead: Floats, tiles_left: Floats) -> Floats:
    """The heuristic's duel logits of many pairs at once (``taluva.ai.learned.duel_logit``):
    its slope, steeper as the tiles run out, times the lead in potential."""
    weights = DEFAULT_EVALUATOR.weights
    logits: Floats = (
        weights.scale + weights.late_scale / np.maximum(1.0, np.round(tiles_left))
    ) * lead
    return logits


def search_chance(first: Floats, second: Floats, players: Floats) -> Floats:
    """The chance that one player finishes ahead of another, from the search's expected
    results of both (each the mean, over the opponents, of finishing ahead of them): with two
    players it is the first's result; with n, 1/2 + (n - 1) / n times the difference, what it
    is when every player's chances against the others shift alike."""
    chances: Floats = np.clip(0.5 + (first - second) * (players - 1) / players, 0.01, 0.99)
    return chances


def heuristic_chances(x: Floats) -> Floats:
    """The heuristic's chance that the first player of each pair finishes ahead: its logistic
    duel on the two potentials, steeper as the tiles run out (the pair's last input)."""
    chances: Floats = 1.0 / (1.0 + np.exp(-np.clip(x[:, -1], -40.0, 40.0)))
    return chances


def scores(chances: Floats, y: Floats) -> tuple[float, float]:
    """Mean log-loss and accuracy of chances against outcomes."""
    clipped = np.clip(chances, 1e-6, 1 - 1e-6)
    loss = -np.mean(y * np.log(clipped) + (1 - y) * np.log(1 - clipped))
    accuracy = np.mean((clipped > 0.5) == (y > 0.5))
    return float(loss), float(accuracy)


def train(
    positions: Path,
    out: Path,
    hidden: tuple[int, ...],
    seed: int,
    epochs: int,
    alpha: float,
    blend: float = 0.0,
    players: int | None = None,
) -> list[str]:
    """Fit the network, write it to ``out`` and return the report's lines. Training stops
    when the loss on the validation games has not improved for ``PATIENCE`` epochs; the
    weights of its best epoch are kept. ``blend`` mixes the search's values into the targets
    (see ``pairs``); ``players`` keeps only the positions of games of that many players."""
    from sklearn.neural_network import MLPClassifier

    started = time.perf_counter()
    arrays = read_positions(positions)
    if players is not None:
        arrays = of_players(arrays, players, positions)
    x, y, game = pairs(arrays, blend)
    test = game % HELD_OUT == 0
    valid = game % HELD_OUT == VALIDATION
    fit = ~test & ~valid
    mean = x[fit].mean(axis=0)
    scale = x[fit].std(axis=0)
    scale[scale < 1e-6] = 1.0
    model = MLPClassifier(
        hidden_layer_sizes=hidden,
        activation="relu",
        alpha=alpha,
        batch_size=512,
        learning_rate_init=1e-3,
        random_state=seed,
    )
    # a soft target t is a sample that finished ahead with weight t and behind with 1 - t
    inputs = (x[fit] - mean) / scale
    if blend:
        inputs = np.vstack([inputs, inputs])
        labels = np.r_[np.ones(int(fit.sum())), np.zeros(int(fit.sum()))]
        weights: Floats | None = np.r_[y[fit], 1.0 - y[fit]]
    else:
        labels, weights = y[fit], None
    best: tuple[float, int, list[Floats], list[Floats]] | None = None
    for epoch in range(1, epochs + 1):
        model.partial_fit(inputs, labels, sample_weight=weights, classes=np.array([0.0, 1.0]))
        chances = model.predict_proba((x[valid] - mean) / scale)[:, 1]
        loss = scores(chances, y[valid])[0]
        if best is None or loss < best[0]:
            best = (loss, epoch, [w.copy() for w in model.coefs_], [*model.intercepts_])
        elif epoch - best[1] >= PATIENCE:
            break
    assert best is not None
    best_loss, best_epoch, coefs, intercepts = best
    model_arrays: dict[str, Any] = {
        "format": np.array(MODEL_FORMAT),
        "names": np.array(INPUT_NAMES),
        "layers": np.array(len(coefs)),
        "mean": mean.astype(np.float32),
        "scale": scale.astype(np.float32),
    }
    for i, (weight, bias) in enumerate(zip(coefs, intercepts, strict=True)):
        model_arrays[f"w{i}"] = weight.astype(np.float32)
        model_arrays[f"b{i}"] = bias.astype(np.float32)
    np.savez_compressed(out, **model_arrays)
    network = load_network(out)
    seconds = time.perf_counter() - started
    target = f"{blend:g} search + {1 - blend:g} result" if blend else "the result"
    lines = [
        f"{len(set(arrays['game'].tolist()))} games, "
        f"{len(set(arrays['position'].tolist()))} positions, "
        f"{int(fit.sum())} training pairs, {int(valid.sum())} validation pairs, "
        f"{int(test.sum())} held-out pairs; target: {target}",
        f"network {PAIR_INPUTS}-{'-'.join(map(str, hidden))}-1, alpha {alpha:g}, "
        f"best epoch {best_epoch} of {epoch} (validation loss {best_loss:.4f}), {seconds:.0f} s, "
        f"{out.stat().st_size} bytes",
    ]
    xr, yr, gr = pairs(arrays)
    lines += _held_out_lines("against the result", network, xr, yr, gr % HELD_OUT == 0)
    if "search" in arrays:
        xs, ys, gs = pairs(arrays, 1.0)
        lines += _held_out_lines("against the search", network, xs, ys, gs % HELD_OUT == 0)
    return lines


def _held_out_lines(
    title: str, network: Any, x: Floats, y: Floats, keep: npt.NDArray[np.bool_]
) -> list[str]:
    """Log-loss and accuracy of the network and of the heuristic on the held-out pairs
    ``keep``, overall and by number of players."""
    lines = [
        f"{title + ':':<20} {'pairs':>7} {'learned loss':>12} {'acc':>6} "
        f"{'heuristic loss':>14} {'acc':>6}"
    ]
    players = np.round(x[:, INPUT_NAMES.index("players")] * 4).astype(int)
    for label, rows in [("all", keep)] + [
        (f"{n} players", keep & (players == n)) for n in sorted(set(players[keep].tolist()))
    ]:
        learned = scores(_pair_chances(network, x[rows]), y[rows])
        heuristic = scores(heuristic_chances(x[rows]), y[rows])
        lines.append(
            f"{label:<20} {int(rows.sum()):>7} {learned[0]:>12.4f} {learned[1]:>6.1%} "
            f"{heuristic[0]:>14.4f} {heuristic[1]:>6.1%}"
        )
    return lines


def _pair_chances(network: Any, x: Floats) -> Floats:
    """The shipped network's symmetric chance for each pair, as the search computes it."""
    width = len(INPUT_NAMES)
    out = np.empty(len(x))
    for i, row in enumerate(x):
        out[i] = network.ahead([list(row[:width]), list(row[width : 2 * width])])[0][1]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m taluva.research.value_fit", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("positions", type=Path, help="from taluva.research.selfplay positions")
    parser.add_argument("--out", type=Path, required=True, help="the model file to write")
    parser.add_argument("--hidden", default="16", help="hidden layer sizes (default 16)")
    parser.add_argument("--seed", type=int, default=0, help="the network's seed (default 0)")
    parser.add_argument("--epochs", type=int, default=40, help="at most (default 40)")
    parser.add_argument("--alpha", type=float, default=0.01, help="L2 penalty (default 0.01)")
    parser.add_argument(
        "--blend",
        type=float,
        default=0.0,
        help="share of the search's value in the target, 0 to 1 (default 0: the result only)",
    )
    parser.add_argument("--players", type=int, help="train on games of this many players only")
    args = parser.parse_args(argv)
    try:
        hidden = tuple(int(n) for n in args.hidden.split(","))
        if not hidden or min(hidden) < 1:
            raise ValueError(f"--hidden {args.hidden}: give positive sizes, e.g. 32,16")
        if not 0.0 <= args.blend <= 1.0:
            raise ValueError(f"--blend {args.blend:g}: give a share from 0 to 1")
        lines = train(
            args.positions,
            args.out,
            hidden,
            args.seed,
            args.epochs,
            args.alpha,
            args.blend,
            args.players,
        )
        for line in lines:
            print(line)
    except (OSError, ValueError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return interrupted(args.out, resumable=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
