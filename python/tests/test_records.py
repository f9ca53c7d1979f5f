"""sort_records of NumPy structured arrays: rows in the exact stable order of one field (conftest's
permutation, both orders, every key dtype, aligned and packed layouts, edge sizes and patterns),
every other field still with its row; then every refused argument, with the array untouched."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort
from conftest import ALL_KEY_DTYPES, LARGE, PATTERNS, expected_perm, make_keys

# Edge sizes around powers of two and the CPU backend's serial cut-offs, fewer than conftest's
# (each size runs three layouts of ten key types).
SIZES = [0, 1, 2, 3, 17, 255, 256, 257, 4099, 65537]
ALL_KEYS = ALL_KEY_DTYPES


def layouts(key_dtype):
    """Row dtypes holding a ``key`` field of ``key_dtype``: aligned (with padding), packed with the
    key at an odd offset, and a row of whole 4-byte words (the shape the GPU path moves)."""
    k = np.dtype(key_dtype)
    return {
        "aligned": np.dtype([("tag", "u1"), ("key", k), ("id", "u8")], align=True),
        "packed": np.dtype([("tag", "u1"), ("key", k), ("id", "u8"), ("pad", "u1")]),
        "words": np.dtype([("id", "u8"), ("key", k), ("rest", "u1", (16 - k.itemsize,)), ("tail", "u4")]),
    }


def table(row, keys: np.ndarray) -> np.ndarray:
    a = np.zeros(len(keys), dtype=row)
    a["key"] = keys
    a["id"] = np.arange(len(keys), dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    if "tag" in row.fields:
        a["tag"] = np.arange(len(keys)) % 251
    return a


def check(a: np.ndarray, before: np.ndarray, descending: bool, where: str) -> None:
    want = before[expected_perm(before["key"], descending)]
    # Field by field: NumPy's copies need not keep the padding bytes of aligned rows.
    for f in a.dtype.names:
        assert a[f].tobytes() == want[f].tobytes(), f"field {f}: rows out of order or changed: {where}"


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", ALL_KEYS, ids=lambda d: np.dtype(d).name)
def test_rows_in_the_stable_order_of_their_key(sorter, dtype, descending):
    for name, row in layouts(dtype).items():
        for n in SIZES:
            for pattern in PATTERNS:
                keys = make_keys(dtype, n, pattern, seed=11) if np.dtype(dtype).itemsize >= 4 else _small(dtype, n, pattern)
                a = table(row, keys)
                before = a.copy()
                sorter.sort_records(a, "key", descending=descending)
                check(a, before, descending, f"{name}, n={n}, {pattern}")


def _small(dtype, n: int, pattern: str) -> np.ndarray:
    """Keys of a 1- or 2-byte dtype: the low bits of 32-bit keys of the pattern (few distinct
    values, so stability decides most of the order)."""
    wide = make_keys(np.int32, n, pattern if pattern != "specials" else "random", seed=11)
    return wide.astype(dtype)


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_large_tables(sorter, descending):
    for dtype in (np.float64, np.int16, np.uint32):
        row = layouts(dtype)["words"]
        keys = make_keys(dtype, LARGE, "random", seed=12) if dtype != np.int16 else _small(dtype, LARGE, "random")
        a = table(row, keys)
        before = a.copy()
        sorter.sort_records(a, "key", descending=descending)
        check(a, before, descending, f"{np.dtype(dtype).name}, n={LARGE}")


def test_module_function_and_other_fields_as_keys():
    a = np.array([(0, 2.5, 7), (1, -1.0, 3), (2, 2.5, 5)], dtype=[("id", "u4"), ("score", "f8"), ("rank", "i2")])
    gpusort.sort_records(a, "score")
    assert a["id"].tolist() == [1, 0, 2]
    gpusort.sort_records(a, "rank", descending=True)
    assert a["id"].tolist() == [0, 2, 1]


def noise(dtype, n: int) -> np.ndarray:
    """``n`` rows of ``dtype`` made of random bytes (so a write to a refused array shows)."""
    return np.frombuffer(np.random.default_rng(n).bytes(n * np.dtype(dtype).itemsize), dtype=dtype).copy()


TWO_U4 = [("key", "u4"), ("b", "u4")]


@pytest.mark.parametrize(
    "make, key, error",
    [
        (lambda: noise(np.uint32, 5), "key", TypeError),  # no fields
        (lambda: [(1, 2)], "key", TypeError),  # not an array
        (lambda: np.zeros(4, dtype=[("key", "u4"), ("o", "O")]), "key", TypeError),  # Python objects
        (lambda: noise([("key", ">u4"), ("b", "u4")], 4), "key", TypeError),  # byte order
        (lambda: noise([("key", "?"), ("b", "u4")], 4), "key", TypeError),  # bool
        (lambda: noise([("key", "c8"), ("b", "u4")], 4), "key", TypeError),  # complex64
        (lambda: noise([("key", "u4", (2,)), ("b", "u4")], 4), "key", TypeError),  # sub-array
        (lambda: noise([("a", "u4"), ("b", "u4")], 4), "key", ValueError),  # unknown field
        (lambda: noise(TWO_U4, 4), 3, TypeError),  # key not a str
        (lambda: noise(TWO_U4, 4).reshape(2, 2), "key", ValueError),  # 2-D
        (lambda: noise(TWO_U4, 8)[::2], "key", ValueError),  # strided
    ],
)
def test_refused_arguments(sorter, make, key, error):
    a = make()
    before = a.copy() if isinstance(a, np.ndarray) else list(a)
    with pytest.raises(error):
        sorter.sort_records(a, key)
    if isinstance(a, np.ndarray) and not a.dtype.hasobject:
        assert a.tobytes() == before.tobytes()


def test_read_only_array_is_refused_and_untouched(sorter):
    a = np.zeros(5, dtype=TWO_U4)
    a["key"] = [5, 4, 3, 2, 1]
    a.flags.writeable = False
    with pytest.raises(ValueError):
        sorter.sort_records(a, "key")
    assert a["key"].tolist() == [5, 4, 3, 2, 1]


def test_stream_is_for_device_arrays(sorter):
    a = np.zeros(3, dtype=[("key", "u4")])
    with pytest.raises(ValueError):
        sorter.sort_records(a, "key", stream=0)
