"""The web client says nothing in English by accident: every word its scripts and pages show
goes through ``t()``/``tn()`` (or, in the HTML, is marked ``data-t``), so that it is in a
catalog and said in the player's language; and every message the client uses is in a
catalog's template (the extraction is up to date).

The scan is a heuristic over the scripts' tokens: a string or template literal holding a word
is shown text when it is a child of ``h(tag, attrs, ...)``/``svg(...)``/``clear(node, ...)``, the
message of ``toast()``/``confirm()``/``alert()``, the value of ``.textContent``/``.title``/
``.placeholder``/``document.title``, or of a ``title``/``aria-label``/``placeholder``/``alt``
attribute. What ``t()``/``tn()`` or any other call receives is not looked at (the call says
what it is), and the move notation ("hut 1,0") is not a word to translate.
"""

from __future__ import annotations

import html.parser
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from babel.messages.extract import extract
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "src" / "taluva" / "server" / "web" / "static"
LOCALE = ROOT / "src" / "taluva" / "lang" / "locale"
SCRIPTS = [*sorted((STATIC / "js").glob("*.js")), STATIC / "sw.js"]
PAGES = [STATIC / "index.html", STATIC / "offline.html"]

WORD = re.compile(r"[A-Za-z]{2,}")
ALLOWED = re.compile(
    r"^(?:Taluva"  # the game's name, in every language
    r"|(?:tile|double|hut|expand|temple|tower|ship|draw)\b[ ,0-9-]*"  # move notation
    r")$"
)
"""Strings with letters that are not words to translate."""

# Calls whose arguments from the first index to the last (None: all the rest) are shown.
TEXT_CALLS: dict[str, tuple[int, int | None]] = {
    "h": (2, None), "svg": (2, None), "clear": (1, None),
    "toast": (0, 0), "confirm": (0, 0), "alert": (0, 0), "prompt": (0, 0),
}  # fmt: skip
# Attributes whose value is read by people (objects given to h(), setAttribute()).
TEXT_ATTRIBUTES = {"title", "aria-label", "placeholder", "alt", "aria-roledescription",
                   "aria-valuetext", "aria-description"}  # fmt: skip
# Properties whose value is shown: `node.textContent = ...`.
TEXT_PROPERTIES = {"textContent", "innerText", "title", "placeholder", "ariaLabel", "alt"}
TRANSLATING = {"t", "tn"}


@dataclass
class Token:
    """One token of a script: ``kind`` is "str" (a string or a template's literal text),
    "name", "punct" or "tpl" (a template literal's opening, closed by a "}" punct)."""

    kind: str
    text: str
    line: int


def tokens(source: str) -> list[Token]:
    """The script's tokens, comments left out; a template literal is its literal text as one
    "str" token, then the tokens of each ``${...}`` between "tpl" and "}" tokens."""
    out: list[Token] = []
    i, n = 0, len(source)
    braces: list[str] = []  # "{" of code, "${" of a template: where a "}" goes back to

    def line() -> int:
        return source.count("\n", 0, i) + 1

    def template() -> None:
        nonlocal i
        start = line()
        literal = []
        while i < n:
            c = source[i]
            if c == "\\":
                literal.append(source[i : i + 2])
                i += 2
            elif c == "`":
                i += 1
                out.append(Token("str", "".join(literal), start))
                return
            elif source.startswith("${", i):
                out.append(Token("str", "".join(literal), start))
                literal = []
                out.append(Token("tpl", "${", line()))
                braces.append("${")
                i += 2
                return
            else:
                literal.append(c)
                i += 1

    while i < n:
        c = source[i]
        if c.isspace():
            i += 1
        elif source.startswith("//", i):
            i = source.find("\n", i) if "\n" in source[i:] else n
        elif source.startswith("/*", i):
            i = source.index("*/", i) + 2
        elif c in "\"'":
            end = i + 1
            while source[end] != c:
                end += 2 if source[end] == "\\" else 1
            out.append(Token("str", source[i + 1 : end], line()))
            i = end + 1
        elif c == "`":
            i += 1
            template()
        elif c == "/" and _regex_may_start(out):
            end, in_class = i + 1, False
            while source[end] != "/" or in_class:
                if source[end] == "\\":
                    end += 1
                elif source[end] == "[":
                    in_class = True
                elif source[end] == "]":
                    in_class = False
                end += 1
            i = end + 1
            while i < n and source[i].isalpha():
                i += 1
            out.append(Token("name", "REGEX", line()))
        elif c.isalnum() or c in "_$":
            end = i
            while end < n and (source[end].isalnum() or source[end] in "_$"):
                end += 1
            out.append(Token("name", source[i:end], line()))
            i = end
        elif c == "{":
            braces.append("{")
            out.append(Token("punct", c, line()))
            i += 1
        elif c == "}":
            opened = braces.pop() if braces else "{"
            out.append(Token("punct", c, line()))
            i += 1
            if opened == "${":
                template()
        else:
            out.append(Token("punct", c, line()))
            i += 1
    return out


def _regex_may_start(before: list[Token]) -> bool:
    """Whether a "/" here starts a regular expression rather than dividing."""
    if not before:
        return True
    last = before[-1]
    if last.kind == "punct":
        return last.text not in ")]}"
    return last.kind == "name" and last.text in {"return", "typeof", "case", "in", "of"}


@dataclass
class Frame:
    """An open bracket: its kind, the call it opens (a name, or None), the argument index,
    and whether what it holds is shown text (``shown``) or another call's business."""

    bracket: str
    call: str | None
    argument: int
    shown: bool
    key: str | None = None  # an object literal's key being given a value


def shown_literals(source: str) -> Iterator[tuple[int, str]]:
    """Each string (or template text) with a word in it that the script shows as text, by
    line: see the module's docstring for where text is shown."""
    toks = tokens(source)
    stack: list[Frame] = [Frame("top", None, 0, False)]
    assigning: list[int] = []  # stack depths where a `.textContent = ...` value is being given
    for index, tok in enumerate(toks):
        top = stack[-1]
        previous = toks[index - 1] if index else None
        if (tok.kind == "punct" and tok.text in "([{") or tok.kind == "tpl":
            call = None
            if tok.text == "(" and previous is not None and previous.kind == "name":
                call = previous.text
            shown = _inherits(top, assigning, stack) and call not in TRANSLATING
            if call in TEXT_CALLS:
                shown = False  # decided per argument below
            if call is not None and call not in TEXT_CALLS and call not in TRANSLATING:
                shown = False  # another call's arguments: that call knows what they are
            stack.append(Frame(tok.text, call, 0, shown))
            continue
        if tok.kind == "punct" and tok.text in ")]}":
            if len(stack) > 1:
                stack.pop()
            while assigning and assigning[-1] > len(stack):
                assigning.pop()
            continue
        if tok.kind == "punct" and tok.text == ",":
            top.argument += 1
            top.key = None
            while assigning and assigning[-1] == len(stack):
                assigning.pop()
            continue
        if tok.kind == "punct" and tok.text == ";":
            while assigning and assigning[-1] == len(stack):
                assigning.pop()
            continue
        if tok.kind == "punct" and tok.text == ":" and top.bracket == "{" and index >= 2:
            if toks[index - 2].text in {"{", ","}:  # a key, not a ternary's ":"
                top.key = (
                    previous.text
                    if previous is not None and previous.kind in {"name", "str"}
                    else None
                )
            continue
        if (tok.kind == "punct" and tok.text == "=" and previous is not None
                and previous.kind == "name" and previous.text in TEXT_PROPERTIES
                and index >= 2 and toks[index - 2].text == "."):  # fmt: skip
            if not (index + 1 < len(toks) and toks[index + 1].text == "="):
                assigning.append(len(stack))
            continue
        if tok.kind != "str" or not WORD.search(tok.text) or ALLOWED.match(tok.text.strip()):
            continue
        if _shown_here(top, assigning, stack, toks, index):
            yield tok.line, tok.text


def _inherits(top: Frame, assigning: list[int], stack: list[Frame]) -> bool:
    """Whether a bracket opened here holds shown text: inside shown text, a text call's
    text arguments, a shown attribute's value or an assigned text property."""
    if top.shown:
        return True
    if top.call in TEXT_CALLS:
        first, last = TEXT_CALLS[top.call]
        if top.argument >= first and (last is None or top.argument <= last):
            return True
    if top.bracket == "{" and top.key in TEXT_ATTRIBUTES:
        return True
    return bool(assigning) and assigning[-1] == len(stack)


def _shown_here(top: Frame, assigning: list[int], stack: list[Frame], toks: list[Token],
                index: int) -> bool:  # fmt: skip
    """Whether the string at ``toks[index]`` is shown (not an object's key, not a comparison)."""
    following = toks[index + 1] if index + 1 < len(toks) else None
    if following is not None and following.text == ":" and top.bracket == "{":
        return False  # an object's key
    if following is not None and following.text in {"=", "!", "<", ">"}:
        return False
    previous = toks[index - 1]
    if previous.text in {"=", "!"} and index >= 2 and toks[index - 2].text in {"=", "!"}:
        return False  # a comparison: `kind === "tile"`
    if top.call in TRANSLATING:
        return False
    setattr_call = top.call == "setAttribute" and top.argument == 1
    if setattr_call and toks[index - 2].kind == "str" and toks[index - 2].text in TEXT_ATTRIBUTES:
        return True
    return _inherits(top, assigning, stack)


def untranslated(path: Path) -> list[str]:
    """The script's shown literals, as "file:line: text"."""
    source = path.read_text(encoding="utf-8")
    return [f"{path.name}:{line}: {text!r}" for line, text in shown_literals(source)]


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_script_shows_no_untranslated_literal(path: Path) -> None:
    assert untranslated(path) == [], "wrap shown words in t()/tn() from ./i18n.js"


@pytest.mark.parametrize(
    "planted",
    [
        'h("p", {}, "Hello there")',
        'h("p", { class: "x" }, ok ? "Hello there" : "")',
        "h('button', {}, `Seat ${i} is free`)",
        'toast("Saved your game", "error")',
        'node.textContent = "Done here";',
        'node.textContent = ready ? t("Ready") : "Not yet";',
        'h("a", { href: "#/", title: "Back home" }, "←")',
        'h("input", { "aria-label": `Seat ${i} name` })',
        'clear(list, h("li", {}, `Cannot load: ${error}`))',
        'button.setAttribute("aria-label", "Close the panel")',
        'if (!confirm("Resign the game?")) return;',
    ],
)
def test_scan_finds_a_planted_literal(planted: str) -> None:
    source = f'import {{ t }} from "./i18n.js";\nfunction f() {{ {planted} }}\n'
    assert list(shown_literals(source)), planted


@pytest.mark.parametrize(
    "clean",
    [
        'h("p", {}, t("Hello there"))',
        'h("p", { class: "hint-line", id: "seek-status" }, tn("{n} seat", "{n} seats", n))',
        'node.textContent = t("Done: {what}", { what: name });',
        'h("li", { "data-kind": "hut 1,0" }, "hut 1,0")',
        'api("GET", `/api/games?status=${status}&limit=30`)',
        'if (kind === "Escape") toast(t("Closed"));',
        'h("span", {}, `${i + 1}.`, " · ", player.name)',
        'const pattern = /Seat (\\d+)/; h("p", {}, t("Seat"))',
    ],
)
def test_scan_passes_translated_or_machine_text(clean: str) -> None:
    source = f'import {{ t, tn }} from "./i18n.js";\nfunction f() {{ {clean} }}\n'
    assert list(shown_literals(source)) == [], clean


class _PageWords(html.parser.HTMLParser):
    """The words of a page not marked for translation: text outside a ``data-t`` element and
    read attributes not named in the element's ``data-t-attrs``."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, bool]] = []  # (tag, marked data-t)
        self.found: list[str] = []
        self.marked: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        named = (values.get("data-t-attrs") or "").split()
        for name in TEXT_ATTRIBUTES:
            value = values.get(name)
            if value and WORD.search(value):
                if name in named:
                    self.marked.append(value)
                else:
                    self.found.append(f"<{tag} {name}={value!r}>")
        if tag not in {"meta", "link", "br", "img", "input"}:
            self.open.append((tag, "data-t" in values))

    def handle_endtag(self, tag: str) -> None:
        while self.open:
            if self.open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if (
            not text
            or not WORD.search(text)
            or not self.open
            or self.open[-1][0] in {"script", "style"}
        ):
            return
        if self.open[-1][1]:
            self.marked.append(text)
        elif not ALLOWED.match(text):
            self.found.append(f"<{self.open[-1][0]}>{text}")


def page_words(path: Path) -> _PageWords:
    parser = _PageWords()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_page_marks_every_word_for_translation(path: Path) -> None:
    assert page_words(path).found == [], "mark them data-t / data-t-attrs"


def _template_ids() -> set[str]:
    ids: set[str] = set()
    for domain in ("client-site", "client-game"):
        pot = LOCALE / f"{domain}.pot"
        if pot.exists():
            with pot.open("rb") as file:
                ids |= {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(file) if m.id}
    return ids


@pytest.mark.parametrize("path", SCRIPTS + PAGES, ids=lambda p: p.name)
def test_every_message_of_the_client_is_in_a_template(path: Path) -> None:
    known = _template_ids()
    if path.suffix == ".html":
        used = set(page_words(path).marked)
    else:
        with path.open("rb") as file:
            found = extract("javascript", file, keywords={"t": None, "tn": (1, 2)})
            used = {m if isinstance(m, str) else m[0] for _, m, _, _ in found}
    assert sorted(used - known) == [], "run: scripts/catalogs.py extract client-site client-game"
