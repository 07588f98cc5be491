"""Learn to play: the interactive first game, a guided game on a fixed pile against opponents
who follow a script, in which each step teaches one move and the learner wins at the end.

The steps are data, ``tutorial.toml`` beside this module: the moves played before the
lesson starts, then for each step what to say, why, which hexes to outline, the one move it
accepts and the answer to any other legal move, and the opponents' replies. Loading replays
it all with the engine and refuses a tutorial whose taught move or reply is illegal, whose
outlined hexes are not the move's, or which does not end with the learner's win, so a rule
change that breaks a step fails at once (tests/test_learn_tutorial.py). The web client
(``GET /api/tutorial``) and ``taluva learn`` both run these steps; a step is found from the
game's ply, and ``Step.answer`` judges a move in the position of the game being played.

The words are English in ``tutorial.toml`` and translated in the ``learn`` catalog (each
value is one message, its placeholders filled in after): ``load_tutorial(lang)`` reads the
lesson in a language, and checks its words there as it does in English.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final, Literal

from taluva.engine.errors import IllegalMove, InvalidOption
from taluva.engine.game import Game
from taluva.engine.hexes import format_hex, parse_hex
from taluva.engine.moves import TILE, Move
from taluva.engine.wording import N_, T, Text
from taluva.lang import DEFAULT, current, say
from taluva.learn.guide import facts
from taluva.render.position import move_hexes

TUTORIAL_FILE: Final = "tutorial.toml"
"""The tutorial's words and moves, package data of ``taluva.learn``."""

Verdict = Literal["taught", "other", "illegal"]
"""How a move answers a step: the move it teaches, another legal move, or an illegal one."""

_HEX_IN_WORDS: Final = re.compile(r"(?<![\w,.-])-?\d+,-?\d+(?![\w,])")
"""A hex as the words write it (``-1,-2``), not part of a longer number or word."""

LEARNER_NAME: Final = N_("You")
"""The learner's name in ``tutorial.toml``, which is said in the lesson's language (the
opponents' names stay as they are)."""

_KEYS: Final = {"title", "players", "learner", "intro", "ending", "prepared", "step"}
_STEP_KEYS: Final = {"id", "say", "why", "highlight", "move", "other", "replies", "then"}


class TutorialError(ValueError):
    """The tutorial's data is wrong: a missing or unknown field, an illegal move, an outlined
    hex the move does not touch, or an ending that is not the learner's win."""


def paragraphs(text: str) -> tuple[str, ...]:
    """Text split at blank lines, each paragraph's lines joined into one.

    >>> paragraphs("One\\ntwo.\\n\\nThree.\\n")
    ('One two.', 'Three.')
    """
    return tuple(" ".join(part.split()) for part in re.split(r"\n\s*\n", text) if part.strip())


@dataclass(frozen=True, slots=True)
class Answer:
    """What a step makes of a move: the ``verdict`` and the words to show (empty for the
    taught move; the engine's refusal for an illegal one), a ``Text`` or words already in the
    lesson's language, to be said (``taluva.lang.say``)."""

    verdict: Verdict
    message: str = ""

    def to_json(self) -> dict[str, str]:
        """The answer as the web client gets it: the message as it is (the server says it)."""
        return {"verdict": self.verdict, "message": self.message}


@dataclass(frozen=True, slots=True)
class Step:
    """One taught move: ``say`` (what to do), ``why`` (the rule, in paragraphs), the hexes
    to outline, the ``move`` it accepts, the answer to ``other`` legal moves, and the
    opponents' ``replies`` with ``then`` (what they did). ``ply`` is where the step starts
    and ``tile`` the tile the learner holds there (None in a build)."""

    number: int
    id: str
    say: str
    why: tuple[str, ...]
    highlight: tuple[int, ...]
    move: Move
    other: str
    replies: tuple[Move, ...]
    then: tuple[str, ...]
    ply: int
    tile: str | None

    @property
    def kind(self) -> str:
        """``tile`` for a tile to place, otherwise the kind of build (``hut``, ``expand``...)."""
        return str(self.move.kind)

    def answer(self, game: Game, text: str) -> Answer:
        """Judge ``text`` in ``game``, the position where this step starts: the taught move,
        another legal one (with the step's answer, or a nudge for a tile that is nearly
        right) or an illegal one (with the engine's reason)."""
        try:
            move = Move.parse(text)
        except IllegalMove as error:
            return Answer("illegal", error.text)
        reason = game.explain(move)
        if reason is not None:
            return Answer("illegal", reason)
        if move == self.move:
            return Answer("taught")
        return Answer("other", self.nudge(move))

    def nudge(self, move: Move) -> str:
        """The answer to a legal move that is not the taught one: for a tile on the right
        hexes or with its volcano on the right hex, how to turn it; otherwise ``other``."""
        taught = self.move
        if move.kind == TILE and taught.kind == TILE:
            if set(move_hexes(move)) == set(move_hexes(taught)):
                return T(
                    "Right hexes: now turn the tile so that its volcano lies on {hex}.",
                    hex=format_hex(taught.hex),
                )
            if move.hex == taught.hex:
                return T("Right volcano: now turn the tile until it covers the outlined hexes.")
        return self.other

    def to_json(self) -> dict[str, Any]:
        """The step as the web client gets it (``GET /api/tutorial``)."""
        return {
            "number": self.number,
            "id": self.id,
            "say": self.say,
            "why": list(self.why),
            "highlight": [format_hex(h) for h in self.highlight],
            "move": str(self.move),
            "kind": self.kind,
            "replies": [str(move) for move in self.replies],
            "then": list(self.then),
            "ply": self.ply,
            "tile": self.tile,
        }


@dataclass(frozen=True)
class Tutorial:
    """The whole lesson: the players, the pile, the moves played before it starts, the
    steps and the words before and after them (``intro``, ``ending``), in ``lang``."""

    title: str
    players: tuple[str, ...]
    learner: int
    deck: tuple[str, ...]
    prepared: tuple[Move, ...]
    intro: tuple[str, ...]
    ending: tuple[str, ...]
    steps: tuple[Step, ...]
    lang: str = DEFAULT

    def start(self) -> Game:
        """A new game at the position where the lesson starts."""
        game = Game.new(players=list(self.players), deck=list(self.deck))
        for move in self.prepared:
            game.play(move)
        return game

    @property
    def end_ply(self) -> int:
        """The ply of the won game at the end."""
        last = self.steps[-1]
        return last.ply + 1 + len(last.replies)

    def step_at(self, ply: int) -> Step | None:
        """The step that starts at ``ply``, if any (the learner's move is awaited there)."""
        for step in self.steps:
            if step.ply == ply:
                return step
        return None

    def script(self) -> dict[int, Move]:
        """The opponents' moves by the ply they are played at."""
        moves: dict[int, Move] = {}
        for step in self.steps:
            for offset, move in enumerate(step.replies, start=1):
                moves[step.ply + offset] = move
        return moves

    def position(self, number: int) -> Game:
        """A new game where step ``number`` starts (``len(steps)``: the won game)."""
        if not 0 <= number <= len(self.steps):
            raise ValueError(f"step {number} does not exist: steps are 0 to {len(self.steps)}")
        game = self.start()
        for step in self.steps[:number]:
            for move in (step.move, *step.replies):
                game.play(move)
        return game

    def to_json(self) -> dict[str, Any]:
        """The lesson's words and steps (not its positions) as the web client gets them."""
        return {
            "title": self.title,
            "players": list(self.players),
            "learner": self.learner,
            "intro": list(self.intro),
            "ending": list(self.ending),
            "prepared": len(self.prepared),
            "steps": [step.to_json() for step in self.steps],
        }


def _text(raw: Mapping[str, Any], key: str, where: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise TutorialError(f"{where}: {key} must be a text")
    return value


def _texts(raw: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TutorialError(f"{where}: {key} must be a list of texts")
    return value


def _moves(texts: Iterable[str], where: str) -> tuple[Move, ...]:
    moves = []
    for index, text in enumerate(texts):
        try:
            moves.append(Move.parse(text))
        except IllegalMove as error:
            raise TutorialError(f"{where}[{index}]: {error}") from None
    return tuple(moves)


def _fill(text: str, words: Mapping[str, str], where: str, lang: str = DEFAULT) -> str:
    """``text`` in ``lang`` (from the ``learn`` catalog), the lesson's numbers filled in."""
    try:
        english = T(text, **words)
    except (KeyError, ValueError) as error:
        raise TutorialError(f"{where}: cannot fill in {error} in {text[:40]!r}...") from None
    return say(english, lang)


def _play(game: Game, move: Move, where: str) -> None:
    try:
        game.play(move)
    except IllegalMove as error:
        raise TutorialError(f"{where}: {error}") from None


def _words_of(game: Game, learner: int) -> dict[str, str]:
    """What the lesson's words may name: the engine's numbers and the learner's pieces."""
    placed, left = game.placed(learner), game.supply(learner)
    return {
        **facts(),
        "prepared_moves": str(game.ply),
        "placed_temples": str(placed["temples"]),
        "placed_towers": str(placed["towers"]),
        "left_temples": str(left["temples"]),
        "left_towers": str(left["towers"]),
    }


def _step(
    raw: Any,
    number: int,
    game: Game,
    learner: int,
    words: Mapping[str, str],
    seen: set[str],
    *,
    last: bool,
    lang: str = DEFAULT,
) -> Step:
    """Read step ``number`` and play it (the taught move, then the replies) on ``game``; the
    ``last`` step must win the game for the learner, any other hand the turn back to them."""
    where = f"step {number + 1}"
    if not isinstance(raw, dict):
        raise TutorialError(f"{where}: expected a table")
    unknown = set(raw) - _STEP_KEYS
    if unknown:
        raise TutorialError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    step_id = _text(raw, "id", where)
    where = f"step {number + 1} ({step_id})"
    if step_id in seen:
        raise TutorialError(f"{where}: the id is used twice")
    seen.add(step_id)
    (move,) = _moves([_text(raw, "move", where)], f"{where}: move")
    replies = _moves(_texts(raw, "replies", where), f"{where}: replies")
    if raw.get("then") is not None and not replies:
        raise TutorialError(f"{where}: 'then' tells of replies, but the step has none")
    if game.is_over or game.to_move != learner:
        raise TutorialError(f"{where}: the learner is not to move here")
    reason = game.explain(move)
    if reason is not None:
        raise TutorialError(f"{where}: move {move}: {reason}")
    touched = set(move_hexes(move))
    try:
        highlight = tuple(parse_hex(text) for text in _texts(raw, "highlight", where))
    except ValueError as error:
        raise TutorialError(f"{where}: highlight: {error}") from None
    if not highlight or not set(highlight) <= touched:
        raise TutorialError(f"{where}: highlight must name hexes that {move} touches")
    step_words = {**words, "tile": game.tile or ""}
    say = _fill(_text(raw, "say", where), step_words, where, lang)
    why = paragraphs(_fill(_text(raw, "why", where), step_words, where, lang))
    for text in (say, *why):
        for found in _HEX_IN_WORDS.findall(text):
            if parse_hex(found) not in touched:
                raise TutorialError(
                    f"{where} ({lang}): the words name {found}, which {move} leaves alone"
                )
    step = Step(
        number=number,
        id=step_id,
        say=say,
        why=why,
        highlight=highlight,
        move=move,
        other=_fill(_text(raw, "other", where), step_words, where, lang),
        replies=replies,
        then=paragraphs(_fill(_text(raw, "then", where), words, where, lang))
        if raw.get("then")
        else (),
        ply=game.ply,
        tile=game.tile,
    )
    _play(game, move, f"{where}: move")
    for index, reply in enumerate(replies):
        if game.is_over or game.to_move == learner:
            raise TutorialError(f"{where}: replies[{index}] {reply}: it is not an opponent's move")
        _play(game, reply, f"{where}: replies[{index}]")
    if last:
        if game.result is None or game.result.winners != (learner,):
            raise TutorialError(f"{where}: the last step must end the game with the learner's win")
    elif game.is_over or game.to_move != learner:
        raise TutorialError(f"{where}: the replies must end where the learner moves again")
    return step


def parse_tutorial(text: str, lang: str = DEFAULT) -> Tutorial:
    """Read the tutorial from TOML, its words in ``lang`` (English where a message has no
    translation), and replay it with the engine; raise TutorialError for anything wrong,
    naming the step."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TutorialError(f"the tutorial is not TOML: {error}") from None
    unknown = set(raw) - _KEYS
    if unknown:
        raise TutorialError(f"unknown field(s) {', '.join(sorted(unknown))}")
    players = tuple(
        say(Text(name), lang) if name == LEARNER_NAME else name
        for name in _texts(raw, "players", "players")
    )
    learner = raw.get("learner")
    if not isinstance(learner, int) or not 0 <= learner < len(players):
        raise TutorialError("learner must be the index of one of the players")
    prepared_raw = raw.get("prepared")
    if not isinstance(prepared_raw, dict) or set(prepared_raw) != {"deck", "moves"}:
        raise TutorialError("prepared must be a table with a deck and moves")
    deck = tuple(_texts(prepared_raw, "deck", "prepared"))
    prepared = _moves(_texts(prepared_raw, "moves", "prepared"), "prepared: moves")
    try:
        game = Game.new(players=list(players), deck=list(deck))
    except InvalidOption as error:
        raise TutorialError(f"prepared: {error}") from None
    for index, move in enumerate(prepared):
        _play(game, move, f"prepared: moves[{index}]")
    words = _words_of(game, learner)
    raw_steps = raw.get("step")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise TutorialError("the tutorial needs at least one [[step]]")
    seen: set[str] = set()
    steps = tuple(
        _step(
            item, number, game, learner, words, seen, last=number == len(raw_steps) - 1, lang=lang
        )
        for number, item in enumerate(raw_steps)
    )
    return Tutorial(
        title=_fill(_text(raw, "title", "title"), {}, "title", lang),
        players=players,
        learner=learner,
        deck=deck,
        prepared=prepared,
        intro=paragraphs(_fill(_text(raw, "intro", "intro"), words, "intro", lang)),
        ending=paragraphs(_fill(_text(raw, "ending", "ending"), words, "ending", lang)),
        steps=steps,
        lang=lang,
    )


def load_tutorial(lang: str | None = None) -> Tutorial:
    """The tutorial of ``tutorial.toml`` in ``lang`` (default: the language spoken now,
    ``taluva.lang.use``), read and checked once per language."""
    return _load_tutorial(current() if lang is None else lang)


@cache
def _load_tutorial(lang: str) -> Tutorial:
    text = resources.files("taluva.learn").joinpath(TUTORIAL_FILE).read_text(encoding="utf-8")
    return parse_tutorial(text, lang)
