"""How fast the rules engine plays, side by side with the simple reference engine.

Plays complete random games (uniformly random legal moves, the full ``legal_moves()`` list
every ply) with both engines, the same games move for move, and reports games per second,
microseconds per ``legal_moves()`` call by phase, games per second through
``game.play(game.random_move(rng))``, and perft leaves per second over the base perft
table (checking every count). The reference engine (tests/reference_engine.py) rescans the
board for everything; each reference measurement is paired with the engine's run of the same
game or position right after it, so the ratios hold whatever else runs on the machine.
Everything is timed in CPU seconds of this process (other programs' work does not count),
keeping each item's fastest of repeated rounds.
Run with ``make bench`` or ``python bench/engine_speed.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the reference engine lives with the tests
sys.path.insert(0, str(ROOT / "src"))

from reference_engine import RefGame, ref_from_record, ref_perft  # noqa: E402

from taluva import Game  # noqa: E402
from taluva.engine.perft import perft  # noqa: E402

PERFT_TABLE = ROOT / "tests" / "data" / "perft" / "base.jsonl"
TARGETS = {"games2": 250.0, "random2": 1500.0, "perft": 300_000.0}
JAVA_GAMES_PER_SECOND = 220


def fastest(
    items: Sequence[Any], measure: Callable[[Any], tuple[float, ...]], seconds: float
) -> list[tuple[float, ...]]:
    """Time ``measure(item)`` round after round until ``seconds`` are spent; keep each item's
    fastest timings (other work on a shared machine only ever slows a run down).

    The first round takes as many items as fit in half the budget; later rounds repeat them.
    """
    clock = time.perf_counter
    start = clock()
    best: list[tuple[float, ...]] = []
    for item in items:
        best.append(measure(item))
        if clock() - start > seconds / 2:
            break
    while clock() - start < seconds:
        for index, item in enumerate(items[: len(best)]):
            best[index] = tuple(map(min, best[index], measure(item)))
    return best


@dataclass
class GameRun:
    """Fastest timings of full-list random games: each game's, and its legal_moves() calls."""

    timings: list[tuple[float, ...]]  # per game: whole game, tile-phase calls, build-phase calls
    calls: dict[str, int]  # legal_moves() calls by phase over all the games timed

    def rate(self, count: int | None = None) -> float:
        """Games per second over the first ``count`` games (all by default)."""
        chosen = self.timings[:count]
        return len(chosen) / sum(t[0] for t in chosen)

    def micros(self, phase: str) -> float:
        """Mean microseconds per legal_moves() call in a phase, less the timer's own cost."""
        column = PHASES.index(phase) + 1
        return 1e6 * sum(t[column] for t in self.timings) / self.calls[phase] - TIMER_MICROS


def timer_micros() -> float:
    """What reading the CPU clock twice around nothing measures, in microseconds."""
    cpu = time.process_time
    cheapest = float("inf")
    for _ in range(2000):
        before = cpu()
        cheapest = min(cheapest, cpu() - before)
    return 1e6 * cheapest


TIMER_MICROS = timer_micros()


PHASES = ("tile", "build")


def engine_game(players: int, seed: int) -> tuple[tuple[float, ...], list[int], Any]:
    """One full-list random game with the engine: its timings (whole game, tile-phase and
    build-phase legal_moves() calls), the calls by phase, and its deck and move texts."""
    cpu = time.process_time
    game = Game.new(players=players, seed=seed)
    rng = random.Random(seed)
    in_phase = [0.0, 0.0]
    count = [0, 0]
    start = cpu()
    while not game.is_over:
        phase = PHASES.index(game.phase)
        before = cpu()
        moves = game.legal_moves()
        in_phase[phase] += cpu() - before
        count[phase] += 1
        game.play(rng.choice(moves))
    total = cpu() - start
    return (total, *in_phase), count, (list(game.deck), [str(move) for move in game.moves])


def reference_game(players: int, deck: list[str], texts: list[str]) -> tuple[float, ...]:
    """The same game with the reference engine, full legal_moves() every ply: its timings."""
    cpu = time.process_time
    game = RefGame(players, deck)
    in_phase = [0.0, 0.0]
    start = cpu()
    for text in texts:
        phase = PHASES.index(game.phase)
        before = cpu()
        moves = game.legal_moves()
        in_phase[phase] += cpu() - before
        if text not in moves:
            raise SystemExit(f"engines disagree: {text!r} is not legal for the reference")
        game.play(text)
    total = cpu() - start
    if game.phase != "over":
        raise SystemExit("engines disagree: the reference game did not end")
    return (total, *in_phase)


def engine_games(players: int, games: int, seconds: float) -> tuple[GameRun, list[Any]]:
    """Full-list random games with the engine; also return each game's deck and move texts."""
    played: dict[int, Any] = {}
    calls: dict[int, list[int]] = {}

    def measure(seed: int) -> tuple[float, ...]:
        timings, calls[seed], played[seed] = engine_game(players, seed)
        return timings

    timings = fastest(range(games), measure, seconds)
    run = GameRun(timings, _calls_by_phase(calls[seed] for seed in range(len(timings))))
    return run, [played[seed] for seed in range(len(timings))]


def paired_games(players: int, played: list[Any], seconds: float) -> tuple[GameRun, GameRun]:
    """The reference engine's run of the same games, and the engine's run of each game again
    right after it: both see the same load, so their ratio is fair on a busy machine."""
    calls: dict[int, list[int]] = {}

    def measure(seed: int) -> tuple[float, ...]:
        reference = reference_game(players, *played[seed])
        engine, calls[seed], _ = engine_game(players, seed)
        return (*reference, *engine)

    timings = fastest(range(len(played)), measure, seconds)
    counted = _calls_by_phase(calls[seed] for seed in range(len(timings)))
    return (
        GameRun([t[:3] for t in timings], counted),
        GameRun([t[3:] for t in timings], counted),
    )


def _calls_by_phase(counts: Iterable[list[int]]) -> dict[str, int]:
    totals = [0, 0]
    for count in counts:
        totals = [a + b for a, b in zip(totals, count, strict=True)]
    return dict(zip(PHASES, totals, strict=True))


def random_move_games(players: int, games: int, seconds: float) -> float:
    """Games per second playing ``game.play(game.random_move(rng))`` to the end."""
    cpu = time.process_time

    def measure(seed: int) -> tuple[float, ...]:
        game = Game.new(players=players, seed=seed)
        rng = random.Random(seed)
        start = cpu()
        while not game.is_over:
            game.play(game.random_move(rng))
        return (cpu() - start,)

    timings = fastest(range(games), measure, seconds)
    return len(timings) / sum(t[0] for t in timings)


def perft_rates(max_depth: int, seconds: float) -> tuple[float, float, float, str]:
    """Leaves per second of the engine and of the reference over the base perft table, and their
    ratio measured position by position side by side; every count is checked."""
    positions = []
    for line in PERFT_TABLE.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        depth = max(int(d) for d in entry["perft"] if int(d) <= max_depth)
        positions.append((entry["id"], entry["record"], depth, entry["perft"][str(depth)]))
    leaves = sum(expected for *_, expected in positions)
    depths = "/".join(str(d) for d in sorted({d for _, _, d, _ in positions}, reverse=True))

    cpu = time.process_time

    def timed(make: Callable[[Any], Any], count: Callable[[Any, int], int], position: Any) -> float:
        name, record, depth, expected = position
        game = make(record)  # a fresh game: no move lists cached by an earlier pass
        start = cpu()
        got = count(game, depth)
        elapsed = cpu() - start
        if got != expected:
            raise SystemExit(f"perft mismatch at {name} depth {depth}: {got} != {expected}")
        return elapsed

    def whole_table(measure: Callable[[Any], tuple[float, ...]]) -> list[tuple[float, ...]]:
        timings = fastest(positions, measure, seconds)
        return timings + [measure(position) for position in positions[len(timings) :]]

    engine = whole_table(lambda position: (timed(Game.from_record, perft, position),))
    paired = whole_table(
        lambda position: (
            timed(ref_from_record, ref_perft, position),
            timed(Game.from_record, perft, position),
        )
    )
    reference_time = sum(t[0] for t in paired)
    ratio = reference_time / sum(t[1] for t in paired)
    label = f"{len(positions)} positions, depth {depths}, {leaves:,} leaves"
    return leaves / sum(t[0] for t in engine), leaves / reference_time, ratio, label


def machine_line() -> str:
    """Python version, cores, processor and load average: what the figures depend on."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = ", " + line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = (
        ", load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()) if hasattr(os, "getloadavg") else ""
    )
    return (
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"{os.cpu_count()} cores{model}{load}"
    )


def table_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def verdict(value: float, key: str) -> str:
    target = TARGETS[key]
    return f">= {target:,.0f} " + ("met" if value >= target else "NOT met")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Measure the engine against the reference engine, side by side.",
        epilog="example: python bench/engine_speed.py --quick",
    )
    parser.add_argument("--games", type=int, default=400, help="most games per measurement")
    parser.add_argument(
        "--seconds", type=float, default=6.0, help="time budget per measurement (default 6)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="a rough pass in a few seconds (perft depth 2)"
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.seconds <= 0:
        parser.error("--games and --seconds must be positive")
    seconds = 0.5 if args.quick else args.seconds
    games = min(args.games, 40) if args.quick else args.games

    print(f"taluva engine speed: {machine_line()}", flush=True)
    rows = []
    full: dict[int, tuple[GameRun, GameRun, GameRun]] = {}
    for players in (2, 4):
        engine, played = engine_games(players, games, seconds)
        reference, paired = paired_games(players, played, seconds)
        full[players] = (engine, reference, paired)
        rows.append(
            [
                f"{players}-player games/s, full legal_moves() every ply "
                f"({len(engine.timings)} / {len(reference.timings)} games)",
                f"{engine.rate():,.0f}",
                f"{reference.rate():,.1f}",
                f"{paired.rate() / reference.rate():,.0f}x",
                verdict(engine.rate(), "games2") if players == 2 else "",
            ]
        )
        print(f"  {players}-player full-list games done", file=sys.stderr, flush=True)
    for players in (2, 4):
        engine, reference, paired = full[players]
        for phase in PHASES:
            rows.append(
                [
                    f"us per legal_moves(), {phase} phase, {players} players",
                    f"{engine.micros(phase):,.1f}",
                    f"{reference.micros(phase):,.0f}",
                    f"{reference.micros(phase) / paired.micros(phase):,.0f}x",
                    "",
                ]
            )
    for players in (2, 4):
        rate = random_move_games(players, games * 5, seconds)
        reference_rate = full[players][1].rate()
        rows.append(
            [
                f"{players}-player games/s, play(random_move(rng))",
                f"{rate:,.0f}",
                f"{reference_rate:,.1f} (full lists)",
                f"{rate / reference_rate:,.0f}x",
                verdict(rate, "random2") if players == 2 else "",
            ]
        )
        print(f"  {players}-player random_move games done", file=sys.stderr, flush=True)
    engine_rate, reference_rate, ratio, label = perft_rates(2 if args.quick else 3, seconds)
    rows.append(
        [
            f"perft leaves/s, base table ({label})",
            f"{engine_rate:,.0f}",
            f"{reference_rate:,.0f}",
            f"{ratio:,.0f}x",
            verdict(engine_rate, "perft"),
        ]
    )
    print()
    print(table_row(["measurement", "taluva", "reference", "ratio", "target"]))
    print(table_row(["---", "---:", "---:", "---:", "---"]))
    for row in rows:
        print(table_row(row))
    print()
    print(
        f"Reference Java engine, for scale: about {JAVA_GAMES_PER_SECOND} two-player games/s "
        f"with full move lists. Load after the run: {machine_line().rsplit('load ', 1)[-1]}."
        f"\nTimes are CPU seconds of this process, each item's fastest of repeated rounds; "
        f"legal_moves() times exclude the clock's own {TIMER_MICROS:.2f} us."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
