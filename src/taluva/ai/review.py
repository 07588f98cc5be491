"""Game review: each move's cost in winning chance, with the better plan where it lost much.

Every position of the game is searched once (a seeded tree search of a fixed number of
iterations, so a review is repeatable, valuing positions with the top level's evaluation,
every player alike). A move's *before* is the mover's winning chance with the best plan the
search found; its *after* is the chance the same search gives the move played (averaged
over the tiles still hidden, so the next player's luck in the draw is not charged to the
move) when it visited that move often enough, else the chance the search of the next
position gives the mover; the move the search itself would play loses nothing. The winning
chance is the expected result: with two players the chance to win, with more the share of
opponents finished ahead of.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from taluva.ai.evaluation import DEFAULT_EVALUATOR, outcome_results
from taluva.ai.levels import LEVELS, TOP_LEVEL
from taluva.ai.mcts import Search, SearchResult
from taluva.engine.game import Game
from taluva.engine.moves import Move
from taluva.engine.wording import T, Text

MISTAKE: Final = 0.10
"""A move that costs the mover at least this much winning chance is a mistake."""
BLUNDER: Final = 0.25
"""A move that costs at least this much is a blunder."""
ITERATIONS: Final = 200
"""Search iterations per position by default."""
LIVE_ITERATIONS: Final = 60
"""Search iterations of a live win-chance bar (``position_chances`` during play): a few tenths
of a second a position, so the bar keeps up with the game."""
SEED: Final = 0
TRUSTED_VISITS: Final = 10
"""Visits a plan needs before the search's own value of it is used as a move's *after*: below,
the value is mostly the heuristic's first guess, and the next position is searched instead."""
SPARKS: Final = "▁▂▃▄▅▆▇█"


@dataclass(frozen=True, slots=True)
class MoveReview:
    """One move: who played it, the mover's winning chance before and after, and, for a
    mistake or a blunder, the plan the search preferred."""

    ply: int
    player: int
    move: str
    before: float
    after: float
    mark: str | None  # None, "mistake" or "blunder"
    best: tuple[str, ...]  # the preferred plan's moves when marked, else ()

    @property
    def loss(self) -> float:
        """Winning chance the move gave away (0 when it lost none)."""
        return max(0.0, self.before - self.after)

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "player": self.player,
            "move": self.move,
            "before": round(self.before, 4),
            "after": round(self.after, 4),
            "loss": round(self.loss, 4),
            "mark": self.mark,
            "best": list(self.best) or None,
        }


@dataclass(frozen=True, slots=True)
class Review:
    """A whole review: the players, the moves reviewed and, for every position from the
    first reviewed to the one after the last, each player's winning chance."""

    players: tuple[str, ...]
    moves: list[MoveReview]
    chances: list[tuple[float, ...]]
    iterations: int
    mistake: float
    blunder: float
    result: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """The document ``taluva review --json`` prints (docs/ai.md, "Game review")."""
        return {
            "players": list(self.players),
            "iterations": self.iterations,
            "thresholds": {"mistake": self.mistake, "blunder": self.blunder},
            "moves": [move.to_json() for move in self.moves],
            "chances": [[round(c, 4) for c in row] for row in self.chances],
            "result": self.result,
        }

    def lines(self) -> list[str]:
        """The review as text: one line a move (marked ones with the preferred plan), then a
        chart of each player's winning chance over the moves reviewed."""
        out: list[str] = []
        for m in self.moves:
            name = self.players[m.player]
            line = f"{m.ply + 1:>4}. {name:<12} {m.move:<24} {m.before:4.0%} -> {m.after:4.0%}"
            if m.mark:
                out.append(_marked(line, m))
            else:
                out.append(line)
        marked = [m for m in self.moves if m.mark]
        counts = {
            name: sum(1 for m in marked if m.player == p) for p, name in enumerate(self.players)
        }
        out.append("")
        out.append(
            T(
                "mistakes and blunders: {counts}",
                counts=", ".join(f"{name} {count}" for name, count in counts.items()),
            )
        )
        out.append(T("winning chance, one mark a position (low ▁ 0%, high █ 100%):"))
        width = max(len(name) for name in self.players)
        for p, name in enumerate(self.players):
            out.append(f"  {name:<{width}} {sparkline([row[p] for row in self.chances])}")
        return out


def _marked(line: str, m: MoveReview) -> Text:
    """A move's line with its mark, what it lost and the plan the search preferred."""
    loss = f"-{m.loss:.0%}"
    plan = " + ".join(m.best)
    if m.mark == "blunder":
        return T("{line}  BLUNDER ({loss}); better: {plan}", line=line, loss=loss, plan=plan)
    return T("{line}  MISTAKE ({loss}); better: {plan}", line=line, loss=loss, plan=plan)


def sparkline(values: list[float]) -> str:
    """Chances in [0, 1] as a row of block characters, one for each."""
    top = len(SPARKS) - 1
    return "".join(SPARKS[min(top, max(0, round(v * top)))] for v in values)


def review(
    game: Game,
    iterations: int = ITERATIONS,
    mistake: float = MISTAKE,
    blunder: float = BLUNDER,
    first: int = 0,
    last: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Review the moves ``first`` to ``last`` (0-based plies, ``last`` excluded; all by
    default) of a game replayed from its record; ``progress(done, total)`` is called after
    each position searched."""
    if not 0 < mistake <= blunder <= 1:
        raise ValueError(
            f"thresholds mistake={mistake:g}, blunder={blunder:g}: need 0 < mistake <= blunder <= 1"
        )
    if iterations < 1:
        raise ValueError(f"iterations={iterations}: search at least one")
    moves = game.moves
    end = len(moves) if last is None else last
    if not 0 <= first <= end <= len(moves):
        raise ValueError(
            f"plies {first} to {end}: the game has {len(moves)} moves (plies 0 to {len(moves)})"
        )
    replay = _back_to(game, first)
    searched: list[SearchResult | None] = []
    chances: list[tuple[float, ...]] = []
    total = end - first + 1
    for ply in range(first, end + 1):
        result = _search(replay, iterations)
        searched.append(result)
        chances.append(_chances(replay, result))
        if progress is not None:
            progress(ply - first + 1, total)
        if ply < end:
            _forward(replay, moves[ply], game)
    reviewed = []
    replay = _back_to(game, first)
    for index, ply in enumerate(range(first, end)):
        mover = replay.to_move
        found = searched[index]
        assert found is not None
        move = moves[ply]
        before = found.value
        if found.plan.moves[0] == move:
            after = before  # the move the search itself would play gives nothing away
        else:
            valued = _value_of(found, str(move), mover)
            after = chances[index + 1][mover] if valued is None else valued
        loss = before - after
        mark = "blunder" if loss >= blunder else "mistake" if loss >= mistake else None
        best = tuple(str(m) for m in found.plan.moves) if mark else ()
        reviewed.append(MoveReview(ply, mover, str(move), before, after, mark, best))
        _forward(replay, move, game)
    record = game.to_record()
    return Review(
        tuple(game.players), reviewed, chances, iterations, mistake, blunder, record["result"]
    )


def position_chances(game: Game, iterations: int = LIVE_ITERATIONS) -> tuple[float, ...]:
    """Every player's winning chance in ``game``'s position, as a review gives it for each
    position (the same seeded search): the win-chance bar of the terminal and the web game."""
    if iterations < 1:
        raise ValueError(f"iterations={iterations}: search at least one")
    return _chances(game, _search(game, iterations))


def _back_to(game: Game, ply: int) -> Game:
    """A copy of ``game`` as it stood after ``ply`` moves, resignations of that ply included."""
    replay = game.copy()
    while replay.ply > ply:
        replay.pop()
    _leave_as_recorded(replay, game)
    return replay


def _forward(replay: Game, move: Move, game: Game) -> None:
    """Play ``move`` in the replay, then take out whoever left ``game`` at the new ply."""
    replay.push(move)
    _leave_as_recorded(replay, game)


def _leave_as_recorded(replay: Game, game: Game) -> None:
    """Take out of ``replay`` the players who left ``game`` (resigned or ran out of time) at
    the replay's ply: leaving is not a move, so undoing and replaying moves loses it."""
    for leaving in game.resignations:
        if leaving.ply == replay.ply and leaving.player not in replay.eliminated:
            replay.resign(leaving.player, leaving.reason)


def _search(game: Game, iterations: int) -> SearchResult | None:
    if game.result is not None:
        return None
    rng = random.Random(f"review|{SEED}|{game.ply}|{game.tile}")
    return Search(game.copy(), rng, LEVELS[TOP_LEVEL].evaluator(own=False)).run(iterations, None)


def _chances(game: Game, found: SearchResult | None) -> tuple[float, ...]:
    """Every player's winning chance in a position: exact once the game is over."""
    if game.result is not None or found is None:
        outcome = game.result
        if outcome is None:
            return tuple(DEFAULT_EVALUATOR.results(game))
        return tuple(outcome_results(outcome, game.player_count))
    return found.results


def _value_of(found: SearchResult, move: str, mover: int) -> float | None:
    """The mover's chance after ``move`` by the search's own statistics: the best of its
    plans that begin with the move, or None if it looked at none."""
    values = [
        s.results[mover]
        for s in found.stats
        if s.visits >= TRUSTED_VISITS and str(s.plan.moves[0]) == move
    ]
    return max(values) if values else None
