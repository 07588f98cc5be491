"""The ``taluva`` command line: exact outputs on the base perft records, and every error path."""

from __future__ import annotations

import gc
import io
import json
import random
import re
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any

import pytest

import taluva
from taluva import Game, cli
from taluva.ai.levels import LEVELS
from taluva.cli import engine as engine_commands
from taluva.engine.options import PLAYER_COUNTS

PERFT_TABLE = Path(__file__).resolve().parent / "data" / "perft" / "base.jsonl"
ENTRIES: dict[str, dict[str, Any]] = {
    entry["id"]: entry
    for entry in map(json.loads, PERFT_TABLE.read_text(encoding="utf-8").splitlines())
}
RATE_LINE = re.compile(
    r"perft (\d+): ([\d,]+) leaves in \d+\.\d{3} s \((?:[\d,]+ leaves/s|too fast to time)\)"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command line in-process: exit code, standard output, standard error."""
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write_record(tmp_path: Path, record: Any, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(record), encoding="utf-8")
    return str(path)


def finished_game(seed: int) -> Game:
    game = Game.new(players=2, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return game


def assert_one_error_line(out: str, err: str, message: str) -> None:
    assert out == ""
    assert err == f"taluva: error: {message}\n"
    assert "Traceback" not in err


# --------------------------------------------------------------------------- moves


def test_moves_prints_the_sorted_canonical_moves_and_nothing_else(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_record(tmp_path, ENTRIES["p2-s11-ply3"]["record"])
    assert run(capsys, "moves", path) == (0, "hut -1,1\nhut -1,2\nhut -2,2\n", "")


def test_moves_lists_as_many_moves_as_perft_one_for_every_table_position(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name, entry in ENTRIES.items():
        path = write_record(tmp_path, entry["record"], f"{name}.json")
        code, out, err = run(capsys, "moves", path)
        lines = out.splitlines()
        assert (code, err) == (0, ""), name
        assert len(lines) == entry["perft"]["1"], name
        assert lines == sorted(lines), name
        assert [str(taluva.Move.parse(line)) for line in lines] == lines, name


def test_moves_reads_the_record_from_standard_input_given_a_dash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    record = Game.new(players=2, deck=["JC", "SR", "LL"]).to_record()
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(record)))
    expected = "".join(f"tile 0,0 {k}\n" for k in range(6))
    assert run(capsys, "moves", "-") == (0, expected, "")


def test_moves_of_a_finished_game_prints_nothing_and_says_why_on_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    game = finished_game(seed=4)
    assert game.result is not None
    path = write_record(tmp_path, game.to_record())
    reason = game.result.reason
    assert run(capsys, "moves", path) == (0, "", f"taluva: the game is over ({reason}): no moves\n")


# --------------------------------------------------------------------------- perft


def test_perft_prints_the_table_count_at_every_listed_depth(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name, entry in ENTRIES.items():
        path = write_record(tmp_path, entry["record"], f"{name}.json")
        for depth, expected in entry["perft"].items():
            code, out, err = run(capsys, "perft", path, depth)
            assert (code, out) == (0, f"{expected}\n"), (name, depth)
            match = RATE_LINE.fullmatch(err.rstrip("\n"))
            assert match is not None, err
            assert match.groups() == (depth, f"{expected:,}")


def test_perft_divide_prints_each_first_move_then_the_total(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_record(tmp_path, ENTRIES["p2-s11-ply3"]["record"])
    code, out, _ = run(capsys, "perft", path, "3", "--divide")
    assert code == 0
    assert out == "hut -1,1: 360\nhut -1,2: 360\nhut -2,2: 360\ntotal: 1080\n"


def test_perft_divide_counts_sum_to_the_table_total_for_every_position(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name, entry in ENTRIES.items():
        path = write_record(tmp_path, entry["record"], f"{name}.json")
        code, out, _ = run(capsys, "perft", path, "2", "--divide")
        *lines, total = out.splitlines()
        counts = {text: int(count) for text, count in (line.split(": ") for line in lines)}
        assert code == 0
        assert list(counts) == sorted(counts), name
        assert len(counts) == entry["perft"]["1"], name
        assert total == f"total: {entry['perft']['2']}", name
        assert sum(counts.values()) == entry["perft"]["2"], name


def test_perft_progress_reports_each_finished_first_move_on_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_record(tmp_path, ENTRIES["p2-s11-ply3"]["record"])
    code, out, err = run(capsys, "perft", path, "3", "--progress")
    *progress, rate = err.splitlines()
    assert (code, out) == (0, "1080\n")
    assert [re.sub(r"\(\d+\.\d s\)$", "(T)", line) for line in progress] == [
        "[1/3] hut -1,1: 360 (T)",
        "[2/3] hut -1,2: 360 (T)",
        "[3/3] hut -2,2: 360 (T)",
    ]
    assert RATE_LINE.fullmatch(rate)


def test_perft_shows_progress_by_default_only_when_stderr_is_a_terminal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_record(tmp_path, ENTRIES["p2-s16-ply1"]["record"])
    _, _, piped = run(capsys, "perft", path, "2")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    _, _, terminal = run(capsys, "perft", path, "2")
    _, _, refused = run(capsys, "perft", path, "2", "--no-progress")
    assert len(piped.splitlines()) == 1
    assert [line[:5] for line in terminal.splitlines()] == ["[1/2]", "[2/2]", "perft"]
    assert len(refused.splitlines()) == 1


def test_perft_interrupted_exits_130_without_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(game: Game, depth: int) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(engine_commands, "perft", interrupted)
    path = write_record(tmp_path, ENTRIES["p2-s11-ply3"]["record"])
    assert run(capsys, "perft", path, "3") == (130, "", "taluva: interrupted\n")


# --------------------------------------------------------------------------- demo and new

TURN = re.compile(r" *(\d+)\. (Player \d): (.+?)( - cannot build, eliminated)?")


@pytest.mark.parametrize(
    ("options", "players", "expansions"),
    [
        ([], 2, []),
        (["--players", "3", "--expansion", "ships"], 3, ["ships"]),
        (["--expansion", "double_hex"], 2, ["double_hex"]),
    ],
)
def test_demo_prints_a_whole_game_that_replays_to_the_printed_board_and_result(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    options: list[str],
    players: int,
    expansions: list[str],
) -> None:
    saved = tmp_path / "demo.json"
    code, out, err = run(capsys, "demo", "--seed", "5", *options, "-o", str(saved))
    lines = out.splitlines()
    assert (code, err) == (0, "")
    replay = " ".join([f"--players {players} --seed 5", *(f"--expansion {e}" for e in expansions)])
    assert lines[0] == (
        f"Taluva: {players} random players, seed 5 (same game again: taluva demo {replay})"
    )
    turns = [match for line in lines if (match := TURN.fullmatch(line))]
    game = Game.new(players=players, seed=5, expansions=expansions)
    for number, match in enumerate(turns, start=1):
        assert int(match[1]) == number
        assert match[2] == game.players[game.to_move]
        for text in match[3].split(", "):
            game.play(text)
        assert (match[4] is not None) == (game.eliminated[-1:] == (game.players.index(match[2]),))
    assert game.result is not None
    assert str(game) in out
    headline, ranking = game.result_in_words()
    assert lines[-1 - players :] == [headline, *(f"  {line}" for line in ranking)]
    assert "score" not in out.lower()
    assert json.loads(saved.read_text(encoding="utf-8")) == game.to_record()


def test_demo_ends_with_who_won_why_and_each_place_in_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "demo", "--seed", "5")
    assert code == 0
    assert out.splitlines()[-3:] == [
        "Player 1 wins: no tile was left to take; as many temples (0), then as many towers (0), "
        "then most huts built (13 against 12)",
        "  1st Player 1: 0 temples, 0 towers, 13 huts placed",
        "  2nd Player 2: 0 temples, 0 towers, 12 huts placed",
    ]


def test_demo_with_the_same_seed_plays_the_same_game(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "demo", "--players", "4", "--seed", "11")
    second = run(capsys, "demo", "--players", "4", "--seed", "11")
    assert first == second
    assert first[1].startswith("Taluva: 4 random players, seed 11 ")
    assert "(a = Player 1, b = Player 2, c = Player 3, d = Player 4)" in first[1]


def test_new_writes_the_record_of_the_seeded_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "new", "--players", "3", "--seed", "1")
    assert (code, err) == (0, "")
    assert json.loads(out) == Game.new(players=3, seed=1).to_record()


def test_new_passes_tiles_per_player_and_house_rules_to_the_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "long.json"
    argv = ["new", "--seed", "2", "--tiles-per-player", "24", "--house-rule", "adjacent_hut"]
    assert run(capsys, *argv, "-o", str(path)) == (0, "", "")
    record = json.loads(path.read_text(encoding="utf-8"))
    expected = Game.new(seed=2, tiles_per_player=24, house_rules=["adjacent_hut"]).to_record()
    assert record == expected
    assert len(record["deck"]) == 48
    assert record["options"]["house_rules"] == ["adjacent_hut"]


# --------------------------------------------------------------------------- errors


def test_a_missing_record_file_is_an_input_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "absent.json"
    code, out, err = run(capsys, "moves", str(path))
    assert code == 1
    assert_one_error_line(out, err, f"{path}: cannot read (No such file or directory)")


def test_a_directory_given_as_record_is_an_input_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "perft", str(tmp_path), "1")
    assert code == 1
    assert_one_error_line(out, err, f"{tmp_path}: is a directory, not a game record")


def test_a_record_that_is_not_json_is_an_input_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": ', encoding="utf-8")
    code, out, err = run(capsys, "moves", str(path))
    assert code == 1
    assert_one_error_line(
        out, err, f"{path}: not valid JSON (Expecting value: line 1 column 12 (char 11))"
    )


def test_a_record_that_is_not_utf8_is_an_input_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"players": ["Jos\xe9"]}')
    code, out, err = run(capsys, "moves", str(path))
    assert code == 1
    assert_one_error_line(out, err, f"{path}: not UTF-8 text")


def test_a_json_list_is_not_a_record(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("[1, 2]"))
    code, out, err = run(capsys, "moves", "-")
    assert code == 1
    assert_one_error_line(out, err, "<stdin>: a record is a JSON object, not list")


def test_an_illegal_move_in_a_record_is_named_by_its_index_and_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record = dict(ENTRIES["p2-s11-ply3"]["record"])
    record["moves"] = [*record["moves"], "hut 9,9"]
    path = write_record(tmp_path, record)
    why = Game.from_record(ENTRIES["p2-s11-ply3"]["record"]).explain("hut 9,9")
    code, out, err = run(capsys, "perft", path, "2")
    assert code == 1
    assert_one_error_line(out, err, f"{path}: moves[3] hut 9,9: {why}")


def see(command: str) -> str:
    return f" (see 'taluva {command} --help')"


COMMANDS = (
    "moves, perft, demo, new, serve, ai-worker, backup, restore, play, replay, show, learn, "
    "rules, puzzles, puzzle, hint, review, arena, engine, export"
)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], f"no command given: choose one of {COMMANDS} (see 'taluva --help')"),
        (["fly"], f"unknown command 'fly': choose one of {COMMANDS}"),
        (["--fast"], "unrecognized arguments: --fast (see 'taluva --help')"),
        (["moves"], "the following arguments are required: RECORD" + see("moves")),
        (["moves", "g.json", "--all"], "unrecognized arguments: --all" + see("moves")),
        (["perft", "g.json", "deep"], "argument DEPTH: expected a whole number, got 'deep'"
         + see("perft")),
        (["perft", "g.json", "0"], "argument DEPTH: expected 1 or more, got 0" + see("perft")),
        (["perft", "g.json", "-2"], "argument DEPTH: expected 1 or more, got -2" + see("perft")),
        (["demo", "--players", "1"], "argument --players: expected 2 or more, got 1"
         + see("demo")),
        (["demo", "--players", "6"], "players is 6: Taluva is for 2 to 5 players"),
        (["new", "--seed", "x"], "argument --seed: invalid int value: 'x'" + see("new")),
        (["new", "--house-rule", "no_volcanoes"],
         "unknown house rule 'no_volcanoes': choose from adjacent_hut, all_tiles"),
        (["new", "--players", "3", "--tiles-per-player", "18"],
         "18 tiles per player is for two players only; a 3-player game uses 12"),
    ],
)  # fmt: skip
def test_a_wrong_command_line_is_a_usage_error_on_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert_one_error_line(out, err, message)


def test_an_unknown_expansion_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(taluva.InvalidOption) as raised:
        Game.new(expansions=["moon"])
    code, out, err = run(capsys, "new", "--expansion", "moon")
    assert code == 2
    assert_one_error_line(out, err, str(raised.value))


def test_an_unwritable_output_file_is_an_input_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "no" / "such" / "dir.json"
    code, out, err = run(capsys, "new", "-o", str(path))
    assert code == 1
    assert out == ""
    assert err.startswith(f"taluva: error: {path}") and "No such file or directory" in err
    assert err.count("\n") == 1


# --------------------------------------------------------------------------- help and version


def test_help_teaches_commands_examples_and_exit_codes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for word in ("moves", "perft", "demo", "new", "examples:", "exit codes:", "130"):
        assert word in out
    for command in ("moves", "perft", "demo", "new"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0
        assert f"usage: taluva {command}" in out
        assert "examples:\n  taluva " + command in out
        assert "exit codes:\n  0    success\n  1    an input file" in out


@pytest.mark.parametrize(
    ("command", "text"),
    [
        ("hint", "--level N   AI level {levels} (default 5)"),
        ("engine", "--level N   level {levels} of a 'bestmove'"),
        ("arena", "level:N ({levels})"),
        ("play", "AI level of the hints, {levels}"),
        ("play", "seats (--players, {players}, comma-separated)"),
        ("play", "the AI at level {first} (quick) to {last} (on every core)"),
        ("serve", "AI level of the hint button, {levels} (default 3)"),
        ("demo", "number of players, {players} (default 2)"),
        ("new", "number of players, {players} (default 2)"),
    ],
)
def test_help_names_the_levels_and_player_counts_of_the_tables(
    capsys: pytest.CaptureFixture[str], command: str, text: str
) -> None:
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    levels, counts = sorted(LEVELS), list(PLAYER_COUNTS)
    expected = text.format(
        levels=f"{levels[0]}-{levels[-1]}",
        first=levels[0],
        last=levels[-1],
        players=f"{counts[0]} to {counts[-1]}",
    )
    assert " ".join(expected.split()) in " ".join(out.split())  # wrapped or not


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--version") == (0, f"taluva {taluva.__version__}\n", "")


def test_the_installed_console_script_runs_without_tracebacks(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("taluva")
    path = write_record(tmp_path, ENTRIES["p2-s17-ply0"]["record"])
    done = subprocess.run(
        [str(script), "perft", path, "3", "--divide"], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout.splitlines()[-1]) == (0, "total: 864")
    assert len(done.stdout.splitlines()) == 7
    failed = subprocess.run(
        [str(script), "perft", path, "three"], capture_output=True, text=True, check=False
    )
    assert (failed.returncode, failed.stdout) == (2, "")
    assert failed.stderr == (
        "taluva: error: argument DEPTH: expected a whole number, got 'three' "
        "(see 'taluva perft --help')\n"
    )


def test_the_server_process_collects_garbage_less_often_and_freezes_what_it_loaded() -> None:
    from taluva.cli.server import GC_THRESHOLDS, tune_garbage_collector

    before = gc.get_threshold()
    try:
        tune_garbage_collector()
        assert gc.get_threshold() == GC_THRESHOLDS
        assert GC_THRESHOLDS[0] > before[0]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


class _Node:
    """An object in a reference cycle, which only the garbage collector can free."""

    def __init__(self) -> None:
        self.me = self


def _wait_for(condition: Any, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_the_server_process_freezes_what_survives_and_thaws_it_to_free_dead_cycles() -> None:
    """Frozen objects are out of the collector's walks (a dead cycle among them survives a
    collection); the periodic thaw collects them again, so such a cycle is freed."""
    from taluva.cli.server import freeze_survivors

    gc.unfreeze()
    node = _Node()
    alive = weakref.ref(node)
    frozen_before = gc.get_freeze_count()
    stop = threading.Event()
    freezer = freeze_survivors(stop, every=0.01, thaw_every=3600)
    try:
        assert _wait_for(lambda: gc.get_freeze_count() > frozen_before)
        del node
        gc.collect()
        assert alive() is not None
    finally:
        stop.set()
        freezer.join()
    stop = threading.Event()
    freezer = freeze_survivors(stop, every=0.01, thaw_every=0.05)
    try:
        assert _wait_for(lambda: alive() is None)
    finally:
        stop.set()
        freezer.join()
        gc.unfreeze()


# --------------------------------------------------------------------------- rules


def test_rules_lists_every_section_of_the_guide(capsys: pytest.CaptureFixture[str]) -> None:
    from taluva.learn.guide import load_guide

    code, out, err = run(capsys, "rules", "--list")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(load_guide().ids)
    assert "eruption    A volcanic eruption" in lines
    assert "ships       With ships (only in games with ships)" in lines


def test_rules_prints_a_section_with_its_pictures_as_boards_and_the_engines_refusals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from taluva.learn.guide import load_guide, plain

    section = load_guide().section("eruption")
    code, out, err = run(capsys, "rules", "eruption")
    assert (code, err) == (0, "")
    assert section.plain_text() in out
    flat = " ".join(out.split())
    for number, picture in enumerate(section.pictures, start=1):
        assert f"Picture {number}: {plain(picture.caption)}" in flat
        game = picture.replay()
        if picture.refused is not None:
            assert f"Refused: {game.explain(picture.refused)}." in flat
    assert out.count("***") >= len(section.pictures)  # each picture marks its move
    assert "| 0,0   |" in out or "|  0,0  |" in out  # a board with its coordinates
    assert "With ships" not in out


def test_rules_without_boards_prints_the_words_of_every_section(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from taluva.learn.guide import load_guide

    code, out, _ = run(capsys, "rules", "--no-boards")
    assert code == 0
    for section in load_guide().sections:
        assert section.plain_text() in out
    assert "***" not in out and "|" not in out


def test_rules_of_an_unknown_section_says_which_exist(capsys: pytest.CaptureFixture[str]) -> None:
    from taluva.learn.guide import load_guide

    code, out, err = run(capsys, "rules", "volcanoes")
    assert code == 2
    expected = f"no section 'volcanoes': choose one of {', '.join(load_guide().ids)}"
    assert_one_error_line(out, err, expected)


def test_rules_markdown_is_the_guide_block_and_writes_it_into_a_page(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from taluva.learn.guide import MARKDOWN_END, MARKDOWN_START, load_guide

    block = load_guide().markdown()
    assert run(capsys, "rules", "--markdown") == (0, block, "")
    page = tmp_path / "rules.md"
    page.write_text(f"# Rules\n\n{MARKDOWN_START}\nold words\n{MARKDOWN_END}\n\n## More\n")
    assert run(capsys, "rules", "--markdown", "--into", str(page)) == (0, "", "")
    assert page.read_text() == f"# Rules\n\n{block}\n## More\n"
    bare = tmp_path / "bare.md"
    bare.write_text("# Rules\n")
    code, out, err = run(capsys, "rules", "--markdown", "--into", str(bare))
    assert code == 1
    assert_one_error_line(
        out, err, f"{bare}: no lines {MARKDOWN_START} ... {MARKDOWN_END} to write the guide in"
    )
    code, out, err = run(capsys, "rules", "--into", str(page))
    assert code == 2
    assert_one_error_line(out, err, "--into FILE goes with --markdown")
