"""The shipped puzzles (``taluva.learn.puzzles``, ``src/taluva/learn/puzzles.json``): every one
replays and its answer does what its theme says; a sample is checked again exactly for a
unique answer; the first self-play games screened again give the same puzzles, and a game of
the added run screened again gives the same spoils and saves (margin screen included), a game
of the block runs the same block, and a withdrawn block screened again is withdrawn with the
same chances; attempts are judged in the engine's words; the next puzzle is drawn near the player's
rating."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest

from taluva.cli import main
from taluva.engine.moves import Move
from taluva.engine.wording import Tn
from taluva.lang import say
from taluva.learn.puzzle_check import (
    Work,
    destroyable,
    huts_destroyed_by,
    survey_blocks,
    survey_saves,
    survey_spoils,
    survey_wins,
)
from taluva.learn.puzzle_maker import (
    MARGIN,
    MAX_WIN_SHARE,
    SAVE_SHARE,
    played_game,
    self_play_sources,
)
from taluva.learn.puzzles import (
    BLOCK,
    DIFFICULTIES,
    MARGIN_FIGURES,
    SAVE,
    SPOIL,
    THEMES,
    Puzzle,
    PuzzleError,
    PuzzleSet,
    PuzzleWithdrawn,
    _still_to_place,
    check_attempt,
    load_puzzles,
    next_puzzle,
    read_puzzles,
)

SHIPPED = load_puzzles()
NOT_WINS = {BLOCK, SAVE, SPOIL}
WINS = [p for p in SHIPPED.puzzles if not NOT_WINS.intersection(p.themes)]
BLOCKS = [p for p in SHIPPED.puzzles if BLOCK in p.themes]
SAVES = [p for p in SHIPPED.puzzles if SAVE in p.themes]
SPOILS = [p for p in SHIPPED.puzzles if SPOIL in p.themes]
MINIMUM = 300
"""The issue's floor for the number of shipped puzzles."""


def other_build(puzzle: Puzzle) -> str:
    """A legal build after the answer's tile other than the answer's."""
    game = puzzle.game()
    game.play(puzzle.answer[0])
    return next(str(m) for m in game.legal_moves() if str(m) != puzzle.answer[1])


def test_enough_puzzles_ship_of_every_theme_and_difficulty_with_the_command_that_made_them() -> (
    None
):
    assert len(SHIPPED.puzzles) >= MINIMUM
    assert len({p.id for p in SHIPPED.puzzles}) == len(SHIPPED.puzzles)
    assert all(SHIPPED.theme_counts().values())  # every theme is offered
    assert len(SPOILS) >= 20
    assert {p.difficulty for p in SHIPPED.puzzles} == set(DIFFICULTIES)
    assert SHIPPED.made_by.startswith("taluva puzzles make --games ")
    made = [run for run in SHIPPED.added if run["made_by"].startswith("taluva puzzles make ")]
    rescreens = [run for run in SHIPPED.added if run not in made]
    assert all(run["made_by"].startswith("taluva puzzles rescreen ") for run in rescreens)
    runs = [SHIPPED.figures, *(run["figures"] for run in made)]
    new = sum(run["new"] for run in SHIPPED.added)
    withdrawn = [puzzle_id for run in rescreens for puzzle_id in run["withdrawn"]]
    assert withdrawn == [p.id for p in SHIPPED.withdrawn]
    assert SHIPPED.figures["kept"] + new - len(withdrawn) == len(SHIPPED.puzzles)
    gone = [p for p in SHIPPED.withdrawn if BLOCK in p.themes]
    assert sum(run["kept_blocks"] for run in runs) == len(BLOCKS) + len(gone)
    assert sum(run.get("kept_saves", 0) for run in runs) == len(SAVES)
    assert sum(run.get("kept_spoils", 0) for run in runs) == len(SPOILS)


def test_every_shipped_block_spoil_and_save_passed_the_margin_screen_and_no_withdrawn_one_did() -> (
    None
):
    assert BLOCKS and SAVES and SPOILS
    for puzzle in [*BLOCKS, *SAVES, *SPOILS]:
        margin = puzzle.figures["answer_chance"] - puzzle.figures["rival_chance"]
        assert margin >= 100 * MARGIN - 1, puzzle.id  # chances are rounded to whole percent
    for puzzle in SHIPPED.withdrawn:
        margin = puzzle.figures["answer_chance"] - puzzle.figures["rival_chance"]
        assert margin <= 100 * MARGIN, puzzle.id
        with pytest.raises(PuzzleWithdrawn, match=f"{puzzle.id} was withdrawn"):
            SHIPPED.by_id(puzzle.id)
        assert puzzle not in SHIPPED.with_theme(None)
    with pytest.raises(PuzzleError, match="there is no puzzle 'nope'"):
        SHIPPED.by_id("nope")


def test_rescreening_withdraws_a_block_below_the_margin_with_the_same_chances(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = next(p for p in SHIPPED.withdrawn if BLOCK in p.themes)
    unscreened = dataclasses.replace(
        gone, figures={k: v for k, v in gone.figures.items() if k not in MARGIN_FIGURES}
    )
    screened_before = SPOILS[0]  # has the screen's figures: not screened again
    base = tmp_path / "base.json"
    PuzzleSet((WINS[0], unscreened, screened_before), "taluva puzzles make --games 2").save(base)
    out = tmp_path / "rescreened.json"
    assert main(["puzzles", "rescreen", "--file", str(base), "--out", str(out)]) == 0
    again = read_puzzles(out)
    assert again.puzzles == (WINS[0], screened_before) and again.withdrawn == (gone,)
    (run,) = again.added
    assert run["withdrawn"] == [gone.id] and run["figures"]["rescreened"] == 1
    assert run["made_by"] == "taluva puzzles rescreen --file base.json"
    assert (
        f"{gone.id}: {gone.figures['answer_chance']}% after the answer" in capsys.readouterr().err
    )
    with pytest.raises(PuzzleWithdrawn):
        again.by_id(gone.id)
    twice = tmp_path / "twice.json"
    PuzzleSet((WINS[0],), "x", withdrawn=(WINS[0],)).save(twice)
    assert main(["puzzles", "rescreen", "--file", str(twice), "--out", str(out)]) == 1
    assert "gives some id to two puzzles" in capsys.readouterr().err


def test_every_winning_puzzle_replays_and_its_answer_wins_at_once() -> None:
    for puzzle in WINS:
        verdict = check_attempt(puzzle, *puzzle.answer)
        assert verdict.right, puzzle.id
        assert puzzle.figures["winning_turns"] <= MAX_WIN_SHARE * puzzle.figures["turns"]


def test_a_sample_of_winning_puzzles_has_one_winning_build_on_a_fresh_check() -> None:
    for puzzle in random.Random(7).sample(WINS, 30):
        survey = survey_wins(puzzle.game())
        assert survey.winning_builds == (puzzle.answer[1],), puzzle.id
        assert survey.turns == puzzle.figures["turns"]
        assert len(survey.wins) == puzzle.figures["winning_turns"]


def test_block_answers_leave_the_opponent_no_win_and_one_block_is_unique_again() -> None:
    sample = random.Random(7).sample(BLOCKS, min(len(BLOCKS), 4))
    for puzzle in sample:
        assert check_attempt(puzzle, *puzzle.answer).right, puzzle.id
    survey = survey_blocks(sample[0].game(), Work(10**6))
    assert list(survey.blocks) == [sample[0].answer[1]]
    assert survey.refuted == sample[0].figures["refuted"]


def test_every_save_leaves_no_hut_destroyable_and_few_turns_do() -> None:
    for puzzle in SAVES:
        game = puzzle.game()
        assert destroyable(game, puzzle.mover), puzzle.id  # a threat to begin with
        verdict = check_attempt(puzzle, *puzzle.answer)
        assert verdict.right, puzzle.id
        figures = puzzle.figures
        assert figures["saving_turns"] <= SAVE_SHARE * figures["turns"], puzzle.id


def test_every_spoil_erupts_on_the_opponents_huts_and_stops_their_win() -> None:
    for puzzle in SPOILS:
        game = puzzle.game()
        tile = Move.parse(puzzle.answer[0])
        assert huts_destroyed_by(game, tile, 1 - puzzle.mover), puzzle.id
        assert check_attempt(puzzle, *puzzle.answer).right, puzzle.id


def a_save() -> Puzzle:
    """A save found in self-play game 2 of seed 1 (ply 8: an eruption could destroy a hut,
    and only three of 671 turns, all with one placement, leave none destroyable), made a
    puzzle without the margin screen."""
    _, starts, _ = played_game(self_play_sources(3, 1)[2])
    position = next(game for game in starts if game.ply == 8)
    survey = survey_saves(position)
    record = position.to_record()
    prefix = {key: record[key] for key in ("format", "players", "options", "deck", "doubles")}
    prefix["moves"] = record["moves"]
    figures = {"turns": survey.turns, "saving_turns": len(survey.saves)}
    return Puzzle("a-save", prefix, position.to_move, survey.saves[0], (SAVE,), 3, figures)


def test_a_sample_of_spoils_checked_again_from_scratch_has_the_same_answer() -> None:
    for puzzle in random.Random(7).sample(SPOILS, min(len(SPOILS), 3)):
        spoil = survey_spoils(puzzle.game(), Work(10**6))
        assert spoil.complete and all(spoil.blocks), puzzle.id  # every block erupts on huts
        assert puzzle.answer in spoil.blocks.values()
        assert spoil.refuted == puzzle.figures["refuted"]


def test_a_save_is_one_placement_of_few_turns_and_every_turn_is_judged_by_the_engine() -> None:
    save = a_save()
    game = save.game()
    survey = survey_saves(game)
    assert survey.key == save.answer[0] and save.figures == {"turns": 671, "saving_turns": 3}
    assert destroyable(game, save.mover)  # a threat to begin with
    saves = set(survey.saves)
    judged = 0
    for tile in game.legal_moves()[:40]:
        for build in _builds_after(save, tile):
            turn = (str(tile), str(build))
            assert check_attempt(save, *turn).right == (turn in saves), turn
            judged += 1
    assert judged > 100 and all(check_attempt(save, *turn).right for turn in saves)


def test_adding_a_game_of_the_added_run_again_gives_its_spoils_and_keeps_the_old_puzzles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spoil = SPOILS[0]
    game = int(spoil.id.split("g")[1].split("p")[0])
    base = tmp_path / "base.json"
    PuzzleSet(tuple(WINS[:2]), "taluva puzzles make --games 2").save(base)
    out = tmp_path / "added.json"
    command = ["puzzles", "make", "--games", "1", "--first", str(game), "--seed", "1"]
    command += ["--screen", "spoil", "--add", str(base), "--out", str(out)]
    assert main(command) == 0
    again = read_puzzles(out)
    shipped = [p for p in SPOILS if p.id.startswith(f"s1g{game}p")]
    assert list(again.puzzles) == [*WINS[:2], *shipped]
    assert again.made_by == "taluva puzzles make --games 2"
    (run,) = again.added
    assert run["new"] == len(shipped) and "--first" in run["made_by"]
    assert f"{len(shipped)} new puzzles, {2 + len(shipped)} written" in capsys.readouterr().out
    assert main(["puzzles", "make", "--games", "0", "--screen", "knitting", "--out", "x"]) == 2
    assert "choose among wins, save, spoil, block" in capsys.readouterr().err


def test_screening_a_game_of_the_block_runs_again_gives_its_block_with_the_same_margin(
    tmp_path: Path,
) -> None:
    block = SHIPPED.by_id("s1g5908p46b")  # a game of the block runs that takes a second
    out = tmp_path / "block.json"
    command = ["puzzles", "make", "--games", "1", "--first", "5908", "--seed", "1"]
    assert main([*command, "--screen", "block", "--out", str(out)]) == 0
    assert read_puzzles(out).puzzles == (block,)
    assert block.figures["answer_chance"] - block.figures["rival_chance"] >= 100 * MARGIN


def test_the_command_screening_the_first_games_again_writes_the_shipped_puzzles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = int(SHIPPED.made_by.split("--seed ")[1].split()[0])
    out = tmp_path / "again.json"
    assert main(["puzzles", "make", "--games", "6", "--seed", str(seed), "--out", str(out)]) == 0
    again = read_puzzles(out)
    shipped = [
        p
        for p in WINS
        if p.id.startswith(f"s{seed}g") and int(p.id.split("g")[1].split("p")[0]) < 6
    ]
    assert list(again.puzzles) == shipped and again.figures["games"] == 6
    assert "games 6, turn starts" in capsys.readouterr().err


def test_the_check_command_counts_right_answers_and_what_a_level_solves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    PuzzleSet(tuple(WINS[:3]), "test").save(good)
    assert main(["puzzles", "check", "--file", str(good), "--level", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 puzzles replayed, 3 answers right" in out and "level 2 solves 3/3" in out
    broken = tmp_path / "broken.json"
    wrong = dataclasses.replace(WINS[0], answer=(WINS[0].answer[0], other_build(WINS[0])))
    PuzzleSet((wrong,), "test").save(broken)
    assert main(["puzzles", "check", "--file", str(broken)]) == 1
    assert "1 puzzles replayed, 0 answers right" in capsys.readouterr().out


def test_a_wrong_turn_is_answered_with_what_it_misses_and_the_answer() -> None:
    puzzle = WINS[0]
    wrong = check_attempt(puzzle, puzzle.answer[0], other_build(puzzle))
    assert not wrong.right and "does not win: you would still hold" in wrong.message
    assert f"{puzzle.answer[0]}, then {puzzle.answer[1]}" in wrong.message
    illegal = check_attempt(puzzle, "tile 40,40 0", puzzle.answer[1])
    assert (
        not illegal.right and "not allowed: the tile does not touch the island" in illegal.message
    )
    with pytest.raises(PuzzleError, match="not a move"):
        check_attempt(puzzle, "tile here", puzzle.answer[1])


def test_a_wrong_block_names_the_tile_and_turn_with_which_the_opponent_wins() -> None:
    puzzle = BLOCKS[0]
    wrong = check_attempt(puzzle, puzzle.answer[0], other_build(puzzle))
    assert not wrong.right and "your opponent wins at once if they draw" in wrong.message


def a_sea_turn(puzzle: Puzzle) -> tuple[str, str]:
    """A legal turn whose placement is on the sea, so that it destroys no hut (its first
    build)."""
    game = puzzle.game()
    tile = next(m for m in game.legal_moves() if game.level(m[1]) == 0)
    game.play(tile)
    return str(tile), str(game.legal_moves()[0])


def test_a_wrong_spoil_or_save_says_what_it_misses_and_shows_the_answer() -> None:
    spoil = SPOILS[0]
    wrong = check_attempt(spoil, *a_sea_turn(spoil))
    assert not wrong.right and "your opponent wins at once if they draw" in wrong.message
    assert f"{spoil.answer[0]}, erupting on their huts" in wrong.message
    save = a_save()
    game = save.game()
    saves = set(survey_saves(game).saves)
    turn = next(  # a placement on the sea destroys no hut, so only the threat can remain
        (str(tile), str(build))
        for tile in game.legal_moves()
        if game.level(tile[1]) == 0
        for build in _builds_after(save, tile)
        if (str(tile), str(build)) not in saves
    )
    wrong = check_attempt(save, *turn)
    assert not wrong.right and "your opponent can still erupt with" in wrong.message
    assert f"The turn that saves your huts: {save.answer[0]}" in wrong.message
    right = check_attempt(save, *save.answer)
    assert right.message == "Right: no eruption can destroy any of your huts now."


def test_themes_tasks_and_the_words_of_a_wrong_turn_are_said_in_german_and_french() -> None:
    for theme, words in THEMES.items():
        assert say(words, "de") != words and say(words, "fr") != words, theme
    assert [say(name, "de") for name, _ in DIFFICULTIES.values()] == ["leicht", "mittel", "schwer"]
    puzzle = WINS[0]
    assert say(puzzle.public_json()["task"], "fr").startswith("Trouvez le tour qui gagne")
    wrong = check_attempt(puzzle, puzzle.answer[0], other_build(puzzle))
    german, french = say(wrong.message, "de"), say(wrong.message, "fr")
    assert (
        f"{puzzle.answer[0]}, dann {other_build(puzzle)} gewinnt nicht: Du hättest noch" in german
    )
    assert f"Der siegreiche Zug: {puzzle.answer[0]}, dann {puzzle.answer[1]}" in german
    assert "ne gagne pas : il vous resterait" in french and "Le tour gagnant : " in french
    prose = german
    for move in (*puzzle.answer, other_build(puzzle)):  # the notation stays as it is
        prose = prose.replace(move, "")
    assert not re.search(r"\b(huts?|temples?|towers?|tiles?|then|and)\b", prose), prose
    illegal = check_attempt(puzzle, "tile 40,40 0", puzzle.answer[1])
    assert say(illegal.message, "de").startswith("Dieser Zug ist nicht erlaubt: ")
    names = [say(name, "de") for name in puzzle.game().players]
    assert names[puzzle.mover] == "Du" and "Gegner" in names


def test_what_a_wrong_turn_leaves_is_counted_by_each_languages_plural_rules() -> None:
    puzzle = WINS[0]
    game = puzzle.game()
    game.play(puzzle.answer[0])
    game.play(other_build(puzzle))
    left = _still_to_place(game, puzzle.mover)
    supply = game.supply(puzzle.mover)
    german = {"huts": ("Hütte", "Hütten"), "temples": ("Tempel", "Tempel"),
              "towers": ("Turm", "Türme")}  # fmt: skip
    kinds = [kind for kind in german if supply[kind]]
    assert kinds
    for kind in kinds:
        n = supply[kind]
        assert f"{n} {kind if n != 1 else kind[:-1]}" in left
        assert f"{n} {german[kind][n != 1]}" in say(left, "de")
    assert say(Tn("{n} hut", "{n} huts", 1, n=1), "de") == "1 Hütte"
    assert say(Tn("{n} hut", "{n} huts", 3, n=3), "de") == "3 Hütten"
    assert say(Tn("{n} tower", "{n} towers", 0, n=0), "fr") == "0 tour"
    assert say(Tn("{n} tower", "{n} towers", 2, n=2), "fr") == "2 tours"


def _builds_after(puzzle: Puzzle, tile: Move) -> list[Move]:
    game = puzzle.game()
    game.play(tile)
    return game.legal_moves()


def test_the_next_puzzle_is_near_the_rating_and_new_to_the_player() -> None:
    puzzles = SHIPPED.with_theme("tower")
    assert all("tower" in p.themes for p in puzzles)
    hard = max(DIFFICULTIES)
    for _ in range(5):
        chosen = next_puzzle(puzzles, 1800, rng=random.Random(_))
        assert chosen.difficulty == hard or not any(p.difficulty == hard for p in puzzles)
    seen = {p.id for p in puzzles[:-1]}
    assert next_puzzle(puzzles, 1500, skip=seen).id == puzzles[-1].id
    with pytest.raises(PuzzleError, match="no theme"):
        SHIPPED.with_theme("knitting")
    assert set(THEMES) >= {t for p in SHIPPED.puzzles for t in p.themes}
