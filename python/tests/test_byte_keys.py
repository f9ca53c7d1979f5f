"""Byte-string keys (NumPy ``S<n>``): ``sort``, ``argsort``, ``lexsort`` beside numeric keys and
``sort_records`` by an ``S<n>`` field, each equal to NumPy's stable result (which orders ``S<n>``
as ``memcmp`` of the whole item), both orders, at edge sizes, with ties, shared prefixes,
embedded NUL and 0xff bytes; ``U<n>`` is a TypeError."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort

WIDTHS = [1, 3, 8, 16, 17, 32]
SIZES = [0, 1, 2, 127, 128, 129, 1009, 70001]
PATTERNS = ["random", "equal", "prefix", "few"]


def byte_keys(n: int, width: int, pattern: str, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed + 7 * width + n)
    rows = rng.integers(0, 256, size=(n, width), dtype=np.uint8)
    if pattern == "equal":
        rows[:] = rng.integers(0, 256, size=width, dtype=np.uint8)
    elif pattern == "prefix":
        rows[:, :-1] = 0x41
        rows[:, -1] = rows[:, -1] % 5
    elif pattern == "few":
        rows = np.array([0, 1, 0x7F, 0x80, 0xFF], dtype=np.uint8)[rows % 5]
    return np.ascontiguousarray(rows).view(f"S{width}").reshape(n)


def stable_descending(a: np.ndarray) -> np.ndarray:
    """NumPy's stable permutation of ``a`` from the largest key, equal keys in input order."""
    rev = np.argsort(a[::-1], kind="stable")[::-1]
    return len(a) - 1 - rev


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("pattern", PATTERNS)
def test_argsort_and_sort_equal_numpy(sorter, width, pattern):
    for n in SIZES:
        a = byte_keys(n, width, pattern)
        before = a.copy()
        p = sorter.argsort(a)
        assert p.dtype == np.int64
        np.testing.assert_array_equal(p, np.argsort(a, kind="stable"), err_msg=f"{n} S{width} {pattern}")
        np.testing.assert_array_equal(sorter.argsort(a, descending=True), stable_descending(a))
        assert a.tobytes() == before.tobytes(), "argsort wrote its keys"
        for descending in (False, True):
            b = a.copy()
            sorter.sort(b, descending=descending)
            want = np.sort(a, kind="stable")[::-1] if descending else np.sort(a, kind="stable")
            assert b.tobytes() == want.tobytes(), f"sort {n} S{width} {pattern} descending={descending}"


@pytest.mark.parametrize("pattern", PATTERNS)
def test_lexsort_mixes_byte_and_number_keys(sorter, pattern):
    for n in SIZES:
        names = byte_keys(n, 9, pattern)
        city = np.random.default_rng(n).integers(0, 3, n).astype(np.uint16)
        score = np.random.default_rng(n + 1).choice([0.5, np.nan, -1.0], n)
        for keys in ([names, city], [score, names], [city, names, score]):
            np.testing.assert_array_equal(sorter.lexsort(keys), np.lexsort(keys), err_msg=f"{n} {pattern}")


@pytest.mark.parametrize("width", [3, 16])
def test_sort_records_by_a_byte_field(sorter, width):
    row = np.dtype([("tag", "u1"), ("name", f"S{width}"), ("id", "u8")])
    for n in SIZES:
        a = np.zeros(n, dtype=row)
        a["name"] = byte_keys(n, width, "few")
        a["tag"] = np.arange(n) % 251
        a["id"] = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        for descending in (False, True):
            b = a.copy()
            sorter.sort_records(b, "name", descending=descending)
            perm = stable_descending(a["name"]) if descending else np.argsort(a["name"], kind="stable")
            assert b.tobytes() == a[perm].tobytes(), f"{n} rows by S{width} descending={descending}"


def test_unicode_strings_are_type_errors():
    for bad in (np.array(["pear", "fig"]), np.array(["a"], dtype="U1")):
        with pytest.raises(TypeError):
            gpusort.argsort(bad)
        with pytest.raises(TypeError):
            gpusort.sort(bad.copy())
        with pytest.raises(TypeError):
            gpusort.lexsort([bad])
    rows = np.zeros(3, dtype=[("name", "U4"), ("id", "u4")])
    with pytest.raises(TypeError):
        gpusort.sort_records(rows, "name")
    with pytest.raises(ValueError):
        gpusort.sort(byte_keys(6, 4, "random").reshape(2, 3))
