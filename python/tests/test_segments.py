"""Segmented sorts: sort_segments of NumPy arrays and sort of N-D arrays row by row, against
NumPy (np.sort per segment with kind="stable", values by np.argsort(kind="stable")) and the exact
stable permutation of conftest, at edge sizes and cuts, in both orders, on each sorter; then
every refused argument, with the arrays left as they were."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort
from conftest import KEY_DTYPES, PATTERNS, VALUE_DTYPES, VALUE_DTYPES_64, library_rank, make_keys, values_for
from test_bad_input import FakeCudaArray, check_refused, read_only
from test_host import bits

# 0, 1, 2, 2^k - 1, 2^k, 2^k + 1, primes, and one past the CPU backend's serial cut-offs.
SEG_SIZES = [0, 1, 2, 3, 7, 8, 9, 97, 255, 256, 257, 4099, 65537]
# A positive cut is a row length (the last row shorter); the others are named.
CUTS = ["one", "random", "empty ends", 1, 2, 3, 16, 17, 255, 256, 1009]


def offsets_for(n: int, cut, seed: int = 0) -> np.ndarray:
    """Offsets that cut ``n`` keys as ``cut`` says (int64, as NumPy makes them)."""
    if cut == "one":
        return np.array([0, n])
    if cut in ("random", "empty ends"):
        rng = np.random.default_rng([seed, n])
        # Repeated points are empty segments.
        inner = np.sort(rng.integers(0, n + 1, size=rng.integers(0, 40)))
        ends = [0, 0] if cut == "empty ends" else [0]
        return np.concatenate([ends, inner, [n, n] if cut == "empty ends" else [n]]).astype(np.int64)
    return np.append(np.arange(0, n, cut), n)


def segment_perm(keys: np.ndarray, offsets, descending: bool, float_order: str = "total") -> np.ndarray:
    """The permutation a stable segmented sort produces: by segment, then by rank (lexsort is
    stable, so equal keys of a segment keep their input order); floats in total order, or in
    ``float_order`` (``sort`` of N-D arrays: NumPy's)."""
    segment = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return np.lexsort((library_rank(keys, descending, float_order), segment))


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_segments_is_each_segment_sorted_stably(sorter, dtype, descending):
    for n in SEG_SIZES:
        for cut in CUTS:
            pattern = PATTERNS[(n + len(str(cut))) % len(PATTERNS)]
            keys = make_keys(dtype, n, pattern, seed=7)
            offsets = offsets_for(n, cut, seed=n)
            perm = segment_perm(keys, offsets, descending)
            k, v = keys.copy(), values_for(n)
            sorter.sort_segments(k, offsets, v, descending=descending)
            where = f"n={n}, cut={cut}, {pattern}"
            np.testing.assert_array_equal(bits(k), bits(keys[perm]), err_msg=f"keys, {where}")
            np.testing.assert_array_equal(v, values_for(n)[perm], err_msg=f"values, {where}")
            only = keys.copy()
            sorter.sort_segments(only, offsets, descending=descending)
            np.testing.assert_array_equal(bits(only), bits(k), err_msg=f"keys only, {where}")


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint64, np.int64], ids=lambda d: np.dtype(d).name)
def test_sort_segments_equals_numpy_per_segment(dtype, pattern):
    n = 100_003
    keys = make_keys(dtype, n, pattern, seed=11)
    offsets = offsets_for(n, "random", seed=3)
    k, v = keys.copy(), np.arange(n, dtype=np.uint32)
    gpusort.sort_segments(k, offsets, v)
    for s, e in zip(offsets[:-1], offsets[1:]):
        np.testing.assert_array_equal(k[s:e], np.sort(keys[s:e], kind="stable"))
        np.testing.assert_array_equal(v[s:e], s + np.argsort(keys[s:e], kind="stable"))


@pytest.mark.parametrize("value_dtype", VALUE_DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_segments_moves_every_32_bit_value_dtype_bit_for_bit(value_dtype):
    keys = make_keys(np.float64, 5000, "specials", seed=2)
    values = values_for(5000, value_dtype)
    offsets = offsets_for(5000, 17)
    k, v = keys.copy(), values.copy()
    gpusort.sort_segments(k, offsets, v, descending=True)
    perm = segment_perm(keys, offsets, True)
    np.testing.assert_array_equal(v.view(np.uint32), values.view(np.uint32)[perm])


@pytest.mark.parametrize("key_dtype", [np.int32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("value_dtype", VALUE_DTYPES_64, ids=lambda d: np.dtype(d).name)
def test_sort_segments_moves_64_bit_values_bit_for_bit(value_dtype, key_dtype):
    for n, layout in ((0, 1), (1, 1), (2, 1), (257, 16), (5003, 17), (65537, "random")):
        keys = make_keys(key_dtype, n, "few", seed=2)
        values = values_for(n, value_dtype)
        offsets = offsets_for(n, layout)
        for descending in (False, True):
            k, v = keys.copy(), values.copy()
            gpusort.sort_segments(k, offsets, v, descending=descending)
            perm = segment_perm(keys, offsets, descending)
            np.testing.assert_array_equal(v.view(np.uint64), values.view(np.uint64)[perm], err_msg=f"n={n}")


def test_offsets_of_any_integer_kind():
    keys = np.array([3, 1, 2, 9, 7, 5], dtype=np.int32)
    want = [1, 2, 3, 7, 9, 5]
    for offsets in ([0, 3, 5, 6], (0, 3, 5, 6), range(0, 7, 3), np.array([0, 3, 5, 6], dtype=np.uint8),
                    np.array([0, 3, 5, 6], dtype=np.int64), np.array([0, 0, 3, 5, 6, 6, 6], dtype=np.uint64)[::1],
                    np.array([0, 9, 3, 9, 5, 9, 6], dtype=np.uint64)[::2], [np.int16(0), 3, np.int64(5), 6]):
        k = keys.copy()
        gpusort.sort_segments(k, offsets)
        if isinstance(offsets, range):
            assert k.tolist() == [1, 2, 3, 5, 7, 9], offsets
        else:
            assert k.tolist() == want, offsets


def test_sorting_network_sorters_sort_segments_stably():
    keys = make_keys(np.int64, 10_000, "few", seed=4)
    offsets = offsets_for(10_000, 257)
    s = gpusort.Sorter("cpu", algorithm="bitonic")
    k, v = keys.copy(), values_for(10_000)
    s.sort_segments(k, offsets, v)
    np.testing.assert_array_equal(v, values_for(10_000)[segment_perm(keys, offsets, False)])
    rows = keys.reshape(100, 100).copy()
    s.sort(rows, descending=True)
    np.testing.assert_array_equal(rows, -np.sort(-keys.reshape(100, 100), axis=-1))


def test_header_example():
    k = np.array([3, 1, 2, 9, 7, 5], dtype=np.uint32)
    v = np.arange(6, dtype=np.uint32)
    gpusort.Sorter("cpu").sort_segments(k, [0, 3, 5, 6], v)
    assert k.tolist() == [1, 2, 3, 7, 9, 5] and v.tolist() == [1, 2, 0, 4, 3, 5]
    gpusort.sort_segments(k, [0, 3, 5, 6], descending=True)
    assert k.tolist() == [3, 2, 1, 9, 7, 5] and v.tolist() == [1, 2, 0, 4, 3, 5]
    assert "sort_segments" in gpusort.__all__


# ---- sort of N-D arrays: each row along the last axis, as np.sort(a, axis=-1) ----

ROW_SHAPES = [(0, 5), (5, 0), (1, 1), (3, 1), (1, 7), (2, 2), (17, 257), (257, 16), (1000, 3), (4, 5, 6), (2, 0, 3)]


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_of_nd_arrays_sorts_each_row(sorter, dtype, descending):
    for shape in ROW_SHAPES:
        size = int(np.prod(shape))
        keys = make_keys(dtype, size, "specials" if size % 2 else "random", seed=5).reshape(shape)
        flat = keys.reshape(-1)
        cols = shape[-1]
        offsets = np.arange(0, size + 1, cols) if cols else np.zeros(1, dtype=np.int64)
        want = flat[segment_perm(flat, offsets, descending, "nan_last")].reshape(shape)
        got = keys.copy()
        sorter.sort(got, descending=descending)
        assert got.shape == shape
        np.testing.assert_array_equal(bits(got), bits(want), err_msg=f"shape {shape}")
        if not descending:
            np.testing.assert_array_equal(bits(got), bits(np.sort(keys, axis=-1, kind="stable")), err_msg=f"{shape}")
        want = flat[segment_perm(flat, offsets, descending)].reshape(shape)
        got = keys.copy()
        sorter.sort(got, descending=descending, float_order="total")
        np.testing.assert_array_equal(bits(got), bits(want), err_msg=f"total, shape {shape}")


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint64, np.int64], ids=lambda d: np.dtype(d).name)
def test_sort_of_2d_integer_arrays_equals_numpy(dtype):
    a = make_keys(dtype, 300 * 1001, "random", seed=9).reshape(300, 1001)
    got = a.copy()
    gpusort.sort(got)
    np.testing.assert_array_equal(got, np.sort(a, axis=-1, kind="stable"))
    gpusort.sort(got, descending=True)
    np.testing.assert_array_equal(got, np.sort(a, axis=-1)[:, ::-1])


# ---- refused arguments: the promised exception, the arrays untouched ----


def seg_input(dtype=np.uint32, n=1000):
    keys = (np.arange(n, dtype=np.uint64) * 2654435761 % 1000).astype(dtype)
    return keys, np.arange(n, dtype=np.uint32)


BAD_OFFSETS = {
    "empty": ([], gpusort.InvalidArgumentError, "empty"),
    "not from 0": ([1, 1000], gpusort.InvalidArgumentError, "start at 1"),
    "short of n": ([0, 500, 999], gpusort.InvalidArgumentError, "end at 999"),
    "past n": ([0, 1001], gpusort.InvalidArgumentError, "end at 1001"),
    "falling": ([0, 600, 400, 1000], gpusort.InvalidArgumentError, "fall from 600 to 400"),
    "2^64 - 1": (np.array([0, 2**64 - 1, 1000], dtype=np.uint64), gpusort.InvalidArgumentError, "fall"),
    "negative": ([0, -1, 1000], ValueError, "negative"),
    "float": ([0.0, 1000.0], TypeError, "dtype float64"),
    "bool": ([False, True], TypeError, "dtype bool"),
    "strings": (["0", "1000"], TypeError, "dtype"),
    "None": (None, TypeError, "offsets"),
    "2-D": ([[0, 1000]], ValueError, "1-D"),
    "scalar": (1000, ValueError, "1-D"),
}


@pytest.mark.parametrize("with_values", [True, False], ids=["pairs", "keys"])
@pytest.mark.parametrize("case", BAD_OFFSETS, ids=list(BAD_OFFSETS))
def test_bad_offsets_are_refused_untouched(sorter, case, with_values):
    offsets, exc, match = BAD_OFFSETS[case]
    for dtype in (np.float32, np.int64):
        k, v = seg_input(dtype)
        call = lambda: sorter.sort_segments(k, offsets, v if with_values else None)  # noqa: E731
        check_refused(call, exc, k, v, match=match)
    assert issubclass(gpusort.InvalidArgumentError, ValueError)


def test_bad_keys_and_values_are_refused_untouched():
    k, v = seg_input()
    offsets = [0, 500, 1000]
    for keys, exc, match in ((seg_input(np.complex64)[0], TypeError, "dtype complex64"),
                             (seg_input(np.complex128)[0], TypeError, "dtype complex128"),
                             (k.reshape(10, 100), ValueError, "1-D"),
                             (seg_input(n=2000)[0][::2], ValueError, "contiguous"),
                             (read_only(k.copy()), ValueError, "read-only")):
        check_refused(lambda: gpusort.sort_segments(keys, offsets, v), exc, keys, v, match=match)
    for values, exc, match in ((np.arange(1000, dtype=np.int16), TypeError, "value type"),
                               (np.arange(999, dtype=np.uint32), ValueError, "999 values for 1000 keys"),
                               (np.arange(2000, dtype=np.uint32)[::2], ValueError, "contiguous"),
                               (read_only(v.copy()), ValueError, "read-only"),
                               ([0] * 1000, TypeError, "numpy.ndarray")):
        check_refused(lambda: gpusort.sort_segments(k, offsets, values), exc, k, match=match)
    check_refused(lambda: gpusort.sort_segments([3, 1, 2], [0, 3]), TypeError, match="numpy.ndarray")
    check_refused(lambda: gpusort.sort_segments(k, offsets, k), ValueError, k, match="shares memory")
    wide = seg_input(np.uint64, 4)[0]
    wide[:] = [0, 4, 9, 9]
    check_refused(lambda: gpusort.sort_segments(wide, wide), ValueError, wide, match="shares memory")
    check_refused(lambda: gpusort.sort_segments(k, offsets, v, stream=0), ValueError, k, v, match="stream")


def test_cuda_interface_arrays_need_device_offsets_and_mixed_arrays_are_refused():
    # CUDA arrays of PyTorch and CuPy: test_device_segments.py. Here objects with only the
    # interface (over host memory): refused before anything is read.
    h, v = seg_input()
    host_offsets = [0, 1000]
    cases = [
        (FakeCudaArray(h), None, host_offsets, "no torch.Tensor or cupy.ndarray"),
        (FakeCudaArray(h), v, host_offsets, "one is a CUDA array"),
        (h, FakeCudaArray(v), host_offsets, "one is a CUDA array"),
        (h, v, FakeCudaArray(np.array(host_offsets, dtype=np.int64)), "host arrays take host offsets"),
        (FakeCudaArray(h), None, FakeCudaArray(np.array(host_offsets, dtype=np.int32)), "int64 or uint64"),
        (FakeCudaArray(h), None, FakeCudaArray(np.array([[0, 1000]], dtype=np.int64)), "1-D"),
    ]
    for keys, values, offsets, match in cases:
        exc = ValueError if match == "1-D" else TypeError
        check_refused(lambda: gpusort.sort_segments(keys, offsets, values), exc, h, v, match=match)
    # Well-formed interfaces to host memory: the driver check refuses them on a GPU sorter,
    # without one the sort is unsupported (device arrays need a GPU).
    want = (gpusort.InvalidArgumentError, gpusort.UnsupportedError, gpusort.NoDeviceError)
    o = np.array(host_offsets, dtype=np.int64)
    check_refused(lambda: gpusort.sort_segments(FakeCudaArray(h), FakeCudaArray(o), FakeCudaArray(v)), want, h, v, o)
    check_refused(lambda: gpusort.Sorter("cpu").sort_segments(FakeCudaArray(h), FakeCudaArray(o)),
                  gpusort.UnsupportedError, h, o)


def test_n_zero_and_null_like_inputs():
    for dtype in KEY_DTYPES:
        k = np.zeros(0, dtype=dtype)
        gpusort.sort_segments(k, [0])
        gpusort.sort_segments(k, [0, 0, 0], np.zeros(0, dtype=np.uint32), descending=True)
        check_refused(lambda: gpusort.sort_segments(k, []), gpusort.InvalidArgumentError, k, match="empty")
        one = np.ones(1, dtype=dtype)
        gpusort.sort_segments(one, [0, 1])
        assert one.tolist() == [1]
