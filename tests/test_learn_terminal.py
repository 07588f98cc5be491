"""``taluva learn`` in the terminal: the full-screen lesson driven by Textual's pilot as a
newcomer would (keys and the step's own help, a wrong move answered and refused), ending in
a won game and a game against the computer; ``--plain`` through its input."""

from __future__ import annotations

import asyncio
import functools
import io
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from test_install import NO_EXTRAS, taluva
from textual.pilot import Pilot
from textual.widgets import Static

from taluva.cli import main
from taluva.engine.hexes import coords
from taluva.engine.moves import TILE, Move
from taluva.learn.tutorial import Tutorial, load_tutorial
from taluva.render.position import move_hexes
from taluva.terminal.lesson import FIRST_LEVEL, LessonSession, run_plain_lesson
from taluva.terminal.lesson_app import EndScreen, IntroScreen, LessonApp
from taluva.terminal.screens import ChoiceScreen


@pytest.fixture(scope="module")
def tutorial() -> Tutorial:
    return load_tutorial()


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose ``sitecustomize`` makes every extra unimportable (as test_install's)."""
    folder = tmp_path_factory.mktemp("bare")
    (folder / "sitecustomize.py").write_text(NO_EXTRAS, encoding="utf-8")
    return folder


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test in its own event loop (no pytest plugin needed)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def settle(app: LessonApp, pilot: Pilot[None]) -> None:
    """Wait until the lesson waits for the learner (the opponents' replies are done)."""
    await asyncio.wait_for(app.settled.wait(), timeout=60)
    await pilot.pause()


async def walk_to(app: LessonApp, pilot: Pilot[None], target: int) -> None:
    """Move the cursor to ``target`` with the arrow keys, row first."""
    for _ in range(40):
        (q, r), (tq, tr) = coords(app.cursor), coords(target)
        if (q, r) == (tq, tr):
            return
        if r != tr:
            await pilot.press("down" if tr > r else "up")
        else:
            await pilot.press("right" if tq > q else "left")
    raise AssertionError(f"the arrows did not reach {coords(target)} from {coords(app.cursor)}")


async def choose_build(app: LessonApp, pilot: Pilot[None], hex_: int, move: Move) -> None:
    """Open the build menu of ``hex_`` with Enter and pick ``move`` in it."""
    await walk_to(app, pilot, hex_)
    await pilot.press("enter")
    assert isinstance(app.screen, ChoiceScreen)
    index = [key for key, _ in app.screen.choices].index(str(move))
    await pilot.press(*["down"] * index, "enter")
    await pilot.pause()


def lesson_text(app: LessonApp) -> str:
    return str(app.game_screen.query_one("#lesson", Static).render())


@run_async
async def test_a_newcomer_follows_the_lesson_full_screen_to_a_won_game_then_plays_the_computer(
    tutorial: Tutorial,
) -> None:
    app = LessonApp(LessonSession(tutorial), ai_delay=0)
    async with app.run_test(size=(120, 44)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, IntroScreen)
        shown = str(app.screen.query_one("#intro-text", Static).render())
        assert tutorial.intro[0][:60] in shown
        await pilot.press("enter")
        await settle(app, pilot)
        for step in tutorial.steps:
            assert app.game.ply == step.ply
            assert step.say in lesson_text(app)
            assert app.overlay().highlight == frozenset(step.highlight)
            if step.number == 0:  # a legal tile elsewhere, turned wrong, illegal: refused
                far = set(move_hexes(step.move))
                other = next(m for m in app.game.legal_moves() if not far & set(move_hexes(m)))
                app.cursor = other.hex
                while app.orientation != other.orientation:
                    await pilot.press("r")
                await pilot.press("enter")
                assert app.game.ply == step.ply and app.message == step.other
                legal = app.game.legal_moves()
                turned = next(m for m in legal if m.hex == step.move.hex and m != step.move)
                app.cursor = turned.hex
                while app.orientation != turned.orientation:
                    await pilot.press("r")
                await pilot.press("enter")
                assert app.game.ply == step.ply and app.message.startswith("Right volcano")
                await pilot.press("colon", *["space" if c == " " else c for c in "tile 0,0 0"])
                await pilot.press("enter")
                assert app.message == f"Not allowed: {app.game.explain('tile 0,0 0')}."
            if step.id == "temple":  # the build menu offers another legal build: refused
                other = next(m for m in app.game.legal_moves() if m.kind == "expand")
                await choose_build(app, pilot, other.hexes[0], other)
                assert app.game.ply == step.ply and app.message == step.other
            if step.move.kind == TILE and step.number % 2 == 0:
                await walk_to(app, pilot, step.move.hex)  # the keys a person uses
                while app.orientation != step.move.orientation:
                    await pilot.press("r")
                await pilot.press("enter")
            elif step.move.kind == TILE:
                await pilot.press("h")  # the step shows its move; Enter plays it
                assert app.ghost_move() == step.move
                await pilot.press("enter")
            else:
                await choose_build(app, pilot, step.highlight[0], step.move)
            assert app.game.moves[step.ply] == step.move
            await settle(app, pilot)
            if step.replies and not app.game.is_over:
                assert " ".join(step.then)[:60] in lesson_text(app)
        assert app.game.result is not None and app.game.result.winners == (tutorial.learner,)
        assert app.game.eliminated == (2,)
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        shown = str(app.screen.query_one("#end-text", Static).render())
        assert app.session.result_lines()[0] in shown and tutorial.ending[0][:50] in shown
        assert f"level {FIRST_LEVEL}" in shown
        await pilot.press("p")
    assert app.choice == "play"


@run_async
async def test_the_lesson_has_no_undo_and_shows_the_move_only_on_the_learners_turn(
    tutorial: Tutorial,
) -> None:
    app = LessonApp(LessonSession(tutorial), ai_delay=0)
    async with app.run_test(size=(120, 44)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("u")
        assert "no undo" in app.message and app.game.ply == tutorial.steps[0].ply


def test_plain_lesson_answers_wrong_moves_and_ends_with_the_win(tutorial: Tutorial) -> None:
    first = tutorial.steps[0]
    game = tutorial.start()
    illegal = "tile 0,0 0"
    lines = ["help", illegal, "tile 5,-5 0", "hint", *(str(step.move) for step in tutorial.steps)]
    out = io.StringIO()
    assert run_plain_lesson(LessonSession(tutorial), io.StringIO("\n".join(lines) + "\n"), out) == 0
    text = out.getvalue()
    assert f"Not allowed: {game.explain(illegal)}." in text
    assert f"This step's move: {first.move}" in text
    for step in tutorial.steps:
        assert f"Step {step.number + 1} of {len(tutorial.steps)}: {step.say}" in text
    assert "Ben: tile 6,1 0 and cannot build: out of the game" in text
    session = LessonSession(tutorial)
    for step in tutorial.steps:
        session.game.play(step.move)
        for reply in step.replies:
            session.game.play(reply)
    for line in session.result_lines():
        assert line in text
    assert f"human,ai:{FIRST_LEVEL}" in text


def test_plain_lesson_stops_with_exit_code_1_when_the_input_ends_first(tutorial: Tutorial) -> None:
    out = io.StringIO()
    first = str(tutorial.steps[0].move)
    assert run_plain_lesson(LessonSession(tutorial), io.StringIO(first + "\n"), out) == 1
    assert out.getvalue().rstrip().endswith("The input ended before the lesson did.")


def test_full_screen_lesson_without_a_terminal_points_to_plain(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["learn"]) == 2
    assert "needs a terminal; use --plain" in capsys.readouterr().err


def test_the_plain_lesson_needs_no_extra_and_the_full_screen_one_names_its_extra(
    bare: Path, tutorial: Tutorial
) -> None:
    moves = "".join(f"{step.move}\n" for step in tutorial.steps)
    done = taluva(bare, "learn", "--plain", "--compact", stdin=moves)
    assert (done.returncode, done.stderr) == (0, "")
    assert f"human,ai:{FIRST_LEVEL}" in done.stdout
    full = taluva(bare, "learn")
    assert (full.returncode, full.stdout) == (2, "")
    assert full.stderr.endswith("pip install 'taluva[terminal]', or use --plain\n")
