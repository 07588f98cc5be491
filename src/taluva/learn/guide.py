"""How to play: the rules as a player reads them, section by section, each section with small
pictures of real positions that the engine replays and checks whenever they are drawn.

The words and the positions are data, ``guide.toml`` beside this module: each picture is a
game given by its players, its draw pile and its moves, and a picture of a refused move also
names that move, which the engine must refuse (its reason is shown under the picture). An
illegal move in a picture, or a "refused" move the engine accepts, is a ``GuideError``: a
picture can never show a position the rules forbid. The web client's page (``GET
/api/guide``), the terminal's help screen, ``taluva rules`` and the "How to play" block of
docs/rules.md are all made from this one source, so they cannot drift apart.

The words are English in ``guide.toml`` and translated in the ``learn`` catalog (each title,
text and caption is one message): ``load_guide(lang)`` reads the guide in a language, every
title, text and caption in its words, and says the engine's refusals and results in it too.
"""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import Any, Final

from taluva.engine.errors import IllegalMove, InvalidOption
from taluva.engine.expansions.board_zones import MAX_CORNERS_OUT
from taluva.engine.game import Game
from taluva.engine.hexes import DELTAS, coords
from taluva.engine.moves import DOUBLE, EXPAND, TILE, Move
from taluva.engine.options import PLAYER_COUNTS, TILES_PER_PLAYER_CHOICES
from taluva.engine.pieces import STARTING_SUPPLY
from taluva.engine.tiles import (
    VOLCANO,
    double_footprint,
    double_terrains,
    footprint,
    tile_terrains,
)
from taluva.engine.wording import T
from taluva.lang import DEFAULT, current, say
from taluva.render import style
from taluva.render.position import last_turn_hexes, move_hexes
from taluva.render.scene import (
    VOLCANO_LAVA,
    VOLCANO_SHAPE,
    Group,
    Scene,
    Shape,
    board_scene,
    building_shapes,
    edge_points,
    hex_corners,
    placed,
)
from taluva.render.svg import scene_svg

GUIDE_FILE: Final = "guide.toml"
"""The guide's words and positions, package data of ``taluva.learn``."""

PICTURE_SIZE: Final = 30.0
"""Hex radius of the pictures, in pixels."""

DEFAULT_PLAYERS: Final = ("Ana", "Ben")

EXPANSION_TAGS: Final = ("ships", "double_hex", "board")
"""What an expansion section may be shown for: an expansion, or any Game Board zone."""

TOPICS: Final = (
    "first-tile",
    "tile-sea",
    "tile-land",
    "draw",
    "double",
    "hut",
    "expand",
    "temple",
    "tower",
    "ship",
)
"""What a section may explain: a kind of move (a tile at sea level or on land apart), so that
a build action or a refusal can lead to its section."""

MARKDOWN_START: Final = "<!-- guide:start -->"
MARKDOWN_END: Final = "<!-- guide:end -->"
"""The lines around the guide's words in docs/rules.md (``taluva rules --markdown``)."""

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_STEP = re.compile(r"^(\d+)\. ")
_ID = re.compile(r"^[a-z][a-z-]*$")


class GuideError(ValueError):
    """The guide's data is wrong (an illegal move in a picture, a refused move the engine
    accepts, an unknown field), or a section asked for does not exist."""


def facts() -> dict[str, str]:
    """The numbers the guide's words name, from the engine's tables (``{huts}`` in a text)."""
    huts, temples, towers, ships = STARTING_SUPPLY
    return {
        "fewest_players": str(min(PLAYER_COUNTS)),
        "most_players": str(max(PLAYER_COUNTS)),
        "huts": str(huts),
        "temples": str(temples),
        "towers": str(towers),
        "ships": str(ships),
        "tiles_per_player": str(min(TILES_PER_PLAYER_CHOICES)),
        "corners_out": str(MAX_CORNERS_OUT),
    }


def expansion_tag(option: str) -> str:
    """The tag of an expansion option: ``board:expert`` is ``board``, others themselves."""
    return option.partition(":")[0]


def plain(text: str) -> str:
    """Inline text without its ``**bold**`` marks."""
    return _BOLD.sub(r"\1", text)


def spans(text: str) -> list[tuple[str, bool]]:
    """Inline text as ``(text, bold)`` runs, for the interfaces that show bold."""
    runs: list[tuple[str, bool]] = []
    for index, part in enumerate(re.split(r"\*\*", text)):
        if part:
            runs.append((part, index % 2 == 1))
    return runs


@dataclass(frozen=True, slots=True)
class Block:
    """A paragraph (one item), a list of points or a list of numbered steps."""

    kind: str
    """``paragraph``, ``points`` or ``steps``."""
    items: tuple[str, ...]


def parse_blocks(text: str) -> tuple[Block, ...]:
    """Read a section's text: paragraphs separated by blank lines; a paragraph whose lines
    start with ``- `` is a list of points, one with ``1. `` a list of steps (a line indented by
    two spaces or more goes on with the item above)."""
    blocks = []
    for chunk in re.split(r"\n\s*\n", text.strip()):
        lines = chunk.splitlines()
        first = lines[0]
        kind = "points" if first.startswith("- ") else "steps" if _STEP.match(first) else ""
        if not kind:
            blocks.append(Block("paragraph", (" ".join(line.strip() for line in lines),)))
            continue
        items: list[str] = []
        for line in lines:
            if line.startswith("  "):
                items[-1] += " " + line.strip()
            elif kind == "points" and line.startswith("- "):
                items.append(line[2:].strip())
            elif kind == "steps" and _STEP.match(line):
                items.append(_STEP.sub("", line).strip())
            else:
                raise GuideError(f"a list mixes its kinds of items at {line!r}")
        blocks.append(Block(kind, tuple(items)))
    return tuple(blocks)


@dataclass(frozen=True, slots=True)
class Drawing:
    """A picture made: the position the engine reached, its refusal of the refused move, the
    SVG, and how the game ended if it did."""

    game: Game
    refusal: str | None
    svg: str
    width: int
    height: int
    result: str | None


@dataclass(frozen=True, slots=True)
class Picture:
    """A position given as moves from a fixed pile, and the move shown on it: the last move
    played (outlined in yellow), or ``refused``, a move the engine refuses there (drawn in
    red, with the engine's reason under the picture)."""

    id: str
    caption: str
    deck: tuple[str, ...]
    moves: tuple[str, ...]
    refused: str | None = None
    players: tuple[str, ...] = DEFAULT_PLAYERS
    expansions: tuple[str, ...] = ()
    doubles: tuple[str, ...] | None = None
    outline: str = "move"
    """What the yellow line goes round: the last ``move``, or the whole last ``turn``."""
    lang: str = DEFAULT
    """The language of the caption, in which the picture's words (``alt``) are said."""

    def replay(self) -> Game:
        """The picture's position, every move checked by the engine; GuideError naming the
        picture and the move when one is illegal."""
        try:
            game = Game.new(
                players=self.players,
                deck=self.deck,
                expansions=self.expansions,
                doubles=self.doubles,
            )
        except InvalidOption as error:
            raise GuideError(f"picture {self.id}: {error}") from None
        for index, move in enumerate(self.moves):
            try:
                game.play(move)
            except IllegalMove as error:
                raise GuideError(f"picture {self.id}: moves[{index}] {error}") from None
        return game

    def draw(self) -> Drawing:
        """Replay the position, check the refused move and draw the picture (made once for
        every language: the drawing has no words, and the engine's are said when shown)."""
        return _drawing(replace(self, caption="", lang=DEFAULT))

    def marks(self) -> dict[str, Any]:
        """What the web client's board draws over the position, as JSON: the ``marked`` hexes
        ``[q, r]`` (outlined), where a refused tile would lie (``tile``: ``[q, r, terrain]``,
        empty for a build) and the ``player`` to move, whose pieces a refused build shows."""
        game = self.draw().game
        tile = refused_tile(game, Move.parse(self.refused)) if self.refused is not None else {}
        return {
            "marked": sorted([*coords(hex_)] for hex_ in marked_hexes(self, game)),
            "tile": [[*coords(hex_), terrain] for hex_, terrain in tile.items()],
            "player": game.to_move,
        }

    @property
    def alt(self) -> str:
        """The picture in words, for a reader who cannot see it (in the picture's language)."""
        drawing = self.draw()
        caption = plain(self.caption)
        if drawing.refusal is not None:
            alt = T("{caption} The rules refuse it: {refusal}.", caption=caption,
                    refusal=drawing.refusal)  # fmt: skip
            return say(alt, self.lang)
        if drawing.result is not None:
            return f"{caption} {say(drawing.result, self.lang)}."
        return caption

    @property
    def refusal(self) -> str | None:
        """The engine's reason for refusing the refused move, in the picture's language."""
        refusal = self.draw().refusal
        return None if refusal is None else say(refusal, self.lang)

    @property
    def result(self) -> str | None:
        """How the game in the picture ended, in the picture's language (None if it goes on)."""
        result = self.draw().result
        return None if result is None else say(result, self.lang)


@cache
def _drawing(picture: Picture) -> Drawing:
    """``Picture.draw``, made once per picture: a server draws each for every reader."""
    game = picture.replay()
    refusal = None
    if picture.refused is not None:
        try:
            Move.parse(picture.refused)
        except IllegalMove as error:
            raise GuideError(f"picture {picture.id}: refused: {error}") from None
        refusal = game.explain(picture.refused)
        if refusal is None:
            raise GuideError(
                f"picture {picture.id}: the engine accepts {picture.refused!r}, "
                "which the picture shows as refused"
            )
    scene = _scene(picture, game)
    result = game.result_in_words()[0] if game.is_over else None
    return Drawing(game, refusal, scene_svg(scene), int(scene.width), int(scene.height), result)


def marked_hexes(picture: Picture, game: Game) -> frozenset[int]:
    """The hexes a picture marks: those of its refused move, or else of its last move (or
    whole last turn)."""
    if picture.refused is not None:
        return frozenset(move_hexes(Move.parse(picture.refused)))
    if picture.outline == "turn":
        return last_turn_hexes(game)
    return frozenset(move_hexes(game.moves[-1]) if game.moves else ())


def refused_tile(game: Game, move: Move) -> dict[int, int]:
    """Where a refused tile move would lie: each hex with its terrain (empty for a build)."""
    if move.kind == TILE:
        code = game.tile
        terrains: tuple[int, ...] = tile_terrains(code) if code else ()
        return dict(zip(footprint(move.hex, move.orientation), terrains, strict=False))
    if move.kind == DOUBLE:
        places = double_footprint(move.hex, move.orientation)
        return dict(zip(places, double_terrains(move.tile), strict=True))
    return {}


def _scene(picture: Picture, game: Game) -> Scene:
    """The position with the last move (or turn) outlined, or the refused move drawn over it."""
    marked = marked_hexes(picture, game)
    if picture.refused is None:
        return board_scene(game, PICTURE_SIZE, header=False, highlight=marked, include=marked)
    scene = board_scene(game, PICTURE_SIZE, header=False, highlight=frozenset(), include=marked)
    scene.items.append(_refused_group(game, Move.parse(picture.refused), scene))
    scene.items.extend(_outline(marked, scene, style.ILLEGAL))
    return scene


def _refused_group(game: Game, move: Move, scene: Scene) -> Group:
    """The refused move, half seen through: the tile where it would lie, or the pieces."""
    size = scene.size
    group = Group({"class": "refused", "data-move": str(move), "opacity": "0.6"})
    tile = refused_tile(game, move)
    for hex_, terrain in tile.items():
        cx, cy = scene.centre_of(hex_)
        fill = style.level_fill(terrain, game.level(hex_) + 1)
        group.items.append(Shape(hex_corners(cx, cy, size), fill))
        if terrain == VOLCANO:
            cone = placed(VOLCANO_SHAPE, cx, cy + size * 0.12, size)
            group.items.append(Shape(cone, style.shade(fill, -0.35)))
            group.items.append(Shape(placed(VOLCANO_LAVA, cx, cy + size * 0.12, size), "#ff8f00"))
    if tile:
        return group
    kind = "hut" if move.kind == EXPAND else str(move.kind)
    for hex_ in move_hexes(move):
        cx, cy = scene.centre_of(hex_)
        level = max(1, game.level(hex_)) if kind == "hut" else 1
        group.items.extend(building_shapes(kind, game.to_move, level, cx, cy + size * 0.08, size))
    return group


def _outline(hexes: frozenset[int], scene: Scene, colour: str) -> list[Shape]:
    """A line around a group of hexes, just inside their edges."""
    lines = []
    for hex_ in sorted(hexes):
        cx, cy = scene.centre_of(hex_)
        for k, delta in enumerate(DELTAS):
            if hex_ + delta not in hexes:
                a, b = edge_points(cx, cy, scene.size * 0.93, k)
                lines.append(Shape((a, b), None, colour, scene.size * 0.1, closed=False))
    return lines


_KEPT_SPACE: Final = re.compile(r" (?=[:;!?»])|(?<=«) ")
"""The spaces French typography keeps with the sign beside them (``vous : ``, ``« Élimination
»``), so that a line never starts with the sign."""


def _fill(text: str, width: int, marker: str, *, break_on_hyphens: bool = True) -> str:
    """One item wrapped to ``width`` after its ``marker``, never at a space kept with a sign."""
    kept = _KEPT_SPACE.sub("\x00", text)  # a character textwrap never breaks at
    wrapped = textwrap.fill(kept, width, initial_indent=marker,
                            subsequent_indent=" " * len(marker),
                            break_on_hyphens=break_on_hyphens)  # fmt: skip
    return wrapped.replace("\x00", " ")


@dataclass(frozen=True, slots=True)
class Section:
    """One rule as a player reads it: its words and its pictures. ``expansion`` names the
    expansion (a tag of ``EXPANSION_TAGS``) a section belongs to, None for the base game;
    ``topics`` the kinds of move it explains."""

    id: str
    title: str
    text: str
    blocks: tuple[Block, ...]
    pictures: tuple[Picture, ...]
    expansion: str | None = None
    topics: tuple[str, ...] = ()

    def plain_text(self, width: int = 79) -> str:
        """The section's title and words for a terminal, wrapped to ``width``."""
        lines = [self.title, "=" * len(self.title), ""]
        for block in self.blocks:
            for number, item in enumerate(block.items, start=1):
                marker = {"paragraph": "", "points": "- ", "steps": f"{number}. "}[block.kind]
                lines.append(_fill(plain(item), width, marker))
            lines.append("")
        return "\n".join(lines).rstrip("\n") + "\n"

    def markdown(self) -> str:
        """The section as Markdown (a ``###`` heading and its words), wrapped as the docs are."""
        lines = [f"### {self.title}", ""]
        for block in self.blocks:
            for number, item in enumerate(block.items, start=1):
                marker = {"paragraph": "", "points": "- ", "steps": f"{number}. "}[block.kind]
                lines.append(_fill(item, 95, marker, break_on_hyphens=False))
            lines.append("")
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Guide:
    """Every section, in reading order: the base game, then the expansions; its words in
    ``lang``."""

    sections: tuple[Section, ...]
    lang: str = DEFAULT

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(section.id for section in self.sections)

    def section(self, section_id: str) -> Section:
        """The section named ``section_id``; GuideError listing the sections otherwise."""
        for section in self.sections:
            if section.id == section_id:
                return section
        raise GuideError(f"no section {section_id!r}: choose one of {', '.join(self.ids)}")

    def for_game(self, expansions: Iterable[str] | None) -> tuple[Section, ...]:
        """The sections a game with these expansion options needs (every one for None)."""
        if expansions is None:
            return self.sections
        tags = {expansion_tag(option) for option in expansions}
        return tuple(s for s in self.sections if s.expansion is None or s.expansion in tags)

    def topic_sections(self) -> dict[str, str]:
        """Which section explains each topic (``hut`` -> ``found``)."""
        return {topic: s.id for s in self.sections for topic in s.topics}

    def section_for_move(self, game: Game, move: str) -> Section | None:
        """The section that explains ``move`` in ``game``'s position (the first tile of the
        game; else a tile wholly on land is an eruption, any other at sea level), or None for
        text that is no move."""
        try:
            parsed = Move.parse(move)
        except IllegalMove:
            return None
        topic = str(parsed.kind)
        if parsed.kind in (TILE, DOUBLE) and not game.land():
            topic = "first-tile"
        elif parsed.kind == TILE:
            on_land = all(game.level(h) > 0 for h in footprint(parsed.hex, parsed.orientation))
            topic = "tile-land" if on_land else "tile-sea"
        found = self.topic_sections().get(topic)
        return None if found is None else self.section(found)

    def check(self) -> None:
        """Draw every picture: GuideError on the first one whose position or refusal is wrong."""
        for section in self.sections:
            for picture in section.pictures:
                picture.draw()

    def markdown(self) -> str:
        """The words of every section, as docs/rules.md holds them between its markers."""
        body = "\n".join(section.markdown() for section in self.sections)
        return f"{MARKDOWN_START}\n\n{body}\n{MARKDOWN_END}\n"

    def into_markdown(self, document: str) -> str:
        """``document`` (docs/rules.md) with the words between its guide markers written
        again; GuideError if it lacks the markers."""
        start, end = document.find(MARKDOWN_START), document.find(MARKDOWN_END)
        if start < 0 or end < start:
            raise GuideError(f"no lines {MARKDOWN_START} ... {MARKDOWN_END} to write the guide in")
        return document[:start] + self.markdown() + document[end + len(MARKDOWN_END) + 1 :]

    def to_json(self) -> dict[str, Any]:
        """Every section with its words and pictures, as the web client reads it: each
        picture's caption, refusal and the marks its board draws over the position, every
        word in the guide's language."""
        sections = []
        for section in self.sections:
            pictures = []
            for picture in section.pictures:
                drawing = picture.draw()
                pictures.append(
                    {
                        "id": picture.id,
                        "caption": picture.caption,
                        "alt": picture.alt,
                        "refused": picture.refused,
                        "refusal": picture.refusal,
                        "result": picture.result,
                        "width": drawing.width,
                        "height": drawing.height,
                        "marks": picture.marks(),
                    }
                )
            sections.append(
                {
                    "id": section.id,
                    "title": section.title,
                    "expansion": section.expansion,
                    "blocks": [{"kind": b.kind, "items": list(b.items)} for b in section.blocks],
                    "pictures": pictures,
                }
            )
        return {"sections": sections, "topics": self.topic_sections()}

    def picture(self, picture_id: str) -> Picture:
        """The picture named ``picture_id``; GuideError if there is none."""
        for section in self.sections:
            for picture in section.pictures:
                if picture.id == picture_id:
                    return picture
        raise GuideError(f"no picture {picture_id!r}")

    def digest(self) -> str:
        """A short digest of everything the guide shows, for caches (it changes with it)."""
        pictures = [p.draw().svg for s in self.sections for p in s.pictures]
        text = json.dumps([self.to_json(), pictures], sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_SECTION_KEYS: Final = {"id", "title", "text", "expansion", "topics", "picture"}
_PICTURE_KEYS: Final = {
    "caption",
    "deck",
    "moves",
    "refused",
    "players",
    "expansions",
    "doubles",
    "outline",
}


def parse_guide(text: str, lang: str = DEFAULT) -> Guide:
    """Read a guide from TOML text: ``[[section]]`` tables, each with ``[[section.picture]]``
    tables, its words in ``lang`` (from the ``learn`` catalog; English where a message has no
    translation). GuideError names what is wrong; the pictures are checked when drawn."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise GuideError(f"{GUIDE_FILE}: {error}") from None
    try:
        sections = tuple(_section(raw, facts(), lang) for raw in data.get("section", []))
    except KeyError as error:
        raise GuideError(f"{GUIDE_FILE}: a section or picture lacks {error}") from None
    ids = [section.id for section in sections]
    if len(set(ids)) != len(ids) or not ids:
        raise GuideError(f"{GUIDE_FILE}: section ids must be present and unique: {ids}")
    return Guide(sections, lang)


def _words(english: Any, lang: str, where: str, numbers: dict[str, str] | None = None) -> str:
    """One of the guide's texts in ``lang``, the facts it names filled in; GuideError for a
    text that is missing or names no fact."""
    if not isinstance(english, str):
        raise GuideError(f"{where}: expected a text, not {english!r}")
    try:
        return say(T(english, **(numbers or {})), lang)
    except KeyError as error:
        raise GuideError(f"{where}: no fact named {error}") from None


def _section(raw: dict[str, Any], numbers: dict[str, str], lang: str = DEFAULT) -> Section:
    """One ``[[section]]`` table in ``lang``, its facts filled in."""
    unknown = sorted(set(raw) - _SECTION_KEYS)
    if unknown or not _ID.match(str(raw.get("id", ""))):
        raise GuideError(f"section {raw.get('id')!r}: a bad id or unknown keys {unknown}")
    section_id = raw["id"]
    words = _words(raw["text"], lang, f"section {section_id}", numbers).strip()
    expansion = raw.get("expansion")
    if expansion is not None and expansion not in EXPANSION_TAGS:
        raise GuideError(f"section {section_id}: unknown expansion {expansion!r}")
    topics = tuple(raw.get("topics", ()))
    if not set(topics) <= set(TOPICS):
        wrong = sorted(set(topics) - set(TOPICS))
        raise GuideError(f"section {section_id}: unknown topics {wrong}")
    pictures = tuple(
        _picture(f"{section_id}-{number}", picture, lang)
        for number, picture in enumerate(raw.get("picture", []), start=1)
    )
    try:
        blocks = parse_blocks(words)
    except GuideError as error:
        raise GuideError(f"section {section_id} ({lang}): {error}") from None
    title = _words(raw["title"], lang, f"section {section_id}")
    return Section(section_id, title, words, blocks, pictures, expansion, topics)


def _picture(picture_id: str, raw: dict[str, Any], lang: str = DEFAULT) -> Picture:
    """One ``[[section.picture]]`` table (its position is checked when it is drawn)."""
    unknown = sorted(set(raw) - _PICTURE_KEYS)
    if unknown:
        raise GuideError(f"picture {picture_id}: unknown keys {unknown}")
    outline = raw.get("outline", "move")
    if outline not in ("move", "turn"):
        raise GuideError(f"picture {picture_id}: outline is 'move' or 'turn', not {outline!r}")
    doubles = raw.get("doubles")
    return Picture(
        id=picture_id,
        caption=_words(raw["caption"], lang, f"picture {picture_id}").strip(),
        deck=tuple(raw["deck"]),
        moves=tuple(raw["moves"]),
        refused=raw.get("refused"),
        players=tuple(raw.get("players", DEFAULT_PLAYERS)),
        expansions=tuple(raw.get("expansions", ())),
        doubles=None if doubles is None else tuple(doubles),
        outline=outline,
        lang=lang,
    )


def load_guide(lang: str | None = None) -> Guide:
    """The guide of ``guide.toml`` in ``lang`` (default: the language spoken now,
    ``taluva.lang.use``), read once per language; its pictures are drawn when first asked
    for."""
    return _load_guide(current() if lang is None else lang)


@cache
def _load_guide(lang: str) -> Guide:
    text = resources.files("taluva.learn").joinpath(GUIDE_FILE).read_text(encoding="utf-8")
    return parse_guide(text, lang)
