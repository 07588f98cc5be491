"""Puzzles for the web client (``taluva.learn.puzzles``): the next puzzle near the player's
puzzle rating, a puzzle's position (before and after the solver's tile) as a game's page reads
a state, and the verdict on an attempt, which moves the puzzle ratings of a signed-in player
and of the puzzle (``players.puzzle_ratings``). Guests solve unrated; their streak lives in
the browser.

Checking an attempt replays the puzzle's record and plays the turn (a few milliseconds); for a
block puzzle it also tries the opponent's every reply with every unseen tile (about a third of
a second), so attempts are judged in a worker thread; the ratings go through the database
thread.
"""

from __future__ import annotations

import asyncio
import random
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from pydantic import Field

from taluva.engine.errors import IllegalMove
from taluva.engine.game import Game
from taluva.engine.moves import TILE, Move
from taluva.engine.wording import T, Text
from taluva.learn.puzzles import (
    DIFFICULTIES,
    THEMES,
    Puzzle,
    PuzzleError,
    PuzzleWithdrawn,
    check_attempt,
    load_puzzles,
    next_puzzle,
)
from taluva.server.errors import ApiError
from taluva.server.games.room import MOVE_TEXT_CHARS
from taluva.server.games.view import explain_view, position_view
from taluva.server.http.deps import LIMITED, SiteDep
from taluva.server.http.messages import Strict
from taluva.server.players.accounts import account_of
from taluva.server.players.puzzle_ratings import (
    NEW_STANDING,
    attempted,
    puzzle_ratings,
    rate_attempt,
    standing_of,
)

router = APIRouter()

PuzzleId = Annotated[str, Path(min_length=1, max_length=32)]
MoveText = Annotated[str, Query(min_length=1, max_length=MOVE_TEXT_CHARS)]


class Attempt(Strict):
    """An attempt: the tile placement, then the build, as move texts."""

    tile: str = Field(min_length=1, max_length=MOVE_TEXT_CHARS)
    build: str = Field(min_length=1, max_length=MOVE_TEXT_CHARS)


def _puzzle(puzzle_id: str) -> Puzzle:
    try:
        return load_puzzles().by_id(puzzle_id)
    except PuzzleWithdrawn as error:
        raise ApiError(410, "puzzle-withdrawn", _words(error)) from None
    except PuzzleError as error:
        raise ApiError(404, "no-such-puzzle", _words(error)) from None


def puzzle_state(game: Game, puzzle: Puzzle) -> dict[str, Any]:
    """``game`` (the puzzle's position, or a turn in it) as a game's page reads a state: the
    solver's legal moves while the turn is theirs (``games.view.position_view``)."""
    return position_view(game, view_id=f"puzzle-{puzzle.id}", name=T("Puzzle"), player=puzzle.mover)


def _after_tile(puzzle: Puzzle, tile: str | None) -> Game:
    """The puzzle's position, after the solver's tile placement when one is given."""
    game = puzzle.game()
    if tile is None:
        return game
    try:
        move = Move.parse(tile)
    except ValueError as error:
        why = error.text if isinstance(error, IllegalMove) else str(error)
        message = T("{move} is not a move: {reason}", move=repr(tile), reason=why)
        raise ApiError(422, "illegal", message) from None
    reason = T("the turn starts with the tile") if move.kind != TILE else game.explain(move)
    if reason is not None:
        raise ApiError(422, "illegal", T("{move}: {reason}", move=tile, reason=reason))
    game.play(move)
    return game


def _words(error: PuzzleError) -> str:
    """A puzzle error's message as it was made (a ``Text``, said in the reader's language)."""
    message = error.args[0] if error.args else ""
    return message if isinstance(message, Text) else str(error)


def _themes() -> list[dict[str, Any]]:
    counts = load_puzzles().theme_counts()
    return [{"id": t, "words": w, "count": counts[t]} for t, w in THEMES.items()]


@router.get(
    "/api/puzzles/next",
    summary="The next puzzle: near the player's puzzle rating, of a theme if one is chosen",
)
async def next_one(
    request: Request,
    site: SiteDep,
    theme: Annotated[str | None, Query(max_length=32)] = None,
    after: Annotated[str | None, Query(max_length=32)] = None,
) -> dict[str, Any]:
    puzzles = load_puzzles()
    try:
        pool = puzzles.with_theme(theme or None)
    except PuzzleError as error:
        raise ApiError(422, "no-such-theme", _words(error)) from None
    account = await account_of(request)
    engine = site.service.store.engine
    standing = NEW_STANDING
    skip = {after} if after else set()
    known: dict[str, float] = {}
    if account is not None:
        standing = await site.service.db(standing_of, engine, account.id)
        skip |= await site.service.db(attempted, engine, account.id)
        known = dict(await site.service.db(puzzle_ratings, engine))
        chosen = next_puzzle(pool, standing.rating, known, skip)
    else:
        rest = [p for p in pool if p.id not in skip] or list(pool)
        chosen = random.choice(rest)
    data = chosen.public_json()
    data["rating"] = int(known.get(chosen.id, chosen.start_rating))
    return {
        "puzzle": data,
        "state": puzzle_state(chosen.game(), chosen),
        "player": None if account is None else standing.to_json(),
        "themes": _themes(),
        "difficulties": {str(k): name for k, (name, _) in DIFFICULTIES.items()},
    }


@router.get(
    "/api/puzzles/{puzzle_id}/state",
    summary="A puzzle's position, or the position after the solver's tile placement",
)
async def state(puzzle_id: PuzzleId, tile: MoveText | None = None) -> dict[str, Any]:
    puzzle = _puzzle(puzzle_id)
    return {"state": puzzle_state(_after_tile(puzzle, tile), puzzle)}


@router.get(
    "/api/puzzles/{puzzle_id}/explain",
    summary="Whether a move is legal in the puzzle (after the tile if given), or why not",
)
async def explain(
    puzzle_id: PuzzleId, move: MoveText, tile: MoveText | None = None
) -> dict[str, Any]:
    game = _after_tile(_puzzle(puzzle_id), tile)
    return explain_view(game, move, game.explain(move))


@router.post(
    "/api/puzzles/{puzzle_id}/attempt",
    summary="Judge an attempt (a tile, then a build): right or wrong, the answer, the rating",
    dependencies=LIMITED,
)
async def attempt(
    puzzle_id: PuzzleId, body: Attempt, request: Request, site: SiteDep
) -> dict[str, Any]:
    puzzle = _puzzle(puzzle_id)
    try:
        verdict = await asyncio.to_thread(check_attempt, puzzle, body.tile, body.build)
    except PuzzleError as error:
        raise ApiError(422, "illegal", _words(error)) from None
    answer_game = puzzle.game()
    answer_game.play(puzzle.answer[0])
    answer_game.play(puzzle.answer[1])
    reply: dict[str, Any] = {
        **verdict.to_json(),
        "answer_state": puzzle_state(answer_game, puzzle),
        "rating": None,
    }
    account = await account_of(request)
    if account is not None:
        rated = await site.service.db(
            rate_attempt,
            site.service.store.engine,
            account.id,
            puzzle.id,
            puzzle.start_rating,
            verdict.right,
        )
        reply["rating"] = rated.to_json()
    return reply
