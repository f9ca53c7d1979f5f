"""top_k of NumPy arrays: exactly the first k of the stable sort, against the exact stable
permutation of conftest (every dtype, pattern and edge size, k from 0 to n, both orders, each
sorter) and against NumPy's own stable argsort; NaN and -0.0 in total order; then every refused
argument, with the array left as it was."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort
from conftest import KEY_DTYPES, LARGE, PATTERNS, expected_perm, make_keys
from test_bad_input import BAD_KEYS, FakeCudaArray, check_refused, read_only, unsorted
from test_host import bits

# 0, 1, 2, primes, a few thousand, and past 4096 * 16 for the selection's large-k paths.
TOPK_SIZES = [0, 1, 2, 3, 7, 97, 1009, 4099, 65537]
FLOATS = (np.float32, np.float64)


def ks_for(n: int) -> list:
    """k = 0, 1, 2, n/2, n - 1, n, and 4096, 4097 (where the selection changes method), up to n."""
    return sorted({k for k in (0, 1, 2, n // 2, n - 1, n, 4096, 4097) if 0 <= k <= n})


def numpy_first_k(a: np.ndarray, k: int, descending: bool) -> np.ndarray:
    """The first k positions of NumPy's stable sort of ``a``; descending as the ascending sort of
    the reversed array, reversed (equal keys then keep increasing positions)."""
    if not descending:
        return np.argsort(a, kind="stable")[:k]
    n = len(a)
    return (n - 1 - np.argsort(a[::-1], kind="stable"))[::-1][:k]


def check_top(a: np.ndarray, got, perm: np.ndarray, k: int, where: str) -> None:
    values, indices = got
    assert isinstance(values, np.ndarray) and isinstance(indices, np.ndarray), where
    assert values.dtype == a.dtype and indices.dtype == np.int64, where
    assert values.shape == (k,) and indices.shape == (k,), where
    np.testing.assert_array_equal(indices, perm[:k], err_msg=f"indices, {where}")
    np.testing.assert_array_equal(bits(values), bits(a[perm[:k]]), err_msg=f"values, {where}")


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_top_k_is_the_first_k_of_the_stable_sort(sorter, dtype, descending):
    for n in TOPK_SIZES:
        for pattern in PATTERNS:
            a = make_keys(dtype, n, pattern, seed=5)
            before = a.tobytes()
            perm = expected_perm(a, descending)
            for k in ks_for(n):
                got = sorter.top_k(a, k, descending=descending)
                check_top(a, got, perm, k, f"n={n}, k={k}, {pattern}")
            assert a.tobytes() == before, f"the keys changed (n={n}, {pattern})"


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("pattern", ["random", "equal", "extremes", "sorted", "reverse", "few"])
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_top_k_equals_numpy(dtype, pattern, descending):
    # No NaN and no -0.0 here, where NumPy's order and IEEE total order differ.
    a = make_keys(dtype, 100_003, pattern, seed=9)
    for k in (1, 10, 1000, 4096, 50_000, 100_003):
        want = numpy_first_k(a, k, descending)
        values, indices = gpusort.top_k(a, k, descending)
        np.testing.assert_array_equal(indices, want, err_msg=f"k={k}")
        np.testing.assert_array_equal(values, a[want], err_msg=f"k={k}")
        if not descending:
            np.testing.assert_array_equal(values, np.sort(a, kind="stable")[:k])


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_nan_and_negative_zero_in_total_order(dtype):
    a = np.array([0.5, np.nan, -0.0, 0.0, -np.inf, 0.5, -np.nan, np.inf], dtype=dtype)
    values, indices = gpusort.top_k(a, 5)
    assert indices.tolist() == [6, 4, 2, 3, 0], "-NaN smallest, then -inf, and -0.0 before 0.0"
    np.testing.assert_array_equal(bits(values), bits(a[[6, 4, 2, 3, 0]]))
    values, indices = gpusort.top_k(a, 4, descending=True)
    assert indices.tolist() == [1, 7, 0, 5], "NaN largest, then inf, then the two 0.5 in order"
    np.testing.assert_array_equal(bits(values), bits(a[[1, 7, 0, 5]]))
    assert gpusort.top_k(a, 2, descending=True)[1].tolist() == [1, 7]
    # NaNs with payloads, either sign, come back bit for bit.
    nan_bits = [0x7FC0_0005, 0xFFC0_0007] if dtype == np.float32 else [0x7FF8_0000_0000_0005, 0xFFF8_0000_0000_0007]
    odd = np.array([1.0, 0.0, 2.0], dtype=dtype)
    bits(odd)[[0, 2]] = nan_bits
    values, indices = gpusort.top_k(odd, 3)
    assert indices.tolist() == [2, 1, 0] and bits(values).tolist() == [nan_bits[1], 0, nan_bits[0]]


@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_k_zero_and_k_n(sorter, dtype):
    a = make_keys(dtype, 4099, "few", seed=1)
    values, indices = sorter.top_k(a, 0)
    assert values.shape == (0,) and values.dtype == a.dtype and indices.shape == (0,) and indices.dtype == np.int64
    for descending in (False, True):
        values, indices = sorter.top_k(a, len(a), descending)
        np.testing.assert_array_equal(indices, sorter.argsort(a, descending=descending))
        np.testing.assert_array_equal(bits(values), bits(a[indices]))
    empty = np.zeros(0, dtype=dtype)
    values, indices = sorter.top_k(empty, 0, descending=True)
    assert values.shape == indices.shape == (0,)


def test_inputs_only_read_and_any_integer_k():
    a = make_keys(np.int64, 10_000, "few", seed=3)
    perm = expected_perm(a, True)
    for keys in (read_only(a.copy()), a):
        check_top(a, gpusort.top_k(keys, 17, True), perm, 17, "read-only" if keys is not a else "writable")
    strided = make_keys(np.float32, 20_000, "random", seed=4)[::2]
    check_top(strided, gpusort.top_k(strided, 100), expected_perm(strided), 100, "strided view")
    reverse = make_keys(np.uint32, 5000, "few", seed=4)[::-1]
    check_top(reverse, gpusort.top_k(reverse, 2500, True), expected_perm(reverse, True), 2500, "reversed view")
    for k in (np.int64(5), np.uint8(5), 5):
        check_top(a, gpusort.top_k(a, k), expected_perm(a), 5, f"k of {type(k).__name__}")
    values, indices = gpusort.top_k(a, 3)
    values[0], indices[0] = 7, 7  # results are the caller's own arrays
    assert values.flags.writeable and indices.flags.writeable and values.flags.c_contiguous


def test_large_input_and_every_sorter_algorithm():
    a = make_keys(np.uint32, LARGE, "random", seed=6)
    perm = expected_perm(a, True)
    for k in (1, 100, 4097, 70_000):
        check_top(a, gpusort.top_k(a, k, descending=True), perm, k, f"n={LARGE}, k={k}")
    # Stable whatever the sorter's algorithm: a sorting network sorter still settles ties first.
    few = make_keys(np.float64, 5000, "few", seed=6)
    for algorithm in ("auto", "radix", "bitonic", "odd_even_merge"):
        s = gpusort.Sorter("auto", algorithm=algorithm)
        check_top(few, s.top_k(few, 300), expected_perm(few), 300, f"algorithm {algorithm}")


# ---- refused arguments: the promised exception, the array untouched ----

BAD_TOPK = {name: case for name, case in BAD_KEYS.items() if "strided" not in name and "read-only" not in name
            and "reversed" not in name}


@pytest.mark.parametrize("case", BAD_TOPK, ids=list(BAD_TOPK))
def test_bad_arrays_are_refused(sorter, case):
    a, exc, match = BAD_TOPK[case]
    check_refused(lambda: sorter.top_k(a, 1), exc, a, match=match)


BAD_K = {
    "n + 1": (1001, gpusort.InvalidArgumentError, "top 1001 of 1000 keys"),
    "2^64 - 1": (2**64 - 1, gpusort.InvalidArgumentError, "top 18446744073709551615 of 1000"),
    "2^64": (2**64, gpusort.InvalidArgumentError, "top 18446744073709551616 of 1000"),
    "negative": (-1, gpusort.InvalidArgumentError, "top -1 of 1000 keys"),
    "float": (3.0, TypeError, "k: an integer is required, not float"),
    "string": ("3", TypeError, "not str"),
    "None": (None, TypeError, "not NoneType"),
    "array": (np.array([3, 4]), TypeError, "k"),
}


@pytest.mark.parametrize("case", BAD_K, ids=list(BAD_K))
def test_k_out_of_range_is_refused(sorter, case):
    k, exc, match = BAD_K[case]
    for dtype in (np.uint32, np.float64):
        a = unsorted(dtype)
        check_refused(lambda: sorter.top_k(a, k), exc, a, match=match)
    assert issubclass(gpusort.InvalidArgumentError, ValueError)


def test_other_refusals():
    empty = np.zeros(0, dtype=np.int32)
    check_refused(lambda: gpusort.top_k(empty, 1), gpusort.InvalidArgumentError, empty, match="top 1 of 0 keys")
    check_refused(lambda: gpusort.top_k([3, 1, 2], 1), TypeError, match="numpy.ndarray")
    a = unsorted()
    check_refused(lambda: gpusort.top_k(a, 1, stream=0), ValueError, a, match="stream")
    # CUDA arrays of no library that could allocate the results (torch and cupy ones: test_device_topk.py).
    needs = "top_k of device arrays needs a torch.Tensor or a cupy.ndarray"
    check_refused(lambda: gpusort.top_k(FakeCudaArray(a), 1), TypeError, a, match=needs)
    check_refused(lambda: gpusort.Sorter("cpu").top_k(FakeCudaArray(a), 1), TypeError, a, match=needs)
    check_refused(lambda: gpusort.top_k(FakeCudaArray(a), 3.5), TypeError, a, match="k: an integer is required")
