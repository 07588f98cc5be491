"""Teach the learned evaluation to rank a turn's plans as a deeper search does.

The search uses its evaluation mostly to compare the plans of one turn (``plan_turns``: which
are tried, in which order, how good each looks). A network trained only to predict who wins
does that worse than the heuristic it refines: on held-out turns of searched games it ranks
the search's choice lower. This module fine-tunes a network on both goals at once.

``siblings`` replays the games of ``taluva.research.distill games`` and, for every turn of a
tile and a build with nobody out, writes the inputs (``position_inputs``) of the position the
search's plan led to, then those of other plans of the same turn: the best-looking by the
heuristic and some drawn at random. ``train`` starts from a model file and lowers, by Adam on
mini-batches, the cross-entropy of the search's choice under a softmax over each turn's
plans (the mover's expected result, times a learnt sharpness) plus ``--result-weight`` times
the log-loss of the results (``value_fit``'s pairs of a ``distill positions`` file). Games
are numbered by their line across the files, as ``distill positions`` does: 0, 10, 20... are
held out, 5, 15, 25... choose the epoch kept.

  python -m taluva.research.rank_fit siblings searched-2p.jsonl --out siblings-2p.npz
  python -m taluva.research.rank_fit train siblings-2p.npz --positions positions-2p.npz \\
      --start round2.npz --out src/taluva/ai/learned_value_2p.npz

(the four-player network: the same with the four-player files and ``--result-weight 1``;
docs/ai.md has every command).

Needs NumPy (the ``[train]`` extra).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from taluva.ai import arena
from taluva.ai.evaluation import DEFAULT_EVALUATOR, situation
from taluva.ai.learned import INPUT_NAMES, MODEL_FORMAT, position_inputs
from taluva.ai.turns import plan_turns
from taluva.engine.game import Game
from taluva.engine.moves import Move
from taluva.research.commands import interrupted
from taluva.research.distill import read_searched
from taluva.research.value_fit import (
    HELD_OUT,
    VALIDATION,
    heuristic_chances,
    of_players,
    pair_inputs,
    pairs,
    read_inputs_file,
    read_positions,
    scores,
)

SIBLINGS_FORMAT: Final = "taluva-siblings/1"
BEST: Final = 12
"""Other plans of a turn kept because they look best to the heuristic."""
DRAWN: Final = 20
"""Other plans of a turn kept at random among the rest."""

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Rows = list[list[float]]


def _rows_after(game: Game, moves: Sequence[Move]) -> Rows | None:
    """Every player's inputs after ``moves`` (None if they end the game); the game is
    restored."""
    for move in moves:
        game.push(move)
    try:
        if game.result is not None:
            return None
        features = [DEFAULT_EVALUATOR.features(game, p) for p in range(game.player_count)]
        return position_inputs(features, situation(game), game.phase != "tile")
    finally:
        for _ in moves:
            game.pop()


def turn_groups(entry: dict[str, Any], number: int) -> list[tuple[int, list[Rows]]]:
    """The turns of one searched game worth learning from: for each, the mover and every
    player's inputs after the search's plan, then after each other plan kept (those drawn
    seeded by the game's ``number``)."""
    players = len(entry["ranks"])
    game = Game.new(players=[f"search {seat + 1}" for seat in range(players)], seed=entry["seed"])
    moves = [Move.parse(text) for text in entry["moves"]]
    rng = random.Random(number)
    groups: list[tuple[int, list[Rows]]] = []
    i = 0
    while i < len(moves) and game.result is None:
        mover = game.to_move
        probe = game.copy()
        j = i
        while j < len(moves):
            probe.play(moves[j])
            j += 1
            if probe.result is not None or probe.to_move != mover:
                break
        chosen = tuple(moves[i:j])
        if game.phase == "tile" and len(chosen) == 2 and not situation(game).eliminated:
            others = [p.moves for p in plan_turns(game, DEFAULT_EVALUATOR, rng, 0)]
            others = [plan for plan in others if plan != chosen]
            kept = others[:BEST]
            kept += rng.sample(others[BEST:], min(DRAWN, len(others) - len(kept)))
            first = _rows_after(game, chosen)
            rest = [rows for rows in (_rows_after(game, plan) for plan in kept) if rows]
            if first is not None and rest:
                groups.append((mover, [first, *rest]))
        for move in chosen:
            game.play(move)
        i = j
    return groups


def _groups_task(task: arena.Task) -> dict[str, Any]:
    return {"number": task["number"], "groups": turn_groups(task["entry"], task["number"])}


def write_siblings(paths: Sequence[Path], out: Path, workers: int = 1) -> tuple[int, int]:
    """Write the turn groups of every game of ``paths`` to ``out``; returns (games, turns)."""
    entries = list(read_searched(paths))
    players = {len(entry["ranks"]) for entry in entries}
    if len(players) > 1:
        raise ValueError(f"games of {sorted(players)} players: give one player count")
    tasks: list[arena.Task] = [{"number": n, "entry": e} for n, e in enumerate(entries)]
    games: list[int] = []
    movers: list[int] = []
    sizes: list[int] = []
    rows: list[Rows] = []
    started = time.perf_counter()
    for done, result in enumerate(arena.local_map(workers)(_groups_task, tasks), 1):
        for mover, group in result["groups"]:
            games.append(result["number"])
            movers.append(mover)
            sizes.append(len(group))
            rows.extend(group)
        if done % 50 == 0 or done == len(tasks):
            seconds = time.perf_counter() - started
            print(f"  {done}/{len(tasks)} games, {seconds:.0f} s", file=sys.stderr)
    np.savez_compressed(
        out,
        format=np.array(SIBLINGS_FORMAT),
        names=np.array(INPUT_NAMES),
        game=np.array(games, np.int32),
        mover=np.array(movers, np.int8),
        size=np.array(sizes, np.int32),
        rows=np.array(rows, np.float32).reshape(-1, max(players, default=2), len(INPUT_NAMES)),
    )
    return len(entries), len(sizes)


@dataclass(frozen=True)
class Turns:
    """Turn groups read from a siblings file: each turn's game, mover and plans (the
    search's first), as flat rows with each group's start and size."""

    game: Ints
    mover: Ints
    size: Ints
    start: Ints
    rows: Floats

    @classmethod
    def read(cls, path: Path) -> Turns:
        arrays = read_inputs_file(path, "siblings file", SIBLINGS_FORMAT, "rank_fit siblings")
        size = arrays["size"].astype(np.int64)
        return cls(
            arrays["game"].astype(np.int64),
            arrays["mover"].astype(np.int64),
            size,
            np.r_[0, np.cumsum(size)[:-1]].astype(np.int64),
            arrays["rows"].astype(np.float64),
        )

    @property
    def players(self) -> int:
        return int(self.rows.shape[1])


@dataclass(frozen=True)
class Batch:
    """Some turns' plans as the network's pair inputs: the mover over each opponent
    (``ahead``) and each opponent over the mover (``behind``), opponent by opponent; each
    plan's turn (``turn``) and each turn's first plan (``first``, the search's)."""

    ahead: Floats
    behind: Floats
    turn: Ints
    first: Ints
    opponents: int


def make_batch(turns: Turns, chosen: Ints) -> Batch:
    """The batch of the turns numbered ``chosen``."""
    index = np.concatenate(
        [np.arange(turns.start[i], turns.start[i] + turns.size[i]) for i in chosen]
    )
    movers = np.repeat(turns.mover[chosen], turns.size[chosen])
    rows = turns.rows[index]
    n = turns.players
    plan = np.arange(len(rows))
    me = rows[plan, movers]
    ahead, behind = [], []
    for k in range(1, n):
        other = rows[plan, (movers + k) % n]
        ahead.append(pair_inputs(me, other))
        behind.append(pair_inputs(other, me))
    return Batch(
        np.vstack(ahead),
        np.vstack(behind),
        np.repeat(np.arange(len(chosen)), turns.size[chosen]),
        np.r_[0, np.cumsum(turns.size[chosen])[:-1]].astype(np.int64),
        n - 1,
    )


def choice_loss(scores: Floats, batch: Batch) -> tuple[float, Floats]:
    """The mean cross-entropy of the search's choice under a softmax over each turn's plans
    scored ``scores``, and its gradient with respect to them."""
    top = np.maximum.reduceat(scores, batch.first)
    exp = np.exp(scores - top[batch.turn])
    chance = exp / np.add.reduceat(exp, batch.first)[batch.turn]
    loss = float(-np.log(chance[batch.first] + 1e-12).mean())
    gradient = chance.copy()
    gradient[batch.first] -= 1.0
    return loss, gradient / len(batch.first)


def heuristic_choice_loss(batch: Batch) -> tuple[float, float]:
    """The heuristic's choice loss at its best sharpness (from a fixed grid), and that
    sharpness: what the network must beat."""
    lead = batch.ahead[:, -1].reshape(batch.opponents, -1).sum(axis=0)
    return min((choice_loss(beta * lead, batch)[0], beta) for beta in _SHARPNESS)


_SHARPNESS: Final = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)


class Network:
    """A model file's network (one hidden layer) in NumPy, with Adam's state, for training."""

    def __init__(self, path: Path) -> None:
        with np.load(path, allow_pickle=False) as data:
            self.arrays = {name: data[name] for name in data.files}
        if str(self.arrays.get("format")) != MODEL_FORMAT:
            raise ValueError(f"{path}: not a learned value model ({MODEL_FORMAT})")
        if int(self.arrays["layers"]) != 2:
            raise ValueError(f"{path}: rank_fit trains networks of one hidden layer")
        self.mean = self.arrays["mean"].astype(np.float64)
        self.scale = self.arrays["scale"].astype(np.float64)
        self.params = {k: self.arrays[k].astype(np.float64) for k in ("w0", "b0", "w1", "b1")}
        self.params["sharpness"] = np.array([np.log(4.0)])
        self._moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in self.params.items()}
        self._steps = 0

    def logits(self, x: Floats) -> tuple[Floats, tuple[Floats, Floats]]:
        """The logit of each pair, and what ``backward`` needs."""
        inputs = (x - self.mean) / self.scale
        hidden = inputs @ self.params["w0"] + self.params["b0"]
        logits: Floats = (np.maximum(hidden, 0.0) @ self.params["w1"] + self.params["b1"])[:, 0]
        return logits, (inputs, hidden)

    def backward(
        self, d_logits: Floats, kept: tuple[Floats, Floats], grads: dict[str, Floats]
    ) -> None:
        """Add the gradient of the pairs' logits, weighted by ``d_logits``, to ``grads``."""
        inputs, hidden = kept
        active = np.maximum(hidden, 0.0)
        grads["w1"] += active.T @ d_logits[:, None]
        grads["b1"] += d_logits.sum(keepdims=True)
        d_hidden = d_logits[:, None] * self.params["w1"][:, 0][None, :] * (hidden > 0)
        grads["w0"] += inputs.T @ d_hidden
        grads["b0"] += d_hidden.sum(axis=0)

    def choice(self, batch: Batch, grads: dict[str, Floats] | None = None) -> float:
        """The choice loss of a batch (its gradient added to ``grads`` if given). A plan's
        score is the learnt sharpness times the mover's expected result, less its constant,
        as ``ValueNetwork.ahead_counts`` forms it."""
        logits, kept = self.logits(np.vstack([batch.ahead, batch.behind]))
        half = len(batch.ahead)
        up, down = np.tanh(logits[:half] / 2), np.tanh(logits[half:] / 2)
        lead = (up - down).reshape(batch.opponents, -1).sum(axis=0)
        sharpness = float(np.exp(self.params["sharpness"][0]))
        loss, d_scores = choice_loss(sharpness * lead, batch)
        if grads is not None:
            grads["sharpness"] += np.array([float((d_scores * lead).sum()) * sharpness])
            d_lead = np.tile(d_scores * sharpness, batch.opponents)
            d_logits = np.r_[d_lead * 0.5 * (1 - up**2), -d_lead * 0.5 * (1 - down**2)]
            self.backward(d_logits, kept, grads)
        return loss

    def result(
        self, x: Floats, y: Floats, grads: dict[str, Floats] | None = None, weight: float = 1.0
    ) -> float:
        """The log-loss of pairs' results (gradient times ``weight`` added to ``grads``)."""
        logits, kept = self.logits(x)
        chance = 1.0 / (1.0 + np.exp(-logits))
        loss = float(-np.mean(y * np.log(chance + 1e-12) + (1 - y) * np.log(1 - chance + 1e-12)))
        if grads is not None:
            self.backward(weight * (chance - y) / len(y), kept, grads)
        return loss

    def zero(self) -> dict[str, Floats]:
        return {k: np.zeros_like(v) for k, v in self.params.items()}

    def step(self, grads: dict[str, Floats], rate: float) -> None:
        """One Adam step."""
        self._steps += 1
        for key, grad in grads.items():
            first, second = self._moments[key]
            first *= 0.9
            first += 0.1 * grad
            second *= 0.999
            second += 0.001 * grad**2
            corrected = first / (1 - 0.9**self._steps)
            spread = np.sqrt(second / (1 - 0.999**self._steps))
            self.params[key] -= rate * corrected / (spread + 1e-8)

    def save(self, out: Path) -> None:
        arrays = dict(self.arrays)
        for key in ("w0", "b0", "w1", "b1"):
            arrays[key] = self.params[key].astype(np.float32)
        np.savez_compressed(out, **arrays)


def train(
    siblings: Path,
    positions: Path,
    start: Path,
    out: Path,
    result_weight: float = 3.0,
    epochs: int = 60,
    rate: float = 3e-4,
    seed: int = 0,
) -> list[str]:
    """Fine-tune ``start`` on the turns of ``siblings`` and the results of ``positions``,
    write the best epoch (by validation loss, choice plus weighted result) to ``out``, and
    return the report's lines."""
    started = time.perf_counter()
    turns = Turns.read(siblings)
    x, y, pair_game = pairs(of_players(read_positions(positions), turns.players, positions))
    split = turns.game % HELD_OUT
    fit = np.flatnonzero((split != 0) & (split != VALIDATION))
    if not (split == VALIDATION).any() or not fit.size:
        raise ValueError(
            f"{siblings}: {len(set(turns.game.tolist()))} games; training needs at least "
            f"{VALIDATION + 2} (games {VALIDATION}, {VALIDATION + HELD_OUT}... choose the "
            f"epoch, 0, {HELD_OUT}... are held out)"
        )
    valid = make_batch(turns, np.flatnonzero(split == VALIDATION))
    test = make_batch(turns, np.flatnonzero(split == 0))
    pair_split = pair_game % HELD_OUT
    fit_pairs = np.flatnonzero((pair_split != 0) & (pair_split != VALIDATION))
    valid_pairs, test_pairs = pair_split == VALIDATION, pair_split == 0
    network = Network(start)

    def line(label: str, batch: Batch, chosen: npt.NDArray[np.bool_]) -> str:
        result = network.result(x[chosen], y[chosen])
        return f"{label:<16} {network.choice(batch):>11.4f} {result:>12.4f}"

    def score() -> float:
        return network.choice(valid) + result_weight * network.result(
            x[valid_pairs], y[valid_pairs]
        )

    lines = [
        f"{len(turns.size)} turns of {len(set(turns.game.tolist()))} games "
        f"({len(fit)} to fit), {len(x)} result pairs; result weight {result_weight:g}",
        f"{'held out':<16} {'choice loss':>11} {'result loss':>12}",
        f"{'heuristic':<16} {heuristic_choice_loss(test)[0]:>11.4f} "
        f"{scores(heuristic_chances(x[test_pairs]), y[test_pairs])[0]:>12.4f}",
        line("start", test, test_pairs),
    ]
    best = (score(), 0, {k: v.copy() for k, v in network.params.items()})
    rng = np.random.default_rng(seed)
    batches = max(1, len(fit) // 64)
    for epoch in range(1, epochs + 1):
        turn_order = np.array_split(rng.permutation(fit), batches)
        pair_order = np.array_split(rng.permutation(fit_pairs), batches)
        for chosen, chosen_pairs in zip(turn_order, pair_order, strict=True):
            grads = network.zero()
            network.choice(make_batch(turns, chosen), grads)
            if result_weight:
                network.result(x[chosen_pairs], y[chosen_pairs], grads, result_weight)
            network.step(grads, rate)
        now = score()
        if now < best[0]:
            best = (now, epoch, {k: v.copy() for k, v in network.params.items()})
    network.params = best[2]
    network.save(out)
    seconds = time.perf_counter() - started
    lines.append(line(f"epoch {best[1]} of {epochs}", test, test_pairs))
    lines.append(
        f"sharpness {float(np.exp(network.params['sharpness'][0])):.2f}, {seconds:.0f} s, {out}"
    )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m taluva.research.rank_fit", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    siblings = commands.add_parser("siblings", help="searched games to each turn's plans")
    siblings.add_argument("games", type=Path, nargs="+", help="from distill games")
    siblings.add_argument("--out", type=Path, required=True, help="the .npz to write")
    siblings.add_argument("--workers", type=int, default=1, help="local processes (default 1)")
    fit = commands.add_parser("train", help="fine-tune a network on the turns and results")
    fit.add_argument("siblings", type=Path, help="from rank_fit siblings")
    fit.add_argument("--positions", type=Path, required=True, help="from distill positions")
    fit.add_argument("--start", type=Path, required=True, help="the model file to start from")
    fit.add_argument("--out", type=Path, required=True, help="the model file to write")
    fit.add_argument(
        "--result-weight", type=float, default=3.0, help="of the results' loss (default 3)"
    )
    fit.add_argument("--epochs", type=int, default=60, help="passes over the turns (default 60)")
    fit.add_argument("--rate", type=float, default=3e-4, help="Adam's step (default 0.0003)")
    fit.add_argument("--seed", type=int, default=0, help="the batches' order (default 0)")
    args = parser.parse_args(argv)
    try:
        if args.command == "siblings":
            games, count = write_siblings(args.games, args.out, args.workers)
            print(f"{count} turns of {games} games written to {args.out}")
            return 0
        if args.result_weight < 0:
            raise ValueError(f"--result-weight {args.result_weight:g}: give 0 or more")
        if args.epochs < 1:
            raise ValueError(f"--epochs {args.epochs}: train at least one")
        lines = train(
            args.siblings,
            args.positions,
            args.start,
            args.out,
            args.result_weight,
            args.epochs,
            args.rate,
            args.seed,
        )
    except (OSError, ValueError, KeyError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return interrupted(args.out, resumable=False)
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
