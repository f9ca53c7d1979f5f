"""top_k of CUDA arrays of PyTorch and CuPy: selected on the device into new arrays of the same
library on the same device, against the references of test_topk.py (the exact stable
permutation of conftest and NumPy's stable argsort: every dtype, pattern and edge size, k from 0
to n, both orders, NaN and -0.0 in total order, ties), on the caller's stream, and every refused
argument with the array left as it was. Skipped where there is no CUDA device or neither library
is installed."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort
from conftest import KEY_DTYPES, PATTERNS, expected_perm, has_cuda, make_keys

if not has_cuda():
    pytest.skip("no CUDA device", allow_module_level=True)

from test_device import Lib, Raw, _ptr, bits, refused  # noqa: E402 - they need a device
from test_topk import FLOATS, TOPK_SIZES, ks_for, numpy_first_k  # noqa: E402


@pytest.fixture(params=["torch", "cupy"])
def lib(request):
    return Lib(request.param)


def skip_missing(lib, dtype):
    if not lib.has(dtype):
        pytest.skip(f"{lib.name} has no {np.dtype(dtype).name}")


def check_on_device(lib, d, got, k):
    """Two arrays of ``d``'s library on ``d``'s device: ``k`` keys of its dtype and ``k`` int64."""
    values, indices = got
    m = lib.m
    if lib.name == "torch":
        assert isinstance(values, m.Tensor) and isinstance(indices, m.Tensor)
        assert values.device == d.device and indices.device == d.device
        assert not values.requires_grad
    else:
        assert isinstance(values, m.ndarray) and isinstance(indices, m.ndarray)
        assert values.device.id == d.device.id and indices.device.id == d.device.id
    assert values.dtype == d.dtype and indices.dtype == m.int64
    assert tuple(values.shape) == (k,) and tuple(indices.shape) == (k,)


def check_top(lib, a, d, got, perm, k, where):
    """``got`` is the first ``k`` of ``perm`` (the stable permutation of the host keys ``a``)."""
    check_on_device(lib, d, got, k)
    values, indices = got
    np.testing.assert_array_equal(lib.get(indices), perm[:k], err_msg=f"indices, {where}")
    np.testing.assert_array_equal(bits(lib.get(values)), bits(a[perm[:k]]), err_msg=f"values, {where}")


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_device_top_k_is_the_first_k_of_the_stable_sort(lib, dtype, descending):
    skip_missing(lib, dtype)
    for n in TOPK_SIZES:
        for pattern in PATTERNS:
            a = make_keys(dtype, n, pattern, seed=5)
            perm = expected_perm(a, descending)
            d = lib.put(a)
            for k in ks_for(n):
                got = gpusort.top_k(d, k, descending=descending)
                check_top(lib, a, d, got, perm, k, f"n={n}, k={k}, {pattern}")
            np.testing.assert_array_equal(bits(lib.get(d)), bits(a), err_msg=f"the keys changed (n={n}, {pattern})")


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_device_top_k_equals_numpy(lib, dtype, descending):
    skip_missing(lib, dtype)
    for pattern in ("random", "equal", "extremes", "few"):
        # No NaN and no -0.0 here, where NumPy's order and IEEE total order differ.
        a = make_keys(dtype, 100_003, pattern, seed=9)
        d = lib.put(a)
        for k in (1, 10, 1000, 4096, 50_000, 100_003):
            want = numpy_first_k(a, k, descending)
            values, indices = gpusort.top_k(d, k, descending)
            np.testing.assert_array_equal(lib.get(indices), want, err_msg=f"{pattern} k={k}")
            np.testing.assert_array_equal(lib.get(values), a[want], err_msg=f"{pattern} k={k}")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_nan_and_negative_zero_in_total_order(lib, dtype):
    a = np.array([0.5, np.nan, -0.0, 0.0, -np.inf, 0.5, -np.nan, np.inf], dtype=dtype)
    d = lib.put(a)
    values, indices = gpusort.top_k(d, 5)
    assert lib.get(indices).tolist() == [6, 4, 2, 3, 0], "-NaN smallest, then -inf, and -0.0 before 0.0"
    np.testing.assert_array_equal(bits(lib.get(values)), bits(a[[6, 4, 2, 3, 0]]))
    values, indices = gpusort.top_k(d, 4, descending=True)
    assert lib.get(indices).tolist() == [1, 7, 0, 5], "NaN largest, then inf, then the two 0.5 in order"
    np.testing.assert_array_equal(bits(lib.get(values)), bits(a[[1, 7, 0, 5]]))
    np.testing.assert_array_equal(bits(lib.get(d)), bits(a))


@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_k_zero_k_n_and_empty_arrays(lib, dtype):
    skip_missing(lib, dtype)
    a = make_keys(dtype, 4099, "few", seed=1)
    d = lib.put(a)
    check_on_device(lib, d, gpusort.top_k(d, 0), 0)
    for descending in (False, True):
        got = gpusort.top_k(d, len(a), descending)
        check_top(lib, a, d, got, expected_perm(a, descending), len(a), f"k = n, descending={descending}")
    empty = lib.put(np.zeros(0, dtype=dtype))
    check_on_device(lib, empty, gpusort.top_k(empty, 0, descending=True), 0)
    one = lib.put(a[:1])
    check_top(lib, a[:1], one, gpusort.top_k(one, 1), np.array([0]), 1, "one key")


def test_every_sorter_and_algorithm_gives_the_stable_first_k(lib):
    a = make_keys(np.float64, 5000, "few", seed=6)
    d = lib.put(a)
    perm = expected_perm(a)
    for algorithm in ("auto", "radix", "bitonic", "odd_even_merge"):
        for backend in ("auto", "cuda"):
            got = gpusort.Sorter(backend, algorithm=algorithm).top_k(d, 300)
            check_top(lib, a, d, got, perm, 300, f"{backend}, {algorithm}")


def test_inputs_only_read_strided_grad_and_any_integer_k(lib):
    a = make_keys(np.int64, 10_000, "few", seed=3)
    d = lib.put(a)
    perm = expected_perm(a, True)
    for k in (np.int64(5), np.uint8(5), 5):
        check_top(lib, a, d, gpusort.top_k(d, k, True), perm, 5, f"k of {type(k).__name__}")
    f = make_keys(np.float32, 20_000, "random", seed=4)
    df = lib.put(f)
    strided = df[::2]
    check_top(lib, f[::2], strided, gpusort.top_k(strided, 100), expected_perm(f[::2]), 100, "strided view")
    if lib.name == "cupy":
        reverse = df[::-1]
        got = gpusort.top_k(reverse, 2500, True)
        check_top(lib, f[::-1], reverse, got, expected_perm(f[::-1], True), 2500, "reversed view")
    else:
        g = df.clone().requires_grad_()
        check_top(lib, f, g, gpusort.top_k(g, 77), expected_perm(f), 77, "requires grad")
        assert g.grad is None
    np.testing.assert_array_equal(lib.get(d), a)
    np.testing.assert_array_equal(bits(lib.get(df)), bits(f))
    values, indices = gpusort.top_k(d, 3)
    values[0], indices[0] = 7, 7  # the caller's own arrays, writable
    np.testing.assert_array_equal(lib.get(d), a)


def test_top_k_runs_on_the_callers_stream():
    lib = Lib("torch")
    torch = lib.m
    old = make_keys(np.float32, 1 << 22, "random", seed=20)
    new = make_keys(np.float32, 1 << 22, "random", seed=21)
    x, y = lib.put(old), lib.put(new)
    gpusort.top_k(x, 1000)  # warm-up: kernel modules load on first use
    torch.cuda.synchronize()
    s = torch.cuda.Stream()  # non-blocking: the default stream does not wait for it
    with torch.cuda.stream(s):
        torch.cuda._sleep(2_000_000_000)  # about a second of spinning on s
        x.copy_(y)
        got = gpusort.top_k(x, 1000, descending=True)
    # Had the selection gone to another stream, it would have read the old keys (most likely)
    # while s still spun.
    s.synchronize()
    check_top(lib, new, x, got, expected_perm(new, True), 1000, "after the copy on s")


def test_explicit_stream_argument(lib):
    a = make_keys(np.float32, 300_001, "random", seed=15)
    d = lib.put(a)
    perm = expected_perm(a, True)
    if lib.name == "torch":
        s = lib.m.cuda.Stream()
        s.wait_stream(lib.m.cuda.current_stream())
        streams = (s, s.cuda_stream)
    else:
        s = lib.m.cuda.Stream(non_blocking=True)
        lib.m.cuda.get_current_stream().synchronize()
        streams = (s, s.ptr)
    results = [gpusort.top_k(d, 4097, True, stream=stream) for stream in streams]
    s.synchronize()
    for got in results:
        check_top(lib, a, d, got, perm, 4097, "stream=")


def test_bad_device_arrays_and_k_are_refused_untouched(lib):
    a = make_keys(np.int32, 10_000, "random", seed=16)
    d = lib.put(a)
    other = lib.put(a.astype(np.complex64))
    refused(lib, lambda: gpusort.top_k(other, 1), TypeError, other, match="dtype")
    refused(lib, lambda: gpusort.top_k(d.reshape(100, 100), 1), ValueError, d, match="1-D")
    cases = [
        (10_001, gpusort.InvalidArgumentError, "top 10001 of 10000 keys"),
        (-1, gpusort.InvalidArgumentError, "top -1 of 10000 keys"),
        (2**64, gpusort.InvalidArgumentError, "top 18446744073709551616 of 10000"),
        (3.0, TypeError, "k: an integer is required, not float"),
        (None, TypeError, "not NoneType"),
    ]
    for k, exc, match in cases:
        refused(lib, lambda: gpusort.top_k(d, k), exc, d, match=match)
    empty = lib.put(np.zeros(0, dtype=np.int32))
    refused(lib, lambda: gpusort.top_k(empty, 1), gpusort.InvalidArgumentError, match="top 1 of 0 keys")
    refused(lib, lambda: gpusort.Sorter("cpu").top_k(d, 1), gpusort.UnsupportedError, d)
    refused(lib, lambda: gpusort.top_k(d, 1, stream="s"), TypeError, d, match="stream")
    raw = Raw(_ptr(lib, d), 10_000)
    refused(lib, lambda: gpusort.top_k(raw, 1), TypeError, d, match="torch.Tensor or a cupy.ndarray")


def test_arrays_on_another_device_are_refused(lib):
    count = lib.m.cuda.device_count() if lib.name == "torch" else lib.m.cuda.runtime.getDeviceCount()
    if count < 2:
        pytest.skip("one CUDA device")
    a = make_keys(np.int32, 10_000, "random", seed=18)
    if lib.name == "torch":
        d = lib.m.from_numpy(a.copy()).to("cuda:1")
    else:
        with lib.m.cuda.Device(1):
            d = lib.m.asarray(a)
    on_device_0 = gpusort.Sorter("cuda", device=0)
    refused(lib, lambda: on_device_0.top_k(d, 5), gpusort.InvalidArgumentError, d, match="device 1")
    got = gpusort.Sorter("cuda", device=1).top_k(d, 5)
    check_top(lib, a, d, got, expected_perm(a), 5, "device 1")
