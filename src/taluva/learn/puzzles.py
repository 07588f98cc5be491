"""Puzzles: positions from self-play games where one turn (a tile and a build) is clearly best:
it wins at once, it alone stops the opponent's win at once next turn (``block``; ``spoil``
when only eruptions on the opponent's huts do), or it leaves no eruption that destroys the
mover's huts (``save``).

Every shipped puzzle (``puzzles.json``, made by ``taluva puzzles make``, see
``taluva.learn.puzzle_maker``) was checked exactly (``taluva.learn.puzzle_check``): every tile
placement and every build after it were tried. The turns that win (or block) all share one
build, so the answer is that build, played after a placement that leaves it possible; a spoil's
blocking turns all erupt on the opponent's huts; a save's saving turns share one placement or
one build. Blocks, spoils and saves also passed the margin screen of the maker: the search
gives the answer a far better winning chance than the best other turns. An attempt is right
when the engine, playing it, finds that it wins at once (or that no unseen tile then gives the
opponent a winning turn, or that no eruption can then destroy a hut of the solver's); a wrong
one is answered with what it misses and the answer. Web, terminal and server all read puzzles
and check attempts here.

The words a solver reads (themes, difficulties, the task, the verdicts) are ``Text``s: English
as ``str``, said in the solver's language by ``taluva.lang.say`` (catalog ``learn``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from taluva.engine.errors import IllegalMove
from taluva.engine.game import Game
from taluva.engine.hexes import format_hex
from taluva.engine.moves import EXPAND, HUT, TEMPLE, TILE, TOWER, Move
from taluva.engine.wording import T, Text, Tn
from taluva.learn.puzzle_check import destroyable, threat_after, wins_at_once

PUZZLES_FILE: Final = "puzzles.json"
"""The shipped puzzles, package data of ``taluva.learn``."""

THEMES: Final[dict[str, Text]] = {
    "temple": T("win at once with your last temple"),
    "tower": T("win at once with your last tower"),
    "huts": T("win at once by placing your last huts"),
    "eruption": T("only an eruption makes the winning build possible"),
    "block": T("stop your opponent's win at once, whatever tile they draw"),
    "save": T("save your settlement: leave no eruption that destroys your huts"),
    "spoil": T("stop your opponent's win by erupting on the huts they need"),
}
"""Each theme a puzzle may carry, with the words that describe it."""

DIFFICULTIES: Final[dict[int, tuple[Text, float]]] = {
    1: (T("easy"), 0.5),
    2: (T("medium"), 0.1),
    3: (T("hard"), 0.0),
}
"""Difficulty by the share of tile placements that leave the winning build possible: a puzzle
is the first difficulty whose share it exceeds (the last one takes the rest)."""

START_RATINGS: Final[dict[int, int]] = {1: 1300, 2: 1500, 3: 1700}
"""The shown rating a puzzle starts from, by difficulty, before people's attempts move it."""

PIECE_KINDS: Final = ("huts", "temples", "towers")
"""The kinds of piece a solver may still hold, in the order a verdict names them."""


MARGIN_FIGURES: Final = ("answer_chance", "rival_chance", "rivals")
"""The figures a margin screen (``taluva.learn.puzzle_maker``) adds to a puzzle's: the
solver's winning chance after the answer and after the best rival turn, in whole percent,
and how many rivals were searched."""


class PuzzleError(ValueError):
    """A puzzle or an attempt that cannot be read: the message says what is wrong."""


class PuzzleWithdrawn(PuzzleError):
    """A puzzle that was shipped once and later withdrawn (``PuzzleSet.withdrawn``)."""


def difficulty_of(share: float) -> int:
    """The difficulty of a puzzle where ``share`` of the placements leave the winning build.

    >>> difficulty_of(0.9), difficulty_of(0.2), difficulty_of(0.01)
    (1, 2, 3)
    """
    for level, (_, above) in DIFFICULTIES.items():
        if share > above:
            return level
    return max(DIFFICULTIES)


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One puzzle: the game so far (a record prefix), the side to move and the answer.

    ``answer`` is one right turn (tile placement, build); ``figures`` are the numbers of its
    exact check (placements, turns, and winning turns and placements, or for a block or a
    spoil the turns refuted and the placements tried, for a save the saving turns), and of
    its margin screen (the winning chances after the answer and the best rival, in
    percent)."""

    id: str
    record: dict[str, Any]
    mover: int
    answer: tuple[str, str]
    themes: tuple[str, ...]
    difficulty: int
    figures: dict[str, int] = field(default_factory=dict)

    def game(self) -> Game:
        """The puzzle's position, replayed (and so checked) by the engine; the solver's seat
        is called "You", the others "Opponent" (names that are ``Text``s, said in the solver's
        language)."""
        names = [
            T("You")
            if seat == self.mover
            else T("Opponent {number}", number=seat + 1)
            if len(self.record["players"]) > 2
            else T("Opponent")
            for seat in range(len(self.record["players"]))
        ]
        return Game.from_record({**self.record, "players": names}, source=f"puzzle {self.id}")

    @property
    def start_rating(self) -> int:
        """The shown rating the puzzle starts from."""
        return START_RATINGS[self.difficulty]

    @property
    def difficulty_name(self) -> Text:
        """The difficulty in words ("easy")."""
        return DIFFICULTIES[self.difficulty][0]

    def to_json(self) -> dict[str, Any]:
        """The puzzle as the data file and the API hold it."""
        return {
            "id": self.id,
            "record": self.record,
            "mover": self.mover,
            "answer": {"tile": self.answer[0], "build": self.answer[1]},
            "themes": list(self.themes),
            "difficulty": self.difficulty,
            "figures": self.figures,
        }

    def public_json(self) -> dict[str, Any]:
        """The puzzle as a solver receives it: everything but the answer."""
        data = self.to_json()
        del data["answer"]
        data["difficulty_name"] = self.difficulty_name
        data["task"] = task_words(self)
        return data

    @classmethod
    def from_json(cls, data: Any) -> Puzzle:
        """Read one puzzle of the data file; raise PuzzleError saying what is missing."""
        try:
            answer = data["answer"]
            puzzle = cls(
                id=str(data["id"]),
                record=dict(data["record"]),
                mover=int(data["mover"]),
                answer=(str(answer["tile"]), str(answer["build"])),
                themes=tuple(str(t) for t in data["themes"]),
                difficulty=int(data["difficulty"]),
                figures={str(k): int(v) for k, v in data.get("figures", {}).items()},
            )
        except (KeyError, TypeError, ValueError) as error:
            raise PuzzleError(f"a puzzle needs {error}: {str(data)[:80]}") from None
        unknown = [t for t in puzzle.themes if t not in THEMES]
        if unknown or puzzle.difficulty not in DIFFICULTIES:
            raise PuzzleError(f"puzzle {puzzle.id}: unknown theme or difficulty")
        return puzzle


BLOCK: Final = "block"
"""The theme of the puzzles where the answer stops the opponent's win instead of winning."""
SAVE: Final = "save"
"""The theme of the puzzles where the answer leaves no eruption that destroys a hut of the
solver's, when one could before."""
SPOIL: Final = "spoil"
"""The theme of the block puzzles where every turn that stops the opponent's win erupts on
their huts (so the settlement they needed is broken)."""


def withdrawn_words(puzzle: Puzzle) -> Text:
    """Why a withdrawn puzzle is no longer offered, with the chances of the screen it failed."""
    answer, rival, _rivals = (puzzle.figures.get(key) for key in MARGIN_FIGURES)
    if answer is None:
        return T(
            "puzzle {puzzle} was withdrawn: no other turn was found to compare its answer with",
            puzzle=puzzle.id,
        )
    return T(
        "puzzle {puzzle} was withdrawn: its answer was not clearly the best turn (a winning "
        "chance of {answer}% after it, {rival}% after another turn)",
        puzzle=puzzle.id,
        answer=answer,
        rival=rival,
    )


def task_words(puzzle: Puzzle) -> Text:
    """What the solver is asked, in words."""
    if SPOIL in puzzle.themes:
        return T(
            "Your opponent can win at once on their next turn: find the eruption that "
            "destroys the huts they need, whatever tile they draw."
        )
    if BLOCK in puzzle.themes:
        return T(
            "Your opponent can win at once on their next turn: find the turn that stops "
            "them, whatever tile they draw."
        )
    if SAVE in puzzle.themes:
        return T(
            "An eruption on your opponent's next turn could destroy your huts: find the "
            "turn after which no eruption can."
        )
    return T("Find the turn that wins the game at once: place the tile, then build.")


@dataclass(frozen=True, slots=True)
class PuzzleSet:
    """The puzzles of a data file, with how they were made."""

    puzzles: tuple[Puzzle, ...]
    made_by: str = ""
    figures: dict[str, float] = field(default_factory=dict)
    added: tuple[dict[str, Any], ...] = ()
    """Later runs whose puzzles were added to the first's (``taluva puzzles make --add``),
    or that withdrew some (``taluva puzzles rescreen``): each one's command, figures, number
    of new puzzles and ids withdrawn."""
    withdrawn: tuple[Puzzle, ...] = ()
    """Puzzles once shipped and then withdrawn, with the figures of the screen they failed:
    they are no longer offered, and their ids are never given to another puzzle."""

    def by_id(self, puzzle_id: str) -> Puzzle:
        """The puzzle with this id; raise PuzzleWithdrawn for a withdrawn one, PuzzleError
        for an id never shipped."""
        for puzzle in self.puzzles:
            if puzzle.id == puzzle_id:
                return puzzle
        for puzzle in self.withdrawn:
            if puzzle.id == puzzle_id:
                raise PuzzleWithdrawn(withdrawn_words(puzzle))
        raise PuzzleError(T("there is no puzzle {puzzle}", puzzle=repr(puzzle_id)))

    @property
    def ids(self) -> set[str]:
        """Every id this set has given, its withdrawn puzzles' included."""
        return {puzzle.id for puzzle in (*self.puzzles, *self.withdrawn)}

    def with_theme(self, theme: str | None) -> tuple[Puzzle, ...]:
        """The puzzles of one theme (all of them for None); raise PuzzleError for a theme
        that does not exist or has no puzzles in this set."""
        if theme is None or theme == "":
            return self.puzzles
        if theme not in THEMES:
            raise PuzzleError(T("no theme {theme}: choose one of {themes}", theme=repr(theme),
                                themes=", ".join(THEMES)))  # fmt: skip
        chosen = tuple(p for p in self.puzzles if theme in p.themes)
        if not chosen:
            raise PuzzleError(T("no theme {theme} here: no puzzle of it was found yet",
                                theme=repr(theme)))  # fmt: skip
        return chosen

    def theme_counts(self) -> dict[str, int]:
        return {theme: sum(theme in p.themes for p in self.puzzles) for theme in THEMES}

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"made_by": self.made_by, "figures": self.figures}
        if self.added:
            data["added"] = list(self.added)
        if self.withdrawn:
            data["withdrawn"] = [p.to_json() for p in self.withdrawn]
        data["puzzles"] = [p.to_json() for p in self.puzzles]
        return data

    @classmethod
    def from_json(cls, data: Any) -> PuzzleSet:
        if not isinstance(data, dict) or not isinstance(data.get("puzzles"), list):
            raise PuzzleError("a puzzle file is a JSON object with a 'puzzles' list")
        added = data.get("added", [])
        if not isinstance(added, list) or not all(isinstance(run, dict) for run in added):
            raise PuzzleError("a puzzle file's 'added' is a list of the runs added")
        withdrawn = data.get("withdrawn", [])
        if not isinstance(withdrawn, list):
            raise PuzzleError("a puzzle file's 'withdrawn' is a list of puzzles")
        made = cls(
            tuple(Puzzle.from_json(p) for p in data["puzzles"]),
            str(data.get("made_by", "")),
            dict(data.get("figures", {})),
            tuple(added),
            tuple(Puzzle.from_json(p) for p in withdrawn),
        )
        if len(made.ids) < len(made.puzzles) + len(made.withdrawn):
            raise PuzzleError("a puzzle file gives some id to two puzzles")
        return made

    def save(self, path: Path) -> None:
        """Write the file: compact JSON, one puzzle a line (so a change shows as lines)."""
        data = self.to_json()
        puzzles = data.pop("puzzles")
        withdrawn = data.pop("withdrawn", [])
        head = json.dumps(data, separators=(",", ":"))[:-1]
        parts = [head]
        for key, items in (("withdrawn", withdrawn), ("puzzles", puzzles)):
            if items:
                lines = ",\n".join(json.dumps(p, separators=(",", ":")) for p in items)
                parts.append(f'"{key}":[\n{lines}\n]')
        path.write_text(",".join(parts) + "}\n", encoding="utf-8")


def read_puzzles(path: Path) -> PuzzleSet:
    """The puzzles of a file; raise PuzzleError if it cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise PuzzleError(f"{path}: cannot read puzzles ({error})") from None
    return PuzzleSet.from_json(data)


@cache
def load_puzzles() -> PuzzleSet:
    """The shipped puzzles (read once)."""
    text = resources.files("taluva.learn").joinpath(PUZZLES_FILE).read_text(encoding="utf-8")
    return PuzzleSet.from_json(json.loads(text))


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer to an attempt: right or wrong, in words, with the winning turn."""

    right: bool
    message: Text
    answer: tuple[str, str]
    played: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "right": self.right,
            "message": self.message,
            "answer": {"tile": self.answer[0], "build": self.answer[1]},
            "played": list(self.played),
        }


def _canonical(text: str, build: bool) -> Move:
    try:
        return Move.parse(text)
    except ValueError as error:
        reason = error.text if isinstance(error, IllegalMove) else str(error)
        if build:
            message = T("the build {move} is not a move: {reason}", move=repr(text), reason=reason)
        else:
            message = T("the tile placement {move} is not a move: {reason}", move=repr(text),
                        reason=reason)  # fmt: skip
        raise PuzzleError(message) from None


def _pieces(kind: str, count: int) -> Text:
    """``count`` pieces of a kind, in words ("2 huts")."""
    if kind == "huts":
        return Tn("{n} hut", "{n} huts", count, n=count)
    if kind == "temples":
        return Tn("{n} temple", "{n} temples", count, n=count)
    return Tn("{n} tower", "{n} towers", count, n=count)


def _still_to_place(game: Game, mover: int) -> Text:
    """The mover's pieces still held of the kinds not yet all placed, in words."""
    supply = game.supply(mover)
    left = [_pieces(kind, supply[kind]) for kind in PIECE_KINDS if supply[kind] > 0]
    if len(left) == 1:
        return left[0]
    if len(left) == 2:
        return T("{first} and {second}", first=left[0], second=left[1])
    return T("{first}, {second} and {third}", first=left[0], second=left[1], third=left[2])


def answer_words(puzzle: Puzzle) -> Text:
    """The answer, in words."""
    tile, build = puzzle.answer
    if SPOIL in puzzle.themes:
        return T("The turn that stops them: {tile}, erupting on their huts, then {build}.",
                 tile=tile, build=build)  # fmt: skip
    if BLOCK in puzzle.themes:
        return T("The turn that stops them: {tile}, then {build}.", tile=tile, build=build)
    if SAVE in puzzle.themes:
        return T("The turn that saves your huts: {tile}, then {build}.", tile=tile, build=build)
    kind = Move.parse(build).kind
    if kind == TEMPLE:
        return T("The winning turn: {tile}, then {build}, which places your last temple.",
                 tile=tile, build=build)  # fmt: skip
    if kind == TOWER:
        return T("The winning turn: {tile}, then {build}, which places your last tower.",
                 tile=tile, build=build)  # fmt: skip
    if kind in (HUT, EXPAND):
        return T("The winning turn: {tile}, then {build}, which places your last huts.",
                 tile=tile, build=build)  # fmt: skip
    return T("The winning turn: {tile}, then {build}, which places your last pieces.",
             tile=tile, build=build)  # fmt: skip


def check_attempt(puzzle: Puzzle, tile: str, build: str) -> Verdict:
    """Play an attempt (a tile placement, then a build) on the puzzle's position: right when
    it wins the game at once. An illegal move or a turn that does not win is wrong, and the
    verdict says why, in the engine's words. Raise PuzzleError for text that is no move."""
    tile_move = _canonical(tile, build=False)
    build_move = _canonical(build, build=True)
    if tile_move.kind != TILE:
        message = T("the first move of a turn places the tile, not {move}",
                    move=repr(str(tile_move)))  # fmt: skip
        raise PuzzleError(message)
    game = puzzle.game()
    played = (str(tile_move), str(build_move))
    reason = game.explain(tile_move)
    if reason is None:
        game.play(tile_move)
        reason = game.explain(build_move)
        if reason is None:
            game.play(build_move)
    hint = answer_words(puzzle)
    if reason is not None:
        words = T("That move is not allowed: {reason}. {hint}", reason=reason, hint=hint)
        return Verdict(False, words, puzzle.answer, played)
    if BLOCK in puzzle.themes or SPOIL in puzzle.themes:
        return _judge_block(puzzle, game, played, hint)
    if SAVE in puzzle.themes:
        return _judge_save(puzzle, game, played, hint)
    if wins_at_once(game, puzzle.mover):
        right = T("Right: that turn wins the game at once.")
        return Verdict(True, right, puzzle.answer, played)
    missing = _still_to_place(game, puzzle.mover)
    words = T("{tile}, then {build} does not win: you would still hold {missing}. {hint}",
              tile=played[0], build=played[1], missing=missing, hint=hint)  # fmt: skip
    return Verdict(False, words, puzzle.answer, played)


def _judge_block(puzzle: Puzzle, game: Game, played: tuple[str, str], hint: Text) -> Verdict:
    """A block puzzle's attempt, played: right when the opponent then has no winning turn,
    whatever unseen tile they draw (every one is tried)."""
    if game.is_over:
        won = wins_at_once(game, puzzle.mover)
        words = T("That wins at once, which is even better.") if won else T("The game ended.")
        return Verdict(won, words, puzzle.answer, played)
    game.pop()
    threat = threat_after(game, played[1])
    if threat is None:
        words = T("Right: whatever tile they draw, your opponent cannot win at once now.")
        return Verdict(True, words, puzzle.answer, played)
    tile, build = threat.turn
    words = T(
        "After {tile}, then {build}, your opponent wins at once if they draw {drawn}: "
        "{their_tile}, then {their_build}. {hint}",
        tile=played[0],
        build=played[1],
        drawn=threat.tile,
        their_tile=tile,
        their_build=build,
        hint=hint,
    )
    return Verdict(False, words, puzzle.answer, played)


def _judge_save(puzzle: Puzzle, game: Game, played: tuple[str, str], hint: Text) -> Verdict:
    """A save puzzle's attempt, played: right when no eruption can then destroy a hut of the
    solver's (whatever tile the opponent draws: where an eruption may go does not depend on
    it) and the turn destroyed none of theirs."""
    mover = puzzle.mover
    if game.is_over:
        won = wins_at_once(game, mover)
        words = T("That wins at once, which is even better.") if won else T("The game ended.")
        return Verdict(won, words, puzzle.answer, played)
    lost = game.destroyed_huts(mover) - puzzle.game().destroyed_huts(mover)
    if lost:
        words = T("{tile} destroys your own huts: that is no way to save them. {hint}",
                  tile=played[0], hint=hint)  # fmt: skip
        return Verdict(False, words, puzzle.answer, played)
    threats = destroyable(game, mover)
    if not threats:
        words = T("Right: no eruption can destroy any of your huts now.")
        return Verdict(True, words, puzzle.answer, played)
    hut, eruption = next(iter(sorted(threats.items())))
    words = T(
        "After {tile}, then {build}, your opponent can still erupt with {eruption} and "
        "destroy your hut at {hex}. {hint}",
        tile=played[0],
        build=played[1],
        eruption=eruption,
        hex=format_hex(hut),
        hint=hint,
    )
    return Verdict(False, words, puzzle.answer, played)


def next_puzzle(
    puzzles: Sequence[Puzzle],
    rating: float,
    ratings: dict[str, float] | None = None,
    skip: Iterable[str] = (),
    rng: random.Random | None = None,
) -> Puzzle:
    """A puzzle near the player's shown ``rating``: among those not in ``skip`` (all again
    when every one was skipped), one of the few whose rating (``ratings`` by id, else its
    starting rating) is closest. Raise PuzzleError when there are none."""
    if not puzzles:
        raise PuzzleError(T("there are no puzzles of that theme"))
    skipped = set(skip)
    pool = [p for p in puzzles if p.id not in skipped] or list(puzzles)
    known = ratings or {}
    pool.sort(key=lambda p: (abs(known.get(p.id, p.start_rating) - rating), p.id))
    chooser = rng or random.Random()
    return chooser.choice(pool[: min(len(pool), NEAREST)])


NEAREST: Final = 8
"""How many of the puzzles closest to the player's rating the next one is drawn from."""
