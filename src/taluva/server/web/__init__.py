"""The browser client: the static files (HTML, CSS, JavaScript modules) the server hands out."""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).with_name("static")
"""The folder of the client's files, served under ``/static``."""
