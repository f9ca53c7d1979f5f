"""Sorter construction, its choices and their errors, and the exception classes."""

from __future__ import annotations
import os
import subprocess
import sys

import numpy as np
import pytest

import gpusort
from conftest import has_cuda


def test_backends_and_choices_are_reported():
    s = gpusort.Sorter("cpu", algorithm="radix")
    assert (s.backend, s.algorithm, s.device, s.device_memory_limit) == ("cpu", "radix", None, None)
    assert s.describe().startswith("cpu")
    assert "gpusort.Sorter('cpu'" in repr(s)
    auto = gpusort.Sorter("auto", crossover=1 << 20, device_memory_limit=1 << 30)
    assert auto.backend == "auto" and auto.algorithm == "auto"
    assert isinstance(auto.describe(), str) and auto.describe()
    # The limit applies to a GPU; a sorter without one keeps none.
    assert auto.device_memory_limit == ((1 << 30) if auto.device is not None else None)
    for algorithm in ("auto", "radix", "bitonic", "odd_even_merge"):
        assert gpusort.Sorter("cpu", algorithm=algorithm).algorithm == algorithm


def test_default_sorter_is_one_auto_sorter():
    assert gpusort.default_sorter() is gpusort.default_sorter()
    assert gpusort.default_sorter().backend == "auto"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(backend="gpu"), "'auto', 'cpu' or 'cuda'"),
        (dict(backend="cpu", algorithm="quick"), "algorithm"),
        (dict(backend="cpu", crossover=10), "crossover"),
        (dict(backend="auto", device=0), "device"),
        (dict(backend="cpu", devices=[0, 1]), "devices"),
        (dict(backend="auto", multi_gpu_from=1), "devices"),
        (dict(backend="cuda", devices=[]), "empty"),
        (dict(backend="cuda", device=0, devices=[0]), "not both"),
    ],
)
def test_bad_choices_raise_value_error(kwargs, match):
    backend = kwargs.pop("backend")
    with pytest.raises(ValueError, match=match):
        gpusort.Sorter(backend, **kwargs)


def test_negative_sizes_are_refused():
    with pytest.raises(OverflowError):
        gpusort.Sorter("auto", crossover=-1)
    with pytest.raises(OverflowError):
        gpusort.Sorter("auto", device_memory_limit=-1)


def test_cuda_without_a_device_raises_no_device_error():
    if has_cuda():
        assert gpusort.Sorter("cuda").device == 0
        with pytest.raises(gpusort.NoDeviceError):
            gpusort.Sorter("cuda", device=10_000)
    else:
        with pytest.raises(gpusort.NoDeviceError, match="CUDA"):
            gpusort.Sorter("cuda")


def test_several_devices_sort_as_one():
    # Two shares of GPU 0 run the whole multi-GPU sort (shares sorted, ranges swapped, merged);
    # every GPU of the host too where there are several. No GPU: the sorter cannot be made.
    if not has_cuda():
        with pytest.raises(gpusort.NoDeviceError):
            gpusort.Sorter("cuda", devices=[0, 0])
        return
    rng = np.random.default_rng(5)
    sorters = [gpusort.Sorter("cuda", devices=[0, 0], multi_gpu_from=1)]
    assert sorters[0].multi_gpu_from == 1 and "2 shares" in sorters[0].describe()
    assert gpusort.Sorter("cuda", devices=[0, 0]).multi_gpu_from == 1 << 26
    assert gpusort.Sorter("cuda").multi_gpu_from is None
    for dtype in (np.uint32, np.float32, np.int64):
        for n in (3, 1000, 300_007):
            keys = rng.integers(0, 50, n).astype(dtype)
            values = np.arange(n, dtype=np.uint32)
            for s in sorters:
                k, v = keys.copy(), values.copy()
                s.sort_pairs(k, v)
                order = np.argsort(keys, kind="stable")
                assert np.array_equal(k, keys[order]) and np.array_equal(v, values[order])
                d = keys.copy()
                s.sort(d, descending=True)
                assert np.array_equal(d, np.sort(keys)[::-1])


def test_exception_hierarchy():
    assert issubclass(gpusort.OutOfMemoryError, MemoryError)
    assert issubclass(gpusort.InvalidArgumentError, ValueError)
    for cls in (
        gpusort.NoDeviceError,
        gpusort.UnsupportedError,
        gpusort.InvalidArgumentError,
        gpusort.OutOfMemoryError,
        gpusort.CudaError,
        gpusort.KernelImageError,
    ):
        assert issubclass(cls, gpusort.GpusortError)


def test_a_device_limit_below_one_item_is_refused_with_data_untouched():
    if not has_cuda():
        pytest.skip("no CUDA device: the limit applies to device memory")
    s = gpusort.Sorter("cuda", device_memory_limit=1)
    a = np.arange(1 << 20, dtype=np.uint32)[::-1].copy()
    before = a.copy()
    with pytest.raises(gpusort.InvalidArgumentError):
        s.sort(a)
    np.testing.assert_array_equal(a, before)


def test_release_memory_then_sort_again():
    for s in (gpusort.Sorter("cpu"), gpusort.default_sorter()):
        a = np.arange(300_000, dtype=np.uint32)[::-1].copy()
        s.sort(a)
        s.release_memory()
        a[:] = a[::-1].copy()
        s.sort(a)
        assert np.all(a[:-1] <= a[1:])


def test_backend_environment_override():
    # The library reads GPUSORT_* once per process: the variable is set for a fresh interpreter.
    code = (
        "import numpy as np, gpusort\n"
        "s = gpusort.Sorter('auto')\n"
        "a = np.array([3, 2, 1], dtype=np.int32)\n"
        "s.sort(a)\n"
        "print(s.describe()); print(a.tolist())\n"
    )
    env = dict(os.environ, GPUSORT_BACKEND="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert "GPUSORT_BACKEND=cpu" in out, out
    assert "[1, 2, 3]" in out, out


def test_bool_like_descending():
    a = np.array([1, 3, 2], dtype=np.uint64)
    gpusort.sort(a, np.bool_(True))
    assert a.tolist() == [3, 2, 1]
    gpusort.sort(a, descending=0)
    assert a.tolist() == [1, 2, 3]


def test_version():
    assert gpusort.__version__.count(".") == 2
