"""Float orders and several-key sorts (``Sorter.lexsort``): NumPy's argument convention (the last
key primary) turned into the native column specs (the first column primary), and the dtypes
without a key type mapped onto one that sorts in the same order.

Float order, decided once here: an array is sorted the way its own library sorts it. NumPy and
CuPy put every NaN last in both orders and treat ``-0.0`` and ``+0.0`` as one value (a stable sort
keeps their input order): ``"nan_last"``. PyTorch treats NaN as the largest value (last ascending,
first descending): ``"nan_largest"``. ``"total"`` is IEEE total order (``-NaN < -inf < ... < -0.0 <
+0.0 < ... < +inf < +NaN``), the order of gpusort's Rust library; objects known only by their
``__cuda_array_interface__`` have no library to follow and sort in it. ``"nan_first"`` puts NaN
before every value in both orders.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Iterator, List, Optional, Tuple

import numpy as np

from . import _device, _torch_host
from ._errors import InvalidArgumentError
from ._key_types import COLUMN_TYPESTRS, KEY_TYPES, is_host_key

FLOAT_ORDERS = ("total", "nan_last", "nan_first", "nan_largest")
_LIBRARY_FLOAT_ORDER = {"numpy": "nan_last", "cupy": "nan_last", "torch": "nan_largest"}

# A native host column: (keys, descending, float order, null mask or None, nulls_first).
HostSpec = Tuple[np.ndarray, bool, str, Optional[np.ndarray], bool]


def library_of(obj: Any) -> str:
    """``"torch"``, ``"cupy"``, ``"cai"`` (another CUDA array) or ``"numpy"`` (anything else)."""
    if type(obj) is np.ndarray:
        return "numpy"
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return "torch"
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(obj, cupy.ndarray):
        return "cupy"
    return "cai" if hasattr(obj, "__cuda_array_interface__") else "numpy"


def float_order_of(name: Optional[str], library: str) -> str:
    """The float order to sort an array of ``library`` in: ``name``, or by default the library's."""
    if name is None:
        return _LIBRARY_FLOAT_ORDER.get(library, "total")
    if name not in FLOAT_ORDERS:
        raise ValueError(f"float_order: {name!r} is not None or one of {', '.join(map(repr, FLOAT_ORDERS))}")
    return name


def has_float_specials(a: np.ndarray) -> bool:
    """Whether the float array ``a`` holds a NaN or a ``-0.0``: where IEEE total order and the
    libraries' orders can sort differently."""
    return bool(np.isnan(a).any() or ((a == 0) & np.signbit(a)).any())


def key_list(keys: Any) -> List[Any]:
    """``keys`` as ``np.lexsort`` reads it: the rows of a 2-D array, one 1-D array, or a sequence
    of 1-D arrays (device arrays kept as they are, others through ``np.asarray``)."""
    lib = library_of(keys)
    if lib != "numpy" or isinstance(keys, np.ndarray):
        ndim = keys.ndim if lib != "cai" else len(keys.__cuda_array_interface__["shape"])
        if ndim == 1:
            return [keys]
        if ndim == 2 and lib != "cai":
            return [keys[i] for i in range(keys.shape[0])]
        raise ValueError(f"keys: a 2-D array of keys (one per row) or a sequence of 1-D arrays, not {ndim}-D")
    if isinstance(keys, (str, bytes)) or not hasattr(keys, "__iter__"):
        raise TypeError(f"keys: a sequence of 1-D arrays or a 2-D array, not {type(keys).__name__}")
    return [k if library_of(k) != "numpy" or isinstance(k, np.ndarray) else np.asarray(k) for k in keys]


def descending_list(descending: Any, n: int) -> List[bool]:
    """One order per key: ``descending`` as a bool for all, or a sequence of ``n`` of them."""
    if isinstance(descending, (bool, np.bool_, int)):
        return [bool(descending)] * n
    flags = [bool(d) for d in descending]
    if len(flags) != n:
        raise ValueError(f"descending: {len(flags)} values for {n} keys; one bool, or one per key")
    return flags


def byte_width(dt: np.dtype, what: str) -> int:
    """The width of a NumPy ``S<n>`` dtype, gpusort's byte-string keys; ``TypeError`` for
    ``U<n>`` (unicode, 4 bytes a character, not ordered by its bytes) and ``S0``."""
    if dt.kind == "U":
        raise TypeError(
            f"{what}: dtype {dt} (unicode strings) is not a gpusort key type; byte strings (S<n>) are: "
            "encode the strings first (numpy.char.encode)"
        )
    if dt.itemsize == 0:
        raise TypeError(f"{what}: dtype {dt} holds no bytes to use as a key type")
    return dt.itemsize


def host_keys(a: np.ndarray, what: str = "keys") -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """``(keys, null mask or None)``: ``a`` as a contiguous array of a key type that sorts in the same
    order (bools as uint8, other byte orders swapped, datetime64 and timedelta64 as their int64
    counts with NaT as a null, ``S<n>`` byte strings as a 2-D uint8 array of one key a row).
    ``TypeError`` for other dtypes."""
    if a.ndim != 1:
        raise ValueError(f"{what}: 1-D arrays are required; this one has shape {a.shape}")
    dt = a.dtype
    nulls = None
    if dt.kind in "SU":
        width = byte_width(dt, what)
        return np.ascontiguousarray(a).view(np.uint8).reshape(a.shape[0], width), None
    if is_host_key(dt):
        keys = a
    elif dt.kind == "b":
        keys = a.view(np.uint8)
    elif dt.kind in "mM":
        keys = (a if dt.isnative else a.astype(dt.newbyteorder("="))).view(np.int64)
        nat = keys == np.iinfo(np.int64).min
        nulls = nat if nat.any() else None
    elif dt.kind in "iuf" and dt.fields is None and is_host_key(dt.newbyteorder("=")):
        keys = a.astype(dt.newbyteorder("="))
    else:
        raise TypeError(
            f"{what}: dtype {dt} has no gpusort key type (integers, floats, bool, datetime64, timedelta64, "
            "byte strings S<n>)"
        )
    return np.ascontiguousarray(keys), nulls


def host_specs(columns: List[Any], descending: List[bool], floats: Optional[str]) -> List[HostSpec]:
    """The native specs of host keys (NumPy arrays, CPU tensors) in NumPy's order (last primary):
    most significant first, NaT last in both orders as NumPy puts it."""
    specs: List[HostSpec] = []
    for a, desc in zip(reversed(columns), reversed(descending)):
        order = float_order_of(floats, library_of(a))
        # A CPU tensor as NumPy sees its memory (bfloat16 too); anything else as NumPy reads it.
        host = _torch_host.view(a, "keys", False).array if _torch_host.is_cpu_tensor(a) else np.asarray(a)
        keys, nulls = host_keys(host)
        specs.append((keys, desc, order, nulls, False))
    return specs


def sort_rows_by_permutation(native: Any, a: np.ndarray, descending: bool, floats: str) -> None:
    """Sorts each row of the N-D float array ``a`` in place in ``floats`` order: a lexsort by (row,
    key), then a gather. For rows holding NaN or ``-0.0``, which the segmented sort orders in total
    order only."""
    if not a.flags.c_contiguous:
        raise ValueError("a: not contiguous; sort a contiguous copy (numpy.ascontiguousarray)")
    if not a.flags.writeable:
        raise ValueError("a: read-only array")
    flat = a.reshape(-1)
    cols = a.shape[-1]
    rows = flat.size // cols
    row = np.repeat(np.arange(rows, dtype=np.uint32 if rows <= 2**32 else np.uint64), cols)
    perm = native.lexsort([(row, False, "total", None, False), (flat, bool(descending), floats, None, False)])
    flat[:] = flat[perm]


# ---------------------------------------------------------------------------------------------
# CUDA columns of torch and CuPy


def _column(lib: str, m: Any, a: Any, what: str) -> Tuple[Any, str]:
    """A 1-D CUDA key column of ``lib`` as a contiguous array of a key type that sorts in the same
    order (bool as uint8), and its native key name: every key type, the 8- and 16-bit ones and
    the half floats too (the column kernels pack each)."""
    if lib == "torch":
        if not (isinstance(a, m.Tensor) and a.is_cuda):
            raise TypeError(f"{what}: every key of a device lexsort is a CUDA torch.Tensor, as the first")
        a = a.detach()
        if a.dtype == m.bool:
            a = a.view(m.uint8)
        typestr = _torch_column_typestrs(m).get(a.dtype)
        dims, contiguous = a.dim(), a.is_contiguous()
    else:
        if not isinstance(a, m.ndarray):
            raise TypeError(f"{what}: every key of a device lexsort is a cupy.ndarray, as the first")
        if a.dtype == m.bool_:
            a = a.view(m.uint8)
        typestr, dims, contiguous = a.dtype.str, a.ndim, a.flags.c_contiguous
    if typestr not in COLUMN_TYPESTRS:
        raise TypeError(f"{what}: dtype {a.dtype} has no gpusort key type")
    if dims != 1:
        raise ValueError(f"{what}: 1-D keys are required; this one has shape {tuple(a.shape)}")
    if not contiguous:
        a = a.contiguous() if lib == "torch" else m.ascontiguousarray(a)
    return a, COLUMN_TYPESTRS[typestr]


_torch_columns: Optional[dict] = None


def _torch_column_typestrs(torch: Any) -> dict:
    global _torch_columns
    if _torch_columns is None:
        dtypes = ((getattr(torch, k.numpy_dtype, None), k.typestr) for k in KEY_TYPES)
        _torch_columns = {dtype: typestr for dtype, typestr in dtypes if dtype is not None}
    return _torch_columns


def lexsort_device(columns: Any, descending: Any, float_order: Optional[str], stream: Any, lexsort: Any) -> Any:
    """The stable permutation (int64, on the device) that sorts the rows of the CUDA key columns
    ``columns`` (most significant first; torch tensors or CuPy arrays, all of one library, on one
    device), column ``i`` in order ``descending[i]``, floats in ``float_order`` (None: the
    library's, see ``_lexsort``). Allocated by the columns' library on the sort's stream, then
    ``lexsort(specs, n, out_ptr, stream_handle)`` fills it there; the columns (and their contiguous
    or widened copies, made on that stream) are only read. Other CUDA arrays raise ``TypeError``."""
    first = columns[0]
    torch, cupy = sys.modules.get("torch"), sys.modules.get("cupy")
    if torch is not None and isinstance(first, torch.Tensor) and first.is_cuda:
        name, m = "torch", torch
    elif cupy is not None and isinstance(first, cupy.ndarray):
        name, m = "cupy", cupy
    else:
        raise TypeError("keys: a device lexsort needs torch.Tensors or cupy.ndarrays (to allocate the result)")
    floats = float_order_of(float_order, name)
    device = first.device
    if any(getattr(c, "device", None) != device for c in columns):
        raise ValueError("keys: every key of a device lexsort is on the same device")
    with _on_stream(name, m, device, stream):
        cols = [_column(name, m, c, "keys") for c in columns]
        n = len(cols[0][0])
        if any(len(c) != n for c, _ in cols):
            raise ValueError(f"keys: every key has the same length, not {[len(c) for c, _ in cols]}")
        if n > 2**32:
            raise InvalidArgumentError(f"keys: {n} rows; a device lexsort takes at most 2^32")
        out = m.empty(n, dtype=m.int64, device=device) if name == "torch" else m.empty(n, dtype=m.int64)
        if n == 0:
            return out
        ptrs = [c.data_ptr() if name == "torch" else c.data.ptr for c, _ in cols]
        specs = [(p, key, bool(d), floats, 0, False) for p, (_, key), d in zip(ptrs, cols, descending)]
        ov = _device.view(out, "out")
        lexsort(specs, n, ov.ptr, _device.stream_handle(ov, None))
        return out


@contextlib.contextmanager
def _on_stream(name: str, m: Any, device: Any, stream: Any) -> Iterator[None]:
    """Inside: ``stream`` (or the current stream) is the current stream of library ``m`` on
    ``device``."""
    if name == "torch":
        with _device._torch_stream(m, device, stream):
            yield
    else:
        with device, _device._cupy_stream(m, stream):
            yield
