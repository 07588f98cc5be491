"""The terminal's win-chance bar (``taluva.terminal.win_chance``): off by default, w shows it
with every player's percentage from the review's own search, computed without freezing the
screen; ``--plain --win-chance`` prints it after each move."""

from __future__ import annotations

import asyncio
import io
import re
import threading

import pytest
from test_terminal import run_async, settle
from textual.widgets import Static

from taluva.ai import review
from taluva.engine.game import Game
from taluva.terminal.app import TaluvaApp
from taluva.terminal.plain import run_plain
from taluva.terminal.screens import HelpScreen
from taluva.terminal.session import Session, parse_seats, percentages
from taluva.terminal.win_chance import WinChanceBar

SHARE = re.compile(r"(\S+) (\d+)%")


def shown_shares(app: TaluvaApp) -> list[tuple[str, int]]:
    """The names and percentages the side panel's bar shows."""
    text = str(app.query_one("#chances", Static).render())
    return [(name, int(share)) for name, share in SHARE.findall(text)]


async def chances_shown(app: TaluvaApp) -> None:
    """Wait until the bar shows the chances of the position on screen."""
    bar = app.game_screen.chances
    for _ in range(600):
        if bar.known is not None and bar.known[0] == bar.position() and not bar.running:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the win chances never came")


@pytest.mark.parametrize(
    ("chances", "shares"),
    [([0.625, 0.375], [63, 37]), ([0.5, 0.5], [50, 50]), ([0.334, 0.333, 0.333], [34, 33, 33])],
)
def test_percentages_of_chances_that_add_up_to_one_add_up_to_100(
    chances: list[float], shares: list[int]
) -> None:
    assert percentages(chances) == shares


def test_percentages_of_more_players_are_each_players_own() -> None:
    assert percentages([0.5, 0.25, 0.75, 0.5]) == [50, 25, 75, 50]


@run_async
async def test_the_bar_is_off_by_default_and_w_shows_the_reviews_chances() -> None:
    game = Game.new(players=["Ana", "Ben"], seed=5)
    app = TaluvaApp(Session(game, parse_seats("human:Ana,human:Ben")))
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        assert not app.query_one("#chances", Static).display
        await pilot.press("tab", "enter")
        await pilot.press("w")
        assert app.query_one("#chances", Static).display
        await chances_shown(app)
        await pilot.pause()
        expected = review.position_chances(game.copy())
        assert app.game_screen.chances.known == ((0, game.ply), expected)
        shares = shown_shares(app)
        assert [name for name, _ in shares] == ["Ana", "Ben"]
        assert [share for _, share in shares] == percentages(expected)
        assert sum(share for _, share in shares) == 100
        await pilot.press("w")
        await pilot.pause()
        assert not app.query_one("#chances", Static).display
        assert app.message == "Win chances hidden."


@run_async
async def test_the_bar_follows_the_game_and_never_holds_up_the_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    real = review.position_chances

    def slow(game: Game, iterations: int = review.LIVE_ITERATIONS) -> tuple[float, ...]:
        release.wait(timeout=30)
        return real(game, iterations)

    monkeypatch.setattr("taluva.terminal.win_chance.position_chances", slow)
    game = Game.new(players=["You", "AI 2"], seed=8)
    app = TaluvaApp(Session(game, parse_seats("human,ai:1"), seed=8), ai_delay=0, win_chance=True)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        bar: WinChanceBar = app.game_screen.chances
        assert bar.on and bar.running
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("tab", "enter", "tab", "enter", "enter")  # a whole turn meanwhile
        await settle(app, pilot)
        assert game.ply == 4
        release.set()
        await chances_shown(app)
        assert bar.known == ((0, 4), real(game.copy()))


@run_async
async def test_the_key_help_names_w_for_the_win_chances() -> None:
    app = TaluvaApp(Session(Game.new(players=2, seed=1), parse_seats("human,human")))
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = str(app.screen.query_one(Static).render())
        assert re.search(r"\bw\s+win chances: show or hide each player's chance to win", shown)
        assert ("w", "win_chance") in {
            (binding.key, binding.action) for binding in app.game_screen.BINDINGS
        }


def test_plain_prints_the_chances_after_each_move_when_asked() -> None:
    game = Game.new(players=["Ana", "Ben"], seed=3, tiles_per_player=12)
    out = io.StringIO()
    moves = "tile 0,0 0\nchances\nquit\n"
    session = Session(game, parse_seats("human:Ana,human:Ben"))
    assert run_plain(session, io.StringIO(moves), out, win_chance=True) == 0
    lines = out.getvalue().splitlines()
    played = next(i for i, line in enumerate(lines) if line.endswith("1. Ana: tile 0,0 0"))
    after_move = lines[played + 1]
    first = Game.new(players=["Ana", "Ben"], seed=3)
    first.play("tile 0,0 0")
    shares = percentages(review.position_chances(first))
    assert after_move == f"Win chances: Ana {shares[0]}%, Ben {shares[1]}%."
    assert lines[-2] == "> Win chances after each move: off."
    quiet = io.StringIO()
    session = Session(Game.new(players=["Ana", "Ben"], seed=3), parse_seats("human,human"))
    run_plain(session, io.StringIO("tile 0,0 0\nquit\n"), quiet)
    assert "Win chances" not in quiet.getvalue()
