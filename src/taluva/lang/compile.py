"""``python -m taluva.lang.compile``: compile the shipped catalogs (``.po`` to ``.mo``), as
``make`` and the container image's build do after installing the package."""

from __future__ import annotations

from taluva.lang.catalogs import compile_all

if __name__ == "__main__":
    print(f"{len(compile_all())} catalogs compiled")
