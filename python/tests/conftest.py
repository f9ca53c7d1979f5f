"""Inputs and references shared by the tests.

The reference of every sort is NumPy's stable argsort of an unsigned "rank" of each key that
orders as gpusort does: integers by value, floats by IEEE total order (-NaN < -inf < ... < -0.0 <
+0.0 < ... < +inf < +NaN, as ``f32::total_cmp``: pair, segmented, record sorts and top-k) or as the
array's library orders them (``sort``, ``argsort``, ``lexsort``: NumPy's NaN last and ``-0.0 ==
+0.0``, torch's NaN largest), descending as the bitwise complement of the rank. Stable in both
orders: equal keys keep their input order, so the expected permutation is exact and values can
be checked one by one.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import gpusort
from gpusort._key_types import KEY_TYPES



def _numpy_type(name: str):
    """The scalar type of NumPy's own dtype ``name``, or None for a key type NumPy has no dtype of
    (bfloat16: ml_dtypes', tested in test_half.py)."""
    try:
        dt = np.dtype(name)
    except TypeError:
        return None
    return dt.type if dt.kind in "iuf" else None


# The key types as the native module lists them (gpusort._key_types): every one NumPy has a dtype
# of (ALL_KEY_DTYPES), the 32- and 64-bit ones (KEY_DTYPES, the ones make_keys' patterns are
# for), and the 8- and 16-bit integers (SMALL_KEY_DTYPES: test_small_keys.py; the half floats are
# test_half.py's).
ALL_KEY_DTYPES = [t for t in (_numpy_type(k.numpy_dtype) for k in KEY_TYPES) if t is not None]
KEY_DTYPES = [np.dtype(k.numpy_dtype).type for k in KEY_TYPES if k.itemsize >= 4]
SMALL_KEY_DTYPES = [np.dtype(k.numpy_dtype).type for k in KEY_TYPES if k.itemsize < 4 and not k.is_float]
VALUE_DTYPES = [np.uint32, np.int32, np.float32]
# 8-byte payloads (row ids past 2^32): host arrays only.
VALUE_DTYPES_64 = [np.uint64, np.int64, np.float64]
PATTERNS = ["random", "equal", "extremes", "sorted", "reverse", "few", "specials"]
# Edge sizes: tiny, around powers of two (tile and block limits), primes, one past the serial
# cut-offs of the CPU backend.
SIZES = [0, 1, 2, 3, 7, 15, 16, 17, 255, 256, 257, 1023, 1024, 1025, 4099, 65535, 65536, 65537, 100003]
LARGE = (1 << 20) + 3


def rank(keys: np.ndarray, descending: bool = False) -> np.ndarray:
    """Unsigned integers of the keys' width that order as gpusort orders ``keys``: unsigned keys
    as they are, signed ones with the sign bit flipped, floats by IEEE total order (negatives'
    bits reversed, positives' above them)."""
    unsigned = np.dtype(f"u{keys.dtype.itemsize}")
    sign = unsigned.type(1 << (8 * keys.dtype.itemsize - 1))
    bits = keys.view(unsigned)
    if keys.dtype.kind == "u":
        r = bits.copy()
    elif keys.dtype.kind == "f":
        r = np.where(bits & sign, ~bits, bits | sign).astype(unsigned)
    else:
        r = bits ^ sign
    return ~r if descending else r


def library_rank(keys: np.ndarray, descending: bool = False, float_order: str = "nan_last") -> np.ndarray:
    """As :func:`rank`, floats in one of the libraries' orders: ``-0.0`` ranked as ``+0.0``, every
    NaN one rank, last (``"nan_last"``: NumPy, CuPy, pandas), first (``"nan_first"``) or as the
    largest value (``"nan_largest"``: torch). Other keys, and ``"total"``, as :func:`rank`."""
    if keys.dtype.kind != "f" or float_order == "total":
        return rank(keys, descending)
    nan = np.isnan(keys)
    zero = keys.dtype.type(0)
    r = rank(np.where(nan, zero, keys) + zero, descending)  # -0.0 + 0.0 is +0.0
    # No other key ranks 0 or the maximum: those are -NaN's and +NaN's ranks.
    last = float_order == "nan_last" or (float_order == "nan_largest" and not descending)
    r[nan] = np.iinfo(r.dtype).max if last else 0
    return r


def expected_perm(keys: np.ndarray, descending: bool = False, float_order: str = "total") -> np.ndarray:
    """The stable permutation gpusort must produce, floats in ``float_order`` (total order: the
    order of ``sort_pairs``, ``sort_segments``, ``top_k``; the libraries' orders: see
    :func:`library_rank`)."""
    return np.argsort(library_rank(keys, descending, float_order), kind="stable")


def numpy_perm(keys: np.ndarray, descending: bool = False) -> np.ndarray:
    """The stable permutation of ``sort``, ``argsort`` and ``lexsort`` of NumPy arrays (NaN last in
    both orders, ``-0.0 == +0.0``), checked against NumPy's own stable argsort where NumPy has one
    (ascending; descending as pandas computes it, reversed around a stable argsort, which puts NaN
    first, so only without NaN)."""
    perm = expected_perm(keys, descending, "nan_last")
    if not descending:
        assert np.array_equal(perm, np.argsort(keys, kind="stable")), "the reference disagrees with NumPy"
    elif keys.dtype.kind != "f" or not np.isnan(keys).any():
        n = keys.size
        want = (n - 1 - np.argsort(keys[::-1], kind="stable"))[::-1]
        assert np.array_equal(perm, want), "the descending reference disagrees with NumPy"
    return perm


def make_keys(dtype, n: int, pattern: str, seed: int = 0) -> np.ndarray:
    """``n`` keys of ``dtype`` in ``pattern``, reproducible from ``seed``."""
    rng = np.random.default_rng([seed, n, PATTERNS.index(pattern)])
    floating = dtype in (np.float32, np.float64)
    info = np.finfo(dtype) if floating else np.iinfo(dtype)
    if pattern == "random":
        if floating:
            return rng.standard_normal(n).astype(dtype) * dtype(1e3)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if pattern == "equal":
        return np.full(n, 42, dtype=dtype)
    if pattern == "extremes":
        lo, hi = (dtype(-np.inf), dtype(np.inf)) if floating else (info.min, info.max)
        # Indexing a two-item array: np.where with Python ints past int64 overflows on NumPy 1.x.
        return np.array([lo, hi], dtype=dtype)[rng.integers(0, 2, n)]
    if pattern == "sorted":
        return np.sort(make_keys(dtype, n, "random", seed))
    if pattern == "reverse":
        return np.sort(make_keys(dtype, n, "random", seed))[::-1].copy()
    if pattern == "few":
        return rng.choice(np.array([0, 1, 7, 100, 12345], dtype=dtype), n)
    if pattern == "specials":
        if dtype == np.float32:
            pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e-45, -1e-45], dtype=np.float32)
        elif dtype == np.float64:
            pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324], dtype=np.float64)
        else:
            pool = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dtype)
        return rng.choice(pool, n)
    raise ValueError(pattern)


def values_for(n: int, dtype=np.uint32) -> np.ndarray:
    """Distinct values, so each one names its key: 0..n, or for float32 NaN bit patterns with
    the index as payload (they must move bit for bit, never be compared or canonicalised). 8-byte
    dtypes hold the index in both halves (a lost half shows), float64 as NaN/inf bit patterns."""
    if np.dtype(dtype).itemsize == 8:
        w = np.arange(n, dtype=np.uint64) * np.uint64(0x1_0000_0001)
        if dtype == np.float64:
            w |= np.uint64(0x7FF0_0000_0000_0000)
        return w.view(dtype)
    v = np.arange(n, dtype=np.uint32)
    if dtype == np.float32:
        return (v | np.uint32(0x7F80_0000)).view(np.float32)
    return v.view(dtype)


def _probe_cuda() -> bool:
    try:
        gpusort.Sorter("cuda")
        return True
    except gpusort.NoDeviceError as e:
        if os.environ.get("GPUSORT_REQUIRE_GPU") == "1":
            raise RuntimeError(f"GPUSORT_REQUIRE_GPU=1 but no CUDA device: {e}") from e
        return False


# Probed once, in the test process: forked children (test_process.py) see the parent's answer.
_HAS_CUDA = _probe_cuda()


def has_cuda() -> bool:
    """Whether this machine has a usable CUDA device (tests skip GPU cases without one)."""
    return _HAS_CUDA


@pytest.fixture(params=["default", "cpu", "cuda"])
def sorter(request):
    """The module-level functions' default sorter, a CPU sorter, and a CUDA sorter (GPU only)."""
    if request.param == "default":
        if not has_cuda():
            pytest.skip("without a GPU the default sorter is the 'cpu' case")
        return gpusort.default_sorter()
    if request.param == "cpu":
        return gpusort.Sorter("cpu")
    if not has_cuda():
        pytest.skip("no CUDA device")
    return gpusort.Sorter("cuda")
