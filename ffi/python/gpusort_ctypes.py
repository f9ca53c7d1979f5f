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
import operator
import os
import sys
from pathlib import Path

OK, INVALID_ARGUMENT, BUFFER_TOO_SMALL = 0, 1, 8
ASCENDING, DESCENDING = 0, 1
ALGORITHM_AUTO, ALGORITHM_RADIX, ALGORITHM_BITONIC, ALGORITHM_ODD_EVEN_MERGE = 0, 1, 2, 3
BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA = 0, 1, 2


class Kvp(ctypes.Structure):
    """gpusort_kvp: uint32 key, uint32 value (8 bytes, key first)."""

    _fields_ = [("key", ctypes.c_uint32), ("value", ctypes.c_uint32)]


class GpusortError(Exception):
    """A failed gpusort call: `status` is the gpusort_status, the text "<status string>: <detail>"."""

    def __init__(self, status, message):
        # The library's message is the detail only; the status string is the one prefix.
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
    "gpusort_release_memory": [_ptr],
    **{f"gpusort_sort_keys_{t}": [_ptr, _ptr, _size, _u32, _u32] for t in ("u32", "i32", "f32", "u64")},
    **{f"gpusort_sort_pairs_{t}": [_ptr, _ptr, _ptr, _size, _u32, _u32] for t in ("u32", "i32", "f32", "u64")},
}.items():
    getattr(_lib, _name).restype = _status
    getattr(_lib, _name).argtypes = _args
_lib.gpusort_sorter_free.restype = None
_lib.gpusort_sorter_free.argtypes = [_ptr]

# Struct format letters by kind. The letter alone does not say the size ('L' and 'l' are 4 bytes
# on some platforms, 8 on others): the key type comes from the kind and the buffer's item size.
_UNSIGNED, _SIGNED, _FLOAT = "BHILQN", "bhilqn", "efd"
_KEY_TYPES = {("unsigned", 4): "u32", ("signed", 4): "i32", ("float", 4): "f32", ("unsigned", 8): "u64"}
_NATIVE_ORDER = "<" if sys.byteorder == "little" else ">"
_ALGORITHMS, _BACKENDS = range(4), range(3)


def last_error_message():
    needed = ctypes.c_size_t(0)
    _lib.gpusort_last_error_message(None, 0, ctypes.byref(needed))
    buf = ctypes.create_string_buffer(needed.value + 1)
    _lib.gpusort_last_error_message(buf, len(buf), None)
    return buf.value.decode()


def _check(status):
    if status != OK:
        raise GpusortError(status, last_error_message())


def _kind(fmt):
    """'unsigned', 'signed', 'float' or None, for a struct format in native byte order."""
    if len(fmt) == 2 and fmt[0] in "@=" + _NATIVE_ORDER:
        fmt = fmt[1:]
    if len(fmt) != 1:
        return None  # a struct, another byte order, a pointer...
    return "unsigned" if fmt in _UNSIGNED else "signed" if fmt in _SIGNED else "float" if fmt in _FLOAT else None


def _address(buf, name):
    """(address or None when empty, item count, format, item size) of a writable, C-contiguous,
    one-dimensional buffer; `name` is the argument's name for the error."""
    try:
        view = memoryview(buf)
    except TypeError:
        raise TypeError(f"{name}: a writable buffer is required (array.array, NumPy array, ...), "
                        f"not {type(buf).__name__}") from None
    if view.readonly or not view.c_contiguous:
        raise ValueError(f"{name}: gpusort sorts in place: the buffer must be writable and C-contiguous")
    if view.ndim != 1:
        # Sorting a matrix as one flat array would be a surprise; say so instead.
        raise ValueError(f"{name}: the buffer must be one-dimensional, not {view.ndim}-dimensional")
    addr = ctypes.addressof(ctypes.c_char.from_buffer(view)) if view.nbytes else None
    return addr, view.nbytes // view.itemsize, view.format, view.itemsize


def _key_type(fmt, itemsize, name, allowed):
    kind = _kind(fmt)
    t = _KEY_TYPES.get((kind, itemsize))
    if t not in allowed:
        what = f"{kind} {itemsize}-byte" if kind else f"format {fmt!r}, {itemsize}-byte"
        raise TypeError(f"{name}: elements must be {' or '.join(allowed)}, not {what} items")
    return t


def _enum(value, name, allowed):
    """A C enum value, checked here: ctypes would cut 2**32 + 2 down to 2 without a word."""
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None
    if value not in allowed:
        raise ValueError(f"{name} {value} is not one of {list(allowed)}")
    return value


def _order(descending):
    """DESCENDING or ASCENDING; only a bool or 0/1 (a NumPy bool too), not any truthy value."""
    try:
        ok = descending in (False, True)
    except (TypeError, ValueError):  # a NumPy array has no single truth value
        ok = False
    if not ok:
        raise ValueError(f"descending must be True or False, not {descending!r}")
    return DESCENDING if descending else ASCENDING


class Sorter:
    """A gpusort_sorter handle (backend: BACKEND_AUTO, BACKEND_CPU or BACKEND_CUDA). Safe to share
    between threads. Module-level functions use the library's default sorter."""

    def __init__(self, backend=BACKEND_AUTO):
        # Set first: __del__ runs even when __init__ raises.
        self._handle = None
        backend = _enum(backend, "backend", _BACKENDS)
        handle = ctypes.c_void_p()
        _check(_lib.gpusort_sorter_new(backend, ctypes.byref(handle)))
        self._handle = handle

    def close(self):
        if self._handle:
            _lib.gpusort_sorter_free(self._handle)
            self._handle = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def describe(self):
        return describe(self)

    def release_memory(self):
        release_memory(self)


def _handle(sorter):
    """The C handle of `sorter`: only our own Sorter objects (None: the default sorter)."""
    if sorter is None:
        return None
    if not isinstance(sorter, Sorter):
        raise TypeError(f"sorter must be a gpusort_ctypes.Sorter or None, not {type(sorter).__name__}")
    if not sorter._handle:
        raise ValueError("sorter is closed")
    return sorter._handle


def describe(sorter=None):
    """One line: the backend, the GPU, and why the CPU is used where it is."""
    handle = _handle(sorter)
    needed = ctypes.c_size_t(0)
    _lib.gpusort_describe(handle, None, 0, ctypes.byref(needed))
    buf = ctypes.create_string_buffer(needed.value + 1)
    _check(_lib.gpusort_describe(handle, buf, len(buf), None))
    return buf.value.decode()


def release_memory(sorter=None):
    """Frees what gpusort keeps between sorts (pinned staging, the GPU's memory pool, the CPU
    scratch), shared by every sorter of the process; the next sort allocates it again."""
    _check(_lib.gpusort_release_memory(_handle(sorter)))


def sort_keys(keys, descending=False, algorithm=ALGORITHM_AUTO, sorter=None):
    """Sorts a buffer of u32, i32, f32 (IEEE totalOrder) or u64 keys in place, such as array('I')
    or a NumPy uint32/int32/float32/uint64 array."""
    order, algorithm, handle = _order(descending), _enum(algorithm, "algorithm", _ALGORITHMS), _handle(sorter)
    addr, n, fmt, size = _address(keys, "keys")
    t = _key_type(fmt, size, "keys", ("u32", "i32", "f32", "u64"))
    _check(getattr(_lib, f"gpusort_sort_keys_{t}")(handle, addr, n, order, algorithm))


def sort_pairs(keys, values, descending=False, algorithm=ALGORITHM_AUTO, sorter=None):
    """Sorts split arrays by key in place: keys as in sort_keys, values u32 and as many."""
    order, algorithm, handle = _order(descending), _enum(algorithm, "algorithm", _ALGORITHMS), _handle(sorter)
    kaddr, n, fmt, size = _address(keys, "keys")
    vaddr, nv, vfmt, vsize = _address(values, "values")
    t = _key_type(fmt, size, "keys", ("u32", "i32", "f32", "u64"))
    _key_type(vfmt, vsize, "values", ("u32",))
    if nv != n:
        raise ValueError(f"values: {nv} values for {n} keys; split pairs need one value per key")
    _check(getattr(_lib, f"gpusort_sort_pairs_{t}")(handle, kaddr, vaddr, n, order, algorithm))


def sort_kvp(pairs, descending=False, algorithm=ALGORITHM_AUTO, sorter=None):
    """Sorts pairs in place: a ctypes array of Kvp, or any writable buffer of 8-byte (key, value) u32 pairs."""
    order, algorithm, handle = _order(descending), _enum(algorithm, "algorithm", _ALGORITHMS), _handle(sorter)
    if isinstance(pairs, ctypes.Array):
        if pairs._type_ is not Kvp:
            raise TypeError("pairs: a ctypes array of pairs must be of Kvp")
        addr, n = (ctypes.addressof(pairs) if len(pairs) else None), len(pairs)
    else:
        addr, count, _, size = _address(pairs, "pairs")
        if (count * size) % 8:
            raise ValueError("pairs: the buffer must hold whole 8-byte (key, value) records")
        n = count * size // 8
    _check(_lib.gpusort_sort_kvp(handle, addr, n, order, algorithm))


def version():
    return _lib.gpusort_version().decode()
