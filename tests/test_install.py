"""``pip install taluva`` without extras: the engine's commands and the engine protocol work,
and every command that needs an extra says which one, in one line.

The command line runs in a subprocess whose imports of anything but the standard library and
``taluva`` fail as they would on a machine where no extra is installed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from taluva import Game
from taluva.engine.perft import perft
from taluva.render.svg import svg_board

NO_EXTRAS = '''\
import sys

ALLOWED = set(sys.stdlib_module_names) | {"taluva", "sitecustomize"}


class NoExtras:
    """Refuse every module outside the standard library and taluva, as if not installed."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] not in ALLOWED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NoExtras)
'''


def two_plies() -> Game:
    """A game two plies in: a tile placed and a building on it."""
    game = Game.new(players=2, seed=3)
    for _ in range(2):
        game.play(min(game.legal_moves(), key=str))
    return game


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a game record, whose ``sitecustomize`` removes every extra."""
    folder = tmp_path_factory.mktemp("bare")
    (folder / "sitecustomize.py").write_text(NO_EXTRAS, encoding="utf-8")
    record = json.dumps(two_plies().to_record())
    (folder / "game.json").write_text(record, encoding="utf-8")
    (folder / "games.jsonl").write_text(record + "\n", encoding="utf-8")
    return folder


def taluva(bare: Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``python -m taluva ARGV`` in ``bare`` with no extra importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(bare), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.run(
        [sys.executable, "-m", "taluva", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=bare,
        env=env,
        check=False,
        timeout=120,
    )


def test_moves_and_perft_need_no_extra(bare: Path) -> None:
    moves = taluva(bare, "moves", "game.json")
    expected = "".join(f"{text}\n" for text in sorted(map(str, two_plies().legal_moves())))
    assert (moves.returncode, moves.stdout, moves.stderr) == (0, expected, "")
    counted = taluva(bare, "perft", "game.json", "2")
    assert (counted.returncode, counted.stdout) == (0, f"{perft(two_plies(), 2)}\n")


def test_show_as_text_and_as_svg_needs_no_extra(bare: Path) -> None:
    game = two_plies()
    text = taluva(bare, "show", "game.json")
    assert (text.returncode, text.stderr) == (0, "")
    assert text.stdout.endswith(f"Ply 2 of 2, last move {game.moves[-1]}\n")
    svg = taluva(bare, "show", "game.json", "--svg", "-")
    assert (svg.returncode, svg.stdout, svg.stderr) == (0, svg_board(game), "")


def test_rules_with_their_text_boards_need_no_extra(bare: Path) -> None:
    rules = taluva(bare, "rules", "turn")
    assert (rules.returncode, rules.stderr) == (0, "")
    assert rules.stdout.startswith("Each picture is drawn as in 'taluva play --plain'")
    assert "Your turn\n=========" in rules.stdout and "***" in rules.stdout


def test_the_engine_protocol_needs_no_extra(bare: Path) -> None:
    done = taluva(bare, "engine", stdin="newgame players=2 seed=1\nbestmove iterations 5\nquit\n")
    assert (done.returncode, done.stderr) == (0, "")
    ok, move, ok_again, ok_last = done.stdout.splitlines()
    assert (ok, ok_again, ok_last) == ("ok", "ok", "ok")
    assert Game.new(players=2, seed=1).is_legal(move)


def missing(what: str, extra: str, alternative: str = "") -> re.Pattern[str]:
    """The one error line of a command whose extra is not installed."""
    return re.compile(
        rf"taluva: error: {re.escape(what)} \(No module named '\w+'\): "
        rf"pip install 'taluva\[{extra}\]'{re.escape(alternative)}\n"
    )


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["play"], missing("the full-screen game needs Textual", "terminal", ", or use --plain")),
        (["replay", "game.json"], missing(
            "the full-screen game needs Textual", "terminal", ", or use --plain")),
        (["serve"], missing("the game server needs FastAPI, uvicorn and SQLAlchemy", "server")),
        (["arena", "random", "greedy"], missing("the arena needs openskill and tqdm", "ai")),
        (["export", "games.jsonl", "-o", "samples.npz"], missing(
            "taluva export needs NumPy", "research")),
        (["show", "game.json", "--png", "board.png"], missing(
            "PNG pictures need the 'png' extra", "png")),
    ],
)  # fmt: skip
def test_a_command_whose_extra_is_missing_names_the_extra_in_one_line(
    bare: Path, argv: list[str], error: re.Pattern[str]
) -> None:
    done = taluva(bare, *argv)
    assert (done.returncode, done.stdout) == (2, "")
    assert error.fullmatch(done.stderr), done.stderr
