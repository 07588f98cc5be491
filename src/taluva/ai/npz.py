"""Reading the arrays of a NumPy ``.npz`` file with the standard library alone, so that the
learned evaluation plays without NumPy installed (the model files are written by NumPy,
in training).

Only what a model file holds is understood: little-endian floats, integers and Unicode
strings, in C order; anything else is refused, naming the array.
"""

from __future__ import annotations

import ast
import sys
import zipfile
from array import array
from dataclasses import dataclass
from typing import IO, Final

MAGIC: Final = b"\x93NUMPY"
NUMBERS: Final = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q"}
"""The number types understood, by NumPy's name, as the ``array`` module's codes."""


@dataclass(frozen=True, slots=True)
class Stored:
    """One array of the file: its shape and its items in C order (numbers or strings)."""

    shape: tuple[int, ...]
    items: list[float] | list[int] | list[str]

    def rows(self) -> list[list[float]]:
        """A two-dimensional array as a list of rows of floats."""
        if len(self.shape) != 2:
            raise ValueError(f"an array of shape {self.shape} is not a table")
        width = self.shape[1]
        values = [float(v) for v in self.items]
        return [values[i : i + width] for i in range(0, len(values), width)]

    def floats(self) -> list[float]:
        """The items as floats, whatever the shape."""
        return [float(v) for v in self.items]


def read_npz(handle: IO[bytes]) -> dict[str, Stored]:
    """Every array of an ``.npz`` file by name; ``ValueError`` says which one and why when an
    array cannot be read."""
    arrays = {}
    with zipfile.ZipFile(handle) as archive:
        for entry in archive.namelist():
            name = entry.removesuffix(".npy")
            arrays[name] = read_npy(archive.read(entry), name)
    return arrays


def read_npy(data: bytes, name: str = "array") -> Stored:
    """One ``.npy`` array: the magic string, the format version, a header (a Python dict
    literal with ``descr``, ``fortran_order`` and ``shape``) and the raw items."""
    if not data.startswith(MAGIC) or len(data) < 10:
        raise ValueError(f"{name}: not a NumPy array")
    major = data[6]
    size_bytes = 2 if major == 1 else 4
    start = 8 + size_bytes
    header_size = int.from_bytes(data[8:start], "little")
    try:
        header = ast.literal_eval(data[start : start + header_size].decode("latin-1"))
        descr, fortran, shape = header["descr"], header["fortran_order"], tuple(header["shape"])
    except (ValueError, SyntaxError, KeyError, TypeError):
        raise ValueError(f"{name}: its header cannot be read") from None
    if fortran and len(shape) > 1:
        raise ValueError(f"{name}: stored in Fortran order")
    body = data[start + header_size :]
    count = 1
    for n in shape:
        count *= n
    if descr in NUMBERS:
        numbers = array(NUMBERS[descr])
        numbers.frombytes(body[: count * numbers.itemsize])
        if sys.byteorder == "big":
            numbers.byteswap()
        if len(numbers) != count:
            raise ValueError(f"{name}: {len(numbers)} items for the shape {shape}")
        return Stored(shape, numbers.tolist())
    if isinstance(descr, str) and descr.startswith("<U") and descr[2:].isdigit():
        width = int(descr[2:]) * 4
        if len(body) < count * width:
            raise ValueError(f"{name}: {len(body) // max(1, width)} items for the shape {shape}")
        texts = [
            body[i * width : (i + 1) * width].decode("utf-32-le").rstrip("\x00")
            for i in range(count)
        ]
        return Stored(shape, texts)
    raise ValueError(f"{name}: items of type {descr!r} are not understood")
