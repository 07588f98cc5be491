"""Environment steps per second through each research interface, next to the raw engine.

A step is one player decision (chance nodes are not counted). Every interface plays whole
games of uniformly random legal moves, from the same seeds:

- engine: ``rng.choice(game.legal_moves())`` then ``game.play`` (and, for reference,
  ``game.random_move``, the engine's fast non-uniform sampler);
- actions: the same through the action space (``legal_actions``, ``decode``, ``play``);
- observe: the actions loop plus one observation (planes and scalars) per step;
- state: the OpenSpiel-style ``TaluvaState`` (``legal_actions``, ``apply_action``);
- pyspiel: the registered ``python_taluva`` through pyspiel's C++ bindings;
- pettingzoo: ``taluva_v0`` (``last()`` with observation and mask, then ``step``).

Rates use this process's CPU time (not wall time), best of ``--rounds`` rounds, so that other
work on a shared machine disturbs them less. Run:
``.venv/bin/python bench/env_speed.py [--games N] [--players P] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from taluva import Game
from taluva.research.actions import action_space
from taluva.research.observations import Observer
from taluva.research.state import TaluvaConfig, TaluvaState


def engine_uniform(players: int, seed: int) -> int:
    rng = random.Random(seed)
    game = Game.new(players=players, seed=seed)
    steps = 0
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
        steps += 1
    return steps


def engine_sampler(players: int, seed: int) -> int:
    rng = random.Random(seed)
    game = Game.new(players=players, seed=seed)
    steps = 0
    while not game.is_over:
        game.play(game.random_move(rng))
        steps += 1
    return steps


def through_actions(players: int, seed: int, observe: bool = False) -> int:
    rng = random.Random(seed)
    space = action_space()
    observer = Observer(players) if observe else None
    game = Game.new(players=players, seed=seed)
    steps = 0
    while not game.is_over:
        moves = game.legal_moves()
        actions = space.legal_actions(game, moves)
        if not actions:
            break
        if observer is not None:
            observer.observe(game, legal_actions=actions)
        game.play(space.decode(game, rng.choice(actions)))
        steps += 1
    return steps


def through_state(players: int, seed: int) -> int:
    rng = random.Random(seed)
    state = TaluvaState(TaluvaConfig(players=players))
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            continue
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    return steps


def through_pyspiel(players: int, seed: int) -> int:
    import pyspiel

    import taluva.research.spiel  # noqa: F401 (registers python_taluva)

    rng = random.Random(seed)
    state = pyspiel.load_game(f"python_taluva(players={players})").new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            continue
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    return steps


def through_pettingzoo(players: int, seed: int) -> int:
    import numpy as np

    from taluva.research import taluva_v0

    env = taluva_v0.env(players=players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = 0
    for _agent in env.agent_iter():
        observation, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
        steps += 1
    return steps


INTERFACES: dict[str, Callable[[int, int], int]] = {
    "engine (legal_moves + choice)": engine_uniform,
    "engine (random_move sampler)": engine_sampler,
    "action space": through_actions,
    "action space + observation": lambda p, s: through_actions(p, s, observe=True),
    "OpenSpiel-style TaluvaState": through_state,
    "pyspiel python_taluva": through_pyspiel,
    "PettingZoo taluva_v0": through_pettingzoo,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per interface (default 20)")
    parser.add_argument("--players", type=int, default=2, help="players (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, best kept (default 3)")
    args = parser.parse_args()
    print(
        f"{args.games} random games of {args.players} players per interface, "
        f"best of {args.rounds} rounds (CPU time)",
        flush=True,
    )
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, run in INTERFACES.items():
            try:
                start = time.process_time()
                steps = sum(run(args.players, seed) for seed in range(args.games))
                elapsed = time.process_time() - start
            except ImportError as error:
                print(f"{name:<32} skipped ({error})")
                continue
            best[name] = max(best.get(name, 0.0), steps / elapsed)
    base = best[next(iter(INTERFACES))]
    for name, rate in best.items():
        print(f"{name:<32} {rate:>10,.0f} steps/s  ({rate / base:>6.1%} of the engine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
