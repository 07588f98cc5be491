"""What clients may send: the JSON check every body and message passes, then its shape.

Every HTTP body and WebSocket message is read the same way before anything looks inside:
at most so many bytes, UTF-8, nested at most ``json_depth`` levels (checked before parsing,
so a deep message cannot exhaust the parser's recursion), valid JSON without ``NaN`` or
lone surrogates. Its shape is then checked by a strict pydantic model: exact JSON types
(``state`` is an integer, never ``"0"``, ``0.0`` or ``false``) and no unknown fields.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from taluva.ai.levels import LEVELS
from taluva.engine.options import PLAYER_COUNTS
from taluva.engine.wording import N_, T, Text, Tn
from taluva.server.errors import ApiError

MAX_REF_CHARS = 64
MAX_TOKENS = 5
MAX_TOKEN_CHARS = 100

# The characters that open or close a level, start or end a string, or escape inside one.
_STRUCTURE = re.compile(r'[\\"\[\]{}]')
_SURROGATE = re.compile("[\ud800-\udfff]")


def deeper_than(text: str, limit: int) -> bool:
    """Whether arrays and objects in the JSON ``text`` nest more than ``limit`` levels.

    Linear in the length of the text and never recursive; brackets inside strings do not
    count (the text need not be valid JSON).

    >>> deeper_than('{"a": [[1]], "b": "[[[["}', 3), deeper_than("[[[[]]]]", 3)
    (False, True)
    """
    depth = 0
    in_string = False
    escaped_at = -1
    for match in _STRUCTURE.finditer(text):
        at = match.start()
        if at == escaped_at:
            continue
        char = match.group()
        if in_string:
            if char == "\\":
                escaped_at = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _check_text(value: Any, limit: int) -> None:
    """Refuse lone surrogates anywhere in a parsed document (nested at most ``limit``)."""
    if isinstance(value, str):
        if _SURROGATE.search(value):
            raise ApiError(400, "bad-request", T("text holds a lone UTF-16 surrogate"))
    elif isinstance(value, dict) and limit > 0:
        for key, item in value.items():
            _check_text(key, 0)
            _check_text(item, limit - 1)
    elif isinstance(value, list) and limit > 0:
        for item in value:
            _check_text(item, limit - 1)


def parse_json(data: str | bytes, max_bytes: int, max_depth: int, what: str = "body") -> Any:
    """The JSON document in ``data``, or ApiError: ``too-large`` (413), ``too-deep`` (400) or
    ``bad-request`` (400: not UTF-8, not JSON, ``NaN``, a lone surrogate)."""
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    body = what == "body"
    if size > max_bytes:
        limited = (
            T("a body is limited to {limit} bytes", limit=max_bytes)
            if body
            else T("a message is limited to {limit} bytes", limit=max_bytes)
        )
        raise ApiError(413, "too-large", limited)
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            not_text = (
                T("the body is not UTF-8 text") if body else T("the message is not UTF-8 text")
            )
            raise ApiError(400, "bad-request", not_text) from None
    if deeper_than(data, max_depth):
        raise ApiError(
            400, "too-deep", T("JSON may nest at most {depth} levels deep", depth=max_depth)
        )
    try:
        document = json.loads(data, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        reason = str(error).split(":")[0] if isinstance(error, ValueError) else "too deep"
        not_json = (
            T("the body is not valid JSON ({reason})", reason=reason)
            if body
            else T("the message is not valid JSON ({reason})", reason=reason)
        )
        raise ApiError(400, "bad-request", not_json) from None
    _check_text(document, max_depth + 1)
    return document


def _problem(kind: str, ctx: dict[str, Any]) -> Text | None:
    """Pydantic's words for an error of type ``kind`` as a Text to translate (pydantic says
    them in English only), or None for a type without one here."""
    if kind == "missing":
        return T("Field required")
    if kind == "extra_forbidden":
        return T("Extra inputs are not permitted")
    if kind in _TYPE_WORDS:
        return _TYPE_WORDS[kind]
    if kind == "string_too_long":
        most = int(ctx["max_length"])
        return Tn(
            "String should have at most {n} character",
            "String should have at most {n} characters",
            most,
            n=most,
        )
    if kind == "string_too_short":
        least = int(ctx["min_length"])
        return Tn(
            "String should have at least {n} character",
            "String should have at least {n} characters",
            least,
            n=least,
        )
    if kind in ("too_short", "too_long") and ctx.get("field_type") == "List":
        size, actual = (
            int(ctx["min_length" if kind == "too_short" else "max_length"]),
            ctx["actual_length"],
        )
        if kind == "too_short":
            return Tn(
                "List should have at least {n} item after validation, not {actual}",
                "List should have at least {n} items after validation, not {actual}",
                size,
                n=size,
                actual=actual,
            )
        return Tn(
            "List should have at most {n} item after validation, not {actual}",
            "List should have at most {n} items after validation, not {actual}",
            size,
            n=size,
            actual=actual,
        )
    if kind == "literal_error":
        return T("Input should be {expected}", expected=ctx["expected"])
    if kind in _BOUNDS:
        return T(_BOUNDS[kind], limit=next(iter(ctx.values())))
    return None


_TYPE_WORDS = {
    "int_type": T("Input should be a valid integer"),
    "int_parsing": T("Input should be a valid integer, unable to parse string as an integer"),
    "string_type": T("Input should be a valid string"),
    "bool_type": T("Input should be a valid boolean"),
    "float_type": T("Input should be a valid number"),
    "list_type": T("Input should be a valid list"),
    "dict_type": T("Input should be a valid dictionary"),
}
_BOUNDS = {
    "greater_than_equal": N_("Input should be greater than or equal to {limit}"),
    "greater_than": N_("Input should be greater than {limit}"),
    "less_than_equal": N_("Input should be less than or equal to {limit}"),
    "less_than": N_("Input should be less than {limit}"),
}


def describe(errors: Sequence[Any]) -> str:
    """One sentence from pydantic's validation errors: ``where: what`` for the first five,
    as a Text whose words are pydantic's own in English and translated where they are known
    (an error pydantic words otherwise than the table here keeps pydantic's English)."""
    problems: list[Any] = []
    for item in list(errors)[:5]:
        where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
        message = item.get("msg", "invalid")
        try:
            known = _problem(str(item.get("type")), dict(item.get("ctx") or {}))
        except (KeyError, TypeError, ValueError):
            known = None
        words: Any = known if known is not None and str(known) == message else message
        problems.append(T("{where}: {problem}", where=where, problem=words) if where else words)
    if not problems:
        return T("the request is not valid")
    text = problems[0]
    for problem in problems[1:]:
        text = T("{problems}; {problem}", problems=text, problem=problem)
    return str(text) if not isinstance(text, Text) else text


class Strict(BaseModel):
    """Exact JSON types and no unknown fields."""

    model_config = ConfigDict(strict=True, extra="forbid")


Option = Annotated[str, Field(max_length=64)]


# ---------------------------------------------------------------------- HTTP bodies


class SeatRequest(Strict):
    """One seat of a new game: a human (``take`` it yourself, or leave it free) or an AI."""

    kind: Literal["human", "ai"]
    name: str | None = Field(default=None, description="a human's name (see docs: Names)")
    level: int | None = Field(
        default=None, description=f"an AI seat's level, {min(LEVELS)} to {max(LEVELS)}"
    )
    take: bool = Field(default=False, description="this client takes the seat (hot-seat: several)")


class ClockRequest(Strict):
    """A game's clock: ``none``, ``fischer`` (``base`` seconds plus ``increment`` seconds a
    turn) or ``turn`` (``per_turn`` seconds for each turn); see GET /api/config for presets."""

    kind: Literal["none", "fischer", "turn"]
    base: float | None = Field(default=None, description="fischer: seconds at the start")
    increment: float | None = Field(default=None, description="fischer: seconds added a turn")
    per_turn: float | None = Field(default=None, description="turn: seconds for each turn")


class CreateGameRequest(Strict):
    """A new game from the lobby."""

    name: str | None = Field(default=None, description="shown in the lobby (see docs: Names)")
    seats: list[SeatRequest] = Field(min_length=min(PLAYER_COUNTS), max_length=max(PLAYER_COUNTS))
    tiles_per_player: int = Field(default=12, description="12, or 18 or 24 with two players")
    expansions: list[Option] = Field(
        default_factory=list, max_length=16, description="see GET /api/config"
    )
    house_rules: list[Option] = Field(
        default_factory=list, max_length=16, description="adjacent_hut, all_tiles"
    )
    hints: bool = Field(default=True, description="whether players may ask the AI for a hint")
    clock: ClockRequest | None = Field(default=None, description="no clock when left out")
    rated: bool | None = Field(
        default=None,
        description="rated or casual; left out: rated when it can be (a clock, a signed-in "
        "creator, every seat an account's only seat, a free seat or an AI level)",
    )


class JoinRequest(Strict):
    """Taking a free seat."""

    name: str | None = None


class MoveRequest(Strict):
    """A move for the current state id (the number of moves played so far)."""

    state: int
    move: str = Field(description="move text, e.g. 'tile 0,0 3' (see docs/notation.md)")


# ---------------------------------------------------------------------- WebSocket messages


class Hello(Strict):
    """Join the game's broadcasts, proving the seats of ``tokens``; ``since``: last ply seen."""

    tokens: list[Annotated[str, Field(max_length=MAX_TOKEN_CHARS)]] = Field(
        default_factory=list, max_length=MAX_TOKENS
    )
    since: int | None = Field(default=None, ge=0)


class Move(Strict):
    """Play ``move`` in state ``state``."""

    state: int
    move: str


class Explain(Strict):
    """Is ``move`` legal now, and if not why."""

    move: str


class Hint(Strict):
    """The AI's suggestion for the player to move."""


class Chances(Strict):
    """Every player's winning chance in state ``state`` (the win-chance bar of unrated games)."""

    state: int


class Ping(Strict):
    """Answered by ``pong``."""


class Resign(Strict):
    """Resign ``seat`` (one of yours; by default your only seat, or yours to move)."""

    seat: int | None = None


class ResignRequest(Strict):
    """Resigning over HTTP: the seat of the token, or ``seat`` if the token holds several."""

    seat: int | None = None


class Claim(Strict):
    """Claim the win against ``seat`` (by default the seat to move), gone on their turn."""

    seat: int | None = None


class ClaimRequest(Strict):
    """Claiming over HTTP: against the seat to move, or ``seat``."""

    seat: int | None = None


class ReviewRequest(Strict):
    """Asking for a finished game's review: nothing to say (the body may be left out)."""


class Cancel(Strict):
    """The host calls off the game before it starts, proving it with the host token."""

    host_token: str = Field(max_length=MAX_TOKEN_CHARS)


class Abort(Strict):
    """Call the game off in its first turns (a seat of yours)."""


class ChatSay(Strict):
    """Write ``text`` in the game's chat as ``seat`` (one of yours; by default the seat to
    move if it is yours, else your first)."""

    text: str
    seat: int | None = None


CLIENT_MESSAGES: dict[str, type[Strict]] = {
    "hello": Hello,
    "move": Move,
    "explain": Explain,
    "hint": Hint,
    "chances": Chances,
    "ping": Ping,
    "resign": Resign,
    "cancel": Cancel,
    "abort": Abort,
    "claim": Claim,
    "chat": ChatSay,
}


def valid_ref(ref: Any) -> bool:
    """A ``ref`` the answer may echo: a string or a whole number of at most 64 characters."""
    if isinstance(ref, bool) or not isinstance(ref, (str, int)):
        return False
    return len(str(ref)) <= MAX_REF_CHARS
