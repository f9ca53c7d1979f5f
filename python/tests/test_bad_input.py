"""Every refused argument raises the promised exception and leaves the arrays as they were."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort


def unsorted(dtype=np.uint32, n=1000):
    return (np.arange(n, dtype=np.uint64) * 2654435761 % 1000).astype(dtype)


def read_only(a):
    a.flags.writeable = False
    return a


def check_refused(call, exc, *arrays, match=None):
    """``call()`` raises ``exc`` and changes none of ``arrays`` (compared byte for byte)."""
    before = [a.tobytes() for a in arrays]
    with pytest.raises(exc, match=match):
        call()
    for a, b in zip(arrays, before):
        assert a.tobytes() == b, "a refused array was modified"


BAD_KEYS = {
    # name: (array, exception, message pattern)
    # int8, uint16 and the other small integers (test_small_keys.py) and float16 (test_half.py)
    # are key types.
    "complex64": (unsorted(np.complex64), TypeError, "dtype complex64"),
    "big-endian float16": (unsorted(np.dtype(">f2")), TypeError, "native byte order"),
    "timedelta64": (unsorted(np.dtype("m8[s]")), TypeError, "dtype timedelta64"),
    "bool": (np.ones(10, dtype=bool), TypeError, "dtype bool"),
    "object": (np.array([3, 1, 2], dtype=object), TypeError, "dtype object"),
    "big-endian": (unsorted(np.dtype(">u4")), TypeError, "native byte order"),
    "2-D": (unsorted().reshape(10, 100), ValueError, "1-D"),
    "0-D": (np.array(5, dtype=np.uint32), ValueError, "1-D"),
    "strided": (unsorted(n=2000)[::2], ValueError, "contiguous"),
    "reversed view": (unsorted()[::-1], ValueError, "contiguous"),
    "read-only": (read_only(unsorted()), ValueError, "read-only"),
    "read-only float": (read_only(unsorted(np.float32)), ValueError, "read-only"),
}


# sort takes C-contiguous N-D arrays (each row sorted: test_segments.py), not other layouts.
BAD_SORT = {name: case for name, case in BAD_KEYS.items() if name != "2-D"}
BAD_SORT["2-D, Fortran order"] = (unsorted().reshape(10, 100).T, ValueError, "contiguous")
BAD_SORT["2-D, strided rows"] = (unsorted(n=2000).reshape(10, 200)[:, ::2], ValueError, "contiguous")
BAD_SORT["2-D, read-only"] = (read_only(unsorted().reshape(10, 100)), ValueError, "read-only")
BAD_SORT["2-D, complex64"] = (unsorted(np.complex64).reshape(10, 100), TypeError, "dtype complex64")


@pytest.mark.parametrize("case", BAD_SORT, ids=list(BAD_SORT))
def test_sort_refuses_bad_arrays(sorter, case):
    a, exc, match = BAD_SORT[case]
    check_refused(lambda: sorter.sort(a), exc, a, match=match)


@pytest.mark.parametrize("case", BAD_KEYS, ids=list(BAD_KEYS))
def test_sort_pairs_refuses_bad_keys(case):
    a, exc, match = BAD_KEYS[case]
    v = np.arange(a.size, dtype=np.uint32).reshape(a.shape) if a.ndim else np.uint32(0)
    v = np.ascontiguousarray(v)
    check_refused(lambda: gpusort.sort_pairs(a, v), exc, a, v, match=match)


@pytest.mark.parametrize("case", BAD_KEYS, ids=list(BAD_KEYS))
def test_sort_pairs_refuses_bad_values(case):
    v, exc, match = BAD_KEYS[case]
    k = unsorted(n=v.size) if v.ndim == 1 else unsorted()
    if exc is TypeError:
        match = "value type"
    check_refused(lambda: gpusort.sort_pairs(k, v), exc, k, v, match=match)


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.bool_, np.complex128, np.float16, "M8[s]"])
def test_values_of_other_dtypes_are_refused(dtype):
    k, v = unsorted(), np.zeros(1000, dtype=dtype)
    check_refused(lambda: gpusort.sort_pairs(k, v), TypeError, k, v, match="value type")


def test_64_bit_values_of_cuda_arrays_are_refused():
    """The device path moves 32-bit values only: 64-bit ones are a TypeError saying so, found
    before anything is read (host memory behind a fake CUDA array shows nothing was written)."""
    k, v = unsorted(), np.arange(1000, dtype=np.uint64)
    check_refused(
        lambda: gpusort.sort_pairs(FakeCudaArray(k), FakeCudaArray(v)), TypeError, k, v, match="host .NumPy. arrays"
    )


def test_mismatched_lengths():
    k, v = unsorted(), np.arange(999, dtype=np.uint32)
    check_refused(lambda: gpusort.sort_pairs(k, v), ValueError, k, v, match="999 values for 1000 keys")


def test_keys_and_values_sharing_memory():
    k = unsorted()
    check_refused(lambda: gpusort.sort_pairs(k, k), ValueError, k, match="shares memory")
    both = unsorted(n=2000)
    overlapping = both[500:1500]
    check_refused(lambda: gpusort.sort_pairs(both[:1000], overlapping), ValueError, both, match="shares memory")
    as_int = k.view(np.int32)
    check_refused(lambda: gpusort.sort_pairs(k, as_int), ValueError, k, match="shares memory")


def test_non_arrays():
    for bad in ([3, 1, 2], (3, 1, 2), "abc", None, 3, memoryview(b"abc")):
        with pytest.raises(TypeError, match="numpy.ndarray"):
            gpusort.sort(bad)
        with pytest.raises(TypeError, match="numpy.ndarray"):
            gpusort.argsort(bad)
    k = unsorted()
    check_refused(lambda: gpusort.sort_pairs(k, list(range(1000))), TypeError, k, match="numpy.ndarray")


def test_argsort_refuses_bad_dtype_and_shape():
    for a, exc in ((unsorted(np.complex64), TypeError), (unsorted().reshape(10, 100), ValueError)):
        check_refused(lambda: gpusort.argsort(a), exc, a)


def test_stream_with_host_arrays():
    a = unsorted()
    check_refused(lambda: gpusort.sort(a, stream=0), ValueError, a, match="stream")
    check_refused(lambda: gpusort.argsort(a, stream=0), ValueError, a, match="stream")


def test_cpu_sorter_refuses_gpu_only_algorithms_and_leaves_data():
    s = gpusort.Sorter("cpu", algorithm="bitonic")
    a = unsorted(n=100_000)
    check_refused(lambda: s.sort(a), gpusort.UnsupportedError, a)
    assert issubclass(gpusort.UnsupportedError, gpusort.GpusortError)


class FakeCudaArray:
    """An object that claims to be a CUDA array but points at host memory."""

    def __init__(self, host: np.ndarray, **changes):
        self.host = host
        self.__cuda_array_interface__ = {
            "shape": host.shape,
            "typestr": host.dtype.str,
            "data": (host.ctypes.data, False),
            "strides": None,
            "version": 3,
            "stream": 1,
            **changes,
        }


def test_cuda_interface_objects_are_checked_before_anything_else():
    h = unsorted()
    cases = [
        (FakeCudaArray(h, typestr="<c8"), TypeError, "typestr"),
        (FakeCudaArray(h, shape=(10, 100)), ValueError, "1-D"),
        (FakeCudaArray(h, strides=(8,)), ValueError, "contiguous"),
        (FakeCudaArray(h, data=(h.ctypes.data, True)), ValueError, "read-only"),
        (FakeCudaArray(h, mask=object()), ValueError, "masked"),
    ]
    for fake, exc, match in cases:
        check_refused(lambda: gpusort.sort(fake), exc, h, match=match)
    # A well-formed interface to host memory: the driver check refuses it, on a GPU sorter with
    # InvalidArgumentError, without one with UnsupportedError (device arrays need a GPU).
    want = (gpusort.InvalidArgumentError, gpusort.UnsupportedError, gpusort.NoDeviceError)
    check_refused(lambda: gpusort.sort(FakeCudaArray(h)), want, h)
    check_refused(lambda: gpusort.Sorter("cpu").sort(FakeCudaArray(h)), gpusort.UnsupportedError, h)
    with pytest.raises(TypeError, match="argsort of device arrays"):
        gpusort.argsort(FakeCudaArray(h))
    v = np.arange(1000, dtype=np.uint32)
    check_refused(lambda: gpusort.sort_pairs(FakeCudaArray(h), v), TypeError, h, v, match="one is a CUDA array")
    # Floats known only by the interface sort in total order; no library to check them for NaN
    # or gather them, so another float order is refused before anything runs.
    f = h.astype(np.float32)
    check_refused(lambda: gpusort.sort(FakeCudaArray(f), float_order="nan_last"), TypeError, f, match="float_order")
    with pytest.raises(TypeError, match="torch.Tensors or cupy.ndarrays"):
        gpusort.lexsort([FakeCudaArray(f)])
