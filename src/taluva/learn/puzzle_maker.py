"""Making puzzles (``taluva puzzles make``): self-play games of the AI, seeded so they replay
exactly, and stored game records, screened turn by turn with the exact check of
``taluva.learn.puzzle_check``.

A position is kept when some turn wins at once, every winning turn plays the same build (so
the answer is unique: that build, after a placement that allows it), and winning turns are at
most ``MAX_WIN_SHARE`` of all turns (so most turns do not win and the puzzle asks something).
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from taluva.ai import make_agent
from taluva.ai.hint import hint_plan
from taluva.ai.turns import move_hexes
from taluva.engine.game import Game
from taluva.engine.hexes import DELTAS
from taluva.engine.moves import EXPAND, HUT, TEMPLE, TOWER, Move
from taluva.engine.outcome import Reason
from taluva.learn.puzzle_check import (
    OutOfWork,
    WinSurvey,
    Work,
    candidate_kinds,
    survey_blocks,
    survey_wins,
)
from taluva.learn.puzzles import (
    BLOCK,
    Puzzle,
    PuzzleSet,
    Verdict,
    check_attempt,
    difficulty_of,
)

MAX_WIN_SHARE: Final = 0.25
"""A kept position's winning turns are at most this share of its turns."""

AGENT_PAIRS: Final[tuple[tuple[str, str], ...]] = (
    ("greedy", "greedy"),
    ("level:1", "greedy"),
    ("greedy", "level:1"),
    ("level:1", "level:1"),
)
"""The players of self-play game ``i`` are pair ``i % len``: greedy plans and level 1's
soft-max choice among them, both repeatable from a seed and fast enough to play thousands of
games on one core (a tree search would cost three times as long a game)."""

TILES_PER_PLAYER: Final = (24,)
"""Self-play game ``i`` deals ``TILES_PER_PLAYER[i % len]`` tiles a player: long games, where
players more often come close to placing two kinds of pieces."""


@dataclass
class Tally:
    """The figures of a run: games played or read, turn starts seen, screened for a win at
    once (the mover has one kind of piece all placed) and found with one, screened for a
    block and given up (out of work), puzzles kept, wall and CPU seconds."""

    games: int = 0
    positions: int = 0
    screened: int = 0
    with_win: int = 0
    block_screened: int = 0
    block_given_up: int = 0
    kept_blocks: int = 0
    kept: int = 0
    seconds: float = 0.0
    cpu: float = 0.0

    def add(self, other: Tally) -> None:
        """Count another game's figures in (not the wall time)."""
        for name in (
            "games",
            "positions",
            "screened",
            "with_win",
            "block_screened",
            "block_given_up",
            "kept_blocks",
            "kept",
            "cpu",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def line(self) -> str:
        return (
            f"games {self.games}, turn starts {self.positions}, screened {self.screened}, "
            f"with a win {self.with_win}, block checks {self.block_screened} "
            f"({self.block_given_up} given up), kept {self.kept} ({self.kept_blocks} blocks), "
            f"{self.seconds:.0f} s"
        )


def themes_of(game: Game, survey: WinSurvey) -> tuple[str, ...]:
    """The themes of a kept position: the piece that wins, and ``eruption`` when every
    winning placement is an eruption."""
    kind = Move.parse(survey.winning_builds[0]).kind
    themes = [{TEMPLE: "temple", TOWER: "tower", HUT: "huts", EXPAND: "huts"}[kind]]
    erupting = True
    for tile in {tile for tile, _ in survey.wins}:
        move = Move.parse(tile)
        game.push(move)
        erupting = erupting and game.level(move[1]) > 1
        game.pop()
    if erupting:
        themes.append("eruption")
    return tuple(themes)


def puzzle_at(game: Game, puzzle_id: str) -> tuple[Puzzle | None, WinSurvey]:
    """The puzzle the position holds, if it is one, and its survey."""
    survey = survey_wins(game)
    if len(survey.winning_builds) != 1 or len(survey.wins) > MAX_WIN_SHARE * survey.turns:
        return None, survey
    record = game.to_record()
    prefix = {key: record[key] for key in ("format", "players", "options", "deck", "doubles")}
    prefix["moves"] = record["moves"]
    figures = {
        "placements": survey.placements,
        "turns": survey.turns,
        "winning_turns": len(survey.wins),
        "winning_placements": survey.winning_placements,
    }
    share = survey.winning_placements / survey.placements
    puzzle = Puzzle(
        id=puzzle_id,
        record=prefix,
        mover=game.to_move,
        answer=survey.wins[0],
        themes=themes_of(game, survey),
        difficulty=difficulty_of(share),
        figures=figures,
    )
    return puzzle, survey


Source = tuple[str, int, dict[str, Any] | None]
"""A game to screen: self-play (``("self", seed, None)`` for game number ``n`` of a seed:
``("self", seed * GAME_STRIDE + n, None)``) or a stored record (``("record", n, record)``).
Plain data, so worker processes can be handed them."""

GAME_STRIDE: Final = 1_000_000
"""Self-play game ``n`` of seed ``s`` is dealt from seed ``s * GAME_STRIDE + n``."""

BLOCK_WORK: Final = 25_000
"""The tile placements a block check may try in one position (opponent's replies included)
before it gives the position up."""


def self_play_sources(games: int, seed: int) -> list[Source]:
    return [("self", seed * GAME_STRIDE + n, None) for n in range(games)]


def record_sources(records: Iterable[dict[str, Any]]) -> list[Source]:
    return [("record", n, record) for n, record in enumerate(records)]


def played_game(source: Source) -> tuple[str, list[Game], Game]:
    """Play (or replay) a source's game to its end: its name, a copy of the position at the
    start of every turn, and the finished game."""
    kind, number, record = source
    if kind == "record":
        assert record is not None
        moves = list(record.get("moves", []))
        game = Game.from_record({**record, "moves": [], "result": None, "resignations": []})
        name = f"r{number}"

        def step() -> None:
            game.play(moves[game.ply])

        end = len(moves)
    else:
        seed, n = divmod(number, GAME_STRIDE)
        specs = AGENT_PAIRS[n % len(AGENT_PAIRS)]
        tiles = TILES_PER_PLAYER[n % len(TILES_PER_PLAYER)]
        game = Game.new(players=2, seed=number, tiles_per_player=tiles)
        agents = [make_agent(spec, seed=number * 10 + i) for i, spec in enumerate(specs)]
        name = f"s{seed}g{n}"

        def step() -> None:
            game.play(agents[game.to_move].choose(game.copy()))

        end = None
    starts: list[Game] = []
    while not game.is_over and (end is None or game.ply < end):
        if game.phase == "tile":
            starts.append(game.copy())
        step()
    return name, starts, game


def block_at(position: Game, finished: Game, puzzle_id: str, tally: Tally) -> Puzzle | None:
    """The block puzzle of ``position``, the last turn of the loser before the winner's
    winning turn in ``finished``, if exactly one build stops every winning turn of the
    opponent's (whatever tile they draw). The winner's winning build, and the settlement it
    joins, say which turns to try first, and the winner's winning turn which reply."""
    winner = finished.to_move if finished.result is None else finished.result.winners[0]
    final = finished.moves[-1]
    hexes = set(move_hexes(final))
    for settlement in position.settlements(winner):
        if any(h + d in settlement for h in hexes for d in DELTAS):
            hexes |= settlement
    near = hexes | {h + d for h in hexes for d in DELTAS}

    def likely(placement: Move, build: Move) -> bool:
        return bool(
            near.intersection(move_hexes(placement)) or near.intersection(move_hexes(build))
        )

    tally.block_screened += 1
    work = Work(BLOCK_WORK)
    try:
        first = (str(finished.moves[-2]), str(finished.moves[-1]))
        survey = survey_blocks(position, work, likely=likely, first=first)
    except OutOfWork:
        tally.block_given_up += 1
        return None
    if len(survey.blocks) != 1:
        return None
    ((build, tile),) = survey.blocks.items()
    record = position.to_record()
    prefix = {key: record[key] for key in ("format", "players", "options", "deck", "doubles")}
    prefix["moves"] = record["moves"]
    figures = {
        "placements": survey.placements,
        "turns": survey.turns,
        "refuted": survey.refuted,
        "work": BLOCK_WORK - work.left,
    }
    erupting = position.level(Move.parse(tile)[1]) >= 1
    return Puzzle(
        id=puzzle_id,
        record=prefix,
        mover=position.to_move,
        answer=(tile, build),
        themes=(BLOCK,),
        difficulty=3 if erupting or Move.parse(build).kind == EXPAND else 2,
        figures=figures,
    )


def screen(source: Source, blocks: bool) -> tuple[list[Puzzle], Tally]:
    """Play one source's game and screen it: every turn start for a win at once, and (with
    ``blocks``) the loser's last turn before a win for a block."""
    tally = Tally(games=1)
    started = time.process_time()
    name, starts, finished = played_game(source)
    kept: list[Puzzle] = []
    for position in starts:
        tally.positions += 1
        if candidate_kinds(position):
            tally.screened += 1
            puzzle, survey = puzzle_at(position, f"{name}p{position.ply}")
            tally.with_win += bool(survey.wins)
            if puzzle is not None:
                kept.append(puzzle)
    result = finished.result
    if (
        blocks
        and result is not None
        and result.reason == Reason.VICTORY
        and len(starts) >= 2
        and starts[-2].to_move != result.winners[0]
        and not survey_wins(starts[-2]).wins
    ):
        position = starts[-2]
        puzzle = block_at(position, finished, f"{name}p{position.ply}b", tally)
        if puzzle is not None:
            kept.append(puzzle)
            tally.kept_blocks += 1
    tally.kept = len(kept)
    tally.cpu = time.process_time() - started
    return kept, tally


def _screen_one(job: tuple[Source, bool]) -> tuple[list[Puzzle], Tally]:
    return screen(*job)


def make_puzzles(
    sources: Sequence[Source],
    block_every: int = 0,
    workers: int = 1,
    progress: Callable[[Tally], None] | None = None,
    every: int = 20,
) -> tuple[list[Puzzle], Tally]:
    """Screen every source's game (self-play game ``n`` also for a block when ``block_every``
    divides ``n``; every stored game when it is not 0) on ``workers`` processes, and keep
    the puzzles in the sources' order, reporting ``progress`` every ``every`` games. The
    puzzles do not depend on the number of workers."""
    jobs = [
        (source, block_every > 0 and (source[0] == "record" or source[1] % block_every == 0))
        for source in sources
    ]
    total = Tally()
    started = time.perf_counter()
    kept: list[Puzzle] = []
    pool = multiprocessing.get_context("spawn").Pool(workers) if workers > 1 else None
    try:
        results = pool.imap(_screen_one, jobs) if pool else map(_screen_one, jobs)
        for puzzles, tally in results:
            kept.extend(puzzles)
            total.add(tally)
            total.seconds = time.perf_counter() - started
            if progress is not None and total.games % every == 0:
                progress(total)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    total.seconds = time.perf_counter() - started
    return kept, total


def puzzle_set(puzzles: list[Puzzle], tally: Tally, command: str) -> PuzzleSet:
    """The data file's contents: the puzzles, the command that made them, the figures."""
    figures: dict[str, float] = {
        "games": tally.games,
        "turn_starts": tally.positions,
        "screened": tally.screened,
        "with_win": tally.with_win,
        "kept_wins": tally.kept - tally.kept_blocks,
        "block_screened": tally.block_screened,
        "block_given_up": tally.block_given_up,
        "kept_blocks": tally.kept_blocks,
        "kept": tally.kept,
        "seconds": round(tally.seconds, 1),
        "cpu_seconds": round(tally.cpu, 1),
    }
    return PuzzleSet(tuple(puzzles), command, figures)


def ai_verdict(puzzle: Puzzle, level: int) -> Verdict:
    """The verdict on the turn the AI plays at ``level`` in the puzzle's position (its hint:
    the plan of its whole turn)."""
    _, _, plan = hint_plan(puzzle.game(), level)
    moves = [str(move) for move in plan.moves]
    if len(moves) < 2:
        return Verdict(False, "the AI planned no build", puzzle.answer, tuple(moves))
    return check_attempt(puzzle, moves[0], moves[1])


@dataclass
class CheckTally:
    """What ``taluva puzzles check`` counts: puzzles replayed with their answer right, and
    for each AI level and theme, the puzzles it solves."""

    puzzles: int = 0
    answers_right: int = 0
    solved: dict[int, dict[str, int]] = field(default_factory=dict)
    themes: dict[str, int] = field(default_factory=dict)


def check_puzzles(
    puzzles: Sequence[Puzzle],
    levels: Sequence[int] = (),
    progress: Callable[[int], None] | None = None,
) -> CheckTally:
    """Replay every puzzle and play its answer (each must be right); with ``levels``, count
    the puzzles each AI level solves, by theme."""
    tally = CheckTally(solved={level: {} for level in levels})
    for n, puzzle in enumerate(puzzles, start=1):
        tally.puzzles += 1
        tally.answers_right += check_attempt(puzzle, *puzzle.answer).right
        for theme in puzzle.themes:
            tally.themes[theme] = tally.themes.get(theme, 0) + 1
        for level in levels:
            if ai_verdict(puzzle, level).right:
                for theme in ("all", *puzzle.themes):
                    counts = tally.solved[level]
                    counts[theme] = counts.get(theme, 0) + 1
        if progress is not None:
            progress(n)
    return tally
