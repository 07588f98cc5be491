"""Benchmark the expansions: random games per second next to the base game, the cost of
finding lagoons, and how often each Game Board zone ends a game early.

Run: .venv/bin/python bench/expansions.py [--games N] [--seed S]
Every figure comes from the same run, so ratios against the base game are what to compare.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time

from taluva import Game
from taluva.engine.expansions.board_zones import ZONES
from taluva.engine.expansions.ships import enclosed_sea
from taluva.engine.moves import TILE

CONFIGS: list[tuple[str, ...]] = [
    (),
    ("ships",),
    ("double_hex",),
    ("board:beginner",),
    ("board:expert",),
    ("ships", "double_hex", "board:intermediate-a"),
]


def play_random(game: Game, rng: random.Random) -> None:
    """Uniformly random legal moves, full move list every ply, to the end."""
    while not game.is_over:
        moves = game.legal_moves()
        game.play(moves[int(rng.random() * len(moves))])


def speed(expansions: tuple[str, ...], players: int, games: int, seed: int) -> float:
    rng = random.Random(seed)
    start = time.perf_counter()
    for index in range(games):
        play_random(Game.new(players=players, seed=seed + index, expansions=expansions), rng)
    return games / (time.perf_counter() - start)


def lagoon_cost(games: int, seed: int) -> tuple[float, float]:
    """Microseconds per lagoon search, and the share of positions that needed a flood fill."""
    rng = random.Random(seed)
    calls = fills = 0
    elapsed = 0.0
    for index in range(games):
        game = Game.new(players=3, seed=seed + index, expansions=("ships",))
        while not game.is_over:
            position = game.position
            holes = 1 - position.land_count + position.land_edges - position.land_triangles
            start = time.perf_counter()
            if holes > 0:  # what ships.lagoons does when nothing is kept on the position
                enclosed_sea(position.level)
            elapsed += time.perf_counter() - start
            calls += 1
            fills += holes > 0
            moves = game.legal_moves()
            game.play(moves[int(rng.random() * len(moves))])
    return elapsed / calls * 1e6, fills / calls


def early_ends(zone: str, players: int, games: int, seed: int) -> tuple[float, float]:
    """Share of random games a zone ends early (no placement fits), and mean tiles placed."""
    rng = random.Random(seed)
    early = 0
    placed = 0
    for index in range(games):
        game = Game.new(players=players, seed=seed + index, expansions=(f"board:{zone}",))
        play_random(game, rng)
        early += game.result is not None and game.result.reason == "no-placement"
        placed += sum(1 for move in game.moves if move.kind == TILE)
    return early / games, placed / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games per measurement")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, {args.games} games each")
    for zone in ZONES.values():  # the zones' placement tables are built once per process
        assert zone.tile_codes and zone.pair_codes
    print("\nrandom two-player games per second (full legal_moves() every ply)")
    base = speed((), 2, args.games, args.seed)
    for config in CONFIGS:
        rate = base if not config else speed(config, 2, args.games, args.seed)
        print(f"  {'+'.join(config) or 'base game':45} {rate:8.1f}   x{rate / base:.2f}")
    cost, share = lagoon_cost(max(args.games // 4, 5), args.seed)
    print(f"\nlagoon search: {cost:.1f} us per call; flood fill needed in {share:.0%} of positions")
    print("\nGame Board zones: area, share of random games ended early, mean tiles placed")
    header = "".join(f"{p} players".rjust(18) for p in (2, 3, 4, 5))
    print(f"  {'zone':16}{'hexes':>6}{header}")
    for name, zone in ZONES.items():
        cells = []
        for players in (2, 3, 4, 5):
            early, placed = early_ends(name, players, args.games, args.seed)
            cells.append(f"{early:6.0%} {placed:5.1f} tiles".rjust(18))
        print(f"  {name:16}{zone.area:6}{''.join(cells)}")


if __name__ == "__main__":
    main()
