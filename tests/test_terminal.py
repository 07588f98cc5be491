"""The terminal layer: the character map, seats and sessions, ``--plain`` through stdin, the
full-screen app driven by Textual's pilot as a person would, and ``replay``.

Map drawings are compared with text snapshots in tests/snapshots/ (update them with
``TALUVA_UPDATE_SNAPSHOTS=1``, then review the diff).
"""

from __future__ import annotations

import asyncio
import functools
import io
import json
import random
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from test_render import SNAPSHOTS, base_game, check_snapshot
from textual.pilot import Pilot
from textual.widgets import Static

import taluva
from taluva.cli import main
from taluva.engine.game import Game
from taluva.engine.hexes import format_hex, hex_at, parse_hex
from taluva.engine.moves import DOUBLE, EXPAND, Move
from taluva.render import style
from taluva.render.position import position_at
from taluva.terminal.app import ReplayApp, TaluvaApp
from taluva.terminal.board import BoardView, MapPane
from taluva.terminal.mapview import Overlay, draw_map, key_colours
from taluva.terminal.screens import KEYS, ChoiceScreen, EndScreen, HelpScreen, PathScreen
from taluva.terminal.session import SeatError, Session, parse_seats

State = Callable[[Game], dict[str, Any]]


def ships_game() -> Game:
    """Two players with the Ships expansion; the last move put Ben's ship in a lagoon."""
    return Game.from_record((SNAPSHOTS / "position-ships.json").read_text("utf-8"))


def random_game(seed: int, players: int = 2, **options: Any) -> Game:
    """A finished game of seeded random legal moves (moves sorted so the seed decides)."""
    names = [f"Player {i + 1}" for i in range(players)]
    game = Game.new(players=names, seed=seed, **options)
    rng = random.Random(seed)
    while not game.is_over:
        game.play(rng.choice(sorted(game.legal_moves(), key=str)))
    return game


# ------------------------------------------------------------------------------- the map


def test_compact_map_of_the_base_position_matches_its_snapshot() -> None:
    picture = draw_map(base_game(), ascii_only=True)
    check_snapshot("map-base-compact.txt", picture.text() + "\n\n" + picture.style_text() + "\n")


def test_large_map_of_the_base_position_matches_its_snapshot() -> None:
    check_snapshot("map-base-large.txt", draw_map(base_game(), scale=2).text() + "\n")


def test_map_with_a_ghost_tile_and_spots_matches_its_snapshot() -> None:
    game = position_at(base_game(), 10)
    ghost = {parse_hex("2,-2"): 0, parse_hex("3,-2"): 1, parse_hex("2,-1"): 2}
    overlay = Overlay(cursor=parse_hex("2,-2"), ghost=ghost, spots=frozenset({parse_hex("0,2")}))
    picture = draw_map(game, overlay)
    check_snapshot("map-ghost.txt", picture.text() + "\n\n" + picture.style_text() + "\n")


def test_map_shows_every_hex_with_its_level_and_finds_it_under_the_mouse() -> None:
    game = base_game()
    for scale in (1, 2):
        picture = draw_map(game, scale=scale, ascii_only=True)
        for hex_ in game.land():
            x, y = picture.cell_of(hex_)
            assert picture.hex_at_cell(x, y) == hex_
            assert picture.hex_at_cell(x, y + scale - 1) == hex_
            level_x = x - 1 if scale == 1 else x - 2
            assert picture.chars[y + scale - 1][level_x] == str(game.level(hex_))


def test_map_draws_buildings_as_owner_letter_and_kind() -> None:
    game = base_game()
    picture = draw_map(game, ascii_only=True)
    for hex_, (owner, kind) in game.buildings().items():
        x, y = picture.cell_of(hex_)
        mark = "abcde"[owner] + {"hut": "h", "temple": "T", "tower": "W"}[kind]
        assert "".join(picture.chars[y][x : x + 2]) == mark
        assert picture.keys[y][x] == f"chip:{owner}"


def test_map_draws_the_ship_in_its_lagoon() -> None:
    game = ships_game()
    (lagoon,) = game.lagoons()
    assert game.ships() == {min(lagoon): 1}
    picture = draw_map(game, ascii_only=True)
    x, y = picture.cell_of(min(lagoon))
    assert "".join(picture.chars[y][x : x + 2]) == "bS"
    assert picture.keys[y][x - 1] == "lagoon"


def test_map_shades_the_sea_outside_the_board_zone() -> None:
    game = Game.new(players=2, seed=5, expansions=["board:expert"])
    game.play("tile 0,0 0")
    codes = draw_map(game, margin=9).style_text()
    assert "o" in codes and "~" in codes
    zone = taluva.engine.expansions.board_zones.ZONES["expert"]
    picture = draw_map(game, margin=9)
    for hex_ in (hex_at(8, 0), hex_at(-9, 0)):
        x, y = picture.cell_of(hex_)
        inside = hex_ in zone.hexes
        assert picture.keys[y][x] == ("sea" if inside else "outside"), format_hex(hex_)


def test_terminal_colours_follow_the_shared_drawing_rules() -> None:
    for terrain in range(6):
        for level in (1, 3):
            fg, bg, _ = key_colours(f"land:{terrain}:{level}")
            assert bg == style.level_fill(terrain, level)
            assert fg == style.contrast_text(bg)
    for player in range(5):
        assert key_colours(f"chip:{player}")[1] == style.player_colour(player)
    assert key_colours("last")[1] == style.LAST_MOVE
    assert key_colours("sea")[1] == style.SEA
    assert key_colours("lagoon")[1] == style.LAGOON


# ------------------------------------------------------------------------------- seats


def test_seats_read_people_levels_and_agent_specs() -> None:
    seats = parse_seats("human:Ana, ai:5,ai,ai:mcts:iterations=50")
    assert [(s.name, s.spec) for s in seats] == [
        ("Ana", ""),
        ("AI 2", "level:5"),
        ("AI 3", "level:3"),
        ("AI 4", "mcts:iterations=50"),
    ]
    assert [s.name for s in parse_seats("human,human")] == ["Player 1", "Player 2"]
    five = parse_seats("human,human:Bo,ai:1,ai:2,ai:random")
    assert [s.describe() for s in five] == [
        "Player 1 (person)",
        "Bo (person)",
        "AI 3 (level:1)",
        "AI 4 (level:2)",
        "AI 5 (random)",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("human", "names 1 seats: Taluva is for 2 to 5"),
        ("human,ai:9", "'ai:9': AI levels go from 1 to 6"),
        ("human,robot", "seat 2 is 'robot'"),
        ("human,,ai", "no empty ones"),
        ("human,ai,ai,ai,ai,ai", "names 6 seats"),
    ],
)
def test_bad_seats_are_refused_naming_the_problem(text: str, message: str) -> None:
    with pytest.raises(SeatError, match=re.escape(message)):
        parse_seats(text)


def test_unknown_agent_spec_is_refused_when_the_session_starts() -> None:
    game = Game.new(players=2, seed=1)
    with pytest.raises(SeatError, match=r"seat 2 \(bogus\)"):
        Session(game, parse_seats("human,ai:bogus"), seed=1)


def test_undo_against_the_ai_goes_back_to_the_persons_previous_decision() -> None:
    game = Game.new(players=["You", "AI 2"], seed=3)
    session = Session(game, parse_seats("human,ai:random"), seed=3)
    rng = random.Random(3)
    for _ in range(4):  # you: tile, build; AI: tile, build
        session.play(game.random_move(rng))
    mine = [str(m) for m in game.moves[:2]]
    taken = session.undo()
    assert [str(m) for m in taken][2:] == [mine[1]]
    assert (game.ply, game.phase, game.to_move) == (1, "build", 0)
    taken = session.undo()
    assert [str(m) for m in taken] == [mine[0]]
    assert game.ply == 0
    with pytest.raises(taluva.IllegalMove, match="no move has been played"):
        session.undo()


def test_new_game_keeps_seats_and_options_and_deals_the_next_seed() -> None:
    options: dict[str, Any] = {"tiles_per_player": 18, "expansions": ["ships"]}
    seats = parse_seats("ai:random,ai:random")
    session = Session(Game.new(players=["AI 1", "AI 2"], seed=4, **options), seats, seed=4)
    for _ in range(6):
        session.play(session.choose_ai_move())
    session.new_game()
    fresh = Session(Game.new(players=["AI 1", "AI 2"], seed=5, **options), seats, seed=5)
    assert session.seed == 5
    assert session.game.to_record() == fresh.game.to_record()
    for _ in range(12):  # the agents are seeded afresh too: they play as a new session's
        move = session.choose_ai_move()
        assert move == fresh.choose_ai_move()
        session.play(move)
        fresh.play(move)


def test_undo_in_hot_seat_takes_back_one_move() -> None:
    game = Game.new(players=2, seed=3)
    session = Session(game, parse_seats("human,human"), seed=3)
    session.play("tile 0,0 2")
    (move,) = session.undo()
    assert str(move) == "tile 0,0 2" and game.ply == 0


def test_an_illegal_move_is_refused_with_the_rule() -> None:
    game = Game.new(players=2, seed=3)
    session = Session(game, parse_seats("human,human"), seed=3)
    why = game.explain("tile 2,0 1")
    assert why
    with pytest.raises(taluva.IllegalMove, match=re.escape(f"tile 2,0 1: {why}")):
        session.play("tile 2,0 1")
    assert game.ply == 0


# ------------------------------------------------------------------------------- --plain


def run_taluva(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The real ``taluva`` command in a child process, fed ``stdin``."""
    return subprocess.run(
        [sys.executable, "-m", "taluva", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_plain_with_ai_seats_only_plays_to_the_end_and_prints_moves_and_ranking() -> None:
    options = ["--tiles-per-player", "18", "--expansion", "ships"]
    done = run_taluva("play", "--plain", "--players", "ai:1,ai:random", "--seed", "4", *options)
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    moves = [m.group(2) for m in map(re.compile(r"^(\d+)\. AI \d: (.+)$").match, lines) if m]
    replay = Game.new(players=["AI 1", "AI 2"], seed=4, tiles_per_player=18, expansions=["ships"])
    for text in moves:
        replay.play(text)
    assert replay.is_over
    session = Session(replay, parse_seats("ai:random,ai:random"))
    assert lines[-len(session.result_lines()) :] == session.result_lines()


def test_plain_hot_seat_through_stdin_with_errors_undo_and_save(tmp_path: Path) -> None:
    finished = random_game(8)
    texts = [str(move) for move in finished.moves]
    saved = tmp_path / "saved.json"
    script = [
        "hut 99,99",  # not a legal move: explained, game unchanged
        "fly away",  # not a move at all
        texts[0],
        "undo",
        texts[0],
        "moves",
        *texts[1:6],
        f"save {saved}",
        "list",
        *texts[6:],
    ]
    done = run_taluva(
        "play", "--plain", "--players", "human,human", "--seed", "8", stdin="\n".join(script) + "\n"
    )
    assert (done.returncode, done.stderr) == (0, "")
    out = done.stdout
    why = Game.new(players=2, seed=8).explain("hut 99,99")
    assert f"Not played: hut 99,99: {why}. Type 'moves' for the legal moves" in out
    assert "Not played: 'fly away': unknown move 'fly'" in out
    assert f"Took back: {texts[0]}." in out
    assert f"Saved to {saved}." in out
    assert "0,0 volcano level 1" in out
    session = Session(finished, parse_seats("human,human"))
    assert out.splitlines()[-len(session.result_lines()) :] == session.result_lines()
    assert json.loads(saved.read_text("utf-8"))["moves"] == texts[:6]
    resumed = run_taluva(
        "play", "--plain", "--load", str(saved), "--players", "human,human",
        stdin="\n".join(texts[6:]) + "\n",
    )  # fmt: skip
    assert (resumed.returncode, resumed.stderr) == (0, "")
    assert resumed.stdout.splitlines()[-3:] == session.result_lines()


def test_plain_ends_with_the_pieces_in_words_then_who_won_why_and_each_place() -> None:
    texts = [str(move) for move in random_game(8).moves]
    done = run_taluva(
        "play", "--plain", "--players", "human,human", "--seed", "8", stdin="\n".join(texts) + "\n"
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-6:] == [
        "Player 1 (red, a): placed 0 temples, 0 towers, 14 huts; left 3 temples, 2 towers, 6 huts",
        "Player 2 (white, b): placed 1 temple, 0 towers, 12 huts; left 2 temples, 2 towers, 8 huts",
        "Ply 48, tiles left 0.",
        "Player 2 wins: no tile was left to take; most temples built (1 against 0)",
        "1st Player 2: 1 temple, 0 towers, 12 huts placed",
        "2nd Player 1: 0 temples, 0 towers, 14 huts placed",
    ]
    assert "score" not in done.stdout.lower()


def test_plain_stops_with_exit_code_1_when_the_input_ends_first(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("draw\n"))
    assert main(["play", "--plain", "--players", "human,ai:1", "--seed", "2"]) == 1
    out = capsys.readouterr().out
    assert out.rstrip().endswith("The input ended before the game was over.")
    assert "Not played: draw: " in out


def test_play_refuses_bad_seats_in_one_line_without_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "--plain", "--players", "human,ai:7"]) == 2
    err = capsys.readouterr().err
    assert err == "taluva: error: --players: 'ai:7': AI levels go from 1 to 6\n"


def test_full_screen_play_without_a_terminal_points_to_plain(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "--players", "human,ai:1"]) == 2
    assert "needs a terminal; use --plain" in capsys.readouterr().err


# ------------------------------------------------------------------------------- the app


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test in its own event loop (no pytest plugin needed)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def settle(app: TaluvaApp, pilot: Pilot[None]) -> None:
    """Wait until the app waits for a person (AI moves and their pauses are done)."""
    await asyncio.wait_for(app.settled.wait(), timeout=60)
    await pilot.pause()


async def type_text(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*[{" ": "space", "/": "slash", ".": "full_stop"}.get(c, c) for c in text])


async def play_one_turn(app: TaluvaApp, pilot: Pilot[None]) -> None:
    """A person's turn as keys: Tab to a legal spot, Enter; Tab to a build, Enter, Enter."""
    if app.game.phase == "tile":
        await pilot.press("tab", "enter")
    if app.game.phase == "build" and not app.session.ai_to_move:
        await pilot.press("tab", "enter")
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("enter")
    await settle(app, pilot)


@run_async
async def test_pilot_plays_a_whole_game_against_the_ai_with_undo_and_save_load(
    tmp_path: Path, state_of: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    game = Game.new(players=["You", "AI 2"], seed=21)
    app = TaluvaApp(Session(game, parse_seats("human,ai:1"), seed=21), ai_delay=0)
    path = tmp_path / "mid.json"
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        turns = 0
        saved_state = None
        while not app.game.is_over:
            await play_one_turn(app, pilot)
            turns += 1
            if turns == 3:
                ply = app.game.ply
                await pilot.press("u")
                assert (app.game.ply, app.game.phase, app.game.to_move) == (ply - 3, "build", 0)
                await settle(app, pilot)
            if turns == 4:
                await pilot.press("s")
                assert isinstance(app.screen, PathScreen)
                await pilot.press("ctrl+a", "ctrl+k")
                await type_text(pilot, path.name)
                await pilot.press("enter")
                saved_state = state_of(app.game.copy())
                await play_one_turn(app, pilot)
                assert app.game.ply > saved_state["ply"]
                await pilot.press("l")
                await type_text(pilot, path.name)
                await pilot.press("enter")
                await settle(app, pilot)
                assert state_of(app.game) == saved_state
        assert turns >= 12
        assert isinstance(app.screen, EndScreen)
        shown = str(app.screen.query_one("#end-text", Static).render())
        for line in app.session.result_lines():
            assert line in shown
        await pilot.press("q")
    assert app.game.result is not None
    assert saved_state is not None
    assert json.loads(path.read_text("utf-8"))["moves"] == saved_state["moves"]


@run_async
async def test_ghost_follows_the_cursor_rotates_and_marks_legal_spots() -> None:
    game = position_at(base_game(), 10)
    game = Game.from_record(json.dumps(game.to_record()))
    app = TaluvaApp(Session(game, parse_seats("human,human,human")), ai_delay=0)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        start = app.cursor
        await pilot.press("right")
        assert app.cursor == start + hex_at(1, 0)
        orientation = app.orientation
        await pilot.press("r")
        assert app.orientation == (orientation - 1) % 6
        await pilot.press("R", "R")
        assert app.orientation == (orientation + 1) % 6
        overlay = app.overlay()
        tile = taluva.engine.tiles.footprint(app.cursor, app.orientation)
        assert set(overlay.ghost) == set(tile)
        legal = {m for m in game.legal_moves() if m.orientation == app.orientation}
        assert overlay.spots == {m.hex for m in legal}
        assert overlay.ghost_legal == (Move.place_tile(app.cursor, app.orientation) in legal)
        await pilot.press("tab")
        assert Move.place_tile(app.cursor, app.orientation) in game.legal_moves()
        assert app.overlay().ghost_legal


@run_async
async def test_the_arrows_move_the_cursor_on_an_island_larger_than_the_map_pane() -> None:
    game = Game.from_record(json.dumps(random_game(seed=5).to_record()))
    while game.is_over or game.phase != "tile":
        game.pop()
    app = TaluvaApp(Session(game, parse_seats("human,human")), ai_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        pane = app.screen.query_one(MapPane)
        assert pane.max_scroll_y > 0  # the island is taller than its pane: the pane scrolls
        for key in ("down", "up", "right", "left"):
            start = app.cursor
            await pilot.press(key)
            assert app.cursor != start, key  # the cursor moved, not only the map


@run_async
async def test_side_panel_shows_tile_pieces_placed_and_left_and_the_move_log() -> None:
    game = position_at(base_game(), 40)
    game = Game.from_record(json.dumps(game.to_record()))
    app = TaluvaApp(Session(game, parse_seats("human,ai:1,human")), ai_delay=0)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        players = str(app.query_one("#players", Static).render())
        assert [line.rstrip() for line in players.splitlines()] == [
            "   a  Ana  person",
            "    placed 1 temple, 0 towers, 8 huts",
            "    left 2 temples, 2 towers, 12 huts",
            "   b  Ben  level:1",
            "    placed 1 temple, 1 tower, 11 huts",
            "    left 2 temples, 1 tower, 9 huts",
            "▶  c  Cyd  person",
            "    placed 0 temples, 2 towers, 5 huts",
            "    left 3 temples, 0 towers, 15 huts",
        ]
        assert "score" not in players
        tile = str(app.query_one("#tile", Static).render())
        assert f"Tiles left: {game.tiles_left}" in tile
        assert f"Tile {game.tile} (volcano, " in tile
        log = str(app.query_one("#log", Static).render())
        assert [line.split("  ")[-1].strip() for line in log.splitlines()] == [
            str(move) for move in game.moves
        ]


@run_async
async def test_ai_moves_stay_on_screen_for_the_chosen_pause() -> None:
    game = Game.new(players=["AI 1", "You"], seed=5)
    app = TaluvaApp(Session(game, parse_seats("ai:random,human"), seed=5), ai_delay=0.2)
    async with app.run_test(size=(110, 34)) as pilot:
        while game.ply < 1:
            await pilot.pause()
        assert app.ai_timer is not None and not app.ai_running
        assert game.ply == 1 and "AI 1 played tile 0,0" in app.message
        await settle(app, pilot)
        assert game.ply == 2 and game.to_move == 1


@run_async
async def test_a_typed_move_is_played_and_a_bad_one_explained() -> None:
    game = Game.new(players=2, seed=9)
    app = TaluvaApp(Session(game, parse_seats("human,human")), ai_delay=0)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        await pilot.press("colon")
        await type_text(pilot, "tile 1,0 2")
        await pilot.press("enter")
        assert game.ply == 0
        why = game.explain("tile 1,0 2")
        assert app.message == f"Not played: tile 1,0 2: {why} (? for the rule: Your turn)"
        await pilot.press("colon")
        await type_text(pilot, "tile 0,0 2")
        await pilot.press("enter")
        assert [str(m) for m in game.moves] == ["tile 0,0 2"]


@run_async
async def test_mouse_moves_the_cursor_and_a_click_places_the_tile() -> None:
    game = Game.new(players=2, seed=9)
    game.play("tile 0,0 0")
    game.play(sorted(game.legal_moves(), key=str)[0])
    app = TaluvaApp(Session(game, parse_seats("human,human")), ai_delay=0)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        board = app.query_one(BoardView)
        target = sorted(m for m in game.legal_moves() if m.orientation == app.orientation)[0]
        assert board.picture is not None
        x, y = board.picture.cell_of(target.hex)
        await pilot.hover(BoardView, offset=(x, y))
        assert app.cursor == target.hex
        await pilot.click(BoardView, offset=(x, y))
        assert game.moves[-1] == target


@run_async
async def test_build_menu_previews_the_huts_of_an_expansion() -> None:
    game = position_at(base_game(), 59)  # Ana's build phase: expansions are possible
    game = Game.from_record(json.dumps(game.to_record()))
    assert game.phase == "build"
    app = TaluvaApp(Session(game, parse_seats("human,human,human")), ai_delay=0)
    expand = sorted(m for m in game.legal_moves() if m.kind == EXPAND and len(m.hexes) > 1)[0]
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        for _ in range(60):
            if app.cursor == expand.hexes[0]:
                break
            await pilot.press("tab")
        await pilot.press("enter")
        assert isinstance(app.screen, ChoiceScreen)
        labels = [label for _, label in app.screen.choices]
        assert any(label.startswith("Expand into") for label in labels)
        index = [key for key, _ in app.screen.choices].index(str(expand))
        await pilot.press(*["down"] * index)
        assert app.preview == expand
        assert app.overlay().preview == set(expand.hexes)
        await pilot.press("enter")
        assert game.moves[-1] == expand


@run_async
async def test_ship_is_offered_on_any_hex_of_its_lagoon() -> None:
    game = ships_game()
    game.pop()  # back to Ben's build, before the ship
    game = Game.from_record(json.dumps(game.to_record()))
    (lagoon,) = game.lagoons()
    app = TaluvaApp(Session(game, parse_seats("human,human")), ai_delay=0)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        app.cursor = max(lagoon)
        await pilot.press("enter")
        assert isinstance(app.screen, ChoiceScreen)
        assert [label for _, label in app.screen.choices] == [
            f"Ship into the lagoon at {format_hex(min(lagoon))}"
        ]
        await pilot.press("enter")
        assert game.ships() == {min(lagoon): 1}


@run_async
async def test_double_hex_turn_starts_with_a_choice_and_places_a_two_hex_ghost() -> None:
    game = Game.new(players=2, seed=2, expansions=["double_hex"])
    app = TaluvaApp(Session(game, parse_seats("human,human")), ai_delay=0)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ChoiceScreen)
        keys = [key for key, _ in app.screen.choices]
        assert keys == ["draw", *game.doubles]
        await pilot.press("down", "enter")
        assert app.double == game.doubles[0]
        assert len(app.overlay().ghost) == 2
        await pilot.press("enter")
        assert game.moves[-1].kind == DOUBLE and game.moves[-1].tile == keys[1]
        await pilot.press("tab", "enter", "enter")  # build
        assert isinstance(app.screen, ChoiceScreen)  # the next player's choice
        await pilot.press("enter")  # draw
        assert str(game.moves[-1]) == "draw" and game.tile is not None


@run_async
async def test_hint_shows_the_ais_suggestion_and_moves_the_ghost_there() -> None:
    from taluva.ai import hint

    game = Game.new(players=2, seed=6)
    game.play("tile 0,0 3")
    game.play(sorted(game.legal_moves(), key=str)[0])
    expected, value = hint(game.copy(), 3)
    app = TaluvaApp(Session(game, parse_seats("human,human")), hint_level=3)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        await pilot.press("h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.message == f"Hint: {expected} (AI rates your position {value:.2f})"
        assert app.ghost_move() == expected
        await pilot.press("enter")
        assert game.moves[-1] == expected


def test_the_result_says_who_won_and_why_in_the_engines_words_and_names_every_place() -> None:
    session = Session(random_game(3, players=3), parse_seats("human,human,human"))
    assert session.result_lines() == [
        "Player 1, Player 2 and Player 3 share first place: no tile was left to take; "
        "equal on everything (0 temples, 0 towers, 12 huts)",
        "1st Player 1: 0 temples, 0 towers, 12 huts placed",
        "1st Player 2: 0 temples, 0 towers, 12 huts placed",
        "1st Player 3: 0 temples, 0 towers, 12 huts placed",
    ]
    assert session.pieces_line(0) == (
        "placed 0 temples, 0 towers, 12 huts; left 3 temples, 2 towers, 8 huts"
    )


HEADLINE_3 = (
    "Player 2 wins: no tile was left to take; as many temples (0), then as many towers (0), "
    "then most huts built (13 against 12)"
)
"""The end of ``random_game(3)`` in words."""


@run_async
async def test_end_screen_ranks_the_players_and_undo_goes_back_into_the_game() -> None:
    game = random_game(3)
    app = TaluvaApp(Session(game, parse_seats("human,human")))
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, EndScreen)
        shown = str(app.screen.query_one("#end-text", Static).render())
        assert [line.rstrip() for line in shown.splitlines()] == [
            HEADLINE_3,
            "",
            "1st Player 2: 0 temples, 0 towers, 13 huts placed",
            "2nd Player 1: 0 temples, 0 towers, 12 huts placed",
            "",
            "n new game   u undo   s save   Escape look at the board   q quit",
        ]
        status = str(app.game_screen.query_one("#status", Static).render())
        assert status.splitlines()[-3:] == [
            HEADLINE_3,
            "1st Player 2: 0 temples, 0 towers, 13 huts placed",
            "2nd Player 1: 0 temples, 0 towers, 12 huts placed",
        ]
        await pilot.press("u")
        assert not isinstance(app.screen, EndScreen)
        assert not game.is_over and game.ply == len(game.moves)


@run_async
async def test_new_game_from_the_end_screen_deals_the_next_seed() -> None:
    game = random_game(3)
    app = TaluvaApp(Session(game, parse_seats("human,human"), seed=3))
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, EndScreen)
        await pilot.press("n")
        await settle(app, pilot)
        assert not isinstance(app.screen, EndScreen)
        assert (app.session.seed, app.game.ply, app.message) == (4, 0, "A new game.")
        assert app.game.to_record() == Game.new(players=game.players, seed=4).to_record()


@run_async
async def test_ai_thinking_keeps_the_screen_responsive() -> None:
    release = threading.Event()

    class SlowAgent:
        def choose(self, game: Game) -> Move:
            release.wait(timeout=30)
            return sorted(game.legal_moves(), key=str)[0]

    game = Game.new(players=["AI 1", "You"], seed=4)
    session = Session(game, parse_seats("ai:random,human"), seed=4)
    session.agents[0] = SlowAgent()
    app = TaluvaApp(session, ai_delay=0)
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.pause()
        assert app.ai_running and not app.settled.is_set()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert "is thinking" in str(app.query_one("#status", Static).render())
        release.set()
        await settle(app, pilot)
        assert game.ply == 2 and game.to_move == 1


@run_async
async def test_undo_while_the_ai_thinks_discards_its_late_move() -> None:
    release = threading.Event()

    class SlowAgent:
        def choose(self, game: Game) -> Move:
            release.wait(timeout=30)
            return sorted(game.legal_moves(), key=str)[0]

    game = Game.new(players=["You", "AI 2"], seed=4)
    session = Session(game, parse_seats("human,ai:random"), seed=4)
    session.agents[1] = SlowAgent()
    app = TaluvaApp(session, ai_delay=0)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter", "enter", "enter")  # place the first tile, open builds, build
        assert game.ply == 2 and app.ai_running
        await pilot.press("u")
        assert (game.ply, game.phase) == (1, "build")
        release.set()
        await app.workers.wait_for_complete()
        await settle(app, pilot)
        assert (game.ply, game.phase, app.ai_running) == (1, "build", False)


@run_async
async def test_help_screen_lists_every_key() -> None:
    app = TaluvaApp(Session(Game.new(players=2, seed=1), parse_seats("human,human")))
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = str(app.screen.query_one(Static).render())
        for keys, meaning in KEYS:
            assert keys in shown and meaning.split(" (")[0] in shown
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


def help_shows(app: TaluvaApp) -> list[str]:
    """The guide's sections the open help screen holds, in order."""
    assert isinstance(app.screen, HelpScreen)
    return [widget.id.removeprefix("rule-") for widget in app.screen.query(".rule") if widget.id]


def help_at_top(app: TaluvaApp) -> str:
    """The section whose title is at the top of the open help screen's scrolled view."""
    scroll = app.screen.query_one("#help")
    top = scroll.scroll_offset.y
    widget = min(app.screen.query(".rule"), key=lambda w: abs(w.virtual_region.y - top))
    return widget.id.removeprefix("rule-")


@run_async
async def test_help_screen_teaches_the_rules_with_this_games_expansions_only() -> None:
    from taluva.learn.guide import load_guide, plain

    guide = load_guide()
    base = TaluvaApp(Session(Game.new(players=2, seed=1), parse_seats("human,human")))
    async with base.run_test(size=(110, 34)) as pilot:
        await pilot.press("question_mark")
        assert help_shows(base) == [s.id for s in guide.for_game([])]
        eruption = guide.section("eruption")
        shown = str(base.screen.query_one("#rule-eruption", Static).render())
        for picture in eruption.pictures:
            assert plain(picture.caption) in " ".join(shown.split())
            if picture.refused:
                assert picture.draw().refusal in " ".join(shown.split())
        assert "| 1,-1  |" in shown  # the pictures as text boards
    ships = TaluvaApp(Session(ships_game(), parse_seats("human,human")))
    async with ships.run_test(size=(110, 34)) as pilot:
        await pilot.press("question_mark")
        assert help_shows(ships) == [s.id for s in guide.for_game(["ships"])]
        assert "ships" in help_shows(ships)


@run_async
async def test_question_mark_after_a_refused_move_opens_the_help_at_its_rule() -> None:
    game = Game.new(players=2, seed=9)
    game.play("tile 0,0 0")
    game.play(sorted(game.legal_moves(), key=str)[0])
    app = TaluvaApp(Session(game, parse_seats("human,human")), ai_delay=0)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        await pilot.press("colon")
        await type_text(pilot, "tile 0,0 0")
        await pilot.press("enter")
        assert app.message.endswith("(? for the rule: A volcanic eruption)")
        await pilot.press("question_mark")
        await pilot.pause()
        assert help_at_top(app) == "eruption"
        await pilot.press("escape")
        await pilot.press("tab", "enter")  # a legal tile: ? is the whole help again
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen.query_one("#help").scroll_offset.y == 0


@run_async
async def test_question_mark_in_the_build_menu_opens_the_rule_of_the_build_highlighted() -> None:
    game = Game.new(players=2, seed=9)
    game.play("tile 0,0 0")
    app = TaluvaApp(Session(game, parse_seats("human,human")), ai_delay=0)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(app, pilot)
        await pilot.press("tab", "enter")
        assert isinstance(app.screen, ChoiceScreen)
        assert app.screen.choices[0][0].startswith("hut ")
        await pilot.press("question_mark")
        await pilot.pause()
        assert help_at_top(app) == "found"
        await pilot.press("escape")
        assert isinstance(app.screen, ChoiceScreen)


def test_plain_mode_reads_a_rule_and_points_to_it_after_a_refusal() -> None:
    from taluva.learn.guide import load_guide

    lines = "tile 3,3 0\nrules\nrules turn\nquit\n"
    result = run_taluva("play", "--plain", "--players", "human,human", "--seed", "2", stdin=lines)
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "Type 'moves' for the legal moves, 'rules turn' for the rule, 'help' for more." in out
    ids = ", ".join(s.id for s in load_guide().for_game([]))
    assert f"Type 'rules SECTION' for one of: {ids}." in out
    assert " ".join(load_guide().section("turn").plain_text(100).split()) in out


@run_async
async def test_quit_asks_twice_during_a_game() -> None:
    game = Game.new(players=2, seed=1)
    game.play("tile 0,0 1")
    app = TaluvaApp(Session(game, parse_seats("human,human")))
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.press("q")
        assert app.is_running and "Press q again" in app.message
        await pilot.press("q")
    assert not app.is_running


# ------------------------------------------------------------------------------- replay


@run_async
async def test_replay_steps_forwards_and_backwards() -> None:
    game = base_game()
    app = ReplayApp(game, 5)
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.press("right", "right", "left")
        assert app.ply == 6
        board = app.query_one(BoardView)
        assert board.picture is not None
        assert board.picture.text() == draw_map(position_at(game, 6)).text()
        await pilot.press("end")
        assert app.ply == 60
        await pilot.press("right")
        assert app.ply == 60
        await pilot.press("home")
        assert app.ply == 0


def test_plain_replay_follows_commands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record = tmp_path / "game.json"
    record.write_text((SNAPSHOTS / "position-base.json").read_text("utf-8"), "utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n\n30\np\nfly\n99\nq\n"))
    assert main(["replay", str(record), "--plain", "--ply", "1"]) == 0
    out = capsys.readouterr().out
    plies = re.findall(r"^Ply (\d+) of 60", out, re.MULTILINE)
    assert plies == ["1", "2", "3", "30", "29"]
    assert "'fly' is not a replay command" in out
    assert "There is no ply 99: this game has plies 0 to 60." in out


def test_plain_replay_ends_with_who_won_why_and_each_place(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record = tmp_path / "game.json"
    record.write_text(json.dumps(random_game(8).to_record()), "utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("end\nq\n"))
    assert main(["replay", str(record), "--plain", "--ply", "47"]) == 0
    out = capsys.readouterr().out
    assert out.count("Player 2 wins") == 1
    assert out.splitlines()[-5:] == [
        "Ply 48 of 48: Player 2 played expand rock 1,4.",
        "Player 2 wins: no tile was left to take; most temples built (1 against 0)",
        "1st Player 2: 1 temple, 0 towers, 12 huts placed",
        "2nd Player 1: 0 temples, 0 towers, 14 huts placed",
        "replay> ",
    ]


@run_async
async def test_replay_shows_pieces_in_words_and_at_the_end_who_won() -> None:
    app = ReplayApp(random_game(8), 47)
    async with app.run_test(size=(110, 34)) as pilot:
        info = str(app.query_one("#info", Static).render())
        assert info.splitlines()[2:4] == [
            "Player 1: placed 0 temples, 0 towers, 14 huts; left 3 temples, 2 towers, 6 huts",
            "Player 2: placed 1 temple, 0 towers, 11 huts; left 2 temples, 2 towers, 9 huts",
        ]
        assert "wins" not in info
        await pilot.press("right")
        info = str(app.query_one("#info", Static).render())
        assert info.splitlines()[2:8] == [
            "Player 1: placed 0 temples, 0 towers, 14 huts; left 3 temples, 2 towers, 6 huts",
            "Player 2: placed 1 temple, 0 towers, 12 huts; left 2 temples, 2 towers, 8 huts",
            "",
            "Player 2 wins: no tile was left to take; most temples built (1 against 0)",
            "1st Player 2: 1 temple, 0 towers, 12 huts placed",
            "2nd Player 1: 0 temples, 0 towers, 14 huts placed",
        ]
