"""Every example in README.md and docs/*.md runs, and prints what the page shows.

How the pages write examples so that this file can run them:

- **Python** examples are doctests: `>>>` lines in a ```python block, with a blank line before
  the closing fence. Each docs/*.md page runs as one doctest (one test per page, named after
  it); README.md runs through pytest's ``--doctest-glob=README.md`` (pyproject.toml).
  ```python blocks without `>>>` are sketches and are not run.
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

Records shown in ```json blocks must be legal games written canonically, and links between
the pages must lead somewhere.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import shlex
import signal
import socket
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
FILE_MARK = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->$")
COMMAND_TIMEOUT = 60
SERVER_TIMEOUT = 30


@dataclass(frozen=True)
class Block:
    """A fenced block of a page: its language, the line of its first content line, its lines."""

    page: Path
    language: str
    line: int
    lines: tuple[str, ...]
    file_name: str | None

    @property
    def where(self) -> str:
        return f"{relative(self.page)}:{self.line}"


def fenced_blocks(page: Path) -> list[Block]:
    """Every fenced block of a page, with the file name a ``<!-- file: NAME -->`` gives it."""
    blocks = []
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        text = lines[index]
        if text.startswith("```"):
            language = text[3:].strip().lower()
            mark = FILE_MARK.match(lines[index - 1].strip()) if index else None
            end = index + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            body = tuple(lines[index + 1 : end])
            blocks.append(Block(page, language, index + 2, body, mark and mark.group(1)))
            index = end
        index += 1
    return blocks


def relative(page: Path) -> str:
    return str(page.relative_to(REPO))


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


def test_the_rules_and_the_notation_hold_doctests() -> None:
    assert [page.name for page in DOCTEST_PAGES if page.name in ("notation.md", "rules.md")] == [
        "notation.md",
        "rules.md",
    ]


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
        if block.language in SHELL_LANGUAGES
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


def test_the_readme_and_the_notation_show_shell_examples() -> None:
    pages = {relative(block.page) for block in SHELL_BLOCKS}
    assert {"README.md", "docs/notation.md"} <= pages


def test_shell_output_is_compared_line_by_line_with_wildcards() -> None:
    assert output_matches(("total: 864", "perft 3: ... s"), "total: 864  \nperft 3: 0.1 s\n\n")
    assert not output_matches(("total: 864",), "total: 865\n")
    assert not output_matches(("total: 864",), "total: 864\nmore\n")
    assert not output_matches((), "anything\n")


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
    code = {line for block in fenced_blocks(page) for line in block.lines}
    for line in text.splitlines():
        if line.startswith("#") and line not in code:
            title = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
            found.add(slug)
    return found


def prose(page: Path) -> str:
    """A page without its fenced blocks, where links are not links."""
    skip = {line for block in fenced_blocks(page) for line in block.lines}
    return "\n".join(line for line in page.read_text(encoding="utf-8").splitlines()
                     if line not in skip)  # fmt: skip


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
