"""CUDA arrays of other libraries: PyTorch tensors, CuPy arrays and any object with a
``__cuda_array_interface__`` (versions 2 and 3).

Each is read as (device pointer, length, key type, device) and sorted in place (argsort and
top-k: read, the results in new arrays of its library; segmented sorts: with offsets on the
device, uploaded by its library when given on the host) by the native module on a CUDA stream of
the caller: the one named by ``stream=``, else the current stream of the array's library
(``torch.cuda.current_stream``, ``cupy.cuda.get_current_stream``), else the stream of a
version-3 interface, else the legacy default stream. The native module checks the
pointer with the driver; what is checked here is what only the array's library knows (shape,
strides, dtype, read-only, autograd).

PyTorch and CuPy arrays are read through their own attributes rather than the interface: the
same facts, at a fraction of the per-call cost (``Tensor.__cuda_array_interface__`` is Python
code that builds a dict).
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple, Optional, Tuple

import numpy as np

from ._errors import InvalidArgumentError
# The key types of CUDA arrays (typestrs to native key names, the dtypes for messages) come from
# the native module's list: _key_types.py.
from ._key_types import DEVICE_KEY_DTYPES, DEVICE_KEY_TYPES, DEVICE_TYPESTRS, KEY_TYPES

_TYPESTR_VALUES = ("<u4", "<i4", "<f4")
VALUE_DTYPES = "uint32, int32 or float32"
# Segment offsets on the device: 8-byte integers, read as uint64 (non-negative int64 reads the same).
_TYPESTR_OFFSETS = ("<i8", "<u8")
OFFSET_DTYPES = "int64 or uint64"

# Bytes per key by typestr (bfloat16's, "<bf16", spells no size).
_ITEMSIZES = {k.typestr: k.itemsize for k in KEY_TYPES}

# Special stream numbers of the interface (version 3) and the driver handles they stand for.
_CAI_LEGACY, _CAI_PER_THREAD = 1, 2
_CU_STREAM_LEGACY, _CU_STREAM_PER_THREAD = 0x1, 0x2


class DeviceArray(NamedTuple):
    """A 1-D contiguous CUDA array, as the native sorts take it."""

    ptr: int
    n: int
    typestr: str
    lib: str  # "torch", "cupy" or "cai"
    obj: Any
    stream: Optional[int]  # from a version-3 interface; None when it names none


def view(obj: Any, what: str) -> Optional[DeviceArray]:
    """The CUDA array behind ``obj``, or None for anything else (a host array, a CPU tensor)."""
    if type(obj) is np.ndarray:
        return None
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        if obj.device.type == "cpu":
            return None  # host memory: gpusort/_torch_host.py
        return _torch_view(torch, obj, what)
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(obj, cupy.ndarray):
        return _cupy_view(obj, what)
    try:
        cai = obj.__cuda_array_interface__
    except AttributeError:
        return None
    return _cai_view(obj, cai, what)


def is_device(obj: Any) -> bool:
    """Whether ``obj`` is a CUDA array (a CUDA ``torch.Tensor``, a ``cupy.ndarray``, an object with
    ``__cuda_array_interface__``), whatever its shape and dtype: for the sorts of host arrays only."""
    if type(obj) is np.ndarray:
        return False
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return bool(obj.is_cuda)
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(obj, cupy.ndarray):
        return True
    return hasattr(obj, "__cuda_array_interface__")


def _torch_dtypes(torch: Any) -> dict:
    """The torch dtypes of the device key types (torch names them as NumPy does: torch.float16,
    torch.bfloat16, ...) to their typestrs; those this torch lacks are left out (torch.uint16,
    torch.uint32 and torch.uint64 exist from PyTorch 2.3)."""
    dtypes = ((getattr(torch, k.numpy_dtype, None), k.typestr) for k in DEVICE_KEY_TYPES)
    return {dtype: typestr for dtype, typestr in dtypes if dtype is not None}


_torch_typestrs: Optional[dict] = None


def _torch_view(torch: Any, t: Any, what: str) -> DeviceArray:
    global _torch_typestrs
    if not t.is_cuda:
        raise TypeError(f"{what}: a torch.Tensor on {t.device}; gpusort sorts CPU and CUDA tensors")
    if _torch_typestrs is None:
        _torch_typestrs = _torch_dtypes(torch)
    typestr = _torch_typestrs.get(t.dtype)
    if typestr is None:
        raise TypeError(f"{what}: dtype {t.dtype} is not a sortable type ({DEVICE_KEY_DTYPES}, values also int32)")
    if t.dim() != 1:
        raise ValueError(f"{what}: gpusort sorts 1-D arrays; this one has shape {tuple(t.shape)}")
    if not t.is_contiguous():
        raise ValueError(f"{what}: not contiguous; sort t.contiguous() instead")
    if t.requires_grad:
        raise ValueError(f"{what}: requires grad; an in-place sort would corrupt autograd, sort t.detach()")
    return DeviceArray(t.data_ptr(), t.numel(), typestr, "torch", t, None)


def _cupy_view(a: Any, what: str) -> DeviceArray:
    if a.ndim != 1:
        raise ValueError(f"{what}: gpusort sorts 1-D arrays; this one has shape {a.shape}")
    typestr = a.dtype.str
    if typestr not in DEVICE_TYPESTRS:
        raise TypeError(f"{what}: dtype {a.dtype} is not a sortable type ({DEVICE_KEY_DTYPES})")
    if not a.flags.c_contiguous:
        raise ValueError(f"{what}: not contiguous; sort cupy.ascontiguousarray(a) instead")
    return DeviceArray(a.data.ptr, a.size, typestr, "cupy", a, None)


def _cai_view(obj: Any, cai: dict, what: str) -> DeviceArray:
    shape = tuple(cai["shape"])
    typestr = cai["typestr"]
    ptr, readonly = cai["data"]
    if typestr not in DEVICE_TYPESTRS:
        raise TypeError(f"{what}: typestr {typestr!r} is not a sortable type ({DEVICE_KEY_DTYPES})")
    if len(shape) != 1:
        raise ValueError(f"{what}: gpusort sorts 1-D arrays; this one has shape {shape}")
    strides = cai.get("strides")
    itemsize = _ITEMSIZES[typestr]
    if strides is not None and shape[0] > 1 and tuple(strides) != (itemsize,):
        raise ValueError(f"{what}: not contiguous (strides {tuple(strides)})")
    if cai.get("mask") is not None:
        raise ValueError(f"{what}: masked arrays are not supported")
    if readonly:
        raise ValueError(f"{what}: read-only array")
    stream = cai.get("stream") if cai.get("version", 0) >= 3 else None
    return DeviceArray(int(ptr or 0), shape[0], typestr, "cai", obj, stream)


def stream_handle(arr: DeviceArray, stream: Any) -> int:
    """The CUstream to sort ``arr`` on: ``stream`` when given, else the caller's current one."""
    if stream is not None:
        return _explicit_stream(stream)
    if arr.lib == "torch":
        torch = sys.modules["torch"]
        # The raw handle without a Stream object (what PyTorch's own kernel launchers use), a few
        # microseconds less per call; the public call where it is missing.
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return raw(arr.obj.get_device())
        return torch.cuda.current_stream(arr.obj.device).cuda_stream
    if arr.lib == "cupy":
        cupy = sys.modules["cupy"]
        return cupy.cuda.get_current_stream().ptr
    if arr.stream == _CAI_LEGACY or arr.stream is None:
        return _CU_STREAM_LEGACY
    if arr.stream == _CAI_PER_THREAD:
        return _CU_STREAM_PER_THREAD
    return int(arr.stream)


def _explicit_stream(stream: Any) -> int:
    if isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        handle = getattr(stream, attr, None)
        if isinstance(handle, int):
            return handle
    raise TypeError(f"stream: {type(stream).__name__} is not a CUDA stream (an int handle, torch or cupy stream)")


def key_name(arr: DeviceArray, what: str) -> str:
    """The native key name of ``arr``'s dtype."""
    key = DEVICE_TYPESTRS.get(arr.typestr)
    if key is None:
        raise TypeError(f"{what}: dtype {arr.typestr} is not a key type ({DEVICE_KEY_DTYPES})")
    return key


def check_values(values: DeviceArray, keys: DeviceArray) -> None:
    """Values are 32-bit payloads moved bit for bit; one per key, of the same library."""
    if values.typestr not in _TYPESTR_VALUES:
        # 64-bit values (uint64, int64, float64) sort in host (NumPy) arrays only: the device
        # path moves 32-bit values in the kernels' own pair layout.
        raise TypeError(
            f"values: dtype {values.typestr} is not a value type of CUDA arrays ({VALUE_DTYPES}); "
            "64-bit values sort in host (NumPy) arrays"
        )
    if values.n != keys.n:
        raise ValueError(f"values: {values.n} values for {keys.n} keys; one value per key")


def offsets_view(obj: Any) -> DeviceArray:
    """The CUDA array of segment offsets ``obj`` (``is_device(obj)`` holds): 1-D, contiguous,
    int64 or uint64. Only read, so a read-only interface is fine."""
    torch = sys.modules.get("torch")
    cupy = sys.modules.get("cupy")
    if torch is not None and isinstance(obj, torch.Tensor):
        u64 = getattr(torch, "uint64", None)  # from PyTorch 2.3
        typestr = "<i8" if obj.dtype == torch.int64 else "<u8" if u64 is not None and obj.dtype == u64 else None
        shape, dtype, contiguous = tuple(obj.shape), obj.dtype, obj.is_contiguous()
        ptr, n = obj.data_ptr(), obj.numel()
    elif cupy is not None and isinstance(obj, cupy.ndarray):
        typestr, shape, dtype, contiguous = obj.dtype.str, obj.shape, obj.dtype, obj.flags.c_contiguous
        ptr, n = obj.data.ptr, obj.size
    else:
        cai = obj.__cuda_array_interface__
        typestr, shape = cai["typestr"], tuple(cai["shape"])
        dtype, strides = repr(typestr), cai.get("strides")
        contiguous = strides is None or len(shape) != 1 or shape[0] < 2 or tuple(strides) == (8,)
        if cai.get("mask") is not None:
            raise ValueError("offsets: masked arrays are not supported")
        ptr, n = int(cai["data"][0] or 0), shape[0] if len(shape) == 1 else 0
    if typestr not in _TYPESTR_OFFSETS:
        raise TypeError(f"offsets: dtype {dtype} is not an offsets type of CUDA arrays ({OFFSET_DTYPES})")
    if len(shape) != 1:
        raise ValueError(f"offsets: a 1-D array is required; this one has shape {shape}")
    if not contiguous:
        raise ValueError("offsets: not contiguous; pass a contiguous copy")
    return DeviceArray(ptr, n, typestr, "offsets", obj, None)


def host_offsets(offsets: Any) -> np.ndarray:
    """Segment offsets given on the host, for host keys and for :func:`upload_offsets` alike:
    ``offsets`` as the 1-D contiguous uint64 array the native sort takes, from any integer array or
    sequence of integers; ``TypeError`` for other dtypes, ``ValueError`` for shapes and negative
    offsets. Whether they cut the keys into segments the library checks."""
    if isinstance(offsets, np.ndarray) and offsets.dtype == np.uint64 and offsets.ndim == 1:
        return np.ascontiguousarray(offsets)
    try:
        a = np.asarray(offsets)
    except (TypeError, ValueError, OverflowError) as e:
        raise TypeError(f"offsets: not a sequence of integers ({e})") from None
    if a.size and a.dtype.kind not in "iu":
        raise TypeError(f"offsets: dtype {a.dtype} is not an integer type")
    if a.ndim != 1:
        raise ValueError(f"offsets: a 1-D sequence is required; this one has shape {a.shape}")
    if a.size == 0:
        return np.zeros(0, dtype=np.uint64)  # the library says what is missing
    if a.dtype.kind == "i" and a.min() < 0:
        raise ValueError(f"offsets: {a.min()} is negative; offsets are positions in the keys")
    return np.ascontiguousarray(a, dtype=np.uint64)


def upload_offsets(keys: DeviceArray, host: np.ndarray, stream: Any) -> Tuple[int, int, Any]:
    """Checked host offsets (uint64) as a CUDA int64 array of the keys' library on their device:
    ``(pointer, count, the array)``. Allocated and copied on the sort's stream (``stream`` as
    :func:`stream_handle` reads it), so the library's pool takes the memory back in stream order
    once the sort has read it; the caller keeps the array until the sort is queued. Objects with
    only ``__cuda_array_interface__`` have no library to upload with: ``TypeError``."""
    if keys.lib not in ("torch", "cupy"):
        raise TypeError(
            "offsets: host offsets for a CUDA array that is no torch.Tensor or cupy.ndarray, which "
            f"could upload them; pass them as a CUDA array ({OFFSET_DTYPES}) on the keys' device"
        )
    host = host.view(np.int64)
    if not host.flags.writeable:  # torch.from_numpy warns about read-only arrays
        host = host.copy()
    if keys.lib == "torch":
        torch = sys.modules["torch"]
        with _torch_stream(torch, keys.obj.device, stream):
            d = torch.from_numpy(host).to(keys.obj.device)
        return d.data_ptr(), d.numel(), d
    cupy = sys.modules["cupy"]
    with keys.obj.device, _cupy_stream(cupy, stream):
        d = cupy.asarray(host)
    return d.data.ptr, d.size, d


def _library_keys(keys: Any, what: str) -> Optional[Tuple[str, Any, int]]:
    """``(library name, library module, length)`` of a CUDA ``torch.Tensor`` or a ``cupy.ndarray``
    that is 1-D and of a key dtype, whatever its strides; None for any other object. The
    operations that only read their keys take these two, whose libraries allocate the results."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(keys, torch.Tensor) and keys.is_cuda:
        lib, m, shape, dtype = "torch", torch, tuple(keys.shape), keys.dtype
        global _torch_typestrs
        if _torch_typestrs is None:
            _torch_typestrs = _torch_dtypes(torch)
        typestr = _torch_typestrs.get(dtype)
    else:
        cupy = sys.modules.get("cupy")
        if cupy is None or not isinstance(keys, cupy.ndarray):
            return None
        lib, m, shape, dtype, typestr = "cupy", cupy, keys.shape, keys.dtype, keys.dtype.str
    if typestr not in DEVICE_TYPESTRS:
        raise TypeError(f"{what}: dtype {dtype} is not a key type ({DEVICE_KEY_DTYPES})")
    if len(shape) != 1:
        raise ValueError(f"{what}: gpusort sorts 1-D arrays; this one has shape {shape}")
    return lib, m, shape[0]


def argsort_device(keys: Any, stream: Any, argsort: Any) -> Any:
    """The stable permutation that sorts the CUDA array ``keys`` (int64, as ``torch.argsort`` and
    ``cupy.argsort`` return it), or None when ``keys`` is no PyTorch or CuPy CUDA array.

    The int64 result is allocated by the keys' library on the argsort's stream, then
    ``argsort(keys_view, out_ptr, stream_handle)`` fills it there: the library makes the positions
    on the device and widens them to int64 itself. ``keys`` is only read, so it may be read-only or
    require grad; a strided one is read through a contiguous copy. At most 2^32 keys.
    """
    found = _library_keys(keys, "keys")
    if found is None:
        return None
    lib, m, n = found
    if n > 2**32:
        raise InvalidArgumentError(f"keys: {n} keys; a device argsort takes at most 2^32")
    if lib == "torch":
        with _torch_stream(m, keys.device, stream):
            k = keys.detach()
            if not k.is_contiguous():
                k = k.contiguous()
            out = m.empty(n, dtype=m.int64, device=keys.device)
            return _argsort(k, out, argsort)
    with keys.device, _cupy_stream(m, stream):
        k = keys if keys.flags.c_contiguous else m.ascontiguousarray(keys)
        return _argsort(k, m.empty(n, dtype=m.int64), argsort)


def _argsort(keys: Any, out: Any, argsort: Any) -> Any:
    # Inside the library's stream context: its current stream is the argsort's.
    if len(out) == 0:
        return out
    kv = view(keys, "keys")
    argsort(kv, view(out, "out").ptr, stream_handle(kv, None))
    return out


def top_k_device(a: Any, k: int, stream: Any, select: Any) -> Optional[Tuple[Any, Any]]:
    """``(values, indices)`` of the ``k`` first keys of the CUDA array ``a``, in arrays of its
    library on its device (indices int64), or None when ``a`` is no PyTorch or CuPy CUDA array.

    ``k`` outside 0 to ``len(a)`` raises :class:`InvalidArgumentError` before anything is
    allocated. Both results are allocated by ``a``'s library on the selection's stream, then
    ``select(keys_view, values_ptr, indices_ptr, stream_handle)`` fills them there. ``a`` is only
    read, so it may require grad; a strided one is selected from through a contiguous copy.
    """
    found = _library_keys(a, "a")
    if found is None:
        return None
    lib, m, n = found
    if not 0 <= k <= n or k >= 2**32:
        raise InvalidArgumentError(f"top {k} of {n} keys: k runs from 0 to the number of keys, below 2^32")
    if lib == "torch":
        with _torch_stream(m, a.device, stream):
            keys = a.detach()
            if not keys.is_contiguous():
                keys = keys.contiguous()
            values = m.empty(k, dtype=a.dtype, device=a.device)
            indices = m.empty(k, dtype=m.int64, device=a.device)
            return _select(keys, values, indices, select)
    with a.device, _cupy_stream(m, stream):
        keys = a if a.flags.c_contiguous else m.ascontiguousarray(a)
        values = m.empty(k, dtype=a.dtype)
        indices = m.empty(k, dtype=m.int64)
        return _select(keys, values, indices, select)


def sort_floats_by_permutation(arr: DeviceArray, stream: Any, argsort: Any) -> bool:
    """Sorts the torch or CuPy float array ``arr`` in place through its permutation when it holds
    a NaN or a ``-0.0`` (where the device's in-place sort, in IEEE total order, would order it
    otherwise than asked): ``argsort(keys_view, out_ptr, stream_handle)`` fills the int64
    permutation, which the array's library then gathers by. Returns False, having done nothing,
    when the array holds neither; the check waits for the stream once."""
    if arr.lib == "torch":
        torch = sys.modules["torch"]
        with _torch_stream(torch, arr.obj.device, stream):
            t = arr.obj
            if not bool((torch.isnan(t) | ((t == 0) & torch.signbit(t))).any()):
                return False
            perm = _argsort(t, torch.empty(arr.n, dtype=torch.int64, device=t.device), argsort)
            t.copy_(t[perm])
        return True
    cupy = sys.modules["cupy"]
    a = arr.obj
    with a.device, _cupy_stream(cupy, stream):
        if not bool((cupy.isnan(a) | ((a == 0) & cupy.signbit(a))).any()):
            return False
        perm = _argsort(a, cupy.empty(arr.n, dtype=cupy.int64), argsort)
        a[...] = a[perm]
    return True


def _select(keys: Any, values: Any, indices: Any, select: Any) -> Tuple[Any, Any]:
    # Inside the library's stream context: its current stream is the selection's.
    kv = view(keys, "a")
    select(kv, view(values, "values").ptr, view(indices, "indices").ptr, stream_handle(kv, None))
    return values, indices


def _torch_stream(torch: Any, device: Any, stream: Any) -> Any:
    """A context in which ``stream`` (or the current stream) is torch's current stream."""
    if stream is None:
        return torch.cuda.stream(torch.cuda.current_stream(device))
    if isinstance(stream, torch.cuda.Stream):
        return torch.cuda.stream(stream)
    return torch.cuda.stream(torch.cuda.ExternalStream(_explicit_stream(stream), device=device))


def _cupy_stream(cupy: Any, stream: Any) -> Any:
    """A context in which ``stream`` (or the current stream) is CuPy's current stream."""
    if stream is None:
        return cupy.cuda.get_current_stream()
    if not isinstance(stream, int) and hasattr(stream, "__enter__"):
        return stream
    return cupy.cuda.ExternalStream(_explicit_stream(stream))
