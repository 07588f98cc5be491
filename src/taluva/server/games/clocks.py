"""Game clocks, chosen when a game is created: none, real time (Fischer: a base time plus an
increment each turn) or turn-based (so many days a turn).

A clock is plain JSON, stored with the game and with each move, so that after a restart the
server knows every seat's time exactly: the rule (``kind``, ``base_ms``, ``increment_ms``),
each seat's time left (``remaining``, milliseconds; None for an AI seat, which plays
untimed), the seat whose clock runs (``running``) and since when (``since``, milliseconds
since the epoch). Only the running seat's time goes down; the functions here are pure.
"""

from __future__ import annotations

import time
from typing import Any, Final

from taluva.engine.wording import T, Text, Tn
from taluva.server.errors import ApiError
from taluva.server.storage.store import clock_deadline

FISCHER: Final = "fischer"
TURN: Final = "turn"
NONE: Final = "none"
KINDS: Final = (NONE, FISCHER, TURN)

DAY: Final = 86400
MIN_SECONDS: Final = 0.5
"""The shortest base time or turn the API accepts (tests use a few seconds)."""
MAX_BASE_SECONDS: Final = 7 * DAY
MAX_INCREMENT_SECONDS: Final = 3600
MAX_TURN_SECONDS: Final = 14 * DAY


def fischer_words(base: int, increment: int) -> Text:
    """A real-time clock in words ("5 minutes + 10 seconds"), each part in the reader's
    language and plural: ``base`` in whole minutes, ``increment`` in seconds."""
    minutes = base // 60
    return T(
        "{base} + {increment}",
        base=Tn("{n} minute", "{n} minutes", minutes, n=minutes),
        increment=Tn("{n} second", "{n} seconds", increment, n=increment),
    )


def turn_words(per_turn: int) -> Text:
    """A turn-based clock in words ("3 days a turn"): ``per_turn`` in whole days."""
    days = per_turn // DAY
    return Tn("{n} day a turn", "{n} days a turn", days, n=days)


PRESETS: Final = (
    {"kind": NONE, "label": T("No clock")},
    {"kind": FISCHER, "base": 300, "increment": 10, "label": fischer_words(300, 10)},
    {"kind": FISCHER, "base": 600, "increment": 20, "label": fischer_words(600, 20)},
    {"kind": FISCHER, "base": 1800, "increment": 30, "label": fischer_words(1800, 30)},
    {"kind": TURN, "per_turn": DAY, "label": turn_words(DAY)},
    {"kind": TURN, "per_turn": 3 * DAY, "label": turn_words(3 * DAY)},
    {"kind": TURN, "per_turn": 7 * DAY, "label": turn_words(7 * DAY)},
)
"""The clocks the lobby offers (``GET /api/config``); the API accepts any within the limits.
Each label is a ``Text`` (said in the reader's language); the English label is what a stored
seek or challenge keeps."""


def preset_label(rule: dict[str, Any] | None, stored: Any = None) -> Any:
    """The label of the preset whose rule is ``rule`` (its kind and times, label left out),
    as a ``Text``; else ``stored`` (a label kept as English text), else "a clock"."""
    if rule is None:
        return PRESETS[0]["label"]
    wanted = {key: value for key, value in rule.items() if key != "label" and value is not None}
    for preset in PRESETS:
        if wanted == {key: value for key, value in preset.items() if key != "label"}:
            return preset["label"]
    return T("a clock") if stored is None else stored


def now_ms() -> int:
    """The wall-clock time in milliseconds: clocks keep running while the server is down."""
    return int(time.time() * 1000)


def _plain(seconds: float) -> float:
    """A limit as a number the reader's language writes: whole ones without a decimal part."""
    return int(seconds) if float(seconds).is_integer() else seconds


def _seconds(spec: dict[str, Any], key: str, low: float, high: float) -> int:
    value = spec.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ApiError(
            422,
            "bad-request",
            T(
                "clock.{key} must be a number of seconds from {low} to {high}",
                key=key,
                low=_plain(low),
                high=_plain(high),
            ),
        )
    return round(value * 1000)


def new_clock(spec: dict[str, Any] | None, timed: list[bool]) -> dict[str, Any] | None:
    """The stored clock of a new game from the lobby's ``clock`` field (None: no clock);
    ``timed`` says which seats have a clock (people, not AI). ApiError 422 if it is wrong."""
    if spec is None or spec.get("kind", NONE) == NONE:
        if spec is not None and set(spec) - {"kind"}:
            raise ApiError(
                422, "bad-request", T("a clock of kind {kind} takes no other field", kind="'none'")
            )
        return None
    kind = spec.get("kind")
    if kind == FISCHER:
        fields = {"kind", "base", "increment"}
        base = _seconds(spec, "base", MIN_SECONDS, MAX_BASE_SECONDS)
        increment = _seconds(
            {"increment": spec.get("increment", 0)}, "increment", 0, MAX_INCREMENT_SECONDS
        )
    elif kind == TURN:
        fields = {"kind", "per_turn"}
        base = _seconds(spec, "per_turn", MIN_SECONDS, MAX_TURN_SECONDS)
        increment = 0
    else:
        raise ApiError(
            422, "bad-request", T("clock.kind must be one of {kinds}", kinds=", ".join(KINDS))
        )
    unknown = sorted(set(spec) - fields)
    if unknown:
        raise ApiError(
            422,
            "bad-request",
            T("a {kind} clock has no field {fields}", kind=kind, fields=", ".join(unknown)),
        )
    return {
        "kind": kind,
        "base_ms": base,
        "increment_ms": increment,
        "remaining": [base if on else None for on in timed],
        "running": None,
        "since": None,
    }


def run(clock: dict[str, Any], seat: int | None, at: int) -> dict[str, Any]:
    """The clock with ``seat``'s time running from ``at`` (none runs for None or an AI
    seat); a turn-based clock gives the seat a whole turn."""
    new = {**clock, "remaining": list(clock["remaining"])}
    if seat is None or new["remaining"][seat] is None:
        new["running"], new["since"] = None, None
        return new
    if new["kind"] == TURN:
        new["remaining"][seat] = new["base_ms"]
    new["running"], new["since"] = seat, at
    return new


def stopped(clock: dict[str, Any], at: int) -> dict[str, Any]:
    """The clock with the running seat's time counted up to ``at`` and nobody's running."""
    new = {**clock, "remaining": list(clock["remaining"]), "running": None, "since": None}
    seat = clock["running"]
    if seat is not None:
        new["remaining"][seat] = max(0, clock["remaining"][seat] - (at - clock["since"]))
    return new


def after_move(clock: dict[str, Any], mover: int, next_seat: int | None, at: int) -> dict[str, Any]:
    """The clock after ``mover``'s move at ``at``: their time is counted; when the turn
    passes (``next_seat`` differs, or None once the game is over) a Fischer clock adds the
    increment to the mover and the next seat's time starts."""
    new = stopped(clock, at)
    if next_seat == mover:
        return _resume(new, mover, at)
    if new["kind"] == FISCHER and new["remaining"][mover] is not None:
        new["remaining"][mover] += new["increment_ms"]
    return run(new, next_seat, at)


def _resume(clock: dict[str, Any], seat: int, at: int) -> dict[str, Any]:
    """The clock running on for ``seat`` within the same turn (a turn-based clock gives no
    new turn's time)."""
    if clock["remaining"][seat] is None:
        return clock
    return {**clock, "running": seat, "since": at}


def after_leaving(
    clock: dict[str, Any], player: int, to_move: int | None, at: int
) -> dict[str, Any]:
    """The clock after ``player`` resigned or ran out of time at ``at``; ``to_move`` is who
    moves now (None once the game is over). Their clock stops; if it was theirs to run, the
    next player's starts."""
    if clock["running"] == player:
        new = stopped(clock, at)
        return run(new, to_move, at) if to_move is not None else new
    if to_move is None:
        return stopped(clock, at)
    return clock


def remaining_at(clock: dict[str, Any], at: int) -> list[int | None]:
    """Every seat's time left at ``at`` (the running one counted down, never below 0)."""
    remaining: list[int | None] = list(clock["remaining"])
    seat = clock["running"]
    if seat is not None:
        remaining[seat] = max(0, clock["remaining"][seat] - (at - clock["since"]))
    return remaining


def deadline(clock: dict[str, Any] | None) -> int | None:
    """When the running seat's time runs out (milliseconds since the epoch), or None: the
    rule the store keeps in ``games.deadline`` (``store.clock_deadline``)."""
    return clock_deadline(clock)


def clock_view(clock: dict[str, Any] | None, at: int) -> dict[str, Any] | None:
    """What clients see: the rule, each seat's time left now, and whose clock runs."""
    if clock is None:
        return None
    return {
        "kind": clock["kind"],
        "base_ms": clock["base_ms"],
        "increment_ms": clock["increment_ms"],
        "remaining_ms": remaining_at(clock, at),
        "running": clock["running"],
    }


def rule_view(clock: dict[str, Any] | None) -> dict[str, Any] | None:
    """The clock's rule alone, for lobby entries: kind, base and increment in milliseconds."""
    if clock is None:
        return None
    return {k: clock[k] for k in ("kind", "base_ms", "increment_ms")}
