"""Game review (``taluva.ai.review`` and ``taluva review``): a known blunder is flagged, the
JSON has the documented shape, and bad input is refused with a clear error.

The game of tests/data/review_blunder.json is greedy self-play (seed 39) where Ana, at move
42, could win at once with ``expand rock 1,0`` (her last piece of a second kind) and instead
played ``expand clearing -1,0``; Ben went on to win when the tiles ran out.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from taluva import Game, cli
from taluva.ai.review import position_chances, review, sparkline

BLUNDER_GAME = Path(__file__).resolve().parent / "data" / "review_blunder.json"
BLUNDER_PLY = 41
ITERATIONS = 60


@pytest.fixture(scope="module")
def game() -> Game:
    return Game.load(BLUNDER_GAME)


def test_the_record_holds_a_win_given_away(game: Game) -> None:
    before = game.copy()
    while before.ply > BLUNDER_PLY:
        before.pop()
    winning = before.copy()
    winning.play("expand rock 1,0")
    assert winning.result is not None and winning.result.ranking[0] == (0,)
    assert str(game.moves[BLUNDER_PLY]) == "expand clearing -1,0"
    assert game.result is not None and game.result.ranking[0] == (1,)


def test_the_move_that_gives_away_the_win_is_a_blunder_and_the_win_is_shown(game: Game) -> None:
    found = review(game, iterations=ITERATIONS, first=BLUNDER_PLY - 2, last=BLUNDER_PLY + 3)
    marked = {m.ply: m for m in found.moves if m.mark}
    assert list(marked) == [BLUNDER_PLY]
    blunder = marked[BLUNDER_PLY]
    assert blunder.mark == "blunder"
    assert blunder.player == 0
    assert blunder.before == 1.0  # the winning build wins at once
    assert blunder.loss >= 0.25
    assert blunder.best == ("expand rock 1,0",)


def test_a_move_the_search_itself_prefers_is_never_marked(game: Game) -> None:
    # With a handful of iterations no plan is visited often enough for the search's own value
    # of it to count, so a move's *after* comes from the next position's search; that noise
    # must not mark the very move the search would play, with itself as the "better" plan.
    found = review(game, iterations=3)
    marked = [m for m in found.moves if m.mark]
    assert marked, "a short search of this game still marks some moves"
    assert all(m.best[0] != m.move for m in marked), [
        (m.ply, m.move) for m in marked if m.best[0] == m.move
    ]


def test_thresholds_decide_the_mark(game: Game) -> None:
    strict = review(
        game, iterations=ITERATIONS, first=BLUNDER_PLY, last=BLUNDER_PLY + 1, blunder=0.95
    )
    assert strict.moves[0].mark == "mistake"


def test_the_json_has_the_documented_shape(game: Game, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        [
            "review",
            str(BLUNDER_GAME),
            "--iterations",
            str(ITERATIONS),
            "--from",
            "41",
            "--to",
            "43",
            "--json",
            "--no-progress",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    data = json.loads(out)
    assert set(data) == {"players", "iterations", "thresholds", "moves", "chances", "result"}
    assert data["players"] == ["Ana", "Ben"]
    assert data["iterations"] == ITERATIONS
    assert data["thresholds"] == {"mistake": 0.1, "blunder": 0.25}
    assert [m["ply"] for m in data["moves"]] == [40, 41, 42]
    for move in data["moves"]:
        assert set(move) == {"ply", "player", "move", "before", "after", "loss", "mark", "best"}
        assert 0 <= move["after"] <= 1 and 0 <= move["before"] <= 1
        assert move["loss"] == round(max(0.0, move["before"] - move["after"]), 4)
        assert (move["best"] is None) == (move["mark"] is None)
    assert data["moves"][1]["mark"] == "blunder"
    assert data["moves"][1]["best"] == ["expand rock 1,0"]
    assert len(data["chances"]) == len(data["moves"]) + 1
    assert all(len(row) == 2 and abs(sum(row) - 1) < 1e-3 for row in data["chances"])
    assert data["result"] == {"ranking": [[1], [0]], "reason": "tiles"}


def test_the_text_review_names_the_blunder_and_draws_a_chart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli.main(
        [
            "review",
            str(BLUNDER_GAME),
            "--iterations",
            str(ITERATIONS),
            "--from",
            "42",
            "--to",
            "42",
            "--progress",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert "42. Ana" in out and "BLUNDER" in out and "better: expand rock 1,0" in out
    assert "Ana 1, Ben 0" in out
    assert "Ana █" in out and "Ben ▁" in out
    assert "reviewing: position 2 of 2" in err  # progress on standard error only
    assert "reviewing" not in out


def test_a_bad_record_is_refused_naming_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = json.loads(BLUNDER_GAME.read_text(encoding="utf-8"))
    record["moves"][5] = "tile 40,40 0"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code = cli.main(["review", str(path)])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert "broken.json" in err and "moves[5]" in err


def test_options_that_make_no_sense_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["review", str(BLUNDER_GAME), "--from", "50", "--to", "60"]) == 2
    assert "has moves 1 to 48" in capsys.readouterr().err
    assert cli.main(["review", str(BLUNDER_GAME), "--mistake", "0.3", "--blunder", "0.2"]) == 2
    assert "a blunder is the bigger loss" in capsys.readouterr().err


def test_sparkline_maps_chances_to_blocks() -> None:
    assert sparkline([0.0, 0.5, 1.0]) == "▁▅█"


def test_the_live_win_chance_of_a_position_is_the_reviews(game: Game) -> None:
    reviewed = review(game, iterations=ITERATIONS, first=BLUNDER_PLY - 1, last=BLUNDER_PLY + 1)
    position = game.copy()
    while position.ply > BLUNDER_PLY - 1:
        position.pop()
    for row in reviewed.chances:
        assert position_chances(position, ITERATIONS) == pytest.approx(row, abs=1e-12)
        if position.ply < game.ply:
            position.push(game.moves[position.ply])
    finished = game.copy()
    assert position_chances(finished) == (0.0, 1.0)
    with pytest.raises(ValueError, match="iterations=0"):
        position_chances(finished, 0)


def test_a_resignation_counts_where_it_happened_in_the_review() -> None:
    game = Game.new(players=["Ana", "Ben", "Cy"], seed=3)
    rng = random.Random(3)
    movers = []
    for moves, leaving in ((6, "Cy"), (4, "Ana")):
        for _ in range(moves):
            movers.append(game.to_move)
            game.play(rng.choice(sorted(str(m) for m in game.legal_moves())))
        game.resign(leaving)
    assert game.result is not None

    reviewed = review(game, iterations=3)

    # each move is replayed for the player who made it: Cy is out after the sixth
    assert [m.player for m in reviewed.moves] == movers
    assert 2 not in movers[6:]
    # Ben is left standing: the last position is the result, exactly, not a search's guess;
    # Ana left after Cy, so she ranks above him
    assert reviewed.chances[-1] == (0.5, 1.0, 0.0)
