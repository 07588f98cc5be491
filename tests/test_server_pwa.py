"""The installable app's files as the server hands them out: the service worker at ``/sw.js``
with the list of the client's files it keeps and a version that changes with any of them,
and the manifest with its media type and the page's colours."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_support import client_for, sqlite_url

from taluva.server import web
from taluva.server.http.pages import VERSION_HEADER, static_version, worker_script


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(sqlite_url(tmp_path)) as client:
        yield client


def build_of(script: str) -> dict[str, Any]:
    """The build line the server puts before the worker's text: its version and files."""
    first, _, _rest = script.partition("\n")
    found = re.fullmatch(r"const BUILD = (\{.*\});", first)
    assert found is not None, first
    build: dict[str, Any] = json.loads(found.group(1))
    return build


def test_the_service_worker_is_served_at_the_root_with_the_files_it_keeps(
    client: TestClient,
) -> None:
    answer = client.get("/sw.js")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["service-worker-allowed"] == "/"
    assert answer.headers["cache-control"] == "no-cache"
    build = build_of(answer.text)
    assert build["version"] == client.get("/").headers[VERSION_HEADER]
    files = set(build["files"])
    wanted = {
        "/static/index.html",
        "/static/offline.html",
        "/static/js/app.js",
        "/static/js/offline.js",
        "/static/style.css",
        "/static/manifest.webmanifest",
        "/static/icons/icon-192.png",
    }
    assert wanted <= files and "/static/sw.js" not in files
    # the worker installs only when every one of them loads
    assert [path for path in sorted(files) if client.get(path).status_code != 200] == []


def test_the_version_of_the_client_changes_when_a_file_of_it_changes(tmp_path: Path) -> None:
    folder = tmp_path / "static"
    shutil.copytree(web.STATIC, folder)
    before = worker_script(folder)
    assert worker_script(folder) == before
    module = folder / "js" / "app.js"
    module.write_text(module.read_text(encoding="utf-8") + "// a new release\n", encoding="utf-8")
    after = worker_script(folder)
    assert build_of(after)["version"] != build_of(before)["version"]
    assert build_of(after)["files"] == build_of(before)["files"]
    assert static_version(folder) == build_of(after)["version"]


def test_the_manifest_is_json_of_its_own_type_in_the_pages_colours(client: TestClient) -> None:
    answer = client.get("/static/manifest.webmanifest")
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    style = client.get("/static/style.css").text
    assert f"--bg: {manifest['background_color']};" in style
    assert f"background: {manifest['theme_color']};" in style
    for address in ("/", "/static/offline.html"):
        page = client.get(address).text
        assert f'<meta name="theme-color" content="{manifest["theme_color"]}">' in page
        assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page
    # the policy lets the page load its worker and manifest from the site itself
    assert "default-src 'self'" in answer.headers["content-security-policy"]
