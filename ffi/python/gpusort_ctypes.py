"""gpusort from Python through ctypes: no compiled extension, just libgpusort.so.

Sorts any writable buffer in place: array.array, bytearray, ctypes arrays, memoryviews, NumPy
arrays (through their buffer). Example:

    from array import array
    import gpusort_ctypes as gs
    keys = array("I", [5, 3, 9, 1])
    gs.sort_keys(keys)                        # ascending, on the GPU when one is usable
    pairs = (gs.Kvp * 3)(gs.Kvp(2, 0), gs.Kvp(1, 1), gs.Kvp(2, 2))
    gs.sort_kvp(pairs, descending=True)       # stable: equal keys keep their order

The library is found through $GPUSORT_LIB (a path), else next to this file, else in the cargo
target directories of this repository, else on the system search path.
"""

import ctypes
import ctypes.util
import os
from pathlib import Path

OK, INVALID_ARGUMENT, BUFFER_TOO_SMALL = 0, 1, 8
ASCENDING, DESCENDING = 0, 1
ALGORITHM_AUTO, ALGORITHM_RADIX, ALGORITHM_BITONIC, ALGORITHM_ODD_EVEN_MERGE = 0, 1, 2, 3
BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA = 0, 1, 2


class Kvp(ctypes.Structure):
    """gpusort_kvp: uint32 key, uint32 value (8 bytes, key first)."""

    _fields_ = [("key", ctypes.c_uint32), ("value", ctypes.c_uint32)]


class GpusortError(Exception):
    def __init__(self, status, message):
        super().__init__(f"{_lib.gpusort_status_str(status).decode()}: {message}")
        self.status = status


def _find_library():
    if os.environ.get("GPUSORT_LIB"):
        return os.environ["GPUSORT_LIB"]
    here = Path(__file__).resolve().parent
    target = Path(os.environ.get("CARGO_TARGET_DIR", here.parent.parent / "target"))
    for candidate in [here / "libgpusort.so", target / "release/libgpusort.so", target / "debug/libgpusort.so"]:
        if candidate.exists():
            return str(candidate)
    return ctypes.util.find_library("gpusort") or "libgpusort.so"


_lib = ctypes.CDLL(_find_library())
_status, _ptr, _size = ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t
_u32 = ctypes.c_uint32
_lib.gpusort_status_str.restype = ctypes.c_char_p
_lib.gpusort_status_str.argtypes = [ctypes.c_int]
_lib.gpusort_version.restype = ctypes.c_char_p
_lib.gpusort_version.argtypes = []
for _name, _args in {
    "gpusort_sort_kvp": [_ptr, _ptr, _size, _u32, _u32],
    "gpusort_sorter_new": [_u32, ctypes.POINTER(_ptr)],
    "gpusort_describe": [_ptr, ctypes.c_char_p, _size, ctypes.POINTER(_size)],
    "gpusort_last_error_message": [ctypes.c_char_p, _size, ctypes.POINTER(_size)],
    **{f"gpusort_sort_keys_{t}": [_ptr, _ptr, _size, _u32, _u32] for t in ("u32", "i32", "f32", "u64")},
    **{f"gpusort_sort_pairs_{t}": [_ptr, _ptr, _ptr, _size, _u32, _u32] for t in ("u32", "i32", "f32", "u64")},
}.items():
    getattr(_lib, _name).restype = _status
    getattr(_lib, _name).argtypes = _args
_lib.gpusort_sorter_free.restype = None
_lib.gpusort_sorter_free.argtypes = [_ptr]

# Buffer format codes (array.array typecodes, struct / memoryview formats) to key types.
_KEY_TYPES = {"I": "u32", "L": "u32", "i": "i32", "l": "i32", "f": "f32", "Q": "u64", "K": "u64"}
_SIZES = {"u32": 4, "i32": 4, "f32": 4, "u64": 8}


def last_error_message():
    needed = ctypes.c_size_t(0)
    _lib.gpusort_last_error_message(None, 0, ctypes.byref(needed))
    buf = ctypes.create_string_buffer(needed.value + 1)
    _lib.gpusort_last_error_message(buf, len(buf), None)
    return buf.value.decode()


def _check(status):
    if status != OK:
        raise GpusortError(status, last_error_message())


def _address(buf):
    """(address, element count, format, item size) of a writable contiguous buffer; None when empty."""
    view = memoryview(buf)
    if view.readonly or not view.c_contiguous:
        raise ValueError("gpusort sorts in place: the buffer must be writable and contiguous")
    addr = ctypes.addressof(ctypes.c_char.from_buffer(view)) if view.nbytes else None
    return addr, view.nbytes // view.itemsize, view.format, view.itemsize


def _key_type(fmt, itemsize):
    t = _KEY_TYPES.get(fmt.lstrip("@=<"))
    if t is None or _SIZES[t] != itemsize:
        raise TypeError(f"keys of format {fmt!r} ({itemsize} bytes) are not u32, i32, f32 or u64")
    return t


class Sorter:
    """A gpusort_sorter handle (backend: BACKEND_AUTO, BACKEND_CPU or BACKEND_CUDA). Safe to share
    between threads. Module-level functions use the library's default sorter."""

    def __init__(self, backend=BACKEND_AUTO):
        handle = ctypes.c_void_p()
        _check(_lib.gpusort_sorter_new(backend, ctypes.byref(handle)))
        self._handle = handle

    def close(self):
        if self._handle:
            _lib.gpusort_sorter_free(self._handle)
            self._handle = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def describe(self):
        return describe(self._handle)


def _handle(sorter):
    return sorter._handle if isinstance(sorter, Sorter) else None


def describe(sorter=None):
    handle = sorter._handle if isinstance(sorter, Sorter) else sorter
    needed = ctypes.c_size_t(0)
    _lib.gpusort_describe(handle, None, 0, ctypes.byref(needed))
    buf = ctypes.create_string_buffer(needed.value + 1)
    _check(_lib.gpusort_describe(handle, buf, len(buf), None))
    return buf.value.decode()


def sort_keys(keys, descending=False, algorithm=ALGORITHM_AUTO, sorter=None):
    """Sorts a buffer of u32 ('I'), i32 ('i'), f32 ('f', IEEE totalOrder) or u64 ('Q') keys in place."""
    addr, n, fmt, size = _address(keys)
    t = _key_type(fmt, size)
    _check(getattr(_lib, f"gpusort_sort_keys_{t}")(_handle(sorter), addr, n, int(descending), algorithm))


def sort_pairs(keys, values, descending=False, algorithm=ALGORITHM_AUTO, sorter=None):
    """Sorts split arrays by key in place: keys as in sort_keys, values a u32 buffer of equal length."""
    kaddr, n, fmt, size = _address(keys)
    vaddr, nv, vfmt, vsize = _address(values)
    t = _key_type(fmt, size)
    if _key_type(vfmt, vsize) != "u32" or nv != n:
        raise ValueError("values must be a u32 buffer as long as the keys")
    _check(getattr(_lib, f"gpusort_sort_pairs_{t}")(_handle(sorter), kaddr, vaddr, n, int(descending), algorithm))


def sort_kvp(pairs, descending=False, algorithm=ALGORITHM_AUTO, sorter=None):
    """Sorts pairs in place: a ctypes array of Kvp, or any writable buffer of 8-byte (key, value) u32 pairs."""
    if isinstance(pairs, ctypes.Array):
        if pairs._type_ is not Kvp:
            raise TypeError("a ctypes array of pairs must be of Kvp")
        addr, n = (ctypes.addressof(pairs) if len(pairs) else None), len(pairs)
    else:
        addr, _, _, _ = _address(pairs)
        if memoryview(pairs).nbytes % 8:
            raise ValueError("pairs must be a buffer of 8-byte (key, value) records")
        n = memoryview(pairs).nbytes // 8
    _check(_lib.gpusort_sort_kvp(_handle(sorter), addr, n, int(descending), algorithm))


def version():
    return _lib.gpusort_version().decode()
