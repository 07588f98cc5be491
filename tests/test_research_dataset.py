"""Datasets: streaming JSON Lines records, and exporting training samples."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import numpy as np
import pytest

from taluva import Game, InvalidRecord
from taluva.cli import main
from taluva.research.actions import action_space, returns_of
from taluva.research.dataset import (
    ExportStats,
    export_npz,
    load_npz,
    read_games,
    read_records,
    training_samples,
)


def finished_game(seed: int, players: int = 2) -> Game:
    rng = random.Random(seed)
    game = Game.new(players=players, seed=seed)
    while not game.is_over:
        game.play(game.random_move(rng))
    return game


def jsonl(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_records_stream_one_per_line_with_arena_keys_kept_apart(tmp_path: Path) -> None:
    first, second = finished_game(1), finished_game(2)
    arena_line = {"game": 0, "agents": ["random", "greedy"], "record": first.to_record()}
    plain_line = {**second.to_record(), "note": "by hand"}
    path = jsonl(tmp_path, [json.dumps(arena_line), "", json.dumps(plain_line)])
    entries = list(read_records(path))
    assert [(e.line, e.extra) for e in entries] == [
        (1, {"game": 0, "agents": ["random", "greedy"]}),
        (3, {"note": "by hand"}),
    ]
    assert entries[1].where == f"{path}:3"
    games = list(read_games(path))
    assert [g.to_record() for g in games] == [first.to_record(), second.to_record()]


def test_a_bad_line_is_named_by_file_and_line(tmp_path: Path) -> None:
    good = json.dumps(finished_game(1).to_record())
    with pytest.raises(InvalidRecord, match=r"games\.jsonl:2: not valid JSON"):
        list(read_records(jsonl(tmp_path, [good, "{oops"])))
    with pytest.raises(InvalidRecord, match=r":1: a line holds one game record .* not list"):
        list(read_records(io.StringIO("[1, 2]\n")))
    broken = finished_game(1).to_record()
    broken["moves"][3] = "hut 40,40"
    with pytest.raises(InvalidRecord, match=r"<stream>:1: moves\[3\] hut 40,40"):
        list(read_games(io.StringIO(json.dumps(broken) + "\n")))
    with pytest.raises(InvalidRecord, match="cannot read"):
        list(read_records(tmp_path / "missing.jsonl"))


def test_samples_are_every_move_seen_by_its_mover_with_the_final_value() -> None:
    game = finished_game(3, players=3)
    assert game.result is not None
    space = action_space()
    values = returns_of(game.result, 3)
    samples = list(training_samples([game]))
    assert [s.ply for s in samples] == list(range(game.ply))
    replay = Game.new(players=3, deck=game.deck)
    for sample, move in zip(samples, game.moves, strict=True):
        assert sample.player == replay.to_move
        assert sample.value == values[sample.player]
        assert sample.action in sample.legal
        assert space.decode(replay, sample.action) == move
        replay.play(move)


def test_unfinished_games_and_games_leaving_the_window_are_counted_not_exported() -> None:
    unfinished = Game.new(players=2, seed=4)
    unfinished.play("tile 0,0 0")
    wide = finished_game(5)
    stats = ExportStats()
    samples = list(training_samples([unfinished, wide], radius=2, stats=stats))
    assert (stats.games, stats.unfinished, stats.outside_window) == (1, 1, 1)
    assert 0 < len(samples) == stats.samples < wide.ply


def test_export_writes_samples_that_load_back(tmp_path: Path) -> None:
    games = [finished_game(6), finished_game(7)]
    path = tmp_path / "samples.npz"
    stats = export_npz(games, path, radius=12)
    data = load_npz(path)
    count = games[0].ply + games[1].ply
    assert stats.samples == count
    assert data["planes"].shape == (count, 39, 25, 25) and data["planes"].dtype == np.uint8
    assert data["legal"].shape == (count, 18292)
    assert data["legal"][np.arange(count), data["action"]].all()
    assert list(data["game"][[0, -1]]) == [0, 1]
    assert str(data["channels"][0]) == "window" and int(data["radius"]) == 12
    with pytest.raises(ValueError, match="game 2 has 3 players, the first had 2"):
        export_npz([games[0], finished_game(8, players=3)], tmp_path / "mixed.npz")


def test_export_command_turns_records_into_samples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = jsonl(tmp_path, [json.dumps({"record": finished_game(9).to_record()})])
    out = tmp_path / "out.npz"
    assert main(["export", str(records), "-o", str(out), "--radius", "10"]) == 0
    assert "samples from 1 games written to" in capsys.readouterr().err
    assert int(load_npz(out)["radius"]) == 10
    assert main(["export", str(tmp_path / "none.jsonl"), "-o", str(out)]) == 1
    assert "none.jsonl: cannot read" in capsys.readouterr().err
    assert main(["export", str(records), "-o", str(out), "--radius", "1"]) == 2
    assert "--radius 1: choose a whole number, 2 or more" in capsys.readouterr().err
