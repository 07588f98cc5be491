"""The interactive first game (``taluva.learn.tutorial``): every step replayed with the engine,
the taught moves legal, the outlined hexes the moves' own, every rule of the base game met on
the way, and a won game at the end; answers to other moves; a broken tutorial refused."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from taluva.engine.game import Game
from taluva.engine.moves import BUILD_KINDS, EXPAND, HUT, TEMPLE, TILE, TOWER
from taluva.engine.pieces import STARTING_SUPPLY
from taluva.lang import say, use
from taluva.learn.tutorial import (
    TUTORIAL_FILE,
    Step,
    Tutorial,
    TutorialError,
    load_tutorial,
    parse_tutorial,
)
from taluva.render.position import move_hexes


@pytest.fixture(scope="module")
def tutorial() -> Tutorial:
    return load_tutorial()


def tutorial_text() -> str:
    return resources.files("taluva.learn").joinpath(TUTORIAL_FILE).read_text(encoding="utf-8")


def played(tutorial: Tutorial) -> list[tuple[Step, Game]]:
    """Each step with the game where it starts, replayed move by move from the prepared
    position (not through ``Tutorial.position``, which the test also checks)."""
    game = tutorial.start()
    out = []
    for step in tutorial.steps:
        out.append((step, game.copy()))
        game.play(step.move)
        for reply in step.replies:
            game.play(reply)
    return out


def test_every_step_replays_with_the_engine_and_the_learner_wins_at_the_end(
    tutorial: Tutorial,
) -> None:
    game = tutorial.start()
    assert game.ply == len(tutorial.prepared) and game.to_move == tutorial.learner
    for step in tutorial.steps:
        assert (game.ply, game.to_move, game.tile) == (step.ply, tutorial.learner, step.tile)
        assert tutorial.step_at(game.ply) is step
        assert step.move in game.legal_moves(), step.id
        assert step.answer(game, str(step.move)).verdict == "taught"
        game.play(step.move)
        for reply in step.replies:
            assert game.to_move != tutorial.learner
            assert tutorial.script()[game.ply] == reply
            game.play(reply)
        assert game.is_over or game.to_move == tutorial.learner
    assert game.ply == tutorial.end_ply
    assert game.result is not None
    assert game.result.winners == (tutorial.learner,)
    assert str(game.result.reason) == "victory"
    assert game.to_record()["moves"] == tutorial.position(len(tutorial.steps)).to_record()["moves"]


def test_each_outlined_hex_is_one_the_taught_move_touches(tutorial: Tutorial) -> None:
    for step in tutorial.steps:
        touched = set(move_hexes(step.move))
        assert step.highlight and set(step.highlight) <= touched, step.id
        if step.move.kind in (TILE, EXPAND):
            assert set(step.highlight) == touched, f"{step.id}: outline the whole move"


def test_the_steps_teach_every_rule_of_the_base_game(tutorial: Tutorial) -> None:
    """A tile at sea level and eruptions (one burying an opponent's hut), founding, expanding
    onto a raised hex, a temple, a tower, an opponent out because he cannot build, and the
    victory; the ending speaks of the tiles running out."""
    seen: set[str] = set()
    for step, game in played(tutorial):
        trial = game.copy()
        trial.play(step.move)
        (effect,) = trial.effects(game.ply)
        if step.move.kind == TILE:
            seen.add("tile at sea" if effect.level == 1 else "eruption")
            if any(seat != tutorial.learner for seat, _ in effect.destroyed):
                seen.add("an opponent's hut destroyed")
        elif step.move.kind == EXPAND and effect.huts > len(step.move.hexes):
            seen.add("expansion onto a raised hex")
        else:
            seen.add(str(step.move.kind))
        out_before = set(trial.eliminated)
        for reply in step.replies:
            trial.play(reply)
        if set(trial.eliminated) - out_before and not trial.is_over:
            seen.add("an opponent cannot build and is out")
    assert seen >= {
        "tile at sea",
        "eruption",
        "an opponent's hut destroyed",
        HUT,
        "expansion onto a raised hex",
        TEMPLE,
        TOWER,
        "an opponent cannot build and is out",
    }
    assert tutorial.steps[-1].move.kind == TOWER
    assert "tiles run out" in " ".join(tutorial.ending)


def test_another_legal_move_gets_the_steps_answer_and_an_illegal_one_the_engines_reason(
    tutorial: Tutorial,
) -> None:
    for step, game in played(tutorial):
        tile = step.move.kind == TILE
        others = [m for m in game.legal_moves() if m != step.move and (m.kind == TILE) == tile]
        assert others, f"{step.id}: the learner must have a choice"
        answer = step.answer(game, str(others[-1]))
        assert answer.verdict == "other" and answer.message, step.id
        illegal = "tower 0,0" if step.move.kind in BUILD_KINDS else "tile 0,0 0"
        answer = step.answer(game, illegal)
        assert answer == step.answer(game, illegal)
        assert (answer.verdict, answer.message) == ("illegal", game.explain(illegal))
    step, game = played(tutorial)[0]
    assert step.answer(game, "hop 1,1").verdict == "illegal"
    assert "unknown move 'hop'" in step.answer(game, "hop 1,1").message


def test_a_tile_on_the_right_hexes_but_turned_wrong_is_told_how_to_turn(
    tutorial: Tutorial,
) -> None:
    step, game = next((s, g) for s, g in played(tutorial) if s.id == "erupt")
    turned = [
        m
        for m in game.legal_moves()
        if m.kind == TILE and m.hex == step.move.hex and m != step.move
    ]
    assert turned
    assert step.answer(game, str(turned[0])).message.startswith("Right volcano")


def test_the_words_name_the_engines_numbers_and_the_learners_pieces(tutorial: Tutorial) -> None:
    huts, temples, towers, _ = STARTING_SUPPLY
    intro = " ".join(tutorial.intro)
    assert f"{huts} huts, {temples} temples and {towers} towers" in intro
    assert f"the first {len(tutorial.prepared)} moves" in intro
    placed = tutorial.start().placed(tutorial.learner)
    assert f"You have placed {placed['temples']} temples and {placed['towers']} tower" in intro
    texts = [*tutorial.intro, *tutorial.ending]
    for step in tutorial.steps:
        texts += [step.say, *step.why, step.other, *step.then]
        if step.tile:
            assert step.tile in " ".join(step.why), f"{step.id}: name the tile in hand"
    assert not [text for text in texts if "{" in text or "}" in text]


GLOSSARY = {
    "de": ("Plättchen", "Feld", "Vulkan", "Siedlung", "Hütte", "Tempel", "Turm", "Ebene"),
    "fr": ("tuile", "case", "volcan", "village", "hutte", "temple", "tour", "niveau"),
}
"""The game's own words in each language (src/taluva/lang/locale/glossary.md)."""
ENGLISH = re.compile(r"\b(the|you|your|tile|tiles|hex|hexes|settlement|huts?|and|with)\b", re.I)
"""English words that no German or French step may still hold."""


def texts_of(tutorial: Tutorial) -> list[tuple[str, ...]]:
    """Every text of the lesson, each as its paragraphs, in reading order."""
    texts = [(tutorial.title,), tutorial.intro, tutorial.ending]
    for step in tutorial.steps:
        texts += [(step.say,), step.why, (step.other,), step.then]
    return texts


@pytest.mark.parametrize("lang", sorted(GLOSSARY))
def test_the_lesson_is_said_in_german_and_french_with_the_games_own_words(
    tutorial: Tutorial, lang: str
) -> None:
    """Loading the lesson in a language checks its words there as in English (a hex the
    words name must be one the step's move touches), so this also proves the translation
    names the right hexes."""
    said = load_tutorial(lang)
    assert said.lang == lang and said.steps[0].move == tutorial.steps[0].move
    for english, words in zip(texts_of(tutorial), texts_of(said), strict=True):
        assert len(words) == len(english)  # the same paragraphs
        for ours, theirs in zip(english, words, strict=True):
            assert theirs != ours and not ENGLISH.findall(theirs), (theirs, ENGLISH.findall(theirs))
            assert "{" not in theirs and "}" not in theirs
    for step in said.steps:
        why = " ".join(step.why)
        assert any(term.lower() in why.lower() for term in GLOSSARY[lang]), step.id
        if step.tile:
            assert step.tile in why, f"{step.id}: name the tile in hand"
    learner = {"de": "Du", "fr": "Vous"}[lang]
    assert said.players == (learner, *tutorial.players[1:])


def test_the_lesson_follows_the_language_spoken_and_its_answers_are_said_in_it(
    tutorial: Tutorial,
) -> None:
    with use("de"):
        german = load_tutorial()
    assert german is load_tutorial("de") and load_tutorial() is tutorial
    placed = tutorial.start().placed(tutorial.learner)
    assert f"Du hast schon {placed['temples']} Tempel" in " ".join(german.intro)
    step, game = next((s, g) for s, g in played(german) if s.id == "erupt")
    turned = next(m for m in game.legal_moves() if m.kind == TILE and m.hex == step.move.hex
                  and m != step.move)  # fmt: skip
    nudge = step.answer(game, str(turned)).message
    assert nudge.startswith("Right volcano")
    assert say(nudge, "de").startswith("Richtiger Vulkan: ")
    assert say(nudge, "fr").startswith("Bon volcan : ")
    elsewhere = next(m for m in game.legal_moves() if m.kind == TILE and m.hex != step.move.hex
                     and set(move_hexes(m)) != set(move_hexes(step.move)))  # fmt: skip
    assert step.answer(game, str(elsewhere)).message == step.other
    assert step.other.startswith("Das ist erlaubt, aber")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('move = "tile 0,-3 3"', 'move = "tile 5,5 0"', "step 3 (erupt): move tile 5,5 0: "),
        ('highlight = ["-2,-3"]', 'highlight = ["-2,-2"]', "step 2 (found): highlight"),
        ("Put it on the\nclearing you just laid, at -2,-3.", "Put it on 4,4.", "name 4,4"),
        ('replies = ["tile 4,3 0", "hut 5,2"]', 'replies = ["tile 4,3 0"]', "learner moves again"),
        ('move = "tower -1,-2"', 'move = "expand sand -1,-2"', "learner's win"),
        ('[[step]]\nid = "found"', '[[step]]\nid = "coast"', "used twice"),
    ],
)
def test_a_broken_tutorial_is_refused_naming_what_is_wrong(
    old: str, new: str, message: str
) -> None:
    text = tutorial_text()
    assert old in text
    with pytest.raises(TutorialError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_tutorial(text.replace(old, new, 1))
