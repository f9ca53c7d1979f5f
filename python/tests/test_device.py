"""CUDA arrays of PyTorch and CuPy, sorted in place on the device: against the libraries' own
stable sorts (floats in each library's order, and in total order on request), on the caller's
stream, and every refused array left as it was. Skipped where
there is no CUDA device or neither library is installed."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort
from conftest import KEY_DTYPES, expected_perm, has_cuda, make_keys

if not has_cuda():
    pytest.skip("no CUDA device", allow_module_level=True)

SIZES = [0, 1, 2, 3, 255, 256, 257, 4095, 4096, 4097, 16381, 16384, 65537, (1 << 20) + 7]
PATTERNS = ["random", "equal", "extremes", "few", "reverse", "specials"]


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    return torch


def _cupy():
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 - any CUDA failure means: no device for cupy
        pytest.skip(f"cupy has no CUDA: {e}")
    return cupy


class Lib:
    """What the tests need of one library: to and from NumPy, sorts, stream, sync."""

    def __init__(self, name):
        self.name = name
        self.m = _torch() if name == "torch" else _cupy()
        # How the library orders floats, which gpusort's sort, argsort and lexsort follow.
        self.floats = "nan_largest" if name == "torch" else "nan_last"

    def has(self, dtype):
        if self.name == "torch":
            return hasattr(self.m, np.dtype(dtype).name)
        return True

    def put(self, a: np.ndarray):
        if self.name == "torch":
            if a.dtype in (np.uint32, np.uint64):  # torch.from_numpy takes them from 2.3 only
                t = self.m.from_numpy(a.view(np.int32 if a.dtype == np.uint32 else np.int64).copy())
                return t.cuda().view(getattr(self.m, a.dtype.name))
            return self.m.from_numpy(a.copy()).cuda()
        return self.m.asarray(a)

    def get(self, d) -> np.ndarray:
        if self.name == "torch":
            self.m.cuda.synchronize()
            if d.dtype in (getattr(self.m, "uint32", None), getattr(self.m, "uint64", None)):
                u = np.uint32 if d.dtype == self.m.uint32 else np.uint64
                return d.view(self.m.int32 if u == np.uint32 else self.m.int64).cpu().numpy().view(u)
            return d.cpu().numpy()
        self.m.cuda.runtime.deviceSynchronize()
        return self.m.asnumpy(d)


@pytest.fixture(params=["torch", "cupy"])
def lib(request):
    return Lib(request.param)


def bits(a):
    return a.view(np.uint32) if a.dtype == np.float32 else a.view(np.uint64) if a.dtype == np.float64 else a


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_device_sort_and_pairs_match_the_reference(lib, dtype, descending):
    if not lib.has(dtype):
        pytest.skip(f"{lib.name} has no {np.dtype(dtype).name}")
    for pattern in PATTERNS:
        for n in SIZES:
            keys = make_keys(dtype, n, pattern, seed=11)
            perm = expected_perm(keys, descending)  # total order: sort_pairs, float_order="total"
            lib_perm = expected_perm(keys, descending, lib.floats)
            d = lib.put(keys)
            gpusort.sort(d, descending=descending)
            np.testing.assert_array_equal(bits(lib.get(d)), bits(keys[lib_perm]), err_msg=f"{pattern} n={n}")
            d = lib.put(keys)
            gpusort.sort(d, descending=descending, float_order="total")
            np.testing.assert_array_equal(bits(lib.get(d)), bits(keys[perm]), err_msg=f"total {pattern} n={n}")
            dk, dv = lib.put(keys), lib.put(np.arange(n, dtype=np.int32))
            gpusort.sort_pairs(dk, dv, descending=descending)
            np.testing.assert_array_equal(lib.get(dv), perm, err_msg=f"pairs {pattern} n={n}")
            d = lib.put(keys)
            idx = gpusort.argsort(d, descending=descending)
            assert str(idx.dtype).endswith("int64")
            np.testing.assert_array_equal(lib.get(idx), lib_perm, err_msg=f"argsort {pattern} n={n}")
            np.testing.assert_array_equal(bits(lib.get(d)), bits(keys), err_msg=f"argsort keys {pattern} n={n}")
            idx = gpusort.argsort(d, descending=descending, float_order="total")
            np.testing.assert_array_equal(lib.get(idx), perm, err_msg=f"argsort total {pattern} n={n}")


def test_against_the_libraries_stable_sorts(lib):
    m = lib.m
    for n in (16_384, 1 << 20):
        keys = make_keys(np.float32, n, "few", seed=12)
        d = lib.put(keys)
        if lib.name == "torch":
            want_keys, want_idx = m.sort(d, stable=True)
            got_idx = gpusort.argsort(d)
            assert got_idx.dtype == m.int64
            assert m.equal(got_idx, m.argsort(d, stable=True))
            gpusort.sort(d)
            assert m.equal(d, want_keys) and m.equal(got_idx, want_idx)
        else:
            want_keys, want_idx = m.sort(d), m.argsort(d)  # cupy's sorts are stable radix sorts
            got_idx = gpusort.argsort(d)
            assert got_idx.dtype == m.int64
            assert bool((got_idx == want_idx).all())
            gpusort.sort(d)
            assert bool((d == want_keys).all())


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_float_order_is_the_libraries_own(lib, dtype):
    """NaN and +-0.0 against the library's own stable sorts, both orders (positive NaNs only:
    what each library does with a negative NaN is its own business)."""
    m = lib.m
    pool = np.array([np.nan, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 2.5], dtype=dtype)
    for n in (1, 257, 16_384, (1 << 20) + 7):
        keys = np.random.default_rng(n).choice(pool, n)
        for descending in (False, True):
            d = lib.put(keys)
            if lib.name == "torch":
                want_keys, want_idx = m.sort(d, stable=True, descending=descending)
            elif descending:
                continue  # CuPy sorts ascending only
            else:
                want_keys, want_idx = m.sort(d), m.argsort(d)
            got_idx = lib.get(gpusort.argsort(d, descending=descending))
            np.testing.assert_array_equal(got_idx, lib.get(want_idx), err_msg=f"argsort n={n} {descending=}")
            gpusort.sort(d, descending=descending)
            np.testing.assert_array_equal(bits(lib.get(d)), bits(lib.get(want_keys)), err_msg=f"sort n={n}")
            np.testing.assert_array_equal(got_idx, expected_perm(keys, descending, lib.floats), err_msg=f"n={n}")


def test_argsort_leaves_keys_and_takes_strided_or_grad_inputs(lib):
    keys = make_keys(np.int32, 100_003, "few", seed=13)
    d = lib.put(keys)
    got = lib.get(gpusort.argsort(d[::2]))
    np.testing.assert_array_equal(got, expected_perm(keys[::2]))
    np.testing.assert_array_equal(lib.get(d), keys)
    if lib.name == "torch":
        f = lib.put(keys.astype(np.float32)).requires_grad_()
        np.testing.assert_array_equal(lib.get(gpusort.argsort(f)), expected_perm(keys.astype(np.float32)))


@pytest.mark.parametrize("dtype", [np.uint32, np.float32, np.uint64], ids=lambda d: np.dtype(d).name)
def test_descending_argsort_is_stable(lib, dtype):
    for n in (1000, 100_003):
        keys = make_keys(dtype, n, "specials" if dtype == np.float32 else "few", seed=14)
        d = lib.put(keys)
        got = lib.get(gpusort.argsort(d, descending=True))
        np.testing.assert_array_equal(got, expected_perm(keys, True, lib.floats), err_msg=f"n={n}")
        np.testing.assert_array_equal(lib.get(d), keys)


def test_torch_sort_runs_on_the_callers_stream():
    torch = _torch()
    keys = make_keys(np.uint32, 1 << 22, "random", seed=14)
    x = Lib("torch").put(keys.view(np.int32))  # int32 view: same bits, sorted as int32 here
    original = x.clone()
    gpusort.sort(x.clone())  # warm-up: kernel modules load on first use
    torch.cuda.synchronize()
    s = torch.cuda.Stream()  # non-blocking: the default stream does not wait for it
    with torch.cuda.stream(s):
        torch.cuda._sleep(2_000_000_000)  # about a second of spinning on s, before the sort
        gpusort.sort(x)
    # Copied on the default stream while s still spins: the sort, queued behind the spin on s,
    # has not run. Had it gone to another stream, the copy would (most likely) be sorted.
    snapshot = x.cpu()
    assert torch.equal(snapshot, original.cpu()), "the sort did not wait for the caller's stream"
    s.synchronize()
    got = x.cpu().numpy()
    assert np.all(got[:-1] <= got[1:])


def test_explicit_stream_argument(lib):
    keys = make_keys(np.float32, 300_001, "random", seed=15)
    d = lib.put(keys)
    if lib.name == "torch":
        s = lib.m.cuda.Stream()
        s.wait_stream(lib.m.cuda.current_stream())
        for stream in (s, s.cuda_stream):
            gpusort.sort(d, stream=stream)
            idx = gpusort.argsort(d, stream=stream)
        s.synchronize()
    else:
        s = lib.m.cuda.Stream(non_blocking=True)
        lib.m.cuda.get_current_stream().synchronize()
        for stream in (s, s.ptr):
            gpusort.sort(d, stream=stream)
            idx = gpusort.argsort(d, stream=stream)
        s.synchronize()
    np.testing.assert_array_equal(bits(lib.get(d)), bits(np.sort(keys)))
    np.testing.assert_array_equal(lib.get(idx), np.arange(keys.size))


def refused(lib, call, exc, *arrays, match=None):
    before = [lib.get(a).copy() for a in arrays]
    with pytest.raises(exc, match=match):
        call()
    for a, b in zip(arrays, before):
        np.testing.assert_array_equal(lib.get(a), b, err_msg="a refused array was modified")


def test_bad_device_arrays_are_refused_untouched(lib):
    m = lib.m
    keys = make_keys(np.int32, 10_000, "random", seed=16)
    d = lib.put(keys)
    other = lib.put(keys.astype(np.complex64))
    refused(lib, lambda: gpusort.sort(other), TypeError, other, match="dtype")
    refused(lib, lambda: gpusort.sort(d.reshape(100, 100)), ValueError, d, match="1-D")
    refused(lib, lambda: gpusort.sort(d[::2]), ValueError, d, match="contiguous")
    v = lib.put(np.arange(9_999, dtype=np.int32))
    refused(lib, lambda: gpusort.sort_pairs(d, v), ValueError, d, v, match="one value per key")
    refused(lib, lambda: gpusort.sort_pairs(d, keys.copy()), TypeError, d, match="one is a CUDA array")
    refused(lib, lambda: gpusort.sort_pairs(d, d), gpusort.InvalidArgumentError, d, match="overlap")
    refused(lib, lambda: gpusort.Sorter("cpu").sort(d), gpusort.UnsupportedError, d)
    if lib.name == "torch":
        g = lib.put(keys.astype(np.float32)).requires_grad_()
        with pytest.raises(ValueError, match="requires grad"):
            gpusort.sort(g)
        host = m.from_numpy(keys.copy())
        gpusort.sort(host)  # a CPU tensor sorts on the host (test_half.py has more)
        assert bool((host[1:] >= host[:-1]).all())


class Raw:
    """A hand-made interface over a library array, to present bad pointers and lengths."""

    def __init__(self, ptr, n, typestr="<i4"):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (ptr, False), "version": 2}


def _ptr(lib, d):
    return d.data_ptr() if lib.name == "torch" else d.data.ptr


def test_driver_checks_refuse_bad_pointers(lib):
    keys = make_keys(np.int32, 4096, "random", seed=17)
    d = lib.put(keys)
    p = _ptr(lib, d)
    cases = [
        (Raw(p + 2, 100), "aligned"),
        (Raw(p, 1 << 30), "past the end"),
        (Raw(keys.ctypes.data, 4096), "not CUDA device memory"),
    ]
    for raw, match in cases:
        refused(lib, lambda: gpusort.sort(raw), gpusort.InvalidArgumentError, d, match=match)
    # A valid interface works, on the legacy default stream.
    gpusort.sort(Raw(p, 4096))
    np.testing.assert_array_equal(lib.get(d), np.sort(keys))


def test_arrays_on_another_device_are_refused(lib):
    count = lib.m.cuda.device_count() if lib.name == "torch" else lib.m.cuda.runtime.getDeviceCount()
    if count < 2:
        pytest.skip("one CUDA device")
    keys = make_keys(np.int32, 10_000, "random", seed=18)
    if lib.name == "torch":
        d = lib.m.from_numpy(keys.copy()).to("cuda:1")
    else:
        with lib.m.cuda.Device(1):
            d = lib.m.asarray(keys)
    with pytest.raises(gpusort.InvalidArgumentError, match="device 1"):
        gpusort.Sorter("cuda", device=0).sort(d, stream=0)
    assert (lib.get(d) == keys).all()
    s1 = gpusort.Sorter("cuda", device=1)
    if lib.name == "torch":
        before = lib.m.cuda.current_device()
        s1.sort(d)
        assert lib.m.cuda.current_device() == before, "sorting on device 1 moved the caller's device"
    else:
        with lib.m.cuda.Device(1):
            s1.sort(d)
    assert (lib.get(d) == np.sort(keys)).all()
