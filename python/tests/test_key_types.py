"""The key types as the native module exports them (``_native.KEY_TYPES``) and the tables the
package derives from them: the table agrees with NumPy, every listed dtype sorts on the CPU
backend exactly as NumPy's stable sorts do (floats in NumPy's order in sort and argsort, in IEEE
total order, -NaN first, +NaN last, -0.0 before +0.0, in the other sorts and with
float_order="total"), the messages and docs name every key type, and the CUDA array tables take
exactly the types that sort on the device (read without a GPU)."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort
from conftest import ALL_KEY_DTYPES, expected_perm, numpy_perm
from gpusort import _device, _key_types, _native

SIZES = [0, 1, 2, 31, 32, 33, 1009]
PATTERNS = ["random", "equal", "min_max", "sorted", "reversed", "specials"]
# The patterns whose floats hold no -0.0 and no negative NaN: there NumPy's order (NaN last,
# -0.0 == +0.0) and IEEE total order agree ascending, so np.sort is the reference of both.
NUMPY_ORDER = ["random", "equal", "min_max", "sorted", "reversed"]

dtypes = pytest.mark.parametrize("dtype", ALL_KEY_DTYPES, ids=lambda d: np.dtype(d).name)


def keys_of(dtype, n: int, pattern: str, seed: int = 0) -> np.ndarray:
    dt = np.dtype(dtype)
    rng = np.random.default_rng([seed, n, PATTERNS.index(pattern), dt.num])
    floating = dt.kind == "f"
    if pattern == "random":
        if floating:
            return (rng.standard_normal(n) * 1e3).astype(dt)
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    if pattern == "equal":
        return np.full(n, 42, dtype=dt)
    if pattern == "min_max":
        if floating:
            f = np.finfo(dt)
            pool = np.array([f.min, f.max, -np.inf, np.inf, 0.0, np.nan], dtype=dt)
        else:
            i = np.iinfo(dt)
            pool = np.array([i.min, i.max, 0, i.min + 1, i.max - 1], dtype=dt)
        return rng.choice(pool, n)
    if pattern == "sorted":
        return np.sort(keys_of(dt, n, "random", seed))
    if pattern == "reversed":
        return np.sort(keys_of(dt, n, "random", seed))[::-1].copy()
    if pattern == "specials":
        if not floating:
            return keys_of(dt, n, "min_max", seed)
        tiny = np.finfo(dt).smallest_subnormal
        pool = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, tiny, -tiny], dtype=dt)
        # Random bit patterns as well: NaNs of every sign and payload.
        unsigned = np.dtype(f"u{dt.itemsize}")
        noise = rng.integers(0, np.iinfo(unsigned).max, n, dtype=unsigned, endpoint=True).view(dt)
        return np.where(rng.integers(0, 2, n) == 1, rng.choice(pool, n), noise)
    raise ValueError(pattern)


def bits(a: np.ndarray) -> np.ndarray:
    """Floats compared bit for bit: NaN == NaN, -0.0 != +0.0."""
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


def test_the_exported_table_matches_numpy():
    assert len(_native.KEY_TYPES) == len(_key_types.KEY_TYPES) > 0
    for raw, k in zip(_native.KEY_TYPES, _key_types.KEY_TYPES):
        assert tuple(k) == raw
        name, rust, itemsize, on_device, is_float = raw
        assert isinstance(on_device, bool) and isinstance(is_float, bool)
        if name == "bfloat16":  # no dtype of NumPy's own (test_half.py has ml_dtypes')
            assert (rust, itemsize, is_float, k.typestr) == ("bf16", 2, True, "<bf16")
            continue
        dt = np.dtype(name)
        assert dt.name == name, "the canonical NumPy name"
        assert dt.itemsize == itemsize, name
        assert rust == f"{dt.kind}{8 * itemsize}", (name, rust)
        assert is_float == (dt.kind == "f"), name
        assert k.typestr == dt.newbyteorder("<").str
    assert len({k.numpy_dtype for k in _key_types.KEY_TYPES}) == len(_key_types.KEY_TYPES)
    assert _key_types.DEVICE_KEY_TYPES + _key_types.HOST_ONLY_KEY_TYPES == tuple(
        sorted(_key_types.KEY_TYPES, key=lambda k: not k.sorts_on_device)
    )


@dtypes
def test_every_key_type_is_a_host_key_and_others_are_not(dtype):
    dt = np.dtype(dtype)
    assert _key_types.is_host_key(dt)
    assert not _key_types.is_host_key(dt.newbyteorder("S")) or dt.itemsize == 1
    for other in ["bool", "complex64", "M8[s]", "m8[s]", "O", [("key", dt)], (dt, (2,))]:
        assert not _key_types.is_host_key(np.dtype(other)), other


@pytest.mark.parametrize("pattern", PATTERNS)
@dtypes
def test_every_key_type_sorts_on_the_cpu_as_numpy_does(dtype, pattern):
    sorter = gpusort.Sorter("cpu")
    for n in SIZES:
        keys = keys_of(dtype, n, pattern, seed=n)
        where = f"{np.dtype(dtype).name}, {pattern}, n={n}"
        asc, desc = expected_perm(keys), expected_perm(keys, descending=True)
        lib_asc, lib_desc = numpy_perm(keys), numpy_perm(keys, descending=True)
        if pattern in NUMPY_ORDER:
            np.testing.assert_array_equal(asc, np.argsort(keys, kind="stable"), err_msg=f"reference, {where}")
            np.testing.assert_array_equal(bits(keys[asc]), bits(np.sort(keys, kind="stable")), err_msg=where)
        np.testing.assert_array_equal(bits(keys[lib_asc]), bits(np.sort(keys, kind="stable")), err_msg=where)
        before = keys.copy()
        np.testing.assert_array_equal(sorter.argsort(keys), lib_asc, err_msg=f"argsort, {where}")
        np.testing.assert_array_equal(sorter.argsort(keys, descending=True), lib_desc, err_msg=f"argsort desc, {where}")
        np.testing.assert_array_equal(sorter.argsort(keys, float_order="total"), asc, err_msg=f"total, {where}")
        np.testing.assert_array_equal(bits(keys), bits(before), err_msg=f"argsort reads only, {where}")
        for perm, lib_perm, descending in ((asc, lib_asc, False), (desc, lib_desc, True)):
            got = keys.copy()
            sorter.sort(got, descending=descending)
            np.testing.assert_array_equal(bits(got), bits(keys[lib_perm]), err_msg=f"sort {descending=}, {where}")
            got = keys.copy()
            sorter.sort(got, descending=descending, float_order="total")
            np.testing.assert_array_equal(bits(got), bits(keys[perm]), err_msg=f"sort total {descending=}, {where}")
            k, v = keys.copy(), np.arange(n, dtype=np.uint32)
            sorter.sort_pairs(k, v, descending=descending)
            np.testing.assert_array_equal(bits(k), bits(keys[perm]), err_msg=f"sort_pairs {descending=}, {where}")
            np.testing.assert_array_equal(v, perm, err_msg=f"sort_pairs values {descending=}, {where}")
            values, indices = sorter.top_k(keys, n // 2, descending=descending)
            np.testing.assert_array_equal(indices, perm[: n // 2], err_msg=f"top_k {descending=}, {where}")
            np.testing.assert_array_equal(bits(values), bits(keys[perm[: n // 2]]), err_msg=where)


@pytest.mark.parametrize("dtype", [d for d in ALL_KEY_DTYPES if np.dtype(d).kind == "f"], ids=lambda d: np.dtype(d).name)
def test_floats_sort_in_total_order(dtype):
    """-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN, as the package documents."""
    keys = np.array([np.nan, 0.0, -np.nan, -0.0, np.inf, -1.0, -np.inf, 0.0, -0.0, 1.0], dtype=dtype)
    gpusort.Sorter("cpu").sort(keys, float_order="total")
    assert np.isnan(keys[0]) and np.signbit(keys[0])
    assert np.isnan(keys[-1]) and not np.signbit(keys[-1])
    np.testing.assert_array_equal(keys[1:-1], [-np.inf, -1.0, -0.0, -0.0, 0.0, 0.0, 1.0, np.inf])
    np.testing.assert_array_equal(np.signbit(keys[3:7]), [True, True, False, False])


def test_messages_and_docs_name_every_key_type():
    names = [k.numpy_dtype for k in _key_types.KEY_TYPES]
    with pytest.raises(TypeError) as host:
        gpusort.Sorter("cpu").sort(np.zeros(3, dtype=np.complex64))
    with pytest.raises(TypeError) as field:
        gpusort.Sorter("cpu").sort_records(np.zeros(3, dtype=[("key", "c8")]), "key")
    device, _, host_only = _key_types.DEVICE_KEY_DTYPES.partition("; ")
    for k in _key_types.KEY_TYPES:
        for text in (str(host.value), str(field.value)):
            assert k.numpy_dtype in text, text
        assert k.numpy_dtype in (device if k.sorts_on_device else host_only), _key_types.DEVICE_KEY_DTYPES
    assert host_only.endswith("in host arrays only") or not host_only
    for doc in (gpusort.Sorter.__doc__, gpusort.Sorter.sort_records.__doc__):
        assert doc is not None
        missing = [n for n in names if n not in doc]
        assert not missing, f"the docstring names no {missing}"


class _Interface:
    """A CUDA array as ``__cuda_array_interface__`` describes it (no memory: only read here)."""

    def __init__(self, typestr: str):
        self.__cuda_array_interface__ = {"shape": (4,), "typestr": typestr, "data": (0, False), "version": 3}


def test_cuda_arrays_take_the_types_that_sort_on_the_device():
    for k in _key_types.KEY_TYPES:
        obj = _Interface(k.typestr)
        if k.sorts_on_device:
            assert _device.key_name(_device.view(obj, "a"), "a") == k.name
        else:
            with pytest.raises(TypeError, match="host arrays only"):
                _device.view(obj, "a")
            # The native device sorts refuse the name too (the check above comes first).
            with pytest.raises(ValueError, match=f'"{k.name}" is not'):
                gpusort.Sorter("cpu")._native.sort_device(0, 0, k.name, 0, False)
    with pytest.raises(TypeError, match="is not a sortable type"):
        _device.view(_Interface("<c8"), "a")


def test_torch_dtypes_come_from_the_numpy_names():
    class FakeTorch:  # a torch without uint32 and uint64, as before PyTorch 2.3
        int32, float32, int64, float64 = "i32", "f32", "i64", "f64"

    device = _key_types.DEVICE_KEY_TYPES
    want = {getattr(FakeTorch, k.numpy_dtype): k.typestr for k in device if hasattr(FakeTorch, k.numpy_dtype)}
    assert _device._torch_dtypes(FakeTorch) == want
    assert set(want.values()) <= set(_key_types.DEVICE_TYPESTRS)
