"""Device sorts inside other GPU programs: calls on the caller's scratch (torch and CuPy arrays)
against NumPy's stable sorts, a too-small scratch refused with the keys untouched, and the calls
captured into torch and CuPy CUDA graphs, replayed on new data. The refusals of host arrays run
everywhere; the rest skip without a CUDA device."""

from __future__ import annotations

import numpy as np
import pytest

import gpusort
from conftest import has_cuda, make_keys

DTYPES = [np.int32, np.uint32, np.float32, np.int64, np.float64, np.int16, np.uint8]
SIZES = [1, 2, 255, 256, 257, 65537, (1 << 20) + 7]


def test_host_arrays_need_no_scratch():
    a = np.arange(5, dtype=np.int32)
    with pytest.raises(TypeError, match="not a CUDA array"):
        gpusort.scratch_bytes(a)
    with pytest.raises(TypeError, match="not a CUDA array"):
        gpusort.Sorter("cpu").sort_with_scratch(a, a)
    with pytest.raises(ValueError, match="call"):
        gpusort.Sorter("cpu").scratch_bytes(a, "merge")
    with pytest.raises(ValueError, match="k"):
        gpusort.Sorter("cpu").scratch_bytes(a, "top_k")
    with pytest.raises(TypeError, match="integer"):
        gpusort.Sorter("cpu").top_k_with_scratch(a, 1.5, a)
    gpusort.Sorter("cpu").prepare()  # nothing to load without a GPU


needs_cuda = pytest.mark.skipif(not has_cuda(), reason="no CUDA device")


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    return torch


def _to_torch(torch, a: np.ndarray):
    if a.dtype in (np.uint32, np.uint64):  # torch.from_numpy takes them from 2.3 only
        signed = np.int32 if a.dtype == np.uint32 else np.int64
        return torch.from_numpy(a.view(signed).copy()).cuda().view(getattr(torch, a.dtype.name))
    return torch.from_numpy(a.copy()).cuda()


def _from_torch(t) -> np.ndarray:
    name = str(t.dtype).removeprefix("torch.")
    if name in ("uint32", "uint64"):
        signed = "int32" if name == "uint32" else "int64"
        return t.view(getattr(__import__("torch"), signed)).cpu().numpy().view(name)
    return t.cpu().numpy()


def _stable(keys: np.ndarray, descending: bool) -> np.ndarray:
    # Keys without NaN or -0.0 ("random" floats): every float order is NumPy's.
    if not descending:
        return np.argsort(keys, kind="stable")
    n = keys.size
    return (n - 1 - np.argsort(keys[::-1], kind="stable"))[::-1]


@needs_cuda
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("descending", [False, True])
def test_torch_calls_on_scratch_match_numpy(dtype, n, descending):
    torch = _torch()
    keys = make_keys(dtype, n, "random", seed=7)
    want = _stable(keys, descending)
    t = _to_torch(torch, keys)
    size = gpusort.scratch_bytes(t, "sort", descending)
    scratch = torch.empty(max(size, 1), dtype=torch.uint8, device=t.device)
    gpusort.sort_with_scratch(t, scratch, descending)
    assert np.array_equal(_from_torch(t), keys[want])
    k = _to_torch(torch, keys)
    size = gpusort.scratch_bytes(k, "argsort", descending)
    scratch = torch.empty(max(size, 1), dtype=torch.uint8, device=k.device)
    out = gpusort.argsort_with_scratch(k, scratch, descending)
    assert out.dtype == torch.int64 and out.device == k.device
    assert np.array_equal(out.cpu().numpy(), want)
    assert np.array_equal(_from_torch(k), keys), "argsort wrote its keys"


@needs_cuda
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 257, 65537, (1 << 20) + 7])
@pytest.mark.parametrize("descending", [False, True])
def test_torch_top_k_on_scratch_matches_numpy(dtype, n, descending):
    torch = _torch()
    # Few distinct keys (8-bit keys have few anyway): the ties at the k-th key go to the earliest
    # positions.
    keys = make_keys(dtype, n, "few" if n > 1 and np.dtype(dtype).itemsize > 1 else "random", seed=9)
    want = _stable(keys, descending)
    t = _to_torch(torch, keys)
    for k in sorted({1, min(100, n), n}):
        size = gpusort.scratch_bytes(t, "top_k", descending, k=k)
        scratch = torch.empty(max(size, 1), dtype=torch.uint8, device=t.device)
        values, indices = gpusort.top_k_with_scratch(t, k, scratch, descending)
        assert indices.dtype == torch.int64 and values.dtype == t.dtype
        assert np.array_equal(indices.cpu().numpy(), want[:k])
        assert np.array_equal(_from_torch(values), keys[want[:k]])
    assert np.array_equal(_from_torch(t), keys), "top_k wrote its keys"


@needs_cuda
def test_too_small_scratch_is_refused_and_leaves_the_keys():
    torch = _torch()
    keys = make_keys(np.int32, 100_003, "random", seed=8)
    t = _to_torch(torch, keys)
    size = gpusort.scratch_bytes(t)
    assert size > 0
    short = torch.empty(size - 512, dtype=torch.uint8, device=t.device)
    with pytest.raises(gpusort.InvalidArgumentError, match="scratch"):
        gpusort.sort_with_scratch(t, short)
    assert np.array_equal(_from_torch(t), keys)
    with pytest.raises(gpusort.InvalidArgumentError, match="overlap"):
        gpusort.sort_with_scratch(t, t.view(torch.uint8))
    with pytest.raises(ValueError, match="total order only"):
        gpusort.sort_with_scratch(t.float(), short, float_order="nan_last")
    size = gpusort.scratch_bytes(t, "top_k", k=10)
    with pytest.raises(gpusort.InvalidArgumentError, match="scratch"):
        gpusort.top_k_with_scratch(t, 10, torch.empty(size - 1, dtype=torch.uint8, device=t.device))
    with pytest.raises(gpusort.InvalidArgumentError, match="top"):
        gpusort.scratch_bytes(t, "top_k", k=t.numel() + 1)


@needs_cuda
@pytest.mark.parametrize("lent", [True, False])
def test_torch_graph_capture_and_replay(lent):
    torch = _torch()
    n = 1_000_003
    keys = torch.zeros(n, dtype=torch.int32, device="cuda")
    arg_keys = torch.zeros(n, dtype=torch.float32, device="cuda")
    sort_scratch = torch.empty(gpusort.scratch_bytes(keys), dtype=torch.uint8, device="cuda")
    arg_scratch = torch.empty(gpusort.scratch_bytes(arg_keys, "argsort"), dtype=torch.uint8, device="cuda")
    top = 1000
    top_keys = torch.zeros(n, dtype=torch.int64, device="cuda")
    top_scratch = torch.empty(gpusort.scratch_bytes(top_keys, "top_k", True, k=top), dtype=torch.uint8, device="cuda")
    gpusort.prepare()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # the warm-up torch asks for before a capture
        gpusort.sort(keys)
        gpusort.top_k(top_keys, top, True)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        if lent:
            gpusort.sort_with_scratch(keys, sort_scratch)
            out = gpusort.argsort_with_scratch(arg_keys, arg_scratch)
            best, at = gpusort.top_k_with_scratch(top_keys, top, top_scratch, True)
        else:
            gpusort.sort(keys)
            out = gpusort.argsort(arg_keys.int())
            best, at = gpusort.top_k(top_keys, top, True)
    for seed in range(3):
        k = make_keys(np.int32, n, "random", seed=10 + seed)
        f = make_keys(np.float32, n, "random", seed=20 + seed)
        w = make_keys(np.int64, n, "few", seed=40 + seed)
        keys.copy_(torch.from_numpy(k))
        arg_keys.copy_(torch.from_numpy(f))
        top_keys.copy_(torch.from_numpy(w))
        graph.replay()
        torch.cuda.synchronize()
        assert np.array_equal(keys.cpu().numpy(), np.sort(k, kind="stable"))
        base = f if lent else f.astype(np.int32)
        assert np.array_equal(out.cpu().numpy(), np.argsort(base, kind="stable"))
        want = _stable(w, True)[:top]
        assert np.array_equal(at.cpu().numpy(), want) and np.array_equal(best.cpu().numpy(), w[want])


@needs_cuda
def test_cupy_graph_capture_and_replay():
    cupy = pytest.importorskip("cupy")
    n = 300_007
    keys = cupy.zeros(n, dtype=cupy.uint32)
    scratch = cupy.empty(gpusort.scratch_bytes(keys), dtype=cupy.uint8)
    floats = cupy.zeros(n, dtype=cupy.float32)
    top_scratch = cupy.empty(gpusort.scratch_bytes(floats, "top_k", k=77), dtype=cupy.uint8)
    gpusort.prepare()
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        gpusort.sort_with_scratch(keys, scratch)
        best, at = gpusort.top_k_with_scratch(floats, 77, top_scratch)
        graph = stream.end_capture()
    for seed in range(3):
        k = make_keys(np.uint32, n, "random", seed=30 + seed)
        f = make_keys(np.float32, n, "random", seed=50 + seed)
        keys.set(k)
        floats.set(f)
        graph.launch(stream)
        stream.synchronize()
        assert np.array_equal(cupy.asnumpy(keys), np.sort(k))
        want = np.argsort(f, kind="stable")[:77]
        assert np.array_equal(cupy.asnumpy(at), want) and np.array_equal(cupy.asnumpy(best), f[want])


@needs_cuda
@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_torch_sort_beside_little_free_memory(dtype):
    # The keys fill 80% of what is free: too little for the normal sort's scratch, and the sort
    # still sorts them in place with what is left.
    torch = _torch()
    keys = make_keys(dtype, (256 << 20) // np.dtype(dtype).itemsize, "random", seed=12)
    t = _to_torch(torch, keys)
    torch.cuda.synchronize()
    gpusort.default_sorter().release_memory()
    torch.cuda.empty_cache()
    free, _ = torch.cuda.mem_get_info()
    left = keys.nbytes // 4
    ballast = torch.empty(free - left, dtype=torch.uint8, device="cuda")
    try:
        assert torch.cuda.mem_get_info()[0] < keys.nbytes, "the normal sort's scratch would fit"
        gpusort.sort(t, float_order="total")
        torch.cuda.synchronize()
    finally:
        del ballast
        torch.cuda.empty_cache()
    assert np.array_equal(_from_torch(t), np.sort(keys, kind="stable"))
