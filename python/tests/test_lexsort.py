"""``gpusort.lexsort`` against ``numpy.lexsort``: NumPy's convention (the last key primary, a
2-D array's rows as keys), the exact stable permutation at edge sizes, on every pattern with ties
in every key, for key types packed together and not, each key in its own order, floats in
NumPy's order (NaN last, -0.0 == +0.0) or total order, NaT last; then refused arguments, and the
device path (torch, CuPy) where there is a GPU."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import gpusort
import gpusort._sorter
from conftest import has_cuda, library_rank, make_keys, rank

SIZES = [0, 1, 2, 3, 7, 15, 16, 17, 255, 256, 257, 1021, 4099, 65537]
PATTERNS = ["random", "equal", "extremes", "sorted", "reverse", "few", "specials"]
# Key sets, primary LAST as np.lexsort takes them: two that pack into one 64-bit word, one of two
# words, narrow types, bool and datetime64, a single key.
COMBOS = {
    "u32,u32": [np.uint32, np.uint32],
    "f32,i64": [np.int64, np.float32],
    "u8,f64,i16": [np.int16, np.float64, np.uint8],
    "i8,u16,i32,u8": [np.uint8, np.int32, np.uint16, np.int8],
    "f64,u64": [np.uint64, np.float64],
    "f32": [np.float32],
    "bool,M8": ["datetime64[ns]", np.bool_],
}


def key_of(dtype, n: int, pattern: str, seed: int) -> np.ndarray:
    """``n`` keys of ``dtype`` in ``pattern`` (few distinct values for most, so every key ties)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.random.default_rng([seed, n]).integers(0, 2, n).astype(bool)
    if dt.kind == "M":
        k = make_keys(np.int64, n, "few" if pattern in ("random", "specials") else pattern, seed)
        out = k.view("datetime64[ns]").copy()
        if pattern == "specials":
            out[np.random.default_rng([seed, n, 1]).integers(0, 3, n) == 0] = np.datetime64("NaT", "ns")
        return out
    if dt.itemsize < 4:
        rng = np.random.default_rng([seed, n, PATTERNS.index(pattern)])
        info = np.iinfo(dt)
        if pattern in ("equal", "few"):
            return rng.choice(np.array([0, 1, info.max], dtype=dt), n)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    return make_keys(dt.type, n, pattern, seed)


def ranks_of(key: np.ndarray, descending: bool, float_order: str) -> list:
    """The key's unsigned ranks in gpusort's order, least significant first: NumPy's float order
    (or ``float_order``); NaT last in both orders (a flag above the value's rank)."""
    if key.dtype.kind == "b":
        return [rank(key.view(np.uint8), descending)]
    if key.dtype.kind == "M":
        i8 = key.view(np.int64)
        nat = i8 == np.iinfo(np.int64).min
        return [np.where(nat, 0, rank(i8, descending)), nat]
    return [library_rank(key, descending, float_order)]


def reference(keys, descending, float_order="nan_last") -> np.ndarray:
    """np.lexsort of the keys' ranks: exact, and np.lexsort itself where every key ascends."""
    flags = [descending] * len(keys) if isinstance(descending, bool) else descending
    perm = np.lexsort([r for k, d in zip(keys, flags) for r in ranks_of(k, d, float_order)])
    if not any(flags) and float_order == "nan_last":
        np.testing.assert_array_equal(perm, np.lexsort(keys), err_msg="the reference disagrees with np.lexsort")
    return perm


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("combo", list(COMBOS), ids=list(COMBOS))
def test_lexsort_equals_numpy_lexsort(sorter, combo, pattern):
    dtypes = COMBOS[combo]
    for n in SIZES:
        keys = [key_of(dt, n, pattern, seed=n + i) for i, dt in enumerate(dtypes)]
        before = [k.copy() for k in keys]
        where = f"{combo}, {pattern}, n={n}"
        got = sorter.lexsort(keys)
        assert got.dtype == np.int64 and got.shape == (n,)
        np.testing.assert_array_equal(got, reference(keys, False), err_msg=where)
        flags = [i % 2 == 0 for i in range(len(keys))]
        np.testing.assert_array_equal(sorter.lexsort(keys, flags), reference(keys, flags), err_msg=f"mixed, {where}")
        np.testing.assert_array_equal(sorter.lexsort(keys, True), reference(keys, True), err_msg=f"desc, {where}")
        total = sorter.lexsort(keys, flags, float_order="total")
        np.testing.assert_array_equal(total, reference(keys, flags, "total"), err_msg=f"total, {where}")
        for k, b in zip(keys, before):
            np.testing.assert_array_equal(k.view(np.uint8), b.view(np.uint8), err_msg=f"keys only read, {where}")


@pytest.mark.parametrize("combo", ["u32,u32", "f32,i64"])
def test_large_seeded_lexsort(combo):
    n = (1 << 20) + 3
    rng = np.random.default_rng(75)
    keys = [rng.integers(0, 1000, n).astype(dt) for dt in COMBOS[combo]]
    keys[0][rng.integers(0, n, 1000)] = 0
    if combo == "f32,i64":
        keys[1][rng.integers(0, n, 1000)] = np.nan
        keys[1][rng.integers(0, n, 1000)] = -0.0
    for descending in (False, [False, True]):
        got = gpusort.lexsort(keys, descending)
        np.testing.assert_array_equal(got, reference(keys, descending))


def test_numpy_conventions():
    a = np.array([3, 1, 2, 1, 3], dtype=np.int32)
    b = np.array([0.5, 0.5, np.nan, -0.0, 0.0])
    grid = np.stack([a.astype(np.float64), b])
    np.testing.assert_array_equal(gpusort.lexsort(grid), np.lexsort(grid))  # rows are keys
    np.testing.assert_array_equal(gpusort.lexsort(grid.T.copy().T), np.lexsort(grid))  # F-ordered rows
    np.testing.assert_array_equal(gpusort.lexsort((a, b)), np.lexsort((a, b)))  # b primary
    # One 1-D array is one key (np.lexsort would read it as one row of scalar keys).
    np.testing.assert_array_equal(gpusort.lexsort(a), np.lexsort([a]))
    np.testing.assert_array_equal(gpusort.lexsort([a.tolist(), b.tolist()]), np.lexsort([a, b]))
    np.testing.assert_array_equal(gpusort.lexsort((k for k in (a, b))), np.lexsort((a, b)))
    strided = [a[::-1], b[::2].repeat(2)[:5]]
    np.testing.assert_array_equal(gpusort.lexsort(strided), np.lexsort(strided))
    # -0.0 == +0.0 (input order kept), NaN last in both orders.
    np.testing.assert_array_equal(gpusort.lexsort([b]), [3, 4, 0, 1, 2])
    np.testing.assert_array_equal(gpusort.lexsort([b], descending=True), [0, 1, 3, 4, 2])
    np.testing.assert_array_equal(gpusort.lexsort([b], descending=True, float_order="total"), [2, 0, 1, 4, 3])
    np.testing.assert_array_equal(gpusort.lexsort([b], float_order="nan_first"), [2, 3, 4, 0, 1])


def test_other_dtypes_sort_as_numpy_sorts_them():
    rng = np.random.default_rng(3)
    n = 4099
    half = rng.choice(np.array([np.nan, -0.0, 0.0, 1.5, -2.0], dtype=np.float16), n)
    swapped = rng.integers(-5, 5, n).astype(">i4")
    deltas = rng.integers(-3, 3, n).astype("m8[s]")
    deltas[::7] = np.timedelta64("NaT", "s")
    flags = rng.integers(0, 2, n).astype(bool)
    for keys in ([half, swapped], [deltas, flags], [swapped, deltas], [flags]):
        np.testing.assert_array_equal(gpusort.lexsort(keys), np.lexsort(keys))


def test_refused_arguments():
    a = np.arange(5, dtype=np.uint32)
    with pytest.raises(ValueError, match="at least one"):
        gpusort.lexsort([])
    with pytest.raises(gpusort.InvalidArgumentError, match="rows|keys"):
        gpusort.lexsort([a, a[:4]])
    with pytest.raises(ValueError):
        gpusort.lexsort([a, a[:4]])  # InvalidArgumentError is a ValueError
    for bad in (np.array(["b", "a"]), np.zeros(2, dtype=np.complex64), np.array([None, 1])):
        with pytest.raises(TypeError, match="key type"):
            gpusort.lexsort([bad])
    with pytest.raises(ValueError, match="2 values for 1 keys"):
        gpusort.lexsort([a], descending=[True, False])
    with pytest.raises(ValueError, match="stream"):
        gpusort.lexsort([a], stream=0)
    with pytest.raises(ValueError, match="float_order"):
        gpusort.lexsort([a], float_order="numpy")
    with pytest.raises(ValueError, match="3-D"):
        gpusort.lexsort(np.zeros((2, 2, 2)))
    with pytest.raises(TypeError):
        gpusort.lexsort(5)


def test_docstring_examples():
    for module in (gpusort, gpusort._sorter):
        failed, attempted = doctest.testmod(module)
        assert attempted > 0 and failed == 0, module.__name__


# ---- CUDA arrays: lexsort on the device, and in-place float sorts in the library's order ----


def _lib(name):
    if not has_cuda():
        pytest.skip("no CUDA device")
    from test_device import Lib

    return Lib(name)


@pytest.fixture(params=["torch", "cupy"])
def lib(request):
    return _lib(request.param)


@pytest.mark.parametrize("combo", ["u32,u32", "f32,i64", "u8,f64,i16", "f64,u64", "f32"])
def test_device_lexsort_matches_the_reference(lib, combo):
    dtypes = COMBOS[combo]
    if not all(lib.has(dt) for dt in dtypes):
        pytest.skip(f"{lib.name} lacks a dtype of {combo}")
    for pattern in ("random", "few", "specials", "equal"):
        for n in (0, 1, 2, 255, 256, 257, 65537, (1 << 20) + 3):
            keys = [key_of(dt, n, pattern, seed=n + i) for i, dt in enumerate(dtypes)]
            d = [lib.put(k) for k in keys]
            flags = [i % 2 == 1 for i in range(len(keys))]
            for descending in (False, flags):
                got = gpusort.lexsort(d, descending)
                assert str(got.dtype).endswith("int64")
                want = reference(keys, descending, lib.floats)
                np.testing.assert_array_equal(lib.get(got), want, err_msg=f"{combo} {pattern} n={n} {descending}")
            got = gpusort.lexsort(d, flags, float_order="total")
            np.testing.assert_array_equal(lib.get(got), reference(keys, flags, "total"), err_msg=f"total n={n}")


def test_device_lexsort_against_the_libraries(lib):
    m = lib.m
    rng = np.random.default_rng(9)
    n = 1 << 20
    a = rng.integers(0, 100, n).astype(np.int32)
    b = rng.choice(np.array([np.nan, 0.0, -0.0, 1.0, 2.0], dtype=np.float32), n)
    da, db = lib.put(a), lib.put(b)
    got = gpusort.lexsort([da, db])  # b primary
    if lib.name == "torch":
        # The chained stable argsorts torch users write: secondary first, then the primary.
        p = m.argsort(da, stable=True)
        want = p[m.argsort(db[p], stable=True)]
        assert m.equal(got, want)
        bools = m.from_numpy(a % 2 == 0).cuda()
        halves = m.from_numpy(b).cuda().half()
        want = reference([b, a % 2 == 0], False, lib.floats)
        np.testing.assert_array_equal(lib.get(gpusort.lexsort([halves, bools])), want)
    else:
        np.testing.assert_array_equal(lib.get(got), np.lexsort([a, b]))
        # cupy.lexsort itself, on keys without NaN (where its order has varied between versions).
        c = lib.put(np.nan_to_num(b))
        assert bool((gpusort.lexsort([da, c]) == m.lexsort(m.stack([da.astype(m.float32), c]))).all())


def test_device_lexsort_refuses_mixed_and_bad_keys(lib):
    d = lib.put(np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError, match="some are CUDA arrays"):
        gpusort.lexsort([d, np.arange(10)])
    with pytest.raises(ValueError, match="same length"):
        gpusort.lexsort([d, d[:5]])
    with pytest.raises(gpusort.UnsupportedError):
        gpusort.Sorter("cpu").lexsort([d])


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_device_float_sort_in_the_libraries_order(lib, dtype):
    """In-place sorts of floats holding NaN or -0.0 go through the permutation; the others
    through the in-place sort: both bit for bit the stable result in the library's order."""
    for pattern in ("specials", "random", "few"):
        for n in (0, 1, 2, 255, 4097, (1 << 20) + 7):
            keys = make_keys(dtype, n, pattern, seed=n)
            for descending in (False, True):
                d = lib.put(keys)
                gpusort.sort(d, descending=descending)
                want = keys[library_order(keys, descending, lib.floats)]
                np.testing.assert_array_equal(bits(lib.get(d)), bits(want), err_msg=f"{pattern} n={n} {descending}")


def library_order(keys, descending, floats):
    return np.argsort(library_rank(keys, descending, floats), kind="stable")


def bits(a):
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a
