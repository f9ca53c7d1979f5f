"""NumPy arrays: sort, sort_pairs and argsort against NumPy's stable sorts, at edge sizes and on
every input pattern, in both orders, on each sorter (the GPU one where there is a GPU); floats in
NumPy's order (NaN last, -0.0 == +0.0) and, with float_order="total", in IEEE total order."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort
from conftest import (
    KEY_DTYPES,
    LARGE,
    PATTERNS,
    SIZES,
    VALUE_DTYPES,
    VALUE_DTYPES_64,
    expected_perm,
    make_keys,
    numpy_perm,
    values_for,
)


def bits(a: np.ndarray) -> np.ndarray:
    """Compare floats bit for bit: NaN == NaN, and -0.0 != +0.0."""
    return a.view(np.uint32) if a.dtype == np.float32 else a.view(np.uint64) if a.dtype == np.float64 else a


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_matches_the_reference(sorter, dtype, pattern, descending):
    for n in SIZES + [LARGE]:
        keys = make_keys(dtype, n, pattern)
        want = keys[numpy_perm(keys, descending)]
        got = keys.copy()
        sorter.sort(got, descending=descending)
        np.testing.assert_array_equal(bits(got), bits(want), err_msg=f"n={n}")
        got = keys.copy()
        sorter.sort(got, descending=descending, float_order="total")
        np.testing.assert_array_equal(bits(got), bits(keys[expected_perm(keys, descending)]), err_msg=f"total, n={n}")


@pytest.mark.parametrize("pattern", ["random", "few", "reverse"])
@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint64], ids=lambda d: np.dtype(d).name)
def test_integer_sort_equals_numpy_sort(dtype, pattern):
    keys = make_keys(dtype, 300_007, pattern, seed=3)
    got = keys.copy()
    gpusort.sort(got)
    np.testing.assert_array_equal(got, np.sort(keys, kind="stable"))
    gpusort.sort(got, descending=True)
    np.testing.assert_array_equal(got, np.sort(keys)[::-1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_floats_sort_as_numpy_sorts_them(dtype):
    # NumPy puts every NaN last (either sign, any payload) and keeps -0.0 == +0.0 in input order:
    # bit for bit what np.sort(kind="stable") returns.
    rng = np.random.default_rng(5)
    keys = rng.standard_normal(200_003).astype(dtype)
    for special in (np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0):
        keys[rng.integers(0, keys.size, 1000)] = special
    bits(keys)[rng.integers(0, keys.size, 100)] |= bits(np.array([np.inf], dtype=dtype))[0] | 5  # NaN payloads
    got = keys.copy()
    gpusort.sort(got)
    np.testing.assert_array_equal(bits(got), bits(np.sort(keys, kind="stable")))
    np.testing.assert_array_equal(gpusort.argsort(keys), np.argsort(keys, kind="stable"))


def test_numpy_order_of_float_specials_in_both_orders():
    keys = np.array([np.nan, 1.0, -0.0, -np.nan, 0.0, -np.inf, np.inf, -1.0, -0.0], dtype=np.float32)
    np.testing.assert_array_equal(gpusort.argsort(keys), [5, 7, 2, 4, 8, 1, 6, 0, 3])
    np.testing.assert_array_equal(gpusort.argsort(keys, descending=True), [6, 1, 2, 4, 8, 7, 5, 0, 3])
    got = keys.copy()
    gpusort.sort(got, descending=True)
    np.testing.assert_array_equal(bits(got), bits(keys[[6, 1, 2, 4, 8, 7, 5, 0, 3]]), "NaN last, zeros in input order")
    for floats, asc, desc in [
        ("nan_first", [0, 3, 5, 7, 2, 4, 8, 1, 6], [0, 3, 6, 1, 2, 4, 8, 7, 5]),
        ("nan_largest", [5, 7, 2, 4, 8, 1, 6, 0, 3], [0, 3, 6, 1, 2, 4, 8, 7, 5]),
    ]:
        np.testing.assert_array_equal(gpusort.argsort(keys, float_order=floats), asc, err_msg=floats)
        np.testing.assert_array_equal(gpusort.argsort(keys, descending=True, float_order=floats), desc, err_msg=floats)
    with pytest.raises(ValueError, match="float_order"):
        gpusort.argsort(keys, float_order="numpy")


def test_total_order_of_float_specials():
    keys = np.array([np.nan, 1.0, -0.0, -np.nan, 0.0, -np.inf, np.inf, -1.0], dtype=np.float32)
    gpusort.sort(keys, float_order="total")
    assert np.signbit(keys[0]) and np.isnan(keys[0]), "-NaN first"
    np.testing.assert_array_equal(keys[1:7], [-np.inf, -1.0, -0.0, 0.0, 1.0, np.inf])
    assert np.signbit(keys[3]) and not np.signbit(keys[4]), "-0.0 before +0.0"
    assert np.isnan(keys[7]) and not np.signbit(keys[7]), "+NaN last"


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_pairs_is_stable_and_keeps_values_on_their_keys(sorter, dtype, pattern, descending):
    for n in SIZES + [LARGE]:
        keys = make_keys(dtype, n, pattern, seed=1)
        values = values_for(n)
        perm = expected_perm(keys, descending)
        k, v = keys.copy(), values.copy()
        sorter.sort_pairs(k, v, descending=descending)
        np.testing.assert_array_equal(bits(k), bits(keys[perm]), err_msg=f"keys, n={n}")
        # Values are distinct indices: equal keys in input order is the exact permutation.
        np.testing.assert_array_equal(v, values[perm], err_msg=f"values, n={n}")


@pytest.mark.parametrize("value_dtype", VALUE_DTYPES, ids=lambda d: np.dtype(d).name)
def test_values_of_every_32_bit_dtype_move_bit_for_bit(value_dtype):
    keys = make_keys(np.int32, 70_001, "few", seed=2)
    values = values_for(keys.size, value_dtype)  # float32 payloads include NaN bit patterns
    perm = expected_perm(keys)
    k, v = keys.copy(), values.copy()
    gpusort.sort_pairs(k, v)
    np.testing.assert_array_equal(v.view(np.uint32), values[perm].view(np.uint32))


# 0, 1, 2, 2^k - 1, 2^k, 2^k + 1 around the small-sort cut and a radix tile, and a prime.
SIZES_64 = [0, 1, 2, 3, 255, 256, 257, 65535, 65536, 65537, 100003]


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("pattern", ["random", "equal", "few", "sorted", "reverse", "specials"])
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("value_dtype", VALUE_DTYPES_64, ids=lambda d: np.dtype(d).name)
def test_sort_pairs_with_64_bit_values(sorter, value_dtype, dtype, pattern, descending):
    """uint64/int64/float64 values: every value still beside its key with all 64 bits, equal keys
    in input order (NumPy's stable argsort is the exact reference)."""
    for n in SIZES_64:
        keys = make_keys(dtype, n, pattern, seed=5)
        values = values_for(n, value_dtype)
        perm = expected_perm(keys, descending)
        k, v = keys.copy(), values.copy()
        sorter.sort_pairs(k, v, descending=descending)
        assert v.dtype == value_dtype
        np.testing.assert_array_equal(bits(k), bits(keys[perm]), err_msg=f"keys, n={n}")
        np.testing.assert_array_equal(v.view(np.uint64), values[perm].view(np.uint64), err_msg=f"values, n={n}")


def test_sort_pairs_with_uint64_row_ids_past_2_32():
    keys = make_keys(np.float32, LARGE, "few", seed=6)
    rows = np.arange(LARGE, dtype=np.uint64) + np.uint64(1 << 40)
    k, v = keys.copy(), rows.copy()
    gpusort.sort_pairs(k, v, descending=True)
    np.testing.assert_array_equal(v, rows[expected_perm(keys, True)])


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_argsort_equals_numpy_stable_argsort(sorter, dtype, pattern, descending):
    for n in SIZES + [LARGE]:
        keys = make_keys(dtype, n, pattern, seed=4)
        before = keys.copy()
        got = sorter.argsort(keys, descending=descending)
        assert got.dtype == np.int64 and got.shape == (n,)
        # numpy_perm checks itself against np.argsort(kind="stable"), and descending against the
        # reversed stable argsort pandas uses, where those apply.
        np.testing.assert_array_equal(got, numpy_perm(keys, descending), err_msg=f"n={n}")
        total = sorter.argsort(keys, descending=descending, float_order="total")
        np.testing.assert_array_equal(total, expected_perm(keys, descending), err_msg=f"total, n={n}")
        np.testing.assert_array_equal(bits(keys), bits(before), err_msg="argsort changed its input")


def test_descending_argsort_keeps_ties_in_input_order():
    keys = np.array([2, 5, 2, 5, 1, 2], dtype=np.int32)
    np.testing.assert_array_equal(gpusort.argsort(keys, descending=True), [1, 3, 0, 2, 5, 4])
    f = np.array([0.0, np.nan, -0.0, -np.nan, 1.0], dtype=np.float32)
    # NumPy's order, largest first: 1.0, the zeros in input order, the NaNs last in input order.
    np.testing.assert_array_equal(gpusort.Sorter("cpu").argsort(f, descending=True), [4, 0, 2, 1, 3])
    # Total order, largest first: +NaN, 1.0, +0.0, -0.0, -NaN.
    np.testing.assert_array_equal(gpusort.Sorter("cpu").argsort(f, descending=True, float_order="total"), [1, 4, 0, 2, 3])


def test_argsort_reads_read_only_and_strided_keys():
    base = make_keys(np.uint32, 20_000, "few", seed=6)
    strided = base[::3]
    np.testing.assert_array_equal(gpusort.argsort(strided), np.argsort(strided, kind="stable"))
    ro = base.copy()
    ro.flags.writeable = False
    np.testing.assert_array_equal(gpusort.argsort(ro), np.argsort(ro, kind="stable"))


@pytest.mark.parametrize("algorithm", ["bitonic", "odd_even_merge"])
@pytest.mark.parametrize("stable", [True, False])
def test_argsort_on_a_network_sorter_is_the_stable_argsort(algorithm, stable):
    # Host argsort is the library's stable argsort whatever the sorter's algorithm; with
    # stable=False a CPU sorter set to a network used to raise UnsupportedError.
    keys = make_keys(np.int64, 10_007, "few", seed=8)
    for descending in (False, True):
        got = gpusort.Sorter("cpu", algorithm=algorithm).argsort(keys, stable=stable, descending=descending)
        np.testing.assert_array_equal(got, expected_perm(keys, descending))


def test_argsort_returns_a_fresh_int64_array():
    keys = make_keys(np.float64, 3001, "random", seed=9)
    before = keys.copy()
    got = gpusort.argsort(keys)
    assert got.dtype == np.int64 and got.flags.c_contiguous and got.flags.writeable and got.flags.owndata
    np.testing.assert_array_equal(np.sort(got), np.arange(keys.size))
    got[:] = -1  # its own memory: writing it leaves the keys alone
    np.testing.assert_array_equal(keys, before)


def test_unstable_argsort_is_still_a_sorting_permutation():
    keys = make_keys(np.float32, 50_000, "random", seed=7)
    perm = gpusort.argsort(keys, stable=False)
    assert sorted(perm.tolist()) == list(range(keys.size))
    np.testing.assert_array_equal(keys[perm], keys[expected_perm(keys)])


def test_sorts_views_in_place():
    base = np.arange(100, dtype=np.uint32)[::-1].copy()
    gpusort.sort(base[10:60])  # a contiguous slice: only it changes
    np.testing.assert_array_equal(base[10:60], np.arange(40, 90, dtype=np.uint32))
    np.testing.assert_array_equal(base[:10], np.arange(99, 89, -1, dtype=np.uint32))
    np.testing.assert_array_equal(base[60:], np.arange(39, -1, -1, dtype=np.uint32))
