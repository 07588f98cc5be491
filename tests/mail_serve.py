"""The whole server app in a process of its own with the settings the mail tests give it:
``python tests/mail_serve.py PORT``, the settings as JSON in ``TALUVA_TEST_SETTINGS`` (so the
SMTP password of a test, like a host's, never shows in the command line)."""

from __future__ import annotations

import json
import os
import sys

import uvicorn

from taluva.server import Settings, create_app

if __name__ == "__main__":
    settings = Settings(**json.loads(os.environ["TALUVA_TEST_SETTINGS"]))
    uvicorn.run(create_app(settings), host="127.0.0.1", port=int(sys.argv[1]), log_level="info")
