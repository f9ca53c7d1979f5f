"""sort_segments of CUDA arrays of PyTorch and CuPy: sorted on the device, segment by segment,
against NumPy (per segment, the stable argsort of each key's rank, values following their keys)
and the exact stable permutation of test_segments.py: 32- and 64-bit key dtypes, both orders,
keys alone and with values, empty and single segments, many short segments and a few long ones,
NaN and -0.0 in total order; offsets given on the host (uploaded by the keys' library) or on the
device; on the caller's stream; and every refused argument with the arrays left as they were.
Skipped where there is no CUDA device or neither library is installed."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort
from conftest import KEY_DTYPES, PATTERNS, has_cuda, make_keys, rank, values_for

if not has_cuda():
    pytest.skip("no CUDA device", allow_module_level=True)

from test_device import Lib, Raw, _ptr, bits, refused  # noqa: E402 - they need a device
from test_segments import offsets_for, segment_perm  # noqa: E402

KEYS_32 = [d for d in KEY_DTYPES if np.dtype(d).itemsize == 4]
# 64-bit keys take another route on the device (positions sorted by key, then by segment).
KEYS_64 = [d for d in KEY_DTYPES if np.dtype(d).itemsize == 8]
SIZES = [0, 1, 2, 3, 8, 255, 256, 257, 2049, 4099, 65537]
# As in test_segments.py: a positive cut is a row length, the others are named; 2048 and 4099
# reach the one-block and radix kernels.
CUTS = ["one", "random", "empty ends", 1, 2, 17, 256, 2048, 4099]


@pytest.fixture(params=["torch", "cupy"])
def lib(request):
    return Lib(request.param)


def offsets_as(lib, offsets: np.ndarray, form: int):
    """``offsets`` in one of four forms: a list, int64 NumPy, int64 on the device, uint64 on it."""
    form %= 4
    if form == 0:
        return [int(x) for x in offsets]
    if form == 1:
        return offsets.astype(np.int64)
    if form == 2 or not lib.has(np.uint64):
        return lib.put(offsets.astype(np.int64))
    return lib.put(offsets.astype(np.uint64))


def check_per_segment(keys, offsets, got_keys, got_values, descending, where):
    """Each segment against NumPy: its stable argsort by rank (floats in total order), values
    (positions 0..n) following their keys."""
    pieces = [s + np.argsort(rank(keys[s:e], descending), kind="stable") for s, e in zip(offsets[:-1], offsets[1:])]
    want = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    np.testing.assert_array_equal(bits(got_keys), bits(keys[want]), err_msg=f"keys, {where}")
    np.testing.assert_array_equal(got_values, want, err_msg=f"values, {where}")


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", KEYS_32 + KEYS_64, ids=lambda d: np.dtype(d).name)
def test_device_segments_are_each_sorted_stably(lib, dtype, descending):
    if not lib.has(dtype):
        pytest.skip(f"{lib.name} has no {np.dtype(dtype).name}")
    form = 0
    for n in SIZES:
        for cut in CUTS:
            pattern = PATTERNS[(n + len(str(cut))) % len(PATTERNS)]
            keys = make_keys(dtype, n, pattern, seed=31)
            offsets = offsets_for(n, cut, seed=n)
            perm = segment_perm(keys, offsets, descending)
            where = f"n={n}, cut={cut}, {pattern}"
            dk, dv = lib.put(keys), lib.put(values_for(n))
            form += 1
            gpusort.sort_segments(dk, offsets_as(lib, offsets, form), dv, descending=descending)
            np.testing.assert_array_equal(bits(lib.get(dk)), bits(keys[perm]), err_msg=f"keys, {where}")
            np.testing.assert_array_equal(lib.get(dv), values_for(n)[perm], err_msg=f"values, {where}")
            alone = lib.put(keys)
            gpusort.sort_segments(alone, offsets_as(lib, offsets, form + 1), descending=descending)
            np.testing.assert_array_equal(bits(lib.get(alone)), bits(keys[perm]), err_msg=f"keys alone, {where}")


@pytest.mark.parametrize("dtype", KEYS_32 + KEYS_64, ids=lambda d: np.dtype(d).name)
def test_many_short_and_a_few_long_segments_equal_numpy(lib, dtype):
    if not lib.has(dtype):
        pytest.skip(f"{lib.name} has no {np.dtype(dtype).name}")
    rng = np.random.default_rng(41)
    short = np.concatenate([[0], np.cumsum(rng.integers(0, 51, 10_000))])  # 10000 of 0 to 50 keys
    n = 1 << 20
    long = np.array([0, 1, 600_001, n])  # a segment of one key, then two long ones
    for offsets in (short, long):
        n = int(offsets[-1])
        pattern = "specials" if dtype in (np.float32, np.float64) else "few"
        keys = make_keys(dtype, n, pattern, seed=len(offsets))
        for descending in (False, True):
            dk, dv = lib.put(keys), lib.put(np.arange(n, dtype=np.uint32))
            gpusort.sort_segments(dk, offsets, dv, descending)
            where = f"{len(offsets) - 1} segments, descending={descending}"
            check_per_segment(keys, offsets, lib.get(dk), lib.get(dv), descending, where)
            alone = lib.put(keys)
            gpusort.sort_segments(alone, lib.put(offsets.astype(np.int64)), descending=descending)
            np.testing.assert_array_equal(bits(lib.get(alone)), bits(lib.get(dk)), err_msg=f"keys alone, {where}")


def test_nan_and_negative_zero_in_total_order(lib):
    pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0], dtype=np.float32)
    keys = np.tile(pool, 64)
    offsets = np.arange(0, keys.size + 1, 32)
    for descending in (False, True):
        dk, dv = lib.put(keys), lib.put(np.arange(keys.size, dtype=np.int32))
        gpusort.sort_segments(dk, offsets, dv, descending=descending)
        got = lib.get(dk)
        check_per_segment(keys, offsets, got, lib.get(dv), descending, f"descending={descending}")
        first = got[:32].view(np.uint32)
        # -NaN < -inf < -1 < -0.0 < +0.0 < 1 < inf < NaN, four of each per segment.
        want = pool[[1, 3, 7, 5, 4, 6, 2, 0]].repeat(4).view(np.uint32)
        np.testing.assert_array_equal(first, want[::-1] if descending else want)


def test_values_of_every_32_bit_dtype_move_bit_for_bit(lib):
    keys = make_keys(np.int32, 5000, "few", seed=42)
    offsets = offsets_for(5000, 17)
    perm = segment_perm(keys, offsets, True)
    for value_dtype in (np.uint32, np.int32, np.float32):
        values = values_for(5000, value_dtype)
        dk, dv = lib.put(keys), lib.put(values)
        gpusort.sort_segments(dk, offsets, dv, descending=True)
        np.testing.assert_array_equal(lib.get(dv).view(np.uint32), values.view(np.uint32)[perm])


def test_offsets_in_every_form(lib):
    keys = np.array([3, 1, 2, 9, 7, 5], dtype=np.int32)
    want = [1, 2, 3, 7, 9, 5]
    forms = [[0, 3, 5, 6], (0, 3, 5, 6), np.array([0, 3, 5, 6], dtype=np.uint8),
             np.array([0, 0, 3, 5, 6, 6], dtype=np.uint64), lib.put(np.array([0, 3, 5, 6], dtype=np.int64))]
    if lib.name == "torch":
        forms.append(lib.m.tensor([0, 3, 5, 6]))  # a CPU tensor: host offsets
    if lib.has(np.uint64):
        forms.append(lib.put(np.array([0, 3, 3, 5, 6], dtype=np.uint64)))
    dev = lib.put(np.array([0, 3, 5, 6], dtype=np.int64))
    forms.append(Raw(_ptr(lib, dev), 4, "<i8"))  # any __cuda_array_interface__ on the device
    for offsets in forms:
        d = lib.put(keys)
        gpusort.sort_segments(d, offsets)
        assert lib.get(d).tolist() == want, type(offsets)
    d = lib.put(keys)
    gpusort.sort_segments(d, range(0, 7, 3))
    assert lib.get(d).tolist() == [1, 2, 3, 5, 7, 9]


def test_empty_and_single_keys(lib):
    for dtype in KEYS_32:
        empty = lib.put(np.zeros(0, dtype=dtype))
        gpusort.sort_segments(empty, [0])
        gpusort.sort_segments(empty, [0, 0, 0], lib.put(np.zeros(0, dtype=np.uint32)), descending=True)
        gpusort.sort_segments(empty, lib.put(np.zeros(1, dtype=np.int64)))
        for bad in ([], [0, 1], lib.put(np.zeros(0, dtype=np.int64))):
            with pytest.raises(gpusort.InvalidArgumentError):
                gpusort.sort_segments(empty, bad)
        one, v = lib.put(np.ones(1, dtype=dtype)), lib.put(np.array([7], dtype=np.uint32))
        gpusort.sort_segments(one, [0, 1], v)
        assert lib.get(one).tolist() == [1] and lib.get(v).tolist() == [7]


def test_every_sorter_and_algorithm_sorts_segments_stably_on_the_device(lib):
    keys = make_keys(np.float32, 100_003, "few", seed=43)
    offsets = offsets_for(100_003, "random", seed=44)
    perm = segment_perm(keys, offsets, False)
    for sorter in (gpusort.Sorter("cuda"), gpusort.Sorter("auto"), gpusort.Sorter("cuda", algorithm="bitonic")):
        dk, dv = lib.put(keys), lib.put(values_for(100_003))
        sorter.sort_segments(dk, offsets, dv)
        np.testing.assert_array_equal(lib.get(dv), values_for(100_003)[perm], err_msg=repr(sorter))


def test_segments_run_on_the_callers_stream():
    lib = Lib("torch")
    torch = lib.m
    old = make_keys(np.int32, 1 << 20, "random", seed=45)
    new = make_keys(np.int32, 1 << 20, "random", seed=46)
    offsets = offsets_for(1 << 20, 1009)
    x, y = lib.put(old), lib.put(new)
    gpusort.sort_segments(x.clone(), offsets)  # warm-up: kernel modules load on first use
    torch.cuda.synchronize()
    s = torch.cuda.Stream()  # non-blocking: the default stream does not wait for it
    with torch.cuda.stream(s):
        torch.cuda._sleep(1_000_000_000)  # about half a second of spinning on s
        x.copy_(y)
        gpusort.sort_segments(x, offsets, descending=True)
    # Had the sort gone to another stream (or the offsets' upload), it would have sorted the old
    # keys (most likely) while s still spun.
    s.synchronize()
    np.testing.assert_array_equal(lib.get(x), new[segment_perm(new, offsets, True)])


def test_explicit_stream_argument(lib):
    keys = make_keys(np.float32, 300_001, "random", seed=47)
    offsets = offsets_for(300_001, 1000)
    perm = segment_perm(keys, offsets, False)
    arrays = [(lib.put(keys), lib.put(values_for(300_001))) for _ in range(2)]
    if lib.name == "torch":
        s = lib.m.cuda.Stream()
        s.wait_stream(lib.m.cuda.current_stream())
        streams = (s, s.cuda_stream)
    else:
        s = lib.m.cuda.Stream(non_blocking=True)
        lib.m.cuda.get_current_stream().synchronize()
        streams = (s, s.ptr)
    for i, ((dk, dv), stream) in enumerate(zip(arrays, streams)):
        gpusort.sort_segments(dk, offsets if i == 0 else offsets.tolist(), dv, stream=stream)
    s.synchronize()
    for dk, dv in arrays:
        np.testing.assert_array_equal(bits(lib.get(dk)), bits(keys[perm]))
        np.testing.assert_array_equal(lib.get(dv), values_for(300_001)[perm])


BAD_OFFSETS = {
    "empty": ([], "empty"),
    "not from 0": ([1, 1000], "start at 0"),
    "short of n": ([0, 500, 999], "end at the 1000 keys"),
    "past n": ([0, 1001], "end at the 1000 keys"),
    "falling": ([0, 600, 400, 1000], "never fall"),
    "2^64 - 1": (np.array([0, 2**64 - 1, 1000], dtype=np.uint64), "never fall"),
}


@pytest.mark.parametrize("case", BAD_OFFSETS, ids=list(BAD_OFFSETS))
def test_bad_offsets_are_refused_untouched(lib, case):
    offsets, match = BAD_OFFSETS[case]
    for dtype in [d for d in KEYS_32 + KEYS_64 if lib.has(d)]:
        k, v = lib.put(make_keys(dtype, 1000, "random", seed=48)), lib.put(np.arange(1000, dtype=np.uint32))
        on_device = lib.put(np.asarray(offsets, dtype=np.uint64).view(np.int64))
        for o in (offsets, on_device):
            refused(lib, lambda: gpusort.sort_segments(k, o, v), gpusort.InvalidArgumentError, k, v, match=match)
            refused(lib, lambda: gpusort.sort_segments(k, o), gpusort.InvalidArgumentError, k, match=match)


def test_bad_arrays_are_refused_untouched(lib):
    keys = make_keys(np.int32, 1000, "random", seed=49)
    k, v = lib.put(keys), lib.put(np.arange(1000, dtype=np.uint32))
    o = [0, 500, 1000]

    def seg(*args, **kw):
        return lambda: gpusort.sort_segments(*args, **kw)

    # Offsets: the host ones as for host keys, the device ones 1-D contiguous int64 or uint64.
    refused(lib, seg(k, [0, -1, 1000], v), ValueError, k, v, match="negative")
    refused(lib, seg(k, [0.0, 1000.0], v), TypeError, k, v, match="dtype float64")
    refused(lib, seg(k, lib.put(np.array(o, dtype=np.int32)), v), TypeError, k, v, match="int64 or uint64")
    refused(lib, seg(k, lib.put(np.array([0, 0, 500, 1000], dtype=np.int64)).reshape(2, 2)), ValueError, k, match="1-D")
    refused(lib, seg(k, lib.put(np.array([0, 9, 500, 9, 1000], dtype=np.int64))[::2]), ValueError, k,
            match="contiguous")
    # Keys and values: one library's CUDA arrays together, 32-bit values, one per key, apart.
    refused(lib, seg(k, o, keys.astype(np.uint32)), TypeError, k, match="one is a CUDA array")
    refused(lib, seg(keys.copy(), o, v), TypeError, v, match="one is a CUDA array")
    refused(lib, seg(keys.copy(), lib.put(np.array(o, dtype=np.int64))), TypeError, match="host arrays take host")
    refused(lib, seg(k, o, lib.put(np.arange(999, dtype=np.uint32))), ValueError, k, match="999 values")
    refused(lib, seg(k, o, lib.put(np.arange(1000, dtype=np.int64))), TypeError, k, match="value type")
    refused(lib, seg(k, o, k), gpusort.InvalidArgumentError, k, match="overlap")
    refused(lib, seg(lib.put(keys.astype(np.complex64)), o), TypeError, match="dtype")
    refused(lib, seg(k.reshape(10, 100), o), ValueError, k, match="1-D")
    refused(lib, seg(k, o, v, stream="s"), TypeError, k, v, match="stream")
    refused(lib, lambda: gpusort.Sorter("cpu").sort_segments(k, o, v), gpusort.UnsupportedError, k, v)
    # Only a library uploads host offsets; any CUDA array takes device offsets.
    raw = Raw(_ptr(lib, k), 1000)
    refused(lib, seg(raw, o), TypeError, k, match="no torch.Tensor or cupy.ndarray")
    if lib.name == "torch":
        g = lib.put(keys.astype(np.float32)).requires_grad_()
        with pytest.raises(ValueError, match="requires grad"):
            gpusort.sort_segments(g, o)


@pytest.mark.parametrize("dtype", KEYS_64, ids=lambda d: np.dtype(d).name)
def test_64_bit_keys_equal_numpy_on_the_device(lib, dtype):
    if not lib.has(dtype):
        pytest.skip(f"{lib.name} has no {np.dtype(dtype).name}")
    pattern = "specials" if dtype == np.float64 else "random"
    keys = make_keys(dtype, 70_001, pattern, seed=50)
    # Empty segments at both ends and inside, one key each, and the rest of random lengths.
    offsets = np.concatenate([[0, 0, 1, 1, 2], offsets_for(69_999, "random", seed=50)[1:] + 2, [70_001]])
    for descending in (False, True):
        dk, dv = lib.put(keys), lib.put(np.arange(70_001, dtype=np.uint32))
        gpusort.sort_segments(dk, offsets, dv, descending=descending)
        where = f"{np.dtype(dtype).name}, descending={descending}"
        check_per_segment(keys, offsets, lib.get(dk), lib.get(dv), descending, where)
        alone = lib.put(keys)
        gpusort.sort_segments(alone, offsets, descending=descending)
        np.testing.assert_array_equal(bits(lib.get(alone)), bits(lib.get(dk)), err_msg=f"keys alone, {where}")


def test_arrays_on_another_device_are_refused(lib):
    count = lib.m.cuda.device_count() if lib.name == "torch" else lib.m.cuda.runtime.getDeviceCount()
    if count < 2:
        pytest.skip("one CUDA device")
    keys = make_keys(np.int32, 10_000, "random", seed=51)
    offsets = offsets_for(10_000, 100)
    if lib.name == "torch":
        d = lib.m.from_numpy(keys.copy()).to("cuda:1")
    else:
        with lib.m.cuda.Device(1):
            d = lib.m.asarray(keys)
    on_device_0 = gpusort.Sorter("cuda", device=0)
    refused(lib, lambda: on_device_0.sort_segments(d, offsets), gpusort.InvalidArgumentError, d, match="device 1")
    gpusort.Sorter("cuda", device=1).sort_segments(d, offsets)
    np.testing.assert_array_equal(lib.get(d), keys[segment_perm(keys, offsets, False)])
