"""Learn to play: the interactive first game of ``taluva.learn.tutorial`` for the web client.

The lesson is one fixed game, so the server keeps nothing per learner: ``GET /api/tutorial``
gives its words, its steps and the position where it starts (a state as a game's page reads
it), and the page sends each attempt to ``/api/tutorial/steps/{n}/answer``, which judges it in
the position of step ``n`` (the taught move, another legal move with the step's one-line
answer, or an illegal one with the engine's reason) and, for the taught move, gives the
states after it and after each opponent's reply. ``/explain`` says, as a game's socket does,
whether a move the learner points at is legal and what it would bury. The answers take a few
milliseconds and share the lesson's games, so they are made on the event loop, one at a time.
The lesson's words are in the request's language (``http.language``), each language's lesson
read once.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from taluva.engine.game import Game
from taluva.engine.wording import T
from taluva.lang import DEFAULT
from taluva.learn.tutorial import Step, Tutorial, load_tutorial
from taluva.server.errors import ApiError
from taluva.server.games.room import MOVE_TEXT_CHARS
from taluva.server.games.view import explain_view, position_view
from taluva.server.http.language import scope_language
from taluva.server.wire import spoken

router = APIRouter()

LESSON_ID = "tutorial"
"""The id the lesson's states carry where a game's carry the game's."""

MoveText = Annotated[str, Query(min_length=1, max_length=MOVE_TEXT_CHARS)]


@cache
def _lesson(lang: str = DEFAULT) -> tuple[Tutorial, tuple[Game, ...]]:
    """The tutorial in ``lang``, and a game at the start of each step (and the won game)."""
    tutorial = load_tutorial(lang)
    game = tutorial.start()
    positions = []
    for step in tutorial.steps:
        positions.append(game.copy())
        for move in (step.move, *step.replies):
            game.play(move)
    positions.append(game)
    return tutorial, tuple(positions)


def lesson_state(game: Game, tutorial: Tutorial) -> dict[str, Any]:
    """``game`` as a game's page reads a state: the learner's legal moves when they are to
    move, the opponents marked as following a script (``games.view.position_view``)."""
    return position_view(game, view_id=LESSON_ID, name=tutorial.title, player=tutorial.learner)


@cache
def tutorial_answer(lang: str = DEFAULT) -> bytes:
    """``GET /api/tutorial``'s answer in ``lang``, made once for each language."""
    tutorial, positions = _lesson(lang)
    data = tutorial.to_json()
    data["start"] = lesson_state(positions[0], tutorial)
    # written here, not by the route's JSON response: the words the state holds are said now
    return json.dumps(spoken(data, lang), separators=(",", ":")).encode("utf-8")


def _step(number: int, lang: str = DEFAULT) -> tuple[Tutorial, Step, Game]:
    tutorial, positions = _lesson(lang)
    if not 0 <= number < len(tutorial.steps):
        last = len(tutorial.steps) - 1
        message = T("the lesson's steps are numbered 0 to {last}", last=last)
        raise ApiError(404, "no-such-step", message)
    return tutorial, tutorial.steps[number], positions[number]


@router.get(
    "/api/tutorial",
    summary="Learn to play: the lesson's words and steps, and the position where it starts",
)
async def tutorial(request: Request) -> Response:
    return Response(
        tutorial_answer(scope_language(request)),
        media_type="application/json",
        headers={"cache-control": "no-cache", "vary": "Cookie, Accept-Language"},
    )


@router.get(
    "/api/tutorial/steps/{number}/answer",
    summary="Judge a move at step NUMBER; the taught move brings the states after it",
)
async def answer(number: int, move: MoveText, request: Request) -> dict[str, Any]:
    tutorial, step, game = _step(number, scope_language(request))
    judged = step.answer(game, move)
    reply: dict[str, Any] = {"step": number, "move": move, **judged.to_json()}
    if judged.verdict == "taught":
        trial = game.copy()
        states = []
        for played in (step.move, *step.replies):
            trial.play(played)
            states.append(lesson_state(trial, tutorial))
        reply["states"] = states
        reply["next"] = number + 1 if number + 1 < len(tutorial.steps) else None
    return reply


@router.get(
    "/api/tutorial/steps/{number}/explain",
    summary="Whether a move is legal at step NUMBER, why not, or what it would bury",
)
async def explain(number: int, move: MoveText, request: Request) -> dict[str, Any]:
    _tutorial, _step_of, game = _step(number, scope_language(request))
    return explain_view(game, move, game.explain(move))
