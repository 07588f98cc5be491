"""Every example in README.md and docs/*.md runs, and prints what the page shows.

How the pages write examples so that this file can run them:

- **Python** examples are doctests: `>>>` lines in a ```python block, with a blank line before
  the closing fence. Each docs/*.md page runs as one doctest (one test per page, named after
  it); README.md runs through pytest's ``--doctest-glob=README.md`` (pyproject.toml).
  There are no sketches: every ```python block is a doctest, each of its paragraphs starting
  with `>>>`, so keep examples complete, small and fast (small AI budgets, tiny counts).
- **Shell** examples are ```console (or shell, sh, bash) blocks. A line starting with `$ ` is a
  command; the lines after it, up to the next command, are what it prints: standard output,
  then standard error, compared line by line with trailing spaces ignored. `...` matches any
  text, as in doctests (for timings). Every command must exit with status 0.
- Each shell block is one test, named ``FILE:LINE`` after its first command. Its commands run
  in order, through bash, in a fresh temporary directory, with the tested environment's
  ``bin`` (the repository's .venv/bin) first on PATH, and HOME and XDG_DATA_HOME inside the
  directory, so that no example touches the user's files.
- A page declares the files its shell examples read: a fenced block right after a line
  ``<!-- file: NAME -->`` is written to NAME in the directory of each of the page's blocks.
- Exceptions: ``make test`` is what runs this suite, so it is not run again here: the test
  checks that ``make -n test`` runs pytest. ``make run`` serves until stopped, so the test asks
  ``make -n run PORT=N`` for the server command, runs it on a free port from the repository
  root, waits until it answers HTTP, and stops it with Ctrl-C (SIGINT), expecting exit status
  0. A ``taluva serve`` command is run the same way, on a free port (an extra ``--port N``).
- A **conversation** with a program that reads commands line by line (``taluva engine``) is a
  ```text block right after a line ``<!-- session: COMMAND -->``: the lines after `> ` are
  sent to COMMAND's standard input, the lines after `< ` are what it must print (compared as
  above), and it must exit with status 0.
- Every other block says what it is: ```json, ```text and the like are not run, so a block
  that looks like commands or a doctest (a line starting with `$ `, `>>> `, `taluva `,
  `make `, `pip `...) is refused unless it is a ```text block right after a line
  ``<!-- not run: REASON -->``, for the few templates that cannot run here (a PostgreSQL URL,
  a Ray cluster); the page says so in words too. An untagged block is refused, as is a
  shell block the runner does not take (```zsh, ```shell-session: write ```console).
  `test_every_block_runs_or_says_why_not` checks all of this.

Records shown in ```json blocks must be legal games written canonically, and links between
the pages must lead somewhere.

The README is a newcomer's page: under 200 lines, the two `make` commands, a picture drawn
by the project's own renderer from a committed game, and one line for each page of docs/,
where everything else lives (the engine's full tour is docs/engine.md, a doctest like the
others). Its tests are at the end of this file.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import shlex
import signal
import socket
import struct
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from taluva import Game

REPO = Path(__file__).resolve().parents[1]
DOCS = sorted((REPO / "docs").glob("*.md"))
PAGES = [REPO / "README.md", *DOCS]
BIN = REPO / ".venv" / "bin" if (REPO / ".venv" / "bin").is_dir() else Path(sys.executable).parent
SHELL_LANGUAGES = {"console", "shell", "sh", "bash"}
COMMAND_TIMEOUT = 60
SERVER_TIMEOUT = 30
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)")
MARK = re.compile(r"^<!--\s*(file|session|not run):\s*(.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    """A fenced block of a page: its language, the line of its first content line, its lines
    (without the indentation of its fence), and the ``<!-- KEY: VALUE -->`` line before it."""

    page: Path
    language: str
    line: int
    lines: tuple[str, ...]
    mark: tuple[str, str] | None = None

    @property
    def where(self) -> str:
        return f"{relative(self.page)}:{self.line}"

    @property
    def file_name(self) -> str | None:
        return self.mark[1] if self.mark and self.mark[0] == "file" else None

    @property
    def page_lines(self) -> range:
        """The indexes of its content lines in the page's lines."""
        return range(self.line - 1, self.line - 1 + len(self.lines))


def fenced_blocks(page: Path, text: str | None = None) -> list[Block]:
    """Every fenced block of a page (``text``, when given, stands for its contents), also one
    indented in a list item, with the mark of the line before it (``file``, ``session``,
    ``not run``)."""
    blocks = []
    lines = (page.read_text(encoding="utf-8") if text is None else text).splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening:
            indent, fence, language = opening.groups()
            closing = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
            mark = MARK.match(lines[index - 1].strip()) if index else None
            end = index + 1
            while end < len(lines) and not closing.match(lines[end]):
                end += 1
            body = tuple(
                line[len(indent) :] if line.startswith(indent) else line.lstrip()
                for line in lines[index + 1 : end]
            )
            key_value = (mark.group(1), mark.group(2)) if mark else None
            blocks.append(Block(page, language.lower(), index + 2, body, key_value))
            index = end
        index += 1
    return blocks


def relative(page: Path) -> str:
    return str(page.relative_to(REPO)) if page.is_relative_to(REPO) else page.name


# ----------------------------------------------------------------- Python examples

DOCTEST_PAGES = [page for page in DOCS if ">>> " in page.read_text(encoding="utf-8")]


@pytest.mark.parametrize("page", DOCTEST_PAGES, ids=[page.name for page in DOCTEST_PAGES])
def test_the_python_examples_of_the_page_pass(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, relative(page), str(page), 0)
    report: list[str] = []
    runner = doctest.DocTestRunner(verbose=False, optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=report.append)
    assert result.attempted > 0
    if result.failed:
        pytest.fail("".join(report), pytrace=False)


def test_the_rules_the_notation_and_the_engine_tour_hold_doctests() -> None:
    """The engine's tour moved from the README to docs/engine.md, and runs there."""
    pages = ("engine.md", "notation.md", "rules.md")
    assert [page.name for page in DOCTEST_PAGES if page.name in pages] == list(pages)


def test_pytest_runs_the_readme_as_a_doctest() -> None:
    """The README's tour runs through pyproject's options, not through this file."""
    options = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_options = options["tool"]["pytest"]["ini_options"]
    assert "README.md" in pytest_options["testpaths"]
    assert "--doctest-glob=README.md" in pytest_options["addopts"].split()


# ----------------------------------------------------------------- shell examples


@dataclass(frozen=True)
class Command:
    line: int
    text: str
    expected: tuple[str, ...]


def commands_of(block: Block) -> list[Command]:
    """The ``$ `` commands of a shell block, each with the lines it must print."""
    commands: list[Command] = []
    for offset, text in enumerate(block.lines):
        if text.startswith("$ "):
            commands.append(Command(block.line + offset, text[2:].strip(), ()))
        elif commands:
            last = commands[-1]
            commands[-1] = Command(last.line, last.text, (*last.expected, text))
        elif text.strip():
            raise AssertionError(f"{block.where}: {text!r} comes before any '$ ' command")
    if not commands:
        raise AssertionError(f"{block.where}: a shell block without a '$ ' command")
    return commands


def shell_blocks() -> list[Block]:
    return [
        block
        for page in PAGES
        for block in fenced_blocks(page)
        if block.language in SHELL_LANGUAGES and not block.file_name
    ]


SHELL_BLOCKS = shell_blocks()


def page_files(page: Path) -> dict[str, str]:
    """The files a page declares for its shell examples."""
    return {
        block.file_name: "\n".join(block.lines) + "\n"
        for block in fenced_blocks(page)
        if block.file_name
    }


def environment(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / "data")
    env.pop("COLUMNS", None)
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def output_matches(expected: tuple[str, ...], got: str) -> bool:
    """Line by line, trailing spaces and trailing blank lines ignored, ``...`` any text."""

    def tidy(lines: list[str]) -> str:
        lines = [line.rstrip() for line in lines]
        while lines and not lines[-1]:
            lines.pop()
        return "".join(line + "\n" for line in lines)

    want, have = tidy(list(expected)), tidy(got.splitlines())
    return doctest.OutputChecker().check_output(want, have, doctest.ELLIPSIS)


def run_command(command: Command, where: str, cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        ["bash", "-c", command.text],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    got = done.stdout + done.stderr
    shown = "\n".join(command.expected)
    assert done.returncode == 0, (
        f"{where}: $ {command.text}\nexit status {done.returncode}\noutput:\n{got}"
    )
    assert output_matches(command.expected, got), (
        f"{where}: $ {command.text}\nthe page shows:\n{shown}\nthe command prints:\n{got}"
    )


def answers_http(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2):
            return True
    except urllib.error.HTTPError:
        return True  # any HTTP answer, even an error status, is an answer
    except OSError:
        return False


def run_server(text: str, port: int, where: str, cwd: Path, env: dict[str, str]) -> None:
    """Start a server command, wait for it to answer HTTP on ``port``, stop it with Ctrl-C."""
    log_path = Path(env["HOME"]) / "server.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            ["bash", "-c", f"exec {text}"],
            cwd=cwd,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + SERVER_TIMEOUT
            while not answers_http(port):
                assert server.poll() is None, (
                    f"{where}: $ {text}\nthe server stopped with status {server.returncode}:\n"
                    + log_path.read_text()
                )
                assert time.monotonic() < deadline, (
                    f"{where}: $ {text}\nno HTTP answer on port {port} within "
                    f"{SERVER_TIMEOUT} s:\n" + log_path.read_text()
                )
                time.sleep(0.1)
            os.killpg(server.pid, signal.SIGINT)
            status = server.wait(timeout=SERVER_TIMEOUT)
            assert status == 0, f"{where}: $ {text}\nCtrl-C gave exit status {status}"
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()


def make_dry_run(target: str, *assignments: str) -> str:
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", target, *assignments],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def run_make_run(where: str, env: dict[str, str]) -> None:
    port = free_port()
    plan = make_dry_run("run", f"PORT={port}").splitlines()
    serves = [line for line in plan if "taluva serve" in line]
    assert serves, f"{where}: `make -n run` prints no 'taluva serve' command:\n" + "\n".join(plan)
    assert f"--port {port}" in serves[-1], f"{where}: `make run` ignores PORT: {serves[-1]}"
    run_server(serves[-1], port, where, REPO, env)


def run_example(command: Command, where: str, cwd: Path, env: dict[str, str]) -> None:
    words = shlex.split(command.text, comments=True)
    if words in (["make", "test"], ["make", "run"]) or words[:2] == ["taluva", "serve"]:
        assert not any(line.strip() for line in command.expected), (
            f"{where}: the output of `{command.text}` is not compared, so the page shows none"
        )
    if words == ["make", "test"]:
        assert "pytest" in make_dry_run("test"), f"{where}: `make test` does not run pytest"
    elif words == ["make", "run"]:
        run_make_run(where, env)
    elif words[:2] == ["taluva", "serve"]:
        port = free_port()
        run_server(f"{command.text} --port {port}", port, where, cwd, env)
    else:
        run_command(command, where, cwd, env)


@pytest.mark.parametrize(
    "block", SHELL_BLOCKS, ids=[f"{relative(b.page)}:{b.line}" for b in SHELL_BLOCKS]
)
def test_the_shell_example_prints_what_the_page_shows(block: Block, tmp_path: Path) -> None:
    commands = commands_of(block)
    for name, text in page_files(block.page).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    home = tmp_path / ".home"
    home.mkdir()
    env = environment(home)
    for command in commands:
        run_example(command, f"{relative(block.page)}:{command.line}", tmp_path, env)


def test_the_readme_and_the_docs_show_shell_examples() -> None:
    """The README's `make` commands, the command line of the notation and of the engine, and
    the commands that made the README's picture."""
    pages = {relative(block.page) for block in SHELL_BLOCKS}
    assert {"README.md", "docs/notation.md", "docs/engine.md", "docs/playing.md"} <= pages


def test_shell_output_is_compared_line_by_line_with_wildcards() -> None:
    assert output_matches(("total: 864", "perft 3: ... s"), "total: 864  \nperft 3: 0.1 s\n\n")
    assert not output_matches(("total: 864",), "total: 865\n")
    assert not output_matches(("total: 864",), "total: 864\nmore\n")
    assert not output_matches((), "anything\n")


# ----------------------------------------------------------------- conversations


def conversation_of(block: Block) -> tuple[list[str], list[str]]:
    """The lines a session block sends (after `> `) and the lines it expects (after `< `)."""
    sent: list[str] = []
    answers: list[str] = []
    for offset, text in enumerate(block.lines):
        if text.startswith(">"):
            sent.append(text[2:] if text.startswith("> ") else text[1:])
        elif text.startswith("<"):
            answers.append(text[2:] if text.startswith("< ") else text[1:])
        elif text.strip():
            raise AssertionError(f"{block.where}+{offset}: {text!r} starts with neither > nor <")
    if not sent:
        raise AssertionError(f"{block.where}: a session without a '> ' line")
    return sent, answers


SESSION_BLOCKS = [
    block
    for page in PAGES
    for block in fenced_blocks(page)
    if block.mark and block.mark[0] == "session"
]


@pytest.mark.parametrize(
    "block", SESSION_BLOCKS, ids=[f"{relative(b.page)}:{b.line}" for b in SESSION_BLOCKS]
)
def test_the_conversation_on_the_page_goes_as_shown(block: Block, tmp_path: Path) -> None:
    assert block.mark is not None
    command = block.mark[1]
    sent, answers = conversation_of(block)
    home = tmp_path / ".home"
    home.mkdir()
    done = subprocess.run(
        ["bash", "-c", command],
        input="".join(line + "\n" for line in sent),
        cwd=tmp_path,
        env=environment(home),
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    got = done.stdout + done.stderr
    assert done.returncode == 0, f"{block.where}: {command}\nexit status {done.returncode}:\n{got}"
    shown = "\n".join(answers)
    assert output_matches(tuple(answers), got), (
        f"{block.where}: {command}\nthe page shows:\n{shown}\nthe program answers:\n{got}"
    )


def test_the_engine_protocol_shows_a_conversation() -> None:
    assert [relative(block.page) for block in SESSION_BLOCKS] == ["docs/engine-protocol.md"]


# ----------------------------------------------------------------- no example escapes

PYTHON_LANGUAGES = {"python", "py", "python3", "pycon", "pytb", "doctest", "ipython"}
SHELL_LIKE = SHELL_LANGUAGES | {
    "zsh", "fish", "ksh", "csh", "shell-session", "shellsession", "sh-session",
    "bash-session", "terminal", "powershell", "ps1", "pwsh", "bat", "cmd",
}  # fmt: skip
COMMAND_LIKE = re.compile(
    r"^\s*(?:\$ |>>> |% |(?:taluva|make|python3?|pip3?|pytest|ray|curl|wget|git|bash|sh|"
    r"uvicorn|docker|systemctl|psql|\.?\.?/?\.venv/bin/\S+|bench/\S+)(?:\s|$))"
)


def problem_of(block: Block) -> str | None:
    """Why a block would show an example that this file does not run, or None.

    Run: ```python doctests (every paragraph starts with `>>>`), ```console (and sh, bash,
    shell) blocks, ``session`` conversations. Not examples: files for the shell examples
    (``file``), ```text after ``<!-- not run: REASON -->``, and blocks of any other language
    (json, text...) holding nothing that looks like a command or a doctest.
    """
    language, lines = block.language, block.lines
    key = block.mark[0] if block.mark else None
    if key == "file":
        return None
    if key == "not run":
        if language != "text":
            return "a block marked 'not run' is a ```text block"
        if not block.mark or not block.mark[1]:
            return "'<!-- not run: REASON -->' gives the reason"
        return None
    if key == "session":
        if language != "text":
            return "a session is a ```text block"
        try:
            conversation_of(block)
        except AssertionError as error:
            return str(error)
        return None
    if not language:
        return (
            "an untagged block: say what it is, ```python (a doctest), ```console (commands "
            "that run), ```json, or ```text (output, a diagram; after "
            "'<!-- not run: REASON -->' for a template that cannot run)"
        )
    if language in PYTHON_LANGUAGES:
        if language != "python":
            return f"write ```python, not ```{language}: a doctest in a ```python block"
        paragraph_start = True
        for offset, text in enumerate(lines):
            if paragraph_start and text.strip() and not text.startswith(">>>"):
                return (
                    f"line {block.line + offset}: {text.strip()!r} is not run: every "
                    "paragraph of a ```python block is a doctest, starting with '>>>'"
                )
            paragraph_start = not text.strip()
        if not lines or lines[-1].strip():
            return "a ```python block ends with a blank line (the end of the doctest)"
        return None
    if language in SHELL_LIKE:
        if language not in SHELL_LANGUAGES:
            return f"```{language} is not run: write ```console with '$ ' commands"
        return None  # run by test_the_shell_example_prints_what_the_page_shows
    for offset, text in enumerate(lines):
        if COMMAND_LIKE.match(text):
            return (
                f"line {block.line + offset}: {text.strip()!r} looks like an example that is "
                f"not run: make it ```console ('$ ' commands) or ```python ('>>>'), or, if it "
                "cannot run here, a ```text block after '<!-- not run: REASON -->'"
            )
    return None


@pytest.mark.parametrize("page", PAGES, ids=[relative(page) for page in PAGES])
def test_every_block_runs_or_says_why_not(page: Path) -> None:
    problems = [
        f"{block.where}: {problem}"
        for block in fenced_blocks(page)
        if (problem := problem_of(block)) is not None
    ]
    assert problems == []


def test_an_example_that_would_not_run_is_found() -> None:
    page = REPO / "docs" / "example.md"

    def problems(text: str) -> list[str | None]:
        return [problem_of(block) for block in fenced_blocks(page, text)]

    fine = [
        "```python\n>>> 1 + 1\n2\n\n>>> x = 1\n\n```",
        "```console\n$ taluva --help\n```",
        '```json\n{"a": 1}\n```',
        "```text\n  q  r\n```",
        "<!-- not run: needs a cluster -->\n```text\ntaluva arena --ray HOST:6379\n```",
        "<!-- session: taluva engine -->\n```text\n> info\n< ok\n```",
        "<!-- file: run.sh -->\n```sh\necho hi\n```",
        "- a list item:\n\n  ```console\n  $ taluva --help\n  ```",
    ]
    assert [problems(text) for text in fine] == [[None]] * len(fine)
    refused = [
        "```python\nfrom taluva import Game\n```",  # a sketch
        "```python\n>>> x = 1\n\nx += 1\n\n```",  # a paragraph without a prompt
        "```python\n>>> x = 1\n```",  # the fence would be expected output
        "```pycon\n>>> 1\n1\n\n```",
        "```\ntaluva serve --port 8080\n```",
        "```\nsome output\n```",
        "```text\n$ taluva new\n```",
        "```zsh\n$ taluva new\n```",
        "  ```\n  make run\n  ```",
        "<!-- not run: -->\n```text\ntaluva serve\n```",
        "<!-- not run: a template -->\n```bash\ntaluva serve\n```",
        "<!-- session: taluva engine -->\n```text\ninfo\n```",
    ]
    assert [None in problems(text) for text in refused] == [False] * len(refused)


# ----------------------------------------------------------------- records and links


RECORD_BLOCKS = [
    block
    for page in PAGES
    for block in fenced_blocks(page)
    if block.language == "json" and '"taluva-record/1"' in "\n".join(block.lines)
]


@pytest.mark.parametrize(
    "block", RECORD_BLOCKS, ids=[f"{relative(b.page)}:{b.line}" for b in RECORD_BLOCKS]
)
def test_a_record_on_a_page_is_a_legal_game_in_canonical_form(block: Block) -> None:
    record = json.loads("\n".join(block.lines))
    assert Game.from_record(record).to_record() == record, block.where


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
ANCHOR = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")


def anchors(page: Path) -> set[str]:
    """The link targets a page offers: GitHub's heading slugs and explicit anchors."""
    text = page.read_text(encoding="utf-8")
    found = set(ANCHOR.findall(text))
    code = {index for block in fenced_blocks(page) for index in block.page_lines}
    for index, line in enumerate(text.splitlines()):
        if line.startswith("#") and index not in code:
            title = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
            found.add(slug)
    return found


def prose(page: Path) -> str:
    """A page without its fenced blocks, where links are not links."""
    skip = {index for block in fenced_blocks(page) for index in block.page_lines}
    lines = page.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for index, line in enumerate(lines) if index not in skip)


@pytest.mark.parametrize("page", PAGES, ids=[relative(page) for page in PAGES])
def test_every_link_between_the_pages_leads_somewhere(page: Path) -> None:
    broken = []
    for target in LINK.findall(prose(page)):
        if re.match(r"^[a-z]+:", target):
            continue  # http:, https:, mailto:
        path, _, anchor = target.partition("#")
        goal = (page.parent / path).resolve() if path else page
        if not goal.exists():
            broken.append(f"{target}: no such file")
        elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
            broken.append(f"{target}: no heading or anchor '{anchor}'")
    assert broken == []


ABSOLUTE_PATH = re.compile(r"(?<![\w.~:/-])/([A-Za-z][\w.-]*)(?:/[\w.-]+)*")
UPWARD_PATH = re.compile(r"(?<![\w./])(?:\.\./)+[\w./-]*")


def paths_outside(text: str, folder: Path) -> list[str]:
    """Paths of this machine, and relative paths from ``folder`` that climb out of the
    repository. URL paths such as ``/api/games`` pass: no such folder exists at the root."""
    outside = [
        match.group(0)
        for match in ABSOLUTE_PATH.finditer(text)
        if Path("/", match.group(1)).exists() and match.group(0) != "/dev/null"
    ]
    outside += [
        path
        for path in UPWARD_PATH.findall(text)
        if not (folder / path).resolve().is_relative_to(REPO)
    ]
    return outside


def test_paths_outside_the_repository_are_found() -> None:
    docs = REPO / "docs"
    text = "see `/usr/lib/x`, [a](../../x.md), [b](../tests/x.json), `/api/games`, a/b"
    assert paths_outside(text, docs) == ["/usr/lib/x", "../../x.md"]


@pytest.mark.parametrize("page", PAGES, ids=[relative(page) for page in PAGES])
def test_the_page_names_no_file_outside_the_repository(page: Path) -> None:
    assert paths_outside(page.read_text(encoding="utf-8"), page.parent) == []


MODULE = re.compile(r"`(taluva/[\w/]+\.py)`")


def test_the_modules_the_rules_and_the_notation_name_exist() -> None:
    """Each section of rules.md and notation.md ends with 'Implemented in `taluva/...py`'."""
    named = sorted(
        {
            module
            for page in ("rules.md", "notation.md")
            for line in (REPO / "docs" / page).read_text(encoding="utf-8").splitlines()
            for module in MODULE.findall(line)
        }
    )
    assert len(named) > 10
    assert [module for module in named if not (REPO / "src" / module).is_file()] == []


def test_each_section_of_the_rules_says_where_it_is_implemented() -> None:
    sections = (REPO / "docs" / "rules.md").read_text(encoding="utf-8").split("\n## ")[1:]
    missing = [
        section.splitlines()[0]
        for section in sections
        if section.splitlines()[0] != "Rulings" and "Implemented in `taluva/engine/" not in section
    ]
    assert missing == []


def rule_headings(test_file: str) -> list[str]:
    """The section headings of a rules test file: ``# ---...--- Heading`` with a capital."""
    text = (REPO / "tests" / test_file).read_text(encoding="utf-8")
    headings = re.findall(r"^# -+ (.+)$", text, flags=re.MULTILINE)
    return [title for title in headings if title[0].isupper() and title != "Cross-check"]


@pytest.mark.parametrize("test_file", ["test_rules.py", "test_expansions.py"])
def test_the_rules_follow_the_headings_of_the_rules_tests(test_file: str) -> None:
    headings = rule_headings(test_file)
    text = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    titles = re.findall(r"^#{2,3} (.+)$", text, flags=re.MULTILINE)
    assert len(headings) >= 3
    assert [title for title in headings if title not in titles] == []


# ----------------------------------------------------------------- the README

README = REPO / "README.md"
README_MAX_LINES = 200
PICTURE = re.compile(r"!\[[^\]]*\]\((docs/images/[\w.-]+\.png)\)")
PICTURE_COMMAND = re.compile(
    r"taluva show (docs/images/[\w.-]+\.json) --ply (\d+) --png (docs/images/[\w.-]+\.png)"
)


def readme_section(title: str) -> str:
    """The prose of one ``## TITLE`` section of the README."""
    sections = re.split(r"^## ", prose(README), flags=re.MULTILINE)[1:]
    found = [section for section in sections if section.splitlines()[0].strip() == title]
    assert found, f"README.md has no section '## {title}'"
    return found[0]


def test_the_readme_is_a_short_page_with_the_two_make_commands() -> None:
    """A page a newcomer reads in five minutes; the details live in docs/. Its `make run` and
    `make test` are run by test_the_shell_example_prints_what_the_page_shows."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, (
        f"README.md has {len(lines)} lines: move the details to the right page of docs/"
    )
    commands = [
        shlex.split(command.text, comments=True)
        for block in SHELL_BLOCKS
        if block.page == README
        for command in commands_of(block)
    ]
    assert ["make", "run"] in commands
    assert ["make", "test"] in commands


def test_the_readme_names_no_module_of_the_server() -> None:
    """The server's modules move between subpackages: the README leads to docs/ instead."""
    text = README.read_text(encoding="utf-8")
    assert re.findall(r"taluva/server/\S*|taluva\.server\.\S*", text) == []


def test_the_readme_leads_to_every_page_of_the_docs() -> None:
    """'Where to go next' links each page of docs/ once, in an item of its own."""
    items = [
        line for line in readme_section("Where to go next").splitlines() if line.startswith("- ")
    ]
    first_links = [LINK.findall(item)[0] for item in items if LINK.findall(item)]
    assert len(first_links) == len(items)
    assert sorted(first_links) == [f"docs/{page.name}" for page in DOCS]


def test_the_readme_picture_is_drawn_from_a_committed_game() -> None:
    """Each picture the README shows from docs/images/ is a position in the middle of a game
    recorded beside it, drawn by the command docs/playing.md gives, at the size the renderer
    gives that position today (if not, run that command again)."""
    from taluva.render import svg_board

    pictures = PICTURE.findall(README.read_text(encoding="utf-8"))
    assert pictures
    playing = (REPO / "docs" / "playing.md").read_text(encoding="utf-8")
    made_by = {png: (record, int(ply)) for record, ply, png in PICTURE_COMMAND.findall(playing)}
    for picture in pictures:
        assert picture in made_by, f"docs/playing.md does not say how {picture} is drawn"
        record_path, ply = made_by[picture]
        record = json.loads((REPO / record_path).read_text(encoding="utf-8"))
        game = Game.from_record(record)
        assert game.to_record() == record, f"{record_path} is not a canonical record"
        assert 0 < ply < len(record["moves"]), f"{picture}: ply {ply} is not in mid-game"
        svg = svg_board(game, ply)
        size = re.search(r'<svg [^>]*width="([\d.]+)" height="([\d.]+)"', svg)
        assert size is not None
        png = (REPO / picture).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n", f"{picture} is not a PNG"
        width, height = struct.unpack(">II", png[16:24])
        assert abs(width - float(size[1])) <= 1 and abs(height - float(size[2])) <= 1, (
            f"{picture} is {width}x{height}, the position {size[1]}x{size[2]}: draw it again "
            f"with .venv/bin/taluva show {record_path} --ply {ply} --png {picture}"
        )
