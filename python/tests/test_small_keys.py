"""uint16, int16, uint8 and int8 keys in NumPy arrays: sort, argsort, sort_pairs,
sort_segments and top_k against NumPy's stable sorts, at edge sizes (around one 8-bit and one
16-bit digit, the serial cut-offs, a prime) and on every pattern, in both orders, on each sorter
(the GPU one where there is a GPU); CuPy arrays of them sort on the device (GPU only)."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort
from conftest import SMALL_KEY_DTYPES, has_cuda

SMALL_DTYPES = SMALL_KEY_DTYPES
SMALL_PATTERNS = ["random", "equal", "zero_max", "min_max", "sorted", "reverse"]
SMALL_SIZES = [0, 1, 2, 255, 256, 257, 65535, 65536, 65537, 100003]


def small_keys(dtype, n: int, pattern: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng([seed, n, SMALL_PATTERNS.index(pattern)])
    info = np.iinfo(dtype)
    if pattern == "random":
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if pattern == "equal":
        return np.full(n, 42, dtype=dtype)
    if pattern == "zero_max":
        return np.array([0, info.max], dtype=dtype)[rng.integers(0, 2, n)]
    if pattern == "min_max":
        return np.array([info.min, 0, info.max], dtype=dtype)[rng.integers(0, 3, n)]
    if pattern == "sorted":
        return np.sort(small_keys(dtype, n, "random", seed))
    if pattern == "reverse":
        return np.sort(small_keys(dtype, n, "random", seed))[::-1].copy()
    raise ValueError(pattern)


def stable_perm(keys: np.ndarray, descending: bool) -> np.ndarray:
    """The stable permutation: descending keeps equal keys in input order too (not reversed)."""
    wide = keys.astype(np.int64)
    return np.argsort(-wide if descending else wide, kind="stable")


dtypes = pytest.mark.parametrize("dtype", SMALL_DTYPES, ids=lambda d: np.dtype(d).name)
patterns = pytest.mark.parametrize("pattern", SMALL_PATTERNS)
orders = pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])


@orders
@patterns
@dtypes
def test_sort_argsort_and_pairs_match_numpy(sorter, dtype, pattern, descending):
    for n in SMALL_SIZES:
        keys = small_keys(dtype, n, pattern)
        perm = stable_perm(keys, descending)
        want = keys[perm]
        if not descending:
            np.testing.assert_array_equal(want, np.sort(keys, kind="stable"))
        got = keys.copy()
        sorter.sort(got, descending=descending)
        np.testing.assert_array_equal(got, want, err_msg=f"sort n={n}")
        before = keys.copy()
        idx = sorter.argsort(keys, descending=descending)
        np.testing.assert_array_equal(keys, before, err_msg="argsort leaves the keys alone")
        np.testing.assert_array_equal(idx, perm, err_msg=f"argsort n={n}")
        k, v = keys.copy(), np.arange(n, dtype=np.uint32)
        sorter.sort_pairs(k, v, descending=descending)
        np.testing.assert_array_equal(k, want, err_msg=f"sort_pairs keys n={n}")
        np.testing.assert_array_equal(v, perm.astype(np.uint32), err_msg=f"sort_pairs values n={n}")


@orders
@patterns
@dtypes
def test_top_k_is_the_head_of_the_stable_sort(sorter, dtype, pattern, descending):
    for n in SMALL_SIZES:
        keys = small_keys(dtype, n, pattern, seed=1)
        perm = stable_perm(keys, descending)
        for k in sorted({0, min(1, n), n // 3, n}):
            values, indices = sorter.top_k(keys, k, descending=descending)
            assert values.dtype == keys.dtype
            np.testing.assert_array_equal(indices, perm[:k], err_msg=f"n={n} k={k}")
            np.testing.assert_array_equal(values, keys[perm[:k]], err_msg=f"n={n} k={k}")


@orders
@dtypes
def test_segments_sort_each_run_on_its_own(sorter, dtype, descending):
    for n in SMALL_SIZES:
        keys = small_keys(dtype, n, "random", seed=2)
        rng = np.random.default_rng(n)
        cuts = np.sort(rng.integers(0, n + 1, 7)) if n else np.zeros(0, dtype=np.int64)
        offsets = np.concatenate([[0], cuts, [n]]).astype(np.uint64)
        want_k, want_v = keys.copy(), np.arange(n, dtype=np.uint32)
        for a, b in zip(offsets[:-1], offsets[1:]):
            p = stable_perm(keys[a:b], descending)
            want_k[a:b] = keys[a:b][p]
            want_v[a:b] = (p + a).astype(np.uint32)
        k, v = keys.copy(), np.arange(n, dtype=np.uint32)
        sorter.sort_segments(k, offsets, v, descending=descending)
        np.testing.assert_array_equal(k, want_k, err_msg=f"n={n}")
        np.testing.assert_array_equal(v, want_v, err_msg=f"n={n}")
        k = keys.copy()
        sorter.sort_segments(k, offsets, descending=descending)
        np.testing.assert_array_equal(k, want_k, err_msg=f"keys only n={n}")


@dtypes
def test_two_dimensional_arrays_sort_by_row(dtype):
    keys = small_keys(dtype, 3 * 1001, "random", seed=3).reshape(3, 1001)
    got = keys.copy()
    gpusort.sort(got)
    np.testing.assert_array_equal(got, np.sort(keys, axis=1))


@pytest.mark.skipif(not has_cuda(), reason="no CUDA device")
@orders
@dtypes
def test_cuda_arrays_of_small_dtypes_sort_on_the_device(dtype, descending):
    cupy = pytest.importorskip("cupy")
    for n in SMALL_SIZES:
        keys = small_keys(dtype, n, "random", seed=4)
        perm = stable_perm(keys, descending)
        a = cupy.asarray(keys)
        gpusort.sort(a, descending=descending)
        np.testing.assert_array_equal(cupy.asnumpy(a), keys[perm], err_msg=f"sort n={n}")
        idx = gpusort.argsort(cupy.asarray(keys), descending=descending)
        np.testing.assert_array_equal(cupy.asnumpy(idx), perm, err_msg=f"argsort n={n}")
