"""The "How to play" guide (``taluva.learn.guide``): every picture is a position the engine
replays and checks when the picture is made, every refused move is one the engine refuses
(its reason is what the picture shows), the words are the same in docs/rules.md, and the
server gives the guide and its pictures to the web client.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from test_server_support import client_for, sqlite_url

from taluva import Game
from taluva.engine.hexes import coords
from taluva.engine.moves import DOUBLE, TILE, Move
from taluva.engine.pieces import STARTING_SUPPLY
from taluva.lang import say, use
from taluva.learn.guide import (
    GUIDE_FILE,
    MARKDOWN_END,
    MARKDOWN_START,
    TOPICS,
    GuideError,
    Picture,
    load_guide,
    parse_guide,
)
from taluva.render.position import move_hexes

ROOT = Path(__file__).resolve().parents[1]
PICTURES = [picture for section in load_guide().sections for picture in section.pictures]

ONE_PICTURE = """
[[section]]
id = "turn"
title = "Your turn"
text = "Place a tile, then build."

[[section.picture]]
caption = "The first turn."
deck = ["JC", "SR"]
moves = ["tile 0,0 0", {move}]
{refused}
"""


@pytest.mark.parametrize("picture", PICTURES, ids=[picture.id for picture in PICTURES])
def test_each_picture_is_a_position_the_engine_replays_and_its_refused_move_is_refused(
    picture: Picture,
) -> None:
    """The test that makes the picture: every move of it played by the engine (an illegal
    one raises), the refused move refused with the very reason the picture shows."""
    drawing = picture.draw()
    game = Game.new(
        players=picture.players,
        deck=picture.deck,
        expansions=picture.expansions,
        doubles=picture.doubles,
    )
    for move in picture.moves:
        game.play(move)
    assert [str(m) for m in drawing.game.moves] == [str(m) for m in game.moves]
    assert drawing.svg.startswith("<?xml") and drawing.svg.rstrip().endswith("</svg>")
    if picture.refused is None:
        assert drawing.refusal is None
        assert 'class="refused"' not in drawing.svg
    else:
        assert drawing.refusal is not None
        assert drawing.refusal == game.explain(picture.refused)
        assert f'data-move="{picture.refused}"' in drawing.svg
        assert drawing.refusal in picture.alt
    finished = game.result_in_words()[0] if game.is_over else None
    assert drawing.result == finished


def test_a_picture_with_an_illegal_move_fails_naming_the_picture_and_the_move() -> None:
    guide = parse_guide(ONE_PICTURE.format(move='"hut 5,5"', refused=""))
    with pytest.raises(GuideError, match=r"picture turn-1: moves\[1\] hut 5,5: "):
        guide.check()


def test_a_refused_move_that_the_engine_accepts_fails() -> None:
    guide = parse_guide(ONE_PICTURE.format(move='"hut 1,0"', refused='refused = "tile 2,-1 0"'))
    with pytest.raises(GuideError, match="the engine accepts 'tile 2,-1 0'"):
        guide.check()


def test_a_refused_move_that_is_no_move_at_all_fails() -> None:
    guide = parse_guide(ONE_PICTURE.format(move='"hut 1,0"', refused='refused = "fly 1,0"'))
    with pytest.raises(GuideError, match="picture turn-1: refused: 'fly 1,0': unknown move"):
        guide.check()


def test_a_refused_move_is_drawn_in_red_over_the_position_and_a_legal_one_in_yellow() -> None:
    legal = parse_guide(ONE_PICTURE.format(move='"hut 1,0"', refused=""))
    refused = parse_guide(ONE_PICTURE.format(move='"hut 1,0"', refused='refused = "temple 1,-1"'))
    legal_svg = legal.sections[0].pictures[0].draw().svg
    refused_svg = refused.sections[0].pictures[0].draw().svg
    assert "#ffd600" in legal_svg and "#ff1744" not in legal_svg
    assert "#ff1744" in refused_svg and "#ffd600" not in refused_svg
    assert 'class="refused" data-move="temple 1,-1"' in refused_svg


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[section]]\nid = "Bad Id"\ntitle = "T"\ntext = "x"', "a bad id"),
        ('[[section]]\nid = "a"\ntitle = "T"\ntext = "{nothing}"', "no fact named 'nothing'"),
        ('[[section]]\nid = "a"\ntitle = "T"\ntext = "x"\ntopics = ["fly"]', "unknown topics"),
        ('[[section]]\nid = "a"\ntitle = "T"\ntext = "x"\nexpansion = "moon"', "unknown expansion"),
        ('[[section]]\nid = "a"\ntitle = "T"', "lacks 'text'"),
        ("", "section ids must be present"),
    ],
)
def test_wrong_guide_data_is_refused_saying_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(GuideError, match=re.escape(message)):
        parse_guide(text)


def test_the_words_name_the_engines_numbers_and_keep_no_placeholder() -> None:
    guide = load_guide()
    huts, temples, towers, ships = STARTING_SUPPLY
    game = guide.section("game").text
    assert f"{huts} huts, {temples} temples and {towers} towers" in game
    assert f"{ships} ships" in guide.section("ships").text
    assert all("{" not in section.text for section in guide.sections)


def test_every_kind_of_move_leads_to_a_section_and_every_section_has_words_and_pictures() -> None:
    guide = load_guide()
    assert sorted(guide.topic_sections()) == sorted(TOPICS)
    for section in guide.sections:
        assert section.blocks and section.pictures, section.id


def test_the_sections_of_an_expansion_are_shown_only_in_games_that_use_it() -> None:
    guide = load_guide()
    base = [s.id for s in guide.for_game([])]
    assert "ships" not in base and "double-hex" not in base and "board" not in base
    assert [s.id for s in guide.for_game(["ships", "board:expert"])] == [*base, "ships", "board"]
    assert guide.for_game(None) == guide.sections


def test_a_tile_on_land_is_explained_by_the_eruption_and_any_other_by_the_sea_level() -> None:
    guide = load_guide()
    game = Game.new(players=2, deck=["JC", "SR", "LL"])
    game.play("tile 0,0 0")
    game.play("hut 1,0")
    found = {
        move: getattr(guide.section_for_move(game, move), "id", None)
        for move in ("tile 0,0 0", "tile 1,1 2", "tile 5,5 0", "hut 1,-1", "expand jungle 1,0")
    }
    assert found == {
        "tile 0,0 0": "eruption",
        "tile 1,1 2": "sea",
        "tile 5,5 0": "sea",
        "hut 1,-1": "found",
        "expand jungle 1,0": "expand",
    }
    assert guide.section_for_move(game, "fly away") is None


def test_docs_rules_md_holds_the_guides_words_between_its_markers() -> None:
    """One source: the page, the terminal and docs/rules.md show the words of guide.toml;
    `taluva rules --markdown --into docs/rules.md` writes them again after a change."""
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    start, end = page.index(MARKDOWN_START), page.index(MARKDOWN_END)
    assert page[start : end + len(MARKDOWN_END) + 1] == load_guide().markdown()
    assert load_guide().into_markdown(page) == page


def test_the_guides_data_ships_in_the_wheel() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = project["tool"]["setuptools"]["package-data"]
    assert GUIDE_FILE in data["taluva.learn"]


# ---------------------------------------------------------------- the guide translated

GLOSSARY = {
    "de": ("Plättchen", "Feld", "Vulkan", "Siedlung", "Hütte", "Tempel", "Turm", "Ebene",
           "Insel", "Schiff", "Lagune", "Spielplan", "Partie", "Dschungel", "Lichtung"),
    "fr": ("tuile", "case", "volcan", "village", "hutte", "temple", "tour", "niveau", "île",
           "bateau", "lagon", "plateau", "éruption", "partie", "jungle", "clairière"),
}  # fmt: skip
"""The game's own words in each language (src/taluva/lang/locale/glossary.md)."""
ENGLISH = re.compile(r"\b(the|you|your|tile|tiles|hex|hexes|settlement|huts?|and|with)\b", re.I)
"""English words that no German or French rule may still hold."""


@pytest.mark.parametrize("lang", sorted(GLOSSARY))
def test_every_section_is_said_in_german_and_french_with_the_games_own_words(lang: str) -> None:
    english, said = load_guide("en"), load_guide(lang)
    assert said.ids == english.ids
    assert "Siedlung" in said.markdown() if lang == "de" else "village" in said.markdown()
    for ours, theirs in zip(english.sections, said.sections, strict=True):
        assert theirs.title != ours.title and theirs.text != ours.text, theirs.id
        words = f"{theirs.title} {theirs.text}"
        assert not ENGLISH.findall(words), (theirs.id, ENGLISH.findall(words))
        assert any(term.lower() in words.lower() for term in GLOSSARY[lang]), theirs.id
        assert "{" not in words and "}" not in words, theirs.id
        # the same paragraphs, points and steps: the translation kept the text's markup
        assert [(b.kind, len(b.items)) for b in theirs.blocks] == [
            (b.kind, len(b.items)) for b in ours.blocks
        ], theirs.id
        assert words.count("**") == f"{ours.title} {ours.text}".count("**"), theirs.id
        for picture, shown in zip(ours.pictures, theirs.pictures, strict=True):
            assert shown.caption != picture.caption and not ENGLISH.findall(shown.caption)
            assert shown.moves == picture.moves and shown.refused == picture.refused


def test_the_guide_follows_the_language_spoken_and_names_the_facts_in_it() -> None:
    huts, temples, towers, _ = STARTING_SUPPLY
    with use("de"):
        german = load_guide()
    assert german is load_guide("de") and german.lang == "de"
    assert load_guide() is load_guide("en")
    game = german.section("game").text
    assert f"{huts} Hütten, {temples} Tempel und {towers} Türme" in game
    refused = next(p for s in german.sections for p in s.pictures if p.refused)
    assert refused.alt.startswith(refused.caption + " Die Regeln verbieten das: ")
    assert refused.refusal == say(refused.draw().refusal, "de")
    assert "Tempel" in german.section("temple").plain_text()


def test_french_words_are_wrapped_without_a_line_starting_with_a_sign() -> None:
    """French puts a space before ``: ; ! ?``: the terminal's and the docs' wrapping keep it
    with its sign, so no line starts with one."""
    french = load_guide("fr")
    for width in (40, 60, 79, 100):
        lines = [line for s in french.sections for line in s.plain_text(width).splitlines()]
        assert not [line for line in lines if re.match(r"\s*[:;!?»]", line)], width
        assert all(len(line) <= width for line in lines if " " in line.strip())
    markdown = french.markdown()
    assert " : " in markdown and not re.search(r"^\s*[:;!?»]", markdown, re.M)


# ---------------------------------------------------------------- the server's guide


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with client_for(sqlite_url(tmp_path_factory.mktemp("guide"))) as client:
        yield client


def test_the_server_gives_every_section_with_words_pictures_and_topics(client: Any) -> None:
    answer = client.get("/api/guide")
    assert answer.status_code == 200
    data = answer.json()
    guide = load_guide()
    assert [s["id"] for s in data["sections"]] == list(guide.ids)
    assert data["topics"] == guide.topic_sections()
    eruption = next(s for s in data["sections"] if s["id"] == "eruption")
    assert eruption["blocks"][1]["kind"] == "points"
    refused = [p for p in eruption["pictures"] if p["refused"]]
    assert refused and all(p["refusal"] for p in refused)
    for section in data["sections"]:
        for picture in section["pictures"]:
            assert picture["svg"] == f"/api/guide/pictures/{picture['id']}.svg?v={data['version']}"


def test_each_picture_carries_the_engines_position_and_the_marks_for_the_clients_board(
    client: Any,
) -> None:
    """The page draws each picture on the game's board from this data: the island is the
    position the engine replayed, and the marks are the move shown (the last one, or the
    refused one with the tile where it would lie)."""
    data = client.get("/api/guide").json()
    assert data["style"]["illegal"] and data["style"]["last_move"]
    for section in data["sections"]:
        for shown in section["pictures"]:
            picture = load_guide().picture(shown["id"])
            game = picture.draw().game
            board, marks = shown["board"], shown["marks"]
            assert {(q, r): level for q, r, level, *_ in board["hexes"]} == {
                coords(h): level for h, level in game.heights().items()
            }, picture.id
            assert len(board["buildings"]) == len(game.buildings())
            assert (board["zone"] or {}).get("name") == game.zone
            assert marks["player"] == game.to_move
            move = Move.parse(picture.refused) if picture.refused else game.moves[-1]
            assert {tuple(hex_) for hex_ in marks["marked"]} >= {
                coords(h) for h in move_hexes(move)
            }, picture.id
            tile = {(q, r) for q, r, _terrain in marks["tile"]}
            laid = picture.refused is not None and move.kind in (TILE, DOUBLE)
            assert tile == ({coords(h) for h in move_hexes(move)} if laid else set()), picture.id


def test_each_picture_is_served_as_svg_and_cached_by_its_etag(client: Any) -> None:
    data = client.get("/api/guide").json()
    picture = data["sections"][3]["pictures"][1]
    answer = client.get(picture["svg"])
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "image/svg+xml"
    assert answer.text == load_guide().picture(picture["id"]).draw().svg
    etag = answer.headers["etag"]
    again = client.get(picture["svg"], headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b""
    guide_etag = client.get("/api/guide").headers["etag"]
    guide_again = client.get("/api/guide", headers={"if-none-match": guide_etag})
    assert guide_again.status_code == 304 and guide_again.content == b""


def test_a_picture_the_guide_does_not_have_is_not_found(client: Any) -> None:
    answer = client.get("/api/guide/pictures/volcano-99.svg")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not-found"
    assert "volcano-99" in answer.json()["error"]["message"]


@pytest.mark.parametrize(
    ("lang", "title"), [("de", "Ein Vulkanausbruch"), ("fr", "Une éruption volcanique")]
)
def test_the_server_gives_the_guide_in_the_readers_language(
    client: Any, lang: str, title: str
) -> None:
    english = client.get("/api/guide")
    answer = client.get("/api/guide", headers={"accept-language": f"{lang}-CH,{lang};q=0.9"})
    assert answer.status_code == 200 and "accept-language" in answer.headers["vary"].lower()
    assert answer.headers["etag"] != english.headers["etag"]
    data, guide = answer.json(), load_guide(lang)
    assert data["lang"] == lang and data["version"] == english.json()["version"]
    eruption = next(s for s in data["sections"] if s["id"] == "eruption")
    assert eruption["title"] == title
    assert eruption["blocks"][1]["items"] == list(guide.section("eruption").blocks[1].items)
    for section in data["sections"]:
        pictures = guide.section(section["id"]).pictures
        assert [p["caption"] for p in section["pictures"]] == [p.caption for p in pictures]
        assert [p["alt"] for p in section["pictures"]] == [p.alt for p in pictures]
    chosen = client.get("/api/guide", params={"lang": lang}).json()
    assert chosen["sections"] == data["sections"]
