"""float16 and bfloat16 keys: NumPy float16 arrays, ml_dtypes' bfloat16 arrays (skipped without
ml_dtypes), torch tensors of both (CPU ones, and CUDA ones on a GPU; skipped without torch) and
CuPy float16 arrays (GPU only), against NumPy's and torch's own stable sorts and against a
reference over the bits, compared bit for bit: NaNs of both signs and several payloads, -0.0,
subnormals and infinities, edge sizes, both orders, the library's float order and IEEE total
order."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import gpusort
from conftest import has_cuda

SIZES = [0, 1, 2, 127, 128, 129, 4099, 70001]
ORDERS = pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])

# +inf's bits: those above it (sign bit cleared) are NaNs.
INF = {"float16": 0x7C00, "bfloat16": 0x7F80}
# Quiet, signalling and all-ones NaNs of both signs, +-inf, +-0, the smallest and largest
# subnormals, the smallest normal, +-1, +-max.
SPECIALS = {
    "float16": [0x7E00, 0x7C01, 0x7FFF, 0xFE00, 0xFC01, 0xFFFF, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001, 0x03FF,
                0x8001, 0x83FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF],
    "bfloat16": [0x7FC0, 0x7F81, 0x7FFF, 0xFFC0, 0xFF81, 0xFFFF, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001, 0x007F,
                 0x8001, 0x807F, 0x0080, 0x3F80, 0xBF80, 0x7F7F, 0xFF7F],
}


def half_bits(name: str, n: int, seed: int = 0) -> np.ndarray:
    """``n`` uint16 bit patterns of ``name``: a third specials, a third random bits, a third a few
    repeated values (zeros of both signs, subnormals: ties that stability decides)."""
    rng = np.random.default_rng([seed, n, len(name)])
    specials = np.array(SPECIALS[name], dtype=np.uint16)
    pick = rng.integers(0, 3, n)
    out = rng.integers(0, 1 << 16, n, dtype=np.uint32).astype(np.uint16)
    out[pick == 0] = rng.choice(specials, int((pick == 0).sum()))
    out[pick == 1] = rng.choice(specials[8:12], int((pick == 1).sum()))
    return out


def rank(bits: np.ndarray, name: str, descending: bool, float_order: str) -> np.ndarray:
    """Integers that sort ascending (stably) into gpusort's order of the keys with these bits:
    IEEE total order (negatives' bits reversed below the positives), or a library's order (every
    NaN one value: last, first, or the largest; -0.0 the same value as +0.0)."""
    b = bits.astype(np.int64)
    total = np.where(b & 0x8000, 0xFFFF - b, b | 0x8000)
    if float_order == "total":
        return -total if descending else total
    nan = (b & 0x7FFF) > INF[name]
    value = np.where(b == 0x8000, 0x8000, total)  # -0.0 ranks as +0.0
    r = -value if descending else value
    last = float_order == "nan_last" or (float_order == "nan_largest" and not descending)
    return np.where(nan, (1 << 20) if last else -(1 << 20), r)


def perm(bits: np.ndarray, name: str, descending: bool = False, float_order: str = "total") -> np.ndarray:
    return np.argsort(rank(bits, name, descending, float_order), kind="stable")


def widened(bits: np.ndarray, name: str) -> np.ndarray:
    """The float32s of these keys, exactly (NaNs' signs and payloads kept): NumPy's references."""
    if name == "float16":
        return bits.view(np.float16).astype(np.float32)
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def ml_bfloat16():
    return pytest.importorskip("ml_dtypes").bfloat16


def numpy_keys(bits: np.ndarray, name: str) -> np.ndarray:
    return bits.view(np.float16 if name == "float16" else ml_bfloat16())


names = pytest.mark.parametrize("name", ["float16", "bfloat16"])


@pytest.mark.parametrize("float_order", [None, "total"])
@ORDERS
@names
def test_numpy_sort_and_argsort_match_numpy_bit_for_bit(sorter, name, descending, float_order):
    lib_order = float_order or "nan_last"
    for n in SIZES:
        bits = half_bits(name, n)
        keys = numpy_keys(bits, name)
        want = perm(bits, name, descending, lib_order)
        if float_order is None and not descending:
            np.testing.assert_array_equal(want, np.argsort(widened(bits, name), kind="stable"), err_msg="reference")
            if name == "float16":
                np.testing.assert_array_equal(bits[want], np.sort(keys, kind="stable").view(np.uint16))
        got = keys.copy()
        sorter.sort(got, descending=descending, float_order=float_order)
        np.testing.assert_array_equal(got.view(np.uint16), bits[want], err_msg=f"sort n={n}")
        idx = sorter.argsort(keys, descending=descending, float_order=float_order)
        assert idx.dtype == np.int64
        np.testing.assert_array_equal(idx, want, err_msg=f"argsort n={n}")
        np.testing.assert_array_equal(keys.view(np.uint16), bits, err_msg="argsort reads only")


@ORDERS
@names
def test_numpy_pairs_segments_and_top_k_in_total_order(sorter, name, descending):
    for n in SIZES:
        bits = half_bits(name, n, seed=1)
        keys = numpy_keys(bits, name)
        want = perm(bits, name, descending)
        k, v = keys.copy(), np.arange(n, dtype=np.uint32)
        sorter.sort_pairs(k, v, descending=descending)
        np.testing.assert_array_equal(k.view(np.uint16), bits[want], err_msg=f"sort_pairs n={n}")
        np.testing.assert_array_equal(v, want, err_msg=f"sort_pairs values n={n}")
        for top in sorted({0, min(1, n), n // 3, n}):
            values, indices = sorter.top_k(keys, top, descending=descending)
            assert values.dtype == keys.dtype
            np.testing.assert_array_equal(indices, want[:top], err_msg=f"top_k n={n} k={top}")
            np.testing.assert_array_equal(values.view(np.uint16), bits[want[:top]])
        cut = n // 3
        k = keys.copy()
        sorter.sort_segments(k, [0, cut, n], descending=descending)
        for a, b in ((0, cut), (cut, n)):
            np.testing.assert_array_equal(k[a:b].view(np.uint16), bits[a:b][perm(bits[a:b], name, descending)])


@names
def test_numpy_lexsort_rows_and_records(name):
    n = 70001
    bits = half_bits(name, n, seed=2)
    keys = numpy_keys(bits, name)
    other = np.random.default_rng(3).integers(0, 5, n).astype(np.uint8)
    wide = widened(bits, name)
    np.testing.assert_array_equal(gpusort.lexsort([keys, other]), np.lexsort([wide, other]))
    np.testing.assert_array_equal(gpusort.lexsort([other, keys]), np.lexsort([other, wide]))
    got = gpusort.lexsort([keys, other], descending=[True, False], float_order="total")
    want = np.lexsort([rank(bits, name, True, "total"), other])
    np.testing.assert_array_equal(got, want)
    # Rows of a 2-D array, NaN and -0.0 among them: NumPy's order row by row.
    grid = keys[: 7 * 10000].reshape(7, 10000).copy()
    gpusort.sort(grid)
    for r in range(7):
        row = bits[r * 10000 : (r + 1) * 10000]
        np.testing.assert_array_equal(grid[r].view(np.uint16), row[perm(row, name, False, "nan_last")])
    rows = np.zeros(n, dtype=[("id", "u4"), ("key", keys.dtype)])
    rows["id"], rows["key"] = np.arange(n), keys
    gpusort.sort_records(rows, "key", descending=True)
    np.testing.assert_array_equal(rows["id"], perm(bits, name, True))


def test_bfloat16_detection_never_needs_ml_dtypes():
    """Without ml_dtypes (its import blocked), float16 sorts and other 2-byte dtypes are refused
    with a TypeError: the bfloat16 dtype is not asked for, so nothing panics."""
    code = "\n".join([
        "import sys; sys.modules['ml_dtypes'] = None",
        "import numpy as np, gpusort",
        "a = np.array([1.5, -0.0, float('nan'), 0.0], dtype=np.float16); gpusort.sort(a)",
        "assert a.view(np.uint16).tolist() == [0x8000, 0, 0x3E00, 0x7E00], a",
        "for dt in ('V2', 'f8,f8', '>f2'):",
        "    try: gpusort.sort(np.zeros(4, dtype=dt))",
        "    except TypeError as e: assert 'bfloat16' in str(e), e",
        "    else: raise AssertionError(dt)",
        "print('ok')",
    ])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_pandas_float16_columns_sort_as_pandas_does():
    pd = pytest.importorskip("pandas")
    gpandas = pytest.importorskip("gpusort.pandas")
    bits = half_bits("float16", 4099, seed=4)
    df = pd.DataFrame({"h": bits.view(np.float16), "k": np.arange(4099) % 3})
    # (pandas' own multi-column sort puts NaN among the -infs with na_position="first": README.)
    for by, ascending, na_positions in (("h", True, "lf"), ("h", False, "lf"), (["k", "h"], [True, False], "l")):
        for na_position in ({"l": "last", "f": "first"}[p] for p in na_positions):
            # (Some pandas versions cannot sort float16 columns by several keys: the reference
            # sorts their exact float32 values.)
            wide = df.astype({"h": np.float32})
            want = wide.sort_values(by, ascending=ascending, na_position=na_position, kind="stable")
            got = gpandas.sort_values(df, by, ascending=ascending, na_position=na_position)
            assert got.index.tolist() == want.index.tolist(), (by, ascending, na_position)


def test_arrow_halffloat_columns_sort_as_pyarrow_would():
    pa = pytest.importorskip("pyarrow")
    garrow = pytest.importorskip("gpusort.arrow")
    bits = half_bits("float16", 1009, seed=5)
    values = bits.view(np.float16)
    nulls = np.random.default_rng(6).integers(0, 10, values.size) == 0
    arr = pa.array(values, mask=nulls)
    # pyarrow has no half-float sort kernel: the reference is its sort of the same data in float32.
    wide = pa.array(values.astype(np.float32), mask=nulls)
    pc = pytest.importorskip("pyarrow.compute")
    for order in ("ascending", "descending"):
        for placement in ("at_start", "at_end"):
            want = pc.array_sort_indices(wide, order=order, null_placement=placement)
            got = garrow.sort_indices(arr, [("", order)], null_placement=placement)
            assert got.to_pylist() == want.to_pylist(), (order, placement)


# --- torch: CPU tensors (and CUDA ones on a GPU) against torch.sort / torch.argsort (stable) ------


def _torch():
    return pytest.importorskip("torch")


def torch_keys(torch, bits: np.ndarray, name: str, device: str = "cpu"):
    t = torch.from_numpy(bits.view(np.int16).copy()).view(getattr(torch, name))
    return t.to(device)


def torch_bits(t) -> np.ndarray:
    import torch

    return t.detach().cpu().view(torch.int16).numpy().view(np.uint16)


def torch_devices():
    yield "cpu"
    if has_cuda():
        yield "cuda"


@pytest.fixture(params=["ml_dtypes", "widened"])
def bf16_path(request, monkeypatch):
    """CPU bfloat16 tensors both ways: viewed as ml_dtypes' bfloat16, and widened to float32."""
    from gpusort import _torch_host

    if request.param == "ml_dtypes":
        pytest.importorskip("ml_dtypes")
        monkeypatch.setattr(_torch_host, "_ml_dtypes", None)  # looked for again
    else:
        monkeypatch.setattr(_torch_host, "_ml_dtypes", False)
    return request.param


@pytest.mark.parametrize("float_order", [None, "total"])
@ORDERS
@names
def test_torch_tensors_match_torch_sort_and_argsort(bf16_path, name, descending, float_order):
    torch = _torch()
    if bf16_path == "ml_dtypes" and name == "float16":
        pytest.skip("float16 tensors have one path")
    for device in torch_devices():
        if device == "cuda" and not torch.cuda.is_available():
            continue
        for n in SIZES:
            bits = half_bits(name, n, seed=7)
            t = torch_keys(torch, bits, name, device)
            want = perm(bits, name, descending, float_order or "nan_largest")
            # torch's CUDA sort puts negative NaNs first, against its documented order (NaN
            # largest): only its CPU sort is held to the reference.
            if float_order is None and device == "cpu":
                values, indices = torch.sort(t, descending=descending, stable=True)
                np.testing.assert_array_equal(torch_bits(values), bits[want], err_msg=f"torch.sort {device} n={n}")
                np.testing.assert_array_equal(indices.cpu().numpy(), want, err_msg=f"torch.sort {device} n={n}")
                p = torch.argsort(t, descending=descending, stable=True)
                np.testing.assert_array_equal(p.cpu().numpy(), want, err_msg=f"torch.argsort {device} n={n}")
            got = t.clone()
            gpusort.sort(got, descending=descending, float_order=float_order)
            np.testing.assert_array_equal(torch_bits(got), bits[want], err_msg=f"sort {device} n={n}")
            idx = gpusort.argsort(t, descending=descending, float_order=float_order)
            assert isinstance(idx, torch.Tensor) and idx.dtype == torch.int64 and idx.device == t.device
            np.testing.assert_array_equal(idx.cpu().numpy(), want, err_msg=f"argsort {device} n={n}")
            np.testing.assert_array_equal(torch_bits(t), bits, err_msg="argsort reads only")


@ORDERS
@names
def test_torch_tensors_top_k_pairs_and_lexsort(bf16_path, name, descending):
    torch = _torch()
    if bf16_path == "ml_dtypes" and name == "float16":
        pytest.skip("float16 tensors have one path")
    for device in torch_devices():
        if device == "cuda" and not torch.cuda.is_available():
            continue
        n = 4099
        bits = half_bits(name, n, seed=8)
        t = torch_keys(torch, bits, name, device)
        total = perm(bits, name, descending)
        values, indices = gpusort.top_k(t, 100, descending=descending)
        assert values.dtype == t.dtype and values.device == t.device
        np.testing.assert_array_equal(indices.cpu().numpy(), total[:100], err_msg=f"top_k {device}")
        np.testing.assert_array_equal(torch_bits(values), bits[total[:100]], err_msg=f"top_k {device}")
        k, v = t.clone(), torch.arange(n, dtype=torch.int32, device=device)
        gpusort.sort_pairs(k, v, descending=descending)
        np.testing.assert_array_equal(torch_bits(k), bits[total], err_msg=f"sort_pairs {device}")
        np.testing.assert_array_equal(v.cpu().numpy(), total, err_msg=f"sort_pairs values {device}")
        other = torch.from_numpy(np.arange(n) % 4).to(device)
        got = gpusort.lexsort([t, other], descending=[descending, False])  # other primary
        want = np.lexsort([rank(bits, name, descending, "nan_largest"), np.arange(n) % 4])
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=f"lexsort {device}")


def test_torch_cpu_tensors_refused_as_device_arrays_are():
    torch = _torch()
    g = torch.zeros(4, dtype=torch.float16, requires_grad=True)
    with pytest.raises(ValueError, match="requires grad"):
        gpusort.sort(g)
    np.testing.assert_array_equal(gpusort.argsort(g).numpy(), np.arange(4))  # only read: fine
    with pytest.raises(TypeError, match="complex"):
        gpusort.sort(torch.zeros(4, dtype=torch.complex64))


# --- CuPy float16 on the device --------------------------------------------------------------


@pytest.mark.skipif(not has_cuda(), reason="no CUDA device")
@pytest.mark.parametrize("float_order", [None, "total"])
@ORDERS
def test_cupy_float16_matches_numpy(descending, float_order):
    cupy = pytest.importorskip("cupy")
    for n in SIZES:
        bits = half_bits("float16", n, seed=9)
        want = perm(bits, "float16", descending, float_order or "nan_last")
        d = cupy.asarray(bits.view(np.float16))
        idx = gpusort.argsort(d, descending=descending, float_order=float_order)
        np.testing.assert_array_equal(cupy.asnumpy(idx), want, err_msg=f"argsort n={n}")
        gpusort.sort(d, descending=descending, float_order=float_order)
        np.testing.assert_array_equal(cupy.asnumpy(d).view(np.uint16), bits[want], err_msg=f"sort n={n}")
