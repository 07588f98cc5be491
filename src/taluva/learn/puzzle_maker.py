"""Making puzzles (``taluva puzzles make``): self-play games of the AI, seeded so they replay
exactly, and stored game records, screened turn by turn with the exact checks of
``taluva.learn.puzzle_check``.

A win is kept when some turn wins at once, every winning turn plays the same build (so the
answer is unique: that build, after a placement that allows it), and winning turns are at
most ``MAX_WIN_SHARE`` of all turns (so most turns do not win and the puzzle asks something).
A block, a spoil or a save (``block_at``, ``spoil_at``, ``save_at``) must also pass the
*margin screen*: the seeded search of the top level (``MARGIN_ITERATIONS``) gives the solver a
winning chance after the answer at least ``MARGIN`` above that after the best of ``RIVALS``
other turns, since what the exact check proves (no win at once for the opponent, no hut
destroyable) need not make the turn the best one.
"""

from __future__ import annotations

import multiprocessing
import random
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from taluva.ai import make_agent
from taluva.ai.evaluation import DEFAULT_EVALUATOR
from taluva.ai.hint import hint_plan
from taluva.ai.review import position_chances
from taluva.ai.turns import move_hexes, plan_turns
from taluva.engine.game import Game
from taluva.engine.hexes import DELTAS
from taluva.engine.moves import EXPAND, HUT, TEMPLE, TOWER, Move
from taluva.engine.outcome import Reason
from taluva.engine.wording import T
from taluva.learn.puzzle_check import (
    BlockSurvey,
    OutOfWork,
    WinSurvey,
    Work,
    candidate_kinds,
    destroyable,
    saves_after,
    survey_blocks,
    survey_saves,
    survey_spoils,
    survey_wins,
    threat_after,
    winning_turn,
)
from taluva.learn.puzzles import (
    BLOCK,
    MARGIN_FIGURES,
    SAVE,
    SPOIL,
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
    block and given up (out of work), surveyed for a save, for a spoil (and given up),
    margin screens run, puzzles kept (and of them blocks, saves, spoils), wall and CPU
    seconds."""

    games: int = 0
    positions: int = 0
    screened: int = 0
    with_win: int = 0
    block_screened: int = 0
    block_given_up: int = 0
    kept_blocks: int = 0
    save_screened: int = 0
    kept_saves: int = 0
    spoil_screened: int = 0
    spoil_given_up: int = 0
    kept_spoils: int = 0
    margin_checked: int = 0
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
            "save_screened",
            "kept_saves",
            "spoil_screened",
            "spoil_given_up",
            "kept_spoils",
            "margin_checked",
            "kept",
            "cpu",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def line(self) -> str:
        return (
            f"games {self.games}, turn starts {self.positions}, screened {self.screened}, "
            f"with a win {self.with_win}, block checks {self.block_screened} "
            f"({self.block_given_up} given up), save checks {self.save_screened}, spoil checks "
            f"{self.spoil_screened} ({self.spoil_given_up} given up), margins "
            f"{self.margin_checked}, kept {self.kept} ({self.kept_blocks} blocks, "
            f"{self.kept_saves} saves, {self.kept_spoils} spoils), {self.seconds:.0f} s"
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


def self_play_sources(games: int, seed: int, first: int = 0) -> list[Source]:
    """Self-play games ``first`` to ``first + games - 1`` of a seed."""
    return [("self", seed * GAME_STRIDE + n, None) for n in range(first, first + games)]


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
    opponent's (whatever tile they draw) and it passes the margin screen against the turns
    shown to let the opponent win. The winner's winning build, and the settlement it joins,
    say which turns to try first, and the winner's winning turn which reply."""
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
    played = (str(finished.moves[position.ply]), str(finished.moves[position.ply + 1]))
    return _screened_block(position, survey, work, played, puzzle_id, tally)


MARGIN: Final = 0.2
"""A search-screened puzzle's answer must give the solver at least this much more winning
chance than the best rival turn (0.2: twenty points, a 60% chance against 40%)."""

MARGIN_ITERATIONS: Final = 1000
"""Search iterations behind each winning chance of the margin screen: five times a game
review's (``taluva.ai.review.ITERATIONS``), about half a second a turn here."""

RIVALS: Final = 3
"""The rival turns of the margin screen: the turn the game's player chose (when it is not an
answer), then the turns the heuristic likes best among the other non-answers, up to this
many in all."""

SAVE_SHARE: Final = 0.25
"""A save puzzle's saving turns are at most this share of its turns."""

RIVAL_WORK: Final = 2_000
"""The placements one rival's refutation may try (a turn that cannot be refuted within it is
not taken as a rival)."""


@dataclass(frozen=True, slots=True)
class Margin:
    """The margin screen of one position: the solver's winning chance after the answer and
    after the best rival turn (the search's, at ``MARGIN_ITERATIONS``), and how many rivals
    were searched."""

    answer: float
    rival: float
    rival_turn: tuple[str, str]
    rivals: int

    @property
    def value(self) -> float:
        return self.answer - self.rival

    def figures(self) -> dict[str, int]:
        """The margin in a puzzle's figures (``MARGIN_FIGURES``): chances in whole percent."""
        chances = (round(100 * self.answer), round(100 * self.rival), self.rivals)
        return dict(zip(MARGIN_FIGURES, chances, strict=True))


def chance_after(game: Game, turn: tuple[str, str], iterations: int = MARGIN_ITERATIONS) -> float:
    """The mover's winning chance after a whole turn: the seeded search of the position it
    leaves (as a game review values a move it did not see played), exact once the game is
    over. The game is left as it was."""
    mover = game.to_move
    after = game.copy()
    after.play(turn[0])
    after.play(turn[1])
    return position_chances(after, iterations)[mover]


def margin_of(
    game: Game,
    answer: tuple[str, str],
    is_rival: Callable[[tuple[str, str]], bool],
    played: tuple[str, str] | None = None,
) -> Margin | None:
    """The margin of ``answer`` over the best of the rival turns (``RIVALS`` of them, see
    there; ``is_rival`` says whether a turn is no answer), or None when no rival was found."""
    rivals: list[tuple[str, str]] = []
    if played is not None and is_rival(played):
        rivals.append(played)
    rng = random.Random(f"puzzle|{game.ply}")
    for plan in plan_turns(game, DEFAULT_EVALUATOR, rng):
        if len(rivals) >= RIVALS:
            break
        if len(plan.moves) != 2:
            continue
        turn = (str(plan.moves[0]), str(plan.moves[1]))
        if turn != answer and turn not in rivals and is_rival(turn):
            rivals.append(turn)
    if not rivals:
        return None
    chances = [chance_after(game, turn) for turn in rivals]
    best = max(range(len(rivals)), key=lambda i: chances[i])
    return Margin(chance_after(game, answer), chances[best], rivals[best], len(rivals))


def _after_turn(game: Game, turn: tuple[str, str], check: Callable[[Game], bool]) -> bool:
    """``check`` of the position after the turn's tile (build phase); the game is restored."""
    game.push(Move.parse(turn[0]))
    try:
        return check(game)
    finally:
        game.pop()


def _lets_win(turn: tuple[str, str]) -> Callable[[Game], bool]:
    """Whether, after the turn's tile, its build leaves the opponent a winning turn with some
    tile (False too when that cannot be shown within ``RIVAL_WORK``)."""

    def check(game: Game) -> bool:
        try:
            return threat_after(game, turn[1], Work(RIVAL_WORK)) is not None
        except OutOfWork:
            return False

    return check


def is_rival_of(
    position: Game, theme: str, answer: tuple[str, str]
) -> Callable[[tuple[str, str]], bool]:
    """Whether a turn is no answer to a ``theme`` puzzle of ``position``, as its margin screen
    asks (``margin_of``): a block's rival has another build and lets the opponent win at
    once with some tile, a spoil's lets them win, a save's leaves a hut destroyable."""
    if theme == SAVE:
        mover = position.to_move
        before = position.destroyed_huts(mover)

        def unsaved(turn: tuple[str, str]) -> bool:
            game = position.copy()
            game.play(turn[0])
            game.play(turn[1])
            return not saves_after(game, mover, before)

        return unsaved
    build = answer[1] if theme == BLOCK else None
    return lambda turn: turn[1] != build and _after_turn(position, turn, _lets_win(turn))


def _record_prefix(game: Game) -> dict[str, Any]:
    record = game.to_record()
    prefix = {key: record[key] for key in ("format", "players", "options", "deck", "doubles")}
    prefix["moves"] = record["moves"]
    return prefix


def save_at(
    position: Game, puzzle_id: str, played: tuple[str, str] | None, tally: Tally
) -> Puzzle | None:
    """The save puzzle of ``position``, if it is one: the mover has all pieces of one kind
    placed and no win at once, an eruption could destroy their huts, the turns after which
    none can share one placement or one build and are at most ``SAVE_SHARE`` of all turns,
    and the best of them (by the heuristic) passes the margin screen."""
    if not candidate_kinds(position) or not destroyable(position, position.to_move):
        return None
    if winning_turn(position) is not None:
        return None
    tally.save_screened += 1
    survey = survey_saves(position)
    if survey.key is None or len(survey.saves) > SAVE_SHARE * survey.turns:
        return None
    answer = _best_looking(position, set(survey.saves)) or survey.saves[0]
    tally.margin_checked += 1
    margin = margin_of(position, answer, is_rival_of(position, SAVE, answer), played)
    if margin is None or margin.value < MARGIN:
        return None
    share = survey.saving_placements / survey.placements
    figures = {
        "placements": survey.placements,
        "turns": survey.turns,
        "saving_turns": len(survey.saves),
        "threatened": len(survey.threatened),
        **margin.figures(),
    }
    return Puzzle(
        id=puzzle_id,
        record=_record_prefix(position),
        mover=position.to_move,
        answer=answer,
        themes=(SAVE,),
        difficulty=difficulty_of(share),
        figures=figures,
    )


def _best_looking(game: Game, turns: set[tuple[str, str]]) -> tuple[str, str] | None:
    """The first of ``turns`` among the heuristic's plans, best first (None if it has none)."""
    rng = random.Random(f"puzzle|{game.ply}")
    for plan in plan_turns(game, DEFAULT_EVALUATOR, rng):
        turn = tuple(str(move) for move in plan.moves)
        if turn in turns:
            return (turn[0], turn[1])
    return None


SPOIL_WORK: Final = 25_000
"""The tile placements a spoil check may try in one position, as ``BLOCK_WORK``."""


def threat_played(position: Game, played: tuple[str, str] | None) -> tuple[str, str] | None:
    """In a two-player position where the mover has no win at once and the opponent has one
    kind of piece all placed: the opponent's winning turn with the real next tile after the
    turn the game's player chose (``played``), if there is one (None otherwise)."""
    if position.player_count != 2 or played is None:
        return None
    supply = position.supply(1 - position.to_move)
    if sum(1 for name in ("huts", "temples", "towers") if supply[name] == 0) != 1:
        return None
    if winning_turn(position) is not None:
        return None
    after = position.copy()
    after.play(played[0])
    after.play(played[1])
    try:
        return None if after.is_over else winning_turn(after, Work(RIVAL_WORK))
    except OutOfWork:
        return None


def _screened_block(
    position: Game,
    survey: BlockSurvey,
    work: Work,
    played: tuple[str, str] | None,
    puzzle_id: str,
    tally: Tally,
) -> Puzzle | None:
    """The block puzzle of ``position`` whose one blocking build ``survey`` found, if it
    passes the margin screen against the turns shown to let the opponent win (``played``,
    the turn the game's player chose, among the rivals)."""
    ((build, tile),) = survey.blocks.items()
    tally.margin_checked += 1
    margin = margin_of(position, (tile, build), is_rival_of(position, BLOCK, (tile, build)), played)
    if margin is None or margin.value < MARGIN:
        return None
    figures = {
        "placements": survey.placements,
        "turns": survey.turns,
        "refuted": survey.refuted,
        "work": BLOCK_WORK - work.left,
        **margin.figures(),
    }
    erupting = position.level(Move.parse(tile)[1]) >= 1
    return Puzzle(
        id=puzzle_id,
        record=_record_prefix(position),
        mover=position.to_move,
        answer=(tile, build),
        themes=(BLOCK,),
        difficulty=3 if erupting or Move.parse(build).kind == EXPAND else 2,
        figures=figures,
    )


def block_threat_at(
    position: Game, puzzle_id: str, played: tuple[str, str] | None, tally: Tally
) -> Puzzle | None:
    """The block puzzle of any turn start where the opponent would win at once with the real
    next tile after the turn the game's player chose (``threat_played``): exactly one build
    stops every winning turn of theirs, whatever tile they draw, and it passes the margin
    screen against the turns shown to let them win."""
    threat = threat_played(position, played)
    if threat is None:
        return None
    tally.block_screened += 1
    work = Work(BLOCK_WORK)
    try:
        survey = survey_blocks(position, work, first=threat)
    except OutOfWork:
        tally.block_given_up += 1
        return None
    if len(survey.blocks) != 1:
        return None
    return _screened_block(position, survey, work, played, puzzle_id, tally)


def spoil_at(
    position: Game, puzzle_id: str, played: tuple[str, str] | None, tally: Tally
) -> Puzzle | None:
    """The spoil puzzle of ``position``, if it is one: the opponent has all pieces of one kind
    placed, wins at once next turn with the real tile after the turn the game's player
    chose, the mover has no win at once, and every turn that stops every winning turn of the
    opponent's (whatever tile they draw) erupts on their huts; the answer, the first such
    turn, must pass the margin screen."""
    mover = position.to_move
    if not destroyable(position, 1 - mover):
        return None
    threat = threat_played(position, played)
    if threat is None:
        return None
    tally.spoil_screened += 1
    work = Work(SPOIL_WORK)
    try:
        survey = survey_spoils(position, work, first=threat)
    except OutOfWork:
        tally.spoil_given_up += 1
        return None
    if not survey.complete or not survey.blocks:
        return None
    answer = next(iter(survey.blocks.values()))
    tally.margin_checked += 1
    margin = margin_of(position, answer, is_rival_of(position, SPOIL, answer), played)
    if margin is None or margin.value < MARGIN:
        return None
    figures = {
        "placements": survey.placements,
        "turns": survey.turns,
        "refuted": survey.refuted,
        "spoiling_groups": len(survey.blocks),
        "work": SPOIL_WORK - work.left,
        **margin.figures(),
    }
    eruptions = sum(1 for group in survey.blocks if group)
    return Puzzle(
        id=puzzle_id,
        record=_record_prefix(position),
        mover=mover,
        answer=answer,
        themes=(SPOIL,),
        difficulty=2 if eruptions > 1 else 3,
        figures=figures,
    )


SCREENS: Final[dict[str, str]] = {
    "wins": "every turn start where the mover has one kind of piece all placed: a win at once",
    "save": "every turn start where the mover has one kind all placed: a save",
    "spoil": "every turn start where the opponent has one kind all placed: a spoil",
    "block": "every turn start where the opponent would win after the turn played: a block",
}
"""What ``screen`` may look for at every turn start (``--block-every`` looks for a block
once a game, at the loser's last turn)."""


def screen(
    source: Source, blocks: bool, kinds: tuple[str, ...] = ("wins",)
) -> tuple[list[Puzzle], Tally]:
    """Play one source's game and screen it: every turn start for the ``kinds`` of
    ``SCREENS``, and (with ``blocks``) the loser's last turn before a win for a block."""
    tally = Tally(games=1)
    started = time.process_time()
    name, starts, finished = played_game(source)
    kept: list[Puzzle] = []
    moves = [str(move) for move in finished.moves]
    for position in starts:
        tally.positions += 1
        ply = position.ply
        played = (moves[ply], moves[ply + 1]) if ply + 1 < len(moves) else None
        if "wins" in kinds and candidate_kinds(position):
            tally.screened += 1
            puzzle, survey = puzzle_at(position, f"{name}p{ply}")
            tally.with_win += bool(survey.wins)
            if puzzle is not None:
                kept.append(puzzle)
        if "save" in kinds:
            puzzle = save_at(position, f"{name}p{ply}s", played, tally)
            if puzzle is not None:
                kept.append(puzzle)
                tally.kept_saves += 1
        if "spoil" in kinds:
            puzzle = spoil_at(position, f"{name}p{ply}x", played, tally)
            if puzzle is not None:
                kept.append(puzzle)
                tally.kept_spoils += 1
        if "block" in kinds:
            puzzle = block_threat_at(position, f"{name}p{ply}b", played, tally)
            if puzzle is not None:
                kept.append(puzzle)
                tally.kept_blocks += 1
    result = finished.result
    if (
        blocks
        and "block" not in kinds  # the loser's last turn was screened with the others
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


def _screen_one(job: tuple[Source, bool, tuple[str, ...]]) -> tuple[list[Puzzle], Tally]:
    return screen(*job)


def make_puzzles(
    sources: Sequence[Source],
    block_every: int = 0,
    workers: int = 1,
    progress: Callable[[Tally], None] | None = None,
    every: int = 20,
    kinds: tuple[str, ...] = ("wins",),
) -> tuple[list[Puzzle], Tally]:
    """Screen every source's game for the ``kinds`` of ``SCREENS`` (self-play game ``n`` also
    for a block when ``block_every`` divides ``n``; every stored game when it is not 0) on
    ``workers`` processes, and keep the puzzles in the sources' order, reporting
    ``progress`` every ``every`` games. The puzzles do not depend on the number of
    workers."""
    jobs = [
        (
            source,
            block_every > 0 and (source[0] == "record" or source[1] % block_every == 0),
            kinds,
        )
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


def run_figures(tally: Tally) -> dict[str, float]:
    """A run's figures as the data file holds them."""
    return {
        "games": tally.games,
        "turn_starts": tally.positions,
        "screened": tally.screened,
        "with_win": tally.with_win,
        "kept_wins": tally.kept - tally.kept_blocks - tally.kept_saves - tally.kept_spoils,
        "block_screened": tally.block_screened,
        "block_given_up": tally.block_given_up,
        "kept_blocks": tally.kept_blocks,
        "save_screened": tally.save_screened,
        "kept_saves": tally.kept_saves,
        "spoil_screened": tally.spoil_screened,
        "spoil_given_up": tally.spoil_given_up,
        "kept_spoils": tally.kept_spoils,
        "margin_checked": tally.margin_checked,
        "kept": tally.kept,
        "seconds": round(tally.seconds, 1),
        "cpu_seconds": round(tally.cpu, 1),
    }


def puzzle_set(puzzles: list[Puzzle], tally: Tally, command: str) -> PuzzleSet:
    """The data file's contents: the puzzles, the command that made them, the figures."""
    return PuzzleSet(tuple(puzzles), command, run_figures(tally))


def added_to(base: PuzzleSet, puzzles: list[Puzzle], tally: Tally, command: str) -> PuzzleSet:
    """``base`` with a later run's puzzles added after its own (those whose id it already
    holds are left out, so the puzzles it has keep their ids), and the run's command and
    figures recorded under ``added``."""
    known = base.ids
    new = tuple(puzzle for puzzle in puzzles if puzzle.id not in known)
    run = {"made_by": command, "figures": run_figures(tally), "new": len(new)}
    return replace(base, puzzles=base.puzzles + new, added=(*base.added, run))


SCREENED_THEMES: Final = (BLOCK, SPOIL, SAVE)
"""The themes whose answer does not end the game, so it must pass the margin screen."""

_SELF_PLAY_ID: Final = re.compile(r"s(\d+)g(\d+)p(\d+)[a-z]?")


def played_turn(puzzle: Puzzle) -> tuple[str, str] | None:
    """The turn the game's player chose at a self-play puzzle's position (its id names the
    game: seed, number, ply), by playing the game again; None for a stored game's puzzle."""
    match = _SELF_PLAY_ID.fullmatch(puzzle.id)
    if match is None:
        return None
    seed, number, ply = (int(group) for group in match.groups())
    _, _, finished = played_game(("self", seed * GAME_STRIDE + number, None))
    moves = [str(move) for move in finished.moves]
    if moves[:ply] != list(puzzle.record["moves"]) or ply + 1 >= len(moves):
        return None
    return (moves[ply], moves[ply + 1])


def margin_again(puzzle: Puzzle) -> Margin | None:
    """The margin screen of a block, spoil or save puzzle, run again as the maker runs it
    (the turn the game's player chose among the rivals, for a self-play puzzle); None for a
    puzzle whose answer wins at once, or when no rival turn was found."""
    theme = next((theme for theme in SCREENED_THEMES if theme in puzzle.themes), None)
    if theme is None:
        return None
    position = puzzle.game()
    return margin_of(
        position, puzzle.answer, is_rival_of(position, theme, puzzle.answer), played_turn(puzzle)
    )


def rescreened(
    base: PuzzleSet, command: str, progress: Callable[[Puzzle, Margin | None], None] | None = None
) -> PuzzleSet:
    """``base`` after the margin screen of every block, spoil and save puzzle that has not
    passed it (no chances in its figures: made before the screen): those that pass now get
    the screen's figures, the others are withdrawn with them. The run is recorded under
    ``added`` with the ids it withdrew."""
    started, cpu = time.perf_counter(), time.process_time()
    kept: list[Puzzle] = []
    withdrawn: list[Puzzle] = []
    screened = 0
    for puzzle in base.puzzles:
        due = MARGIN_FIGURES[0] not in puzzle.figures and any(
            theme in puzzle.themes for theme in SCREENED_THEMES
        )
        if not due:
            kept.append(puzzle)
            continue
        screened += 1
        margin = margin_again(puzzle)
        if progress is not None:
            progress(puzzle, margin)
        figures = puzzle.figures if margin is None else {**puzzle.figures, **margin.figures()}
        screened_puzzle = replace(puzzle, figures=figures)
        passed = margin is not None and margin.value >= MARGIN
        (kept if passed else withdrawn).append(screened_puzzle)
    run = {
        "made_by": command,
        "figures": {
            "rescreened": screened,
            "withdrawn": len(withdrawn),
            "seconds": round(time.perf_counter() - started, 1),
            "cpu_seconds": round(time.process_time() - cpu, 1),
        },
        "new": 0,
        "withdrawn": [puzzle.id for puzzle in withdrawn],
    }
    return replace(
        base,
        puzzles=tuple(kept),
        added=(*base.added, run),
        withdrawn=(*base.withdrawn, *withdrawn),
    )


def ai_verdict(puzzle: Puzzle, level: int) -> Verdict:
    """The verdict on the turn the AI plays at ``level`` in the puzzle's position (its hint:
    the plan of its whole turn)."""
    _, _, plan = hint_plan(puzzle.game(), level)
    moves = [str(move) for move in plan.moves]
    if len(moves) < 2:
        return Verdict(False, T("the AI planned no build"), puzzle.answer, tuple(moves))
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
