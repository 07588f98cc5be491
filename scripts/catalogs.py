"""The translation catalogs: extract the English messages from the code into one template per
domain (``src/taluva/lang/locale/DOMAIN.pot``), update each language's ``.po`` from it,
compile the ``.mo`` files, and check that every language is complete.

    python scripts/catalogs.py extract   # the code's messages into the .pot templates
    python scripts/catalogs.py update    # new messages into every .po (empty, to translate)
    python scripts/catalogs.py compile   # .po -> .mo (the Makefile's install runs it)
    python scripts/catalogs.py check     # every message translated, placeholders equal

``docs/translating.md`` is the translator's guide. Each domain is one area of the code, so
that its catalog can be translated (and reviewed) on its own.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "taluva"
LOCALE = SOURCE / "lang" / "locale"
STATIC = SOURCE / "server" / "web" / "static"

PYTHON_KEYWORDS: dict[str, Any] = {
    "_": None,
    "N_": None,
    "T": None,
    "Text": None,
    "Tn": (1, 2),
    "ngettext": (1, 2),
}
"""The Python functions whose first argument (two for a count) is an English message."""
JS_KEYWORDS: dict[str, Any] = {"t": None, "tn": (1, 2)}
"""The web client's: ``t("English {name}", {name})`` and ``tn("one", "other", n, {...})``."""

# The web client's files, split in two catalogs: the game (board, moves, review) and the
# site around it (lobby, accounts, learning, the app shell).
GAME_SCRIPTS = (
    "board", "boardinput", "boardtools", "buildmenu", "chat", "clock", "explain", "game",
    "gestures", "glyphs", "hex", "island", "join", "legal", "motion", "movelog", "movewords",
    "overlays", "panels", "pieces", "positionpage", "projection", "rematch", "replayer",
    "resign", "review", "signals", "tilepanel", "winchance",
)  # fmt: skip


def _python(*folders: str) -> Iterator[tuple[Path, str]]:
    for folder in folders:
        base = SOURCE / folder
        paths = [base] if base.suffix == ".py" else sorted(base.rglob("*.py"))
        for path in paths:
            yield path, "python"


def _client(game: bool) -> Iterator[tuple[Path, str]]:
    for path in sorted((STATIC / "js").glob("*.js")):
        if (path.stem in GAME_SCRIPTS) == game:
            yield path, "javascript"
    if not game:
        yield STATIC / "sw.js", "javascript"
        for page in ("index.html", "offline.html"):
            yield STATIC / page, "taluva-html"


def extract_html(fileobj: Any, keywords: Any, comment_tags: Any, options: Any) -> Iterator[Any]:
    """A page's words: every element marked ``data-t`` (its text, the English id) and every
    attribute named in ``data-t-attrs`` ("aria-label title")."""
    text = fileobj.read().decode("utf-8")
    # each start tag on its own (a marked element may hold another); a marked element's text
    # is all of it up to the next tag, its spaces folded as the page's translatePage does
    for match in re.finditer(r"<(\w+)(\s[^>]*)?>", text):
        line = text.count("\n", 0, match.start()) + 1
        attrs = match.group(2) or ""
        if re.search(r"\sdata-t(?=[\s=/]|$)", attrs):
            end = text.find("<", match.end())
            inner = " ".join(text[match.end() : end if end >= 0 else None].split())
            if inner:
                yield line, "_", inner, []
        named = re.search(r'\sdata-t-attrs="([^"]*)"', attrs)
        for name in named.group(1).split() if named else ():
            value = re.search(rf'\s{re.escape(name)}="([^"]*)"', attrs)
            if value:
                yield line, "_", value.group(1), []


def extract_toml(fileobj: Any, keywords: Any, comment_tags: Any, options: Any) -> Iterator[Any]:
    """A data file's words: each string value of a key named in the ``keys`` option (spaced)."""
    import tomllib

    wanted = set(options.get("keys", "").split())
    text = fileobj.read().decode("utf-8")
    lines = text.splitlines()

    def line_of(value: str) -> int:
        head = value.splitlines()[0] if value else value
        for i, line in enumerate(lines, 1):
            if head and head in line:
                return i
        return 1

    def walk(node: Any) -> Iterator[Any]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in wanted and isinstance(value, str) and value.strip():
                    yield line_of(value), "_", value, []
                elif key in wanted and isinstance(value, list):
                    for item in value:
                        if isinstance(item, str) and item.strip():
                            yield line_of(item), "_", item, []
                        else:
                            yield from walk(item)
                else:
                    yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    yield from walk(tomllib.loads(text))


EXTRACTORS: dict[str, Callable[..., Iterable[Any]]] = {
    "taluva-html": extract_html,
    "taluva-toml": extract_toml,
}
TOML_KEYS = "title text caption intro ending say why other then"
"""The keys of the learning data files whose values are words for players."""


def sources(domain: str) -> Iterator[tuple[Path, str]]:
    """Each file of a domain and the way its messages are extracted."""
    if domain == "engine":
        yield from _python("engine", "ai", "render")
    elif domain == "learn":
        yield from _python("learn")
        for name in ("guide.toml", "tutorial.toml"):
            yield SOURCE / "learn" / name, "taluva-toml"
    elif domain == "server":
        yield from _python("server", "lang")
    elif domain == "terminal":
        yield from _python("terminal", "cli", "__main__.py")
    elif domain == "client-site":
        yield from _client(game=False)
    elif domain == "client-game":
        yield from _client(game=True)
    else:
        raise SystemExit(f"unknown domain {domain!r}")


def template(domain: str) -> Catalog:
    """The domain's messages as found in the code now (English ids, where each is used)."""
    catalog = _new_catalog(domain)
    for path, method in sources(domain):
        keywords = JS_KEYWORDS if method == "javascript" else PYTHON_KEYWORDS
        how: Any = EXTRACTORS.get(method, method)
        options = {"keys": TOML_KEYS} if method == "taluva-toml" else {}
        with path.open("rb") as file:
            for line, message, comments, context in extract(
                how, file, keywords=keywords, options=options, strip_comment_tags=True
            ):
                where = (str(path.relative_to(ROOT)), line)
                flags = ("python-format",) if "{" in str(message) else ()
                catalog.add(message, None, [where], auto_comments=comments, flags=flags,
                            context=context)  # fmt: skip
    return catalog


HEADER = """\
# The {what} words of taluva, catalog "{domain}" (docs/translating.md).
# This file is distributed under the same license as the taluva project."""


def _new_catalog(domain: str, lang: str | None = None) -> Catalog:
    what = "English" if lang is None else lang
    return Catalog(
        locale=lang,
        domain=domain,
        project="taluva",
        version="0.1",
        copyright_holder="the taluva authors",
        msgid_bugs_address="",
        header_comment=HEADER.format(what=what, domain=domain),
        fuzzy=False,
    )


def domains() -> tuple[str, ...]:
    sys.path.insert(0, str(ROOT / "src"))
    from taluva.lang.languages import CLIENT_DOMAINS, DOMAINS

    return (*DOMAINS, *CLIENT_DOMAINS)


def languages() -> list[str]:
    sys.path.insert(0, str(ROOT / "src"))
    from taluva.lang.languages import DEFAULT, LANGUAGES

    return [code for code in LANGUAGES if code != DEFAULT]


def _write(path: Path, catalog: Catalog) -> None:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=96, sort_by_file=True, omit_header=False, ignore_obsolete=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    new = buffer.getvalue()
    # the header's dates change on every run; leave a file whose messages did not change alone
    if path.exists() and _without_dates(path.read_bytes()) == _without_dates(new):
        return
    path.write_bytes(new)


def _without_dates(data: bytes) -> bytes:
    return re.sub(rb'"(POT-Creation-Date|PO-Revision-Date): [^"]*"\n', b"", data)


def read(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, locale=lang)


def do_extract(only: list[str]) -> None:
    for domain in only or domains():
        catalog = template(domain)
        _write(LOCALE / f"{domain}.pot", catalog)
        print(f"{domain}: {len(catalog)} messages")


def do_update(only: list[str]) -> None:
    for domain in only or domains():
        pot = read(LOCALE / f"{domain}.pot")
        for lang in languages():
            path = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
            catalog = read(path, lang) if path.exists() else _new_catalog(domain, lang)
            catalog.update(pot, no_fuzzy_matching=True)
            _write(path, catalog)
            missing = sum(1 for m in catalog if m.id and not _complete(m))
            print(f"{lang}/{domain}: {len(catalog)} messages, {missing} to translate")


def do_compile(only: list[str]) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from taluva.lang.catalogs import compile_all

    print(f"{len(compile_all())} catalogs compiled")


PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)[^{}]*\}")


def placeholders(text: str) -> set[str]:
    """The named placeholders of a message ("{name}", "{n}")."""
    return set(PLACEHOLDER.findall(text))


def _complete(message: Any) -> bool:
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    return not message.fuzzy and all(strings)


def problems(domain: str, lang: str) -> list[str]:
    """What is wrong with one language's catalog of a domain, one line each."""
    pot = read(LOCALE / f"{domain}.pot")
    path = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
    if not path.exists():
        return [f"{path.relative_to(ROOT)}: missing ({len(pot)} messages to translate)"]
    po = read(path, lang)
    out = []
    for message in pot:
        if not message.id:
            continue
        found = po.get(message.id)
        where = f"{path.relative_to(ROOT)}: {message.id!r}"
        if found is None or not _complete(found):
            out.append(f"{where} is not translated")
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        wanted = set().union(*(placeholders(i) for i in ids))
        strings = found.string if isinstance(found.string, tuple) else (found.string,)
        for string in strings:
            if placeholders(string) != wanted:
                out.append(f"{where}: placeholders {sorted(placeholders(string))} "
                           f"instead of {sorted(wanted)}")  # fmt: skip
    return out


def do_check(only: list[str]) -> int:
    found = [line for d in only or domains() for lang in languages() for line in problems(d, lang)]
    for line in found:
        print(line)
    print(f"{len(found)} problems" if found else "every catalog is complete")
    return 1 if found else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("extract", "update", "compile", "check"))
    parser.add_argument("domains", nargs="*", help="only these domains (default: every one)")
    args = parser.parse_args()
    for domain in args.domains:
        if domain not in domains():
            parser.error(f"unknown domain {domain!r}: one of {', '.join(domains())}")
    if args.action == "extract":
        do_extract(args.domains)
    elif args.action == "update":
        do_update(args.domains)
    elif args.action == "compile":
        do_compile(args.domains)
    else:
        return do_check(args.domains)
    return 0


if __name__ == "__main__":
    sys.exit(main())
