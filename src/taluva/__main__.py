"""``python -m taluva``: the same command line as the ``taluva`` script."""

from __future__ import annotations

import sys

from taluva.cli import main

if __name__ == "__main__":
    sys.exit(main())
