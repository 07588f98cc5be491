"""What several groups of commands share: reading and writing records, argument types, the
options that several commands take (declared once here, each command's parser adds them), the
ranges of levels and player counts as help texts print them, and the layout of help texts."""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
import textwrap
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Final

from taluva.ai.levels import LEVELS
from taluva.cli.errors import InputError, UsageError, needs_extra
from taluva.engine.errors import InvalidOption, InvalidRecord
from taluva.engine.game import Game
from taluva.engine.options import EXPANSIONS, HOUSE_RULES, PLAYER_COUNTS, player_count_range
from taluva.lang import LANGUAGES, _
from taluva.terminal.words import error_words

FORMATTER: Final = argparse.RawDescriptionHelpFormatter
"""Help formatting that keeps the examples' layout."""

REDIS_SCHEMES: Final = ("redis://", "rediss://", "unix://")


def check_redis_url(url: str) -> None:
    """UsageError unless ``url`` is a Redis URL (``--redis`` of serve and ai-worker)."""
    if not url.startswith(REDIS_SCHEMES):
        raise UsageError(f"--redis {safe_url(url)!r}: expected redis://HOST:PORT/DB")


def reach_redis(url: str) -> None:
    """InputError, with Redis's own reason, when the Redis at ``url`` does not answer."""
    with needs_extra("server", "--redis needs the Redis client"):
        import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=5).ping()
    except redis.RedisError as error:
        raise InputError(f"cannot reach Redis at {safe_url(url)}: {error}") from None


def read_game(source: str) -> Game:
    """Load and replay the record at ``source``, a path or ``-`` for standard input.

    Raises InputError naming the file and, for an illegal move, its index and the rule.
    """
    try:
        if source == "-":
            return Game.from_record(sys.stdin.read(), source="<stdin>")
        if Path(source).is_dir():
            raise InputError(_("{path}: is a directory, not a game record", path=source))
        return Game.load(source)
    except InvalidRecord as error:
        raise InputError(error_words(error)) from None
    except UnicodeDecodeError:
        raise InputError(_("<stdin>: not UTF-8 text")) from None


def write_game(game: Game, output: str) -> None:
    """Save the game's record to ``output`` (``-``: standard output)."""
    if output == "-":
        sys.stdout.write(json.dumps(game.to_record(), indent=1) + "\n")
        return
    try:
        game.save(output)
    except OSError as error:
        raise InputError.unwritable(output, error) from None


def write_bytes(path: Path, data: bytes) -> None:
    """Write an output file; an InputError with the system's reason if it cannot be."""
    try:
        path.write_bytes(data)
    except OSError as error:
        raise InputError.unwritable(path, error) from None


def new_game(
    players: int | Sequence[str],
    seed: int | None,
    tiles_per_player: int = 12,
    expansions: Sequence[str] = (),
    house_rules: Sequence[str] = (),
) -> Game:
    """A fresh game; options the engine refuses are a UsageError with the engine's reason."""
    try:
        return Game.new(
            players=players,
            seed=seed,
            tiles_per_player=tiles_per_player,
            expansions=expansions,
            house_rules=house_rules,
        )
    except InvalidOption as error:
        raise UsageError(error_words(error)) from None


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type for a whole number of at least ``minimum``."""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {minimum} or more, got {value}")
        return value

    return convert


def progress_wanted(choice: bool | None, stream: IO[str]) -> bool:
    """Whether to show progress: as asked, else when ``stream`` is a terminal."""
    if choice is not None:
        return choice
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def wrap(text: str) -> str:
    """A paragraph wrapped for the terminal (raw help formatting keeps the examples' layout)."""
    return textwrap.fill(text, width=79)


def ai_level(text: str) -> int:
    """An argparse type for an AI level, one of ``LEVELS``."""
    if text not in {str(number) for number in LEVELS}:
        raise argparse.ArgumentTypeError(
            f"level {text!r}: choose a whole number from {min(LEVELS)} to {max(LEVELS)}"
        )
    return int(text)


# ---------------------------------------------------------------- options of several commands


def add_record_argument(
    parser: argparse.ArgumentParser,
    help: str = "a game record (JSON, see docs/notation.md); '-' reads it from standard input",
) -> None:
    """The positional ``RECORD``: a game record file, ``-`` for standard input."""
    parser.add_argument("record", metavar="RECORD", help=help)


def add_players_option(parser: argparse.ArgumentParser) -> None:
    """``--players N``, the number of players of a new game (``demo``, ``new``)."""
    parser.add_argument(
        "--players",
        type=whole_number(min(PLAYER_COUNTS)),
        default=2,
        metavar="N",
        help=f"number of players, {player_count_range()} (default 2)",
    )


def add_seed_option(parser: argparse.ArgumentParser, help: str, default: int | None = None) -> None:
    """``--seed S``: what the shuffle or the search starts from, so a run can be repeated."""
    parser.add_argument("--seed", type=int, default=default, metavar="S", help=help)


def add_lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang CODE``: the language a player reads (``main`` reads it before parsing, so
    that the help is in it too); the default is the environment's, else English."""
    codes = ", ".join(LANGUAGES)
    parser.add_argument(
        "--lang",
        metavar="CODE",
        help=_(
            "the language to play in: {codes} (default: the environment's LANGUAGE, LC_ALL, "
            "LC_MESSAGES or LANG, else English)",
            codes=codes,
        ),
    )


def add_level_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--level N``, an AI level (default 5) that the parser checks against ``LEVELS``."""
    parser.add_argument("--level", type=ai_level, default=5, metavar="N", help=help)


def add_json_option(
    parser: argparse.ArgumentParser, help: str = "print one JSON object instead"
) -> None:
    """``--json``: print the answer as JSON for programs, not as text for people."""
    parser.add_argument("--json", action="store_true", help=help)


def add_progress_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--progress``/``--no-progress``; unset (None), ``progress_wanted`` decides."""
    parser.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None, help=help
    )


ENV_PREFIX: Final = "TALUVA_"
"""Environment variables named ``TALUVA_`` and an option's name (``--claim-after``:
``TALUVA_CLAIM_AFTER``) give the options of the long-running commands their defaults."""
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")
_NOT_SETTINGS: Final = ("help", "config")
"""Options that are no setting: neither the environment nor a config file gives them."""


class _GivenOnCommandLine(argparse.Action):
    """Mixed into an option's action: notes in ``given_options`` that the command line gave
    it, so a config file, which is read after parsing, does not override it."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        super().__call__(parser, namespace, values, option_string)
        given: frozenset[str] = getattr(namespace, "given_options", frozenset())
        namespace.given_options = given | {self.dest}


_RECORDING: dict[type, type] = {}


def _record_when_given(action: argparse.Action) -> None:
    """Make ``action`` note when the command line gives it (its class gets the mixin)."""
    kind = type(action)
    if kind not in _RECORDING:
        _RECORDING[kind] = type(f"Given{kind.__name__}", (_GivenOnCommandLine, kind), {})
    action.__class__ = _RECORDING[kind]


def _settings_of(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The options of ``parser`` that are settings (argparse keeps no public list of them)."""
    return [
        action
        for action in parser._actions
        if action.option_strings and action.dest not in _NOT_SETTINGS
    ]


def environment_name(dest: str) -> str:
    """The environment variable of a setting (``claim_after``: ``TALUVA_CLAIM_AFTER``)."""
    return ENV_PREFIX + dest.upper()


def file_key(dest: str) -> str:
    """The key of a setting in a config file: the option's name (``claim-after``)."""
    return dest.replace("_", "-")


def _fit(action: argparse.Action, value: object, where: str) -> object:
    """``value`` (text from the environment, or a TOML value) converted and checked as the
    command line would; ValueError saying what was wrong, with ``where`` naming its source."""
    shown = safe_url(repr(value)) if isinstance(value, str) else repr(value)
    option = action.option_strings[0]
    if isinstance(
        action,
        (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse.BooleanOptionalAction),
    ):
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        raise ValueError(f"{where}={shown} is not true or false")
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"{where}={shown} does not fit {option}: expected one value")
    if not isinstance(value, str) and action.type is None:
        raise ValueError(f"{where}={shown} does not fit {option}: expected text (in quotes)")
    try:
        converted = action.type(str(value)) if callable(action.type) else value
    except (TypeError, ValueError, argparse.ArgumentTypeError) as error:
        reason = f" ({error})" if isinstance(error, argparse.ArgumentTypeError) else ""
        raise ValueError(f"{where}={shown} does not fit {option}{reason}") from None
    if action.choices is not None and converted not in action.choices:
        choices = ", ".join(str(choice) for choice in action.choices)
        raise ValueError(f"{where}={shown} is not one of {choices}")
    return converted


def environment_defaults(
    parser: argparse.ArgumentParser, secrets: Sequence[tuple[str, str]] = ()
) -> None:
    """Let every option of ``parser`` be given as ``TALUVA_<NAME>`` in the environment and as
    a key of the TOML file of ``--config FILE`` (also ``TALUVA_CONFIG``): the command line
    wins over the environment, which wins over the file. So a host keeps secrets such as
    database passwords out of argv. ``secrets`` (name, help) are settings with no option at
    all, only a variable and a key (the SMTP password). A value that does not fit its option
    is not used; ``check_environment`` refuses the command, naming it."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        help='a TOML file of settings, each key an option\'s name (database = "..."); '
        "the command line and the environment win over it (docs/deploy.md, Settings)",
    )
    problems: list[str] = []
    from_environment: set[str] = set()
    required: list[str] = []
    for action in [*_settings_of(parser), parser._option_string_actions["--config"]]:
        _record_when_given(action)
        if action.required:  # the environment or the file may give it: checked once read
            required.append(action.dest)
            action.required = False
        name = environment_name(action.dest)
        raw = os.environ.get(name)
        if raw is None:
            continue
        try:
            value = _fit(action, raw, name)
        except ValueError as error:
            problems.append(str(error))
            continue
        parser.set_defaults(**{action.dest: value})
        from_environment.add(action.dest)
    for secret, _help in secrets:
        dest = secret.replace("-", "_")
        parser.set_defaults(**{dest: os.environ.get(environment_name(dest)) or None})
        if os.environ.get(environment_name(dest)):
            from_environment.add(dest)
    parser.set_defaults(
        environment_problems=problems,
        from_environment=frozenset(from_environment),
        required_options=tuple(required),
        settings_parser=parser,
        secret_settings=tuple((secret.replace("-", "_"), help) for secret, help in secrets),
    )


def check_environment(args: argparse.Namespace) -> None:
    """Refuse (UsageError) a command whose ``TALUVA_`` environment variables did not fit;
    then take from the config file, if any, each setting the command line and the
    environment left out, refusing the file's wrong keys and values (naming file and key),
    and refuse the command if a required option is still missing."""
    problems = getattr(args, "environment_problems", [])
    if problems:
        raise UsageError("; ".join(problems))
    parser: argparse.ArgumentParser | None = getattr(args, "settings_parser", None)
    if parser is None:
        return
    if args.config is not None:
        _apply_config_file(args, parser, Path(args.config))
    missing = [dest for dest in args.required_options if getattr(args, dest, None) is None]
    if missing:
        raise UsageError(
            "; ".join(
                f"{parser._option_string_actions['--' + file_key(dest)].option_strings[0]} "
                f"is needed (or {environment_name(dest)}, or {file_key(dest)} in --config)"
                for dest in missing
            )
        )


def read_config_file(path: Path) -> dict[str, object]:
    """The TOML file ``path`` as a table; UsageError naming the file if it cannot be read."""
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except OSError as error:
        raise UsageError(f"--config {path}: cannot read it ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"--config {path}: not a TOML file ({error})") from None


def _apply_config_file(
    args: argparse.Namespace, parser: argparse.ArgumentParser, path: Path
) -> None:
    """Set on ``args`` the settings of the config file at ``path`` that neither the command
    line nor the environment gave; every key and value is checked, used or not."""
    table = read_config_file(path)
    actions = {file_key(action.dest): action for action in _settings_of(parser)}
    secrets = {file_key(dest) for dest, _help in args.secret_settings}
    known = sorted([*actions, *secrets])
    given = getattr(args, "given_options", frozenset()) | args.from_environment
    problems: list[str] = []
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        dest = key.replace("-", "_")
        if key in secrets:
            if not isinstance(value, str):
                problems.append(f"{key}: expected text (in quotes)")
            elif dest not in given:
                setattr(args, dest, value)
            continue
        action = actions.get(key)
        if action is None:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else f" (the keys: {', '.join(known)})"
            problems.append(f"{raw_key!r} is no setting of this command{hint}")
            continue
        try:
            fitted = _fit(action, value, key)
        except ValueError as error:
            problems.append(str(error))
            continue
        if dest not in given:
            setattr(args, action.dest, fitted)
    if problems:
        raise UsageError(f"--config {path}: " + "; ".join(problems))


def options_table(parser: argparse.ArgumentParser) -> str:
    """The Markdown table of ``parser``'s settings: option, config file key, environment
    variable and help, as docs/deploy.md shows it (a test keeps the two equal)."""
    rows = ["| option | key in --config | environment | meaning |", "|---|---|---|---|"]
    for action in [*_settings_of(parser), parser._option_string_actions["--config"]]:
        key = "" if action.dest == "config" else f"`{file_key(action.dest)}`"
        meaning = " ".join((action.help or "").split()).replace("|", "\\|")
        rows.append(
            f"| `{action.option_strings[0]}` | {key} | `{environment_name(action.dest)}` "
            f"| {meaning} |"
        )
    for dest, help_text in parser.get_default("secret_settings") or ():
        rows.append(f"| (none) | `{file_key(dest)}` | `{environment_name(dest)}` | {help_text} |")
    return "\n".join(rows) + "\n"


_PASSWORD_IN_URL: Final = re.compile(r"(?P<head>://[^/@\s:]*):[^/@\s]*@")


def safe_url(url: str) -> str:
    """A database or Redis URL (or a text holding some) with any password hidden
    (``redis://:***@host``), however malformed the rest of it is."""
    return _PASSWORD_IN_URL.sub(r"\g<head>:***@", url)


def add_redis_option(parser: argparse.ArgumentParser, help: str, required: bool = False) -> None:
    """``--redis URL``, the Redis that the server processes and AI workers share."""
    parser.add_argument("--redis", metavar="URL", required=required, default=None, help=help)


def add_reclaim_after_option(parser: argparse.ArgumentParser, help: str, default: float) -> None:
    """``--reclaim-after S``: seconds after which a silent worker's AI job goes to another."""
    parser.add_argument("--reclaim-after", type=float, default=default, metavar="S", help=help)


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: the log of a long-running process keeps warnings and errors only."""
    parser.add_argument("--quiet", action="store_true", help="log warnings and errors only")


def add_game_options(
    parser: argparse.ArgumentParser,
    expansion_help: str = f"an expansion to play with (repeat for more): {', '.join(EXPANSIONS)}",
) -> None:
    """``--tiles-per-player``, ``--expansion`` and ``--house-rule``."""
    parser.add_argument(
        "--tiles-per-player",
        type=int,
        default=12,
        metavar="T",
        help=_("12 (default), or 18 or 24 in a two-player game"),
    )
    parser.add_argument(
        "--expansion",
        action="append",
        dest="expansions",
        default=[],
        metavar="E",
        help=expansion_help,
    )
    parser.add_argument(
        "--house-rule",
        action="append",
        dest="house_rules",
        default=[],
        metavar="R",
        help=_("a house rule (repeat for more): {rules}", rules=", ".join(HOUSE_RULES)),
    )
