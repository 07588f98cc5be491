"""Reading NumPy's ``.npz`` files without NumPy (``taluva.ai.npz``): what the model files hold
reads back as NumPy wrote it, and anything else is refused, naming the array."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from taluva.ai.npz import read_npy, read_npz


def npy(array: np.ndarray) -> bytes:
    """The bytes NumPy writes for one array."""
    out = io.BytesIO()
    np.save(out, array, allow_pickle=False)
    return out.getvalue()


def test_the_arrays_of_a_model_file_read_back_as_numpy_wrote_them(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    table = rng.normal(size=(5, 3)).astype(np.float32)
    wide = rng.normal(size=4)
    path = tmp_path / "m.npz"
    np.savez_compressed(
        path,
        format=np.array("taluva-learned-value/1"),
        names=np.array(["huts_left", "tiles_left"]),
        layers=np.array(2),
        table=table,
        wide=wide,
        counts=np.array([1, -2, 3], np.int32),
    )
    with path.open("rb") as handle:
        arrays = read_npz(handle)
    assert arrays["format"].shape == () and arrays["format"].items == ["taluva-learned-value/1"]
    assert arrays["names"].items == ["huts_left", "tiles_left"]
    assert arrays["layers"].items == [2]
    assert arrays["table"].shape == (5, 3)
    assert arrays["table"].rows() == table.astype(np.float64).tolist()
    assert arrays["wide"].floats() == wide.tolist()
    assert arrays["counts"].items == [1, -2, 3]


def test_a_version_2_header_is_read_too() -> None:
    out = io.BytesIO()
    np.lib.format.write_array(out, np.arange(6.0).reshape(2, 3), version=(2, 0))
    assert read_npy(out.getvalue()).rows() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"PK\x03\x04 not an array", r"w0: not a NumPy array"),
        (npy(np.array([1 + 2j])), r"w0: items of type '<c16' are not understood"),
        (npy(np.asfortranarray(np.ones((2, 3)))), r"w0: stored in Fortran order"),
        (npy(np.ones((2, 3)))[:-8], r"w0: 5 items for the shape \(2, 3\)"),
        (npy(np.ones(3))[:10] + b"{'descr': }" + b" " * 60, r"w0: its header cannot be read"),
    ],
)
def test_what_a_model_file_cannot_hold_is_refused_naming_the_array(
    data: bytes, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        read_npy(data, "w0")


def test_a_table_is_two_dimensional() -> None:
    with pytest.raises(ValueError, match=r"shape \(3,\) is not a table"):
        read_npy(npy(np.ones(3))).rows()
