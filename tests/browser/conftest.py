"""Browser tests: a real ``taluva serve`` process and Debian's Chromium driven by Playwright.

Playwright's own browser download does not work on these machines, so the tests launch
``/usr/bin/chromium`` (installed by scripts/ci-system-deps.sh). Screenshots go to
``$TALUVA_SCREENSHOTS`` when it is set, so a person can look at them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from test_server_support import LiveServer

from .people import People

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="package")
def server_url() -> Iterator[str]:
    """A live server on loopback with a fresh SQLite database, for the browser tests."""
    with LiveServer("--hint-level", "1") as server:
        server.start()
        yield server.url


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright, shared by every browser test."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), "install Debian's chromium: scripts/ci-system-deps.sh"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def timeout_ms() -> float:
    """How long a page waits for anything; a test module may ask for longer with a fixture
    of this name of its own."""
    return 15000


@pytest.fixture
def people(browser: Any, timeout_ms: float) -> Iterator[People]:
    """Pages in browser contexts of their own, as separate people; a script error on any of
    them fails the test."""
    crowd = People(browser, timeout_ms)
    yield crowd
    crowd.close()
    assert crowd.errors == []


@pytest.fixture
def page(people: People) -> Any:
    """One person's page at desktop size (1280 by 820)."""
    return people.open()


@pytest.fixture
def screenshot() -> Any:
    """Save a page's screenshot as NAME.png in $TALUVA_SCREENSHOTS (if set)."""
    folder = os.environ.get("TALUVA_SCREENSHOTS")

    def take(page: Any, name: str) -> None:
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(folder) / f"{name}.png"))

    return take
