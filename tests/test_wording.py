"""The engine's words keep their meaning: refusals carry a stable code and their values (the
table ``taluva.engine.refusals.REFUSALS``, listed in docs/engine.md), their English is the
one players always read, and every interface can say them in German or French."""

from __future__ import annotations

import pickle
import re
import string
from pathlib import Path
from typing import Any

import pytest

from taluva import Game
from taluva.engine.errors import IllegalMove, InvalidMove, InvalidOption
from taluva.engine.outcome import Outcome, Reason, result_in_words
from taluva.engine.refusals import REFUSALS, player_words, refusal
from taluva.engine.wording import T, Text, Tn
from taluva.lang import say

DOCS = Path(__file__).resolve().parent.parent / "docs" / "engine.md"
DECK = ["JC", "SR", "LL", "CS", "JJ", "RR"]


def started(*moves: str, **options: Any) -> Game:
    """A two-player game on a fixed pile after ``moves``."""
    game = Game.new(players=["Ana", "Ben"], deck=DECK, **options)
    for move in moves:
        game.play(move)
    return game


def refused(game: Game, move: str) -> IllegalMove:
    """The error playing ``move`` raises; the game is left as it was."""
    ply = game.ply
    with pytest.raises(IllegalMove) as caught:
        game.play(move)
    assert game.ply == ply
    return caught.value


def placeholders(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def test_a_text_survives_pickling_with_its_code_template_and_values() -> None:
    text = refusal("no-huts-left", player=player_words(1))
    copy = pickle.loads(pickle.dumps(text))
    assert (copy, copy.code, copy.template) == (text, "no-huts-left", "{player} has no huts left")
    assert isinstance(copy.values["player"], Text)
    assert copy.values["player"].values == {"number": 2}
    counted = pickle.loads(pickle.dumps(Tn("{n} hut", "{n} huts", 3, n=3)))
    assert (counted, counted.plural, counted.quantity) == ("3 huts", "{n} huts", 3)


def test_an_illegal_move_sent_between_processes_keeps_its_refusal() -> None:
    error = refused(started("tile 0,0 0"), "temple 1,0")
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error) == "temple 1,0: 1,0 is not next to any settlement of yours"
    assert (copy.code, dict(copy.refusal.values)) == ("not-adjacent", {"hex": "1,0"})


@pytest.mark.parametrize(
    ("moves", "move", "code", "values", "english"),
    [
        ((), "hut 0,0", "must-place-tile", {}, "player 1 must place a tile before building"),
        ((), "tile 1,0 0", "first-tile-origin", {}, (
            "the first tile of the game goes with its volcano on 0,0"
        )),
        (("tile 0,0 0",), "tile 2,2 0", "must-build", {}, (
            "player 1 has placed a tile and must now build"
        )),
        (("tile 0,0 0",), "temple 1,0", "not-adjacent", {"hex": "1,0"}, (
            "1,0 is not next to any settlement of yours"
        )),
        (("tile 0,0 0",), "hut 0,0", "on-volcano", {"hex": "0,0"}, (
            "0,0 is a volcano: nothing is built on a volcano"
        )),
        (("tile 0,0 0",), "hut 4,4", "on-sea", {"hex": "4,4"}, (
            "4,4 is sea: buildings stand on land"
        )),
        (("tile 0,0 0", "hut 1,0"), "tile 0,0 1", "eruption-overhang", {
            "sea": "0,-1", "land": "0,0", "level": 1,
        }, "the tile would overhang: 0,-1 is sea but 0,0 is at level 1"),
        (("tile 0,0 0", "hut 1,0"), "tile 5,5 0", "not-touching", {}, (
            "the tile does not touch the island: one of its hexes must share an edge with it"
        )),
        (("tile 0,0 0",), "ship 1,0", "no-ships-expansion", {}, (
            "ships belong to the Ships expansion, which this game does not use"
        )),
    ],
)  # fmt: skip
def test_a_refused_move_carries_its_code_and_values_and_the_same_english(
    moves: tuple[str, ...], move: str, code: str, values: dict[str, Any], english: str
) -> None:
    game = started(*moves)
    error = refused(game, move)
    assert str(error) == f"{move}: {english}"
    assert error.code == code
    assert error.refusal == english and error.refusal.code == code
    plain = {k: v for k, v in error.refusal.values.items() if not isinstance(v, Text)}
    assert plain == values
    explained = game.explain(move)
    assert explained is not None and (explained, explained.code) == (english, code)


def test_a_refusal_names_the_player_by_a_text_said_in_the_readers_language() -> None:
    reason = started("tile 0,0 0").explain("tile 2,2 0")
    assert reason is not None and reason.code == "must-build"
    assert reason.values["player"] == "player 1"
    assert say(reason, "de") == "Spieler 1 hat ein Plättchen gelegt und muss jetzt bauen"
    assert say(reason, "fr") == "joueur 1 a posé une tuile et doit maintenant construire"


def test_an_expansions_refusal_carries_its_code() -> None:
    game = started(expansions=["double_hex"], doubles=["VL", "JJ"])
    error = refused(game, "double VV 0,0 0")
    assert str(error) == "double VV 0,0 0: VV is not among the face-up double-hex tiles (VL JJ)"
    assert error.code == "double-not-face-up"
    assert dict(error.refusal.values) == {"tile": "VV", "face_up": "VL JJ"}


def test_move_text_that_names_no_move_is_refused_with_a_code() -> None:
    with pytest.raises(InvalidMove) as caught:
        started().play("tile 0,0 9")
    assert str(caught.value) == "'tile 0,0 9': orientation '9' must be a whole number from 0 to 5"
    assert caught.value.code == "bad-orientation"
    assert dict(caught.value.refusal.values) == {"text": "'9'"}


def test_options_and_leaving_are_refused_with_codes() -> None:
    with pytest.raises(InvalidOption) as caught:
        Game.new(players=7)
    assert (str(caught.value), caught.value.code) == (
        "players is 7: Taluva is for 2 to 5 players",
        "player-count",
    )
    with pytest.raises(IllegalMove) as left:
        started().resign("Cy")
    assert (str(left.value), left.value.code) == (
        "there is no player named 'Cy' in this game",
        "no-player-named",
    )


def test_a_refusal_said_in_german_uses_the_glossary_and_no_english_is_left() -> None:
    game = started("tile 0,0 0", "hut 1,0", "tile -2,0 0")
    error = refused(game, "hut 1,0")
    assert (str(error), error.code) == ("hut 1,0: 1,0 already holds a building", "occupied")
    assert say(error.text, "de") == "hut 1,0: auf 1,0 steht schon ein Gebäude"
    reason = started("tile 0,0 0").explain("temple 1,0")
    assert say(reason, "de") == "1,0 grenzt an keine deiner Siedlungen"
    assert say(reason, "fr") == "1,0 ne touche aucun de vos villages"


def english_runs(template: str) -> set[str]:
    """Every run of three English words of a template (quoted move text and placeholders
    cut it): what a translation must not keep."""
    words = re.sub(r"'[^']*'|\{[^}]*\}", "|", template.lower())
    runs = set()
    for chunk in re.split(r"[|:;,()]", words):
        w = [word for word in chunk.split() if len(word) > 1]
        runs |= {" ".join(w[i : i + 3]) for i in range(len(w) - 2)}
    return runs


def test_every_refusal_is_said_in_german_and_french_without_its_english_template() -> None:
    for code, template in REFUSALS.items():
        text = refusal(code, **dict.fromkeys(placeholders(template), "X"))
        for lang in ("de", "fr"):
            said = say(text, lang)
            assert said != str(text), (code, lang)
            assert "{" not in said, (code, lang, said)
            left = {run for run in english_runs(template) if run in said.lower()}
            assert not left, (code, lang, said)


def test_the_end_of_a_game_is_said_in_german() -> None:
    outcome = Outcome(((1,), (0,)), Reason.TILES)
    headline, lines = result_in_words(
        outcome, ["Ana", "Ben"], [(8, 1, 1, 0), (9, 0, 2, 0)], ships=False
    )
    assert headline == "Ben wins: no tile was left to take; most temples built (3 against 2)"
    assert say(headline, "de") == (
        "Ben gewinnt: es war kein Plättchen mehr zu ziehen; die meisten Tempel gebaut (3 gegen 2)"
    )
    assert [say(line, "de") for line in lines] == [
        "1. Ben: 3 Tempel, 0 Türme, 11 Hütten gebaut",
        "2. Ana: 2 Tempel, 1 Turm, 12 Hütten gebaut",
    ]
    assert say(lines[1], "fr") == "2e Ana : 2 temples, 1 tour, 12 huttes placés"


def test_every_refusal_code_is_listed_in_the_docs_with_its_english_words() -> None:
    page = DOCS.read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z0-9-]+)` \| `(.*)` \|$", page, re.M)
    assert dict(listed) == REFUSALS
    assert len(listed) == len(REFUSALS)


def test_refusal_codes_are_kebab_case_and_their_templates_name_their_values() -> None:
    for code, template in REFUSALS.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", code), code
        for name in placeholders(template):
            assert name.isidentifier() and name not in ("code", "plural", "count"), code
    assert T("{n} left", n=2).values == {"n": 2}
