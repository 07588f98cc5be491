"""How the server writes a message for its clients: one line of compact JSON.

Every move is written once for all of a game's sockets, so this is on the hot path of a
busy server; orjson writes a state about ten times faster than the standard library.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def to_json(message: Any) -> str:
    """The compact JSON text of ``message`` (UTF-8 characters as they are, keys of any
    simple type written as strings, as ``json.dumps`` does)."""
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        # What JSON allows and orjson refuses: a lone surrogate, an integer beyond 64 bits.
        return json.dumps(message, separators=(",", ":"))
