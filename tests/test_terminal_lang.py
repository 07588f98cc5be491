"""The terminal and the command line in the player's language: ``--lang`` or the environment
picks it, the game and its help speak it (German here, French for ``taluva rules``), and the
machine-readable outputs (``moves``, ``perft``, ``new``, the engine protocol) stay the same
bytes under any locale."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from pathlib import Path

import pytest
from test_terminal import settle
from textual.widgets import Static

from taluva.cli import language, main
from taluva.engine.game import Game
from taluva.engine.moves import Move
from taluva.lang import LANGUAGES, _, say, use
from taluva.terminal.app import TaluvaApp
from taluva.terminal.plain import run_plain
from taluva.terminal.session import Session, parse_seats

LOCALE_NAMES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

ENGLISH_WORDS = (
    "placed",
    "Tiles left",
    "orientation",
    "fits here",
    "Enter places it",
    "place the tile",
    "Not played",
    "huts",
    "temples",
    "towers",
    "(person)",
    "Rotate",
    "Undo",
    "Hint",
    "Save",
    "Load",
    "Quit",
    "Help",
    "Type move",
)
"""Words of the terminal's English that a German screen must not show."""


def set_locale(monkeypatch: pytest.MonkeyPatch, **values: str) -> None:
    """The process's locale variables: exactly those given (the others unset)."""
    for name in LOCALE_NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in values.items():
        monkeypatch.setenv(name, value)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------ choosing the language


def test_lang_option_beats_the_environment_which_beats_english() -> None:
    german = {"LANG": "de_DE.UTF-8"}
    assert language(["play"], german) == "de"
    assert language(["play", "--lang", "fr"], german) == "fr"
    assert language(["rules", "--lang=fr_CH"], {}) == "fr"
    assert language(["play"], {"LANG": "C.UTF-8", "LANGUAGE": "de"}) == "en"
    assert language(["play"], {"LANG": "de_DE.UTF-8", "LANGUAGE": "fr:de"}) == "fr"
    assert language(["play"], {"LANG": "pt_BR.UTF-8"}) == "en"
    assert language(["play"], {}) == "en"


def test_an_unknown_lang_is_a_usage_error_listing_the_shipped_languages(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    set_locale(monkeypatch, LANG="C.UTF-8")
    code, out, err = run(capsys, "play", "--plain", "--lang", "xx")
    assert code == 2 and out == ""
    assert err.startswith("taluva: error: --lang 'xx'") and err.count("\n") == 1
    for code_, name in LANGUAGES.items():
        assert f"{code_} ({name})" in err


def test_the_lang_option_is_taken_by_every_player_command_and_by_taluva_itself(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    set_locale(monkeypatch, LANG="C.UTF-8")
    for command in ("play", "learn", "puzzle", "rules", "replay", "show"):
        code, out, _err = run(capsys, command, "--lang", "de", "--help")
        assert code == 0 and "--lang CODE" in out, command
    code, out, _err = run(capsys, "--lang", "fr", "--help")
    assert code == 0 and "le jeu de plateau" in out


# ------------------------------------------------------------------ machine-readable outputs


def machine_outputs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, record: str
) -> list[tuple[int, str]]:
    """What ``moves``, ``perft``, ``new``, ``hint --json`` and the engine protocol write to
    standard output."""
    outputs = []
    for argv in (
        ("moves", record),
        ("perft", record, "2", "--divide", "--no-progress"),
        ("new", "--players", "3", "--seed", "5"),
        ("hint", record, "--level", "1", "--json"),
    ):
        code, out, _err = run(capsys, *argv)
        outputs.append((code, out))
    commands = "info\nnewgame players=2 seed=6\nstatus\nvalidmoves\nplay hut 9,9\nquit\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(commands))
    code, out, _err = run(capsys, "engine", "--level", "1")
    outputs.append((code, out))
    return outputs


def test_moves_perft_new_json_and_the_engine_protocol_are_the_same_bytes_in_any_locale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    game = Game.new(players=2, seed=4)
    for move in sorted(game.legal_moves(), key=str)[:1]:
        game.play(move)
    record = tmp_path / "game.json"
    record.write_text(json.dumps(game.to_record()), encoding="utf-8")
    set_locale(monkeypatch, LANG="C.UTF-8")
    english = machine_outputs(capsys, monkeypatch, str(record))
    set_locale(monkeypatch, LANG="de_DE.UTF-8", LANGUAGE="fr")
    assert language([]) == "fr"
    assert machine_outputs(capsys, monkeypatch, str(record)) == english
    assert any(line.startswith("err ") for line in english[-1][1].splitlines())


# ---------------------------------------------------------------------- the game in German


def screen_text(app: TaluvaApp) -> str:
    """Every word the game screen shows: its panels, its messages and the keys in its footer."""
    parts = [str(widget.render()) for widget in app.screen.query(Static)]
    for active in app.screen.active_bindings.values():
        if active.binding.show:
            parts.append(active.binding.description)
    return "\n".join(parts)


def test_the_full_screen_game_speaks_german_under_a_german_locale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    set_locale(monkeypatch, LANG="de_DE.UTF-8")
    lang = language([])
    assert lang == "de"

    async def play() -> None:
        with use(lang):
            seats = parse_seats("human,ai:1")
            game = Game.new(players=[seat.name for seat in seats], seed=8)
            app = TaluvaApp(Session(game, seats, seed=8), ai_delay=0)
            async with app.run_test(size=(120, 40)) as pilot:
                await settle(app, pilot)
                shown = screen_text(app)
                assert "Hütten" in shown and "Tempel" in shown and "Türme" in shown
                assert "lege das Plättchen" in shown  # the status line: what to do now
                assert "Drehen" in shown and "Rückgängig" in shown  # the keys
                for english in ENGLISH_WORDS:
                    assert english not in shown, english

                refused = "tile 9,9 0"
                reason = app.game.explain(Move.parse(refused))
                assert reason is not None
                await pilot.press("colon", *refused, "enter")
                await pilot.pause()
                german = say(reason, "de")
                assert german != str(reason)  # the engine's words, in German
                assert app.message.startswith("Nicht gespielt: tile 9,9 0: " + german)
                assert app.message in screen_text(app)

    asyncio.run(play())


def test_the_line_mode_game_speaks_german(monkeypatch: pytest.MonkeyPatch) -> None:
    set_locale(monkeypatch, LANG="de_DE.UTF-8")
    with use(language([])):
        seats = parse_seats("human,human")
        session = Session(Game.new(players=[s.name for s in seats], seed=2), seats, seed=2)
        out = io.StringIO()
        code = run_plain(session, io.StringIO("hut 0,0\nmoves\nquit\n"), out)
        words = _("Type 'help' for the commands.")
    text = out.getvalue()
    assert code == 0
    assert words in text and words != "Type 'help' for the commands."
    assert "Spieler 1" in text and "Hütten" in text and "Nicht gespielt:" in text
    for english in ("Not played", "placed", "huts", "legal moves", "Game left unfinished"):
        assert english not in text, english


# ------------------------------------------------------------------------- the rules in French


def test_rules_with_lang_fr_prints_french(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    set_locale(monkeypatch, LANG="C.UTF-8")
    code, english, _err = run(capsys, "rules", "eruption")
    assert code == 0 and "Picture 1: " in english
    code, french, _err = run(capsys, "rules", "eruption", "--lang", "fr")
    assert code == 0
    assert "Image 1 : " in french and "Picture 1" not in french
    assert french != english
    code, french_list, _err = run(capsys, "rules", "--list", "--lang", "fr")
    assert code == 0 and "(seulement dans les parties avec ships)" in french_list


def test_the_ais_moves_are_told_in_german_though_it_thinks_in_another_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    set_locale(monkeypatch, LANG="de_DE.UTF-8")

    async def play() -> None:
        with use(language([])):
            seats = parse_seats("ai:1,human")
            game = Game.new(players=[seat.name for seat in seats], seed=3)
            app = TaluvaApp(Session(game, seats, seed=3), ai_delay=0)
            async with app.run_test(size=(120, 40)) as pilot:
                await settle(app, pilot)
                assert app.message == f"KI 1 spielte {app.game.moves[-1]}."
                await pilot.press("h")  # the hint, asked in a worker thread too
                for _attempt in range(100):
                    await pilot.pause(0.05)
                    if app.message.startswith("Tipp: "):
                        break
                assert app.message.startswith("Tipp: ")
                assert "die KI bewertet deine Stellung mit 0," in app.message

    asyncio.run(play())


def test_the_line_mode_lesson_speaks_german(monkeypatch: pytest.MonkeyPatch) -> None:
    from taluva.learn.tutorial import load_tutorial
    from taluva.terminal.lesson import LessonSession, run_plain_lesson

    set_locale(monkeypatch, LANG="de_DE.UTF-8")
    with use(language([])):
        out = io.StringIO()
        code = run_plain_lesson(LessonSession(load_tutorial()), io.StringIO("xyz\nquit\n"), out)
    text = out.getvalue()
    assert code == 0
    assert "Schritt 1 von " in text and "Nicht erlaubt: " in text
    assert "Gib 'hint' ein, um den Zug zu sehen." in text
    for english in ("Step 1 of", "Not allowed", "Type 'hint'", "Lesson left unfinished"):
        assert english not in text, english
