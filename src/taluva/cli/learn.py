"""``taluva rules``: the "How to play" guide (``taluva.learn``) in the terminal, one section or
all of them, with each picture drawn as a text board; ``--markdown`` gives the words as
docs/rules.md holds them. Needs nothing beyond the engine."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from taluva.cli.common import FORMATTER, add_lang_option, write_bytes
from taluva.cli.errors import InputError, UsageError, exit_codes_help
from taluva.lang import DEFAULT, _, say
from taluva.terminal.words import error_words


def rules_epilog() -> str:
    """The end of ``taluva rules --help``: examples, in the player's language."""
    words = _(
        """\
examples:
  taluva rules                        every section, each picture as a text board
  taluva rules eruption               one section
  taluva rules --list                 the sections' names and titles
  taluva rules --no-boards | less     the words alone
  taluva rules --markdown --into docs/rules.md
                                      write the words into the page's guide block

The same guide is the web client's "How to play" page (with pictures) and the
help screen of 'taluva play' (press ?)."""
    )
    return f"{words}\n\n{exit_codes_help()}"


def register(subparsers: Any) -> None:
    """Add ``rules`` to the ``taluva`` command line."""
    rules = subparsers.add_parser(
        "rules",
        help=_("how to play: the rules, section by section, with pictures as text boards"),
        description=_(
            "Print how to play Taluva: every section of the guide, or the one named, each rule "
            "with pictures of real positions (checked by the engine) drawn as text boards. The "
            "expansions' sections come last."
        ),
        epilog=rules_epilog(),
        formatter_class=FORMATTER,
    )
    rules.add_argument(
        "section", nargs="?", metavar="SECTION", help=_("the section to print (see --list)")
    )
    rules.add_argument("--list", action="store_true", help=_("list the sections and stop"))
    rules.add_argument("--no-boards", action="store_true", help=_("leave the pictures' boards out"))
    rules.add_argument(
        "--markdown",
        action="store_true",
        help=_("print the words as Markdown, between the markers docs/rules.md holds them in"),
    )
    rules.add_argument(
        "--into",
        metavar="FILE",
        help=_("with --markdown: write them between the markers of FILE instead of printing"),
    )
    add_lang_option(rules)
    rules.set_defaults(func=_cmd_rules)


def _cmd_rules(args: argparse.Namespace) -> int:
    from taluva.learn.guide import GuideError, load_guide
    from taluva.terminal.guide_view import guide_plain

    guide = load_guide()
    if args.into is not None and not args.markdown:
        raise UsageError(_("--into FILE goes with --markdown"))
    if args.markdown:
        if args.section is not None or args.list:
            raise UsageError(_("--markdown writes every section: give no SECTION and no --list"))
        if args.into is None:
            print(load_guide(DEFAULT).markdown(), end="")  # docs/rules.md is English
            return 0
        _write_markdown(Path(args.into))
        return 0
    if args.list:
        width = max(len(section_id) for section_id in guide.ids)
        for section in guide.sections:
            option = "board:ZONE" if section.expansion == "board" else section.expansion
            extra = " " + _("(only in games with {option})", option=option) if option else ""
            print(f"{section.id:<{width}}  {say(section.title)}{extra}")
        return 0
    try:
        sections = guide.sections if args.section is None else (guide.section(args.section),)
    except GuideError as error:
        raise UsageError(error_words(error)) from None
    print(guide_plain(sections, boards=not args.no_boards), end="")
    return 0


def _write_markdown(path: Path) -> None:
    """Write the guide's words again between the guide markers of the Markdown file ``path``."""
    from taluva.learn.guide import GuideError, load_guide

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(
            _("{path}: cannot read ({reason})", path=str(path), reason=error.strerror or str(error))
        ) from None
    try:
        written = load_guide(DEFAULT).into_markdown(text)
    except GuideError as error:
        raise InputError(f"{path}: {error_words(error)}") from None

    write_bytes(path, written.encode("utf-8"))
