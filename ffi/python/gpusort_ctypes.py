"""gpusort from Python through ctypes: no compiled extension, just libgpusort.so.

Sorts any writable buffer in place: array.array, bytearray, ctypes arrays, memoryviews, NumPy
arrays (through their buffer). Example:

    from array import array
    import gpusort_ctypes as gs
    keys = array("I", [5, 3, 9, 1])
    gs.sort_keys(keys)                        # ascending, on the GPU when one is usable
    pairs = (gs.Kvp * 3)(gs.Kvp(2, 0), gs.Kvp(1, 1), gs.Kvp(2, 2))
    gs.sort_kvp(pairs, descending=True)       # stable: equal keys keep their order
    gs.argsort(array("d", [2.5, -1.0, 2.5]))  # array('Q', [1, 0, 2]): the keys are only read
    gs.sort_segments(keys, [0, 2, 4])         # each of keys[0:2], keys[2:4] on its own
    gs.top_k(array("i", [4, -1, 4, 0]), 2)    # (array('i', [-1, 0]), array('Q', [1, 3]))

The library is found through $GPUSORT_LIB (a path), else next to this file, else in the cargo
target directories of this repository, else on the system search path.
"""

import ctypes
import ctypes.util
import operator
import os
import sys
from array import array
from pathlib import Path

OK, INVALID_ARGUMENT, BUFFER_TOO_SMALL = 0, 1, 8
ASCENDING, DESCENDING = 0, 1
ALGORITHM_AUTO, ALGORITHM_RADIX, ALGORITHM_BITONIC, ALGORITHM_ODD_EVEN_MERGE = 0, 1, 2, 3
BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA = 0, 1, 2
# The key types this wrapper sorts, in the order of the C GPUSORT_KEY_* values (gpusort.h, which
# has the 16- and 8-bit ones after these): the name the C functions end with, the kind and size.
_KEYS = (
    ("u32", "unsigned", 4), ("i32", "signed", 4), ("f32", "float", 4),
    ("u64", "unsigned", 8), ("i64", "signed", 8), ("f64", "float", 8),
)
KEY_U32, KEY_I32, KEY_F32, KEY_U64, KEY_I64, KEY_F64 = range(len(_KEYS))


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


_ALL_KEYS = tuple(name for name, _, _ in _KEYS)
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
    "gpusort_sort_records": [_ptr, _ptr, _size, _size, _size, _u32, _u32],
    **{f"gpusort_sort_keys_{t}": [_ptr, _ptr, _size, _u32, _u32] for t in _ALL_KEYS},
    **{f"gpusort_sort_pairs_{t}": [_ptr, _ptr, _ptr, _size, _u32, _u32] for t in _ALL_KEYS},
    **{f"gpusort_sort_pairs_{t}_u64": [_ptr, _ptr, _ptr, _size, _u32, _u32] for t in _ALL_KEYS},
    **{f"gpusort_argsort_{t}": [_ptr, _ptr, _size, _ptr, _u32] for t in _ALL_KEYS},
    **{f"gpusort_sort_segments_{t}": [_ptr, _ptr, _ptr, _size, _ptr, _size, _u32] for t in _ALL_KEYS},
    **{f"gpusort_top_k_{t}": [_ptr, _ptr, _size, _size, _ptr, _ptr, _u32] for t in _ALL_KEYS},
}.items():
    getattr(_lib, _name).restype = _status
    getattr(_lib, _name).argtypes = _args
_lib.gpusort_sorter_free.restype = None
_lib.gpusort_sorter_free.argtypes = [_ptr]

# Struct format letters by kind. The letter alone does not say the size ('L' and 'l' are 4 bytes
# on some platforms, 8 on others): the key type comes from the kind and the buffer's item size.
_UNSIGNED, _SIGNED, _FLOAT = "BHILQN", "bhilqn", "efd"
_KEY_TYPES = {(kind, size): name for name, kind, size in _KEYS}
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


def _view(buf, name, writable=True, flat=True):
    """memoryview of a C-contiguous buffer (writable unless told, one-dimensional when `flat`);
    `name` is the argument's name for the error."""
    try:
        view = memoryview(buf)
    except TypeError:
        raise TypeError(f"{name}: a {'writable ' if writable else ''}buffer is required (array.array, NumPy "
                        f"array, ...), not {type(buf).__name__}") from None
    if writable and view.readonly:
        raise ValueError(f"{name}: gpusort sorts in place: the buffer must be writable and C-contiguous")
    if not view.c_contiguous:
        raise ValueError(f"{name}: the buffer must be C-contiguous")
    if flat and view.ndim != 1:
        # Sorting a matrix as one flat array would be a surprise; say so instead.
        raise ValueError(f"{name}: the buffer must be one-dimensional, not {view.ndim}-dimensional")
    return view


def _address(buf, name, flat=True):
    """(address or None when empty, item count, format, item size) of a writable, C-contiguous
    buffer, one-dimensional when `flat`; `name` is the argument's name for the error."""
    view = _view(buf, name, flat=flat)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(view)) if view.nbytes else None
    return addr, view.nbytes // view.itemsize, view.format, view.itemsize


def _read_address(view):
    """(address or None when empty, the object to keep alive meanwhile) of a buffer only read:
    ctypes takes the address of writable buffers only, so a read-only one is read from a copy."""
    readable = bytearray(view) if view.readonly else view
    return (ctypes.addressof(ctypes.c_char.from_buffer(readable)) if view.nbytes else None), readable


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


def _size_t(value, name):
    """A size_t argument, checked here: ctypes would wrap -1 and cut 2**64 + 8 without a word."""
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None
    if not 0 <= value < 2**64:
        raise ValueError(f"{name} {value} is not a size (0 to 2**64 - 1)")
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
    """Sorts a buffer of u32, i32, f32, u64, i64 or f64 keys in place (floats in IEEE totalOrder),
    such as array('I') or a NumPy uint32/int32/float32/uint64/int64/float64 array."""
    order, algorithm, handle = _order(descending), _enum(algorithm, "algorithm", _ALGORITHMS), _handle(sorter)
    addr, n, fmt, size = _address(keys, "keys")
    t = _key_type(fmt, size, "keys", _ALL_KEYS)
    _check(getattr(_lib, f"gpusort_sort_keys_{t}")(handle, addr, n, order, algorithm))


def sort_pairs(keys, values, descending=False, algorithm=ALGORITHM_AUTO, sorter=None):
    """Sorts split arrays by key in place: keys as in sort_keys, values u32 or u64 (row ids past
    2^32; gpusort_sort_pairs_<key>_u64) and as many."""
    order, algorithm, handle = _order(descending), _enum(algorithm, "algorithm", _ALGORITHMS), _handle(sorter)
    kaddr, n, fmt, size = _address(keys, "keys")
    vaddr, nv, vfmt, vsize = _address(values, "values")
    t = _key_type(fmt, size, "keys", _ALL_KEYS)
    wide = _key_type(vfmt, vsize, "values", ("u32", "u64")) == "u64"
    if nv != n:
        raise ValueError(f"values: {nv} values for {n} keys; split pairs need one value per key")
    fn = getattr(_lib, f"gpusort_sort_pairs_{t}_u64" if wide else f"gpusort_sort_pairs_{t}")
    _check(fn(handle, kaddr, vaddr, n, order, algorithm))


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


def argsort(keys, out=None, descending=False, sorter=None):
    """The stable permutation that sorts `keys` (any key type of sort_keys; the keys are only
    read, so read-only buffers are fine): equal keys keep their input order, descending too.
    Written to `out` when given (a writable buffer of as many 8-byte integers, signed or
    unsigned: array('Q'), NumPy int64/uint64) and returned; else returned as a new array('Q')."""
    order, handle = _order(descending), _handle(sorter)
    view = _view(keys, "keys", writable=False)
    n, t = len(view), _key_type(view.format, view.itemsize, "keys", _ALL_KEYS)
    kaddr, _keep = _read_address(view)
    if out is None:
        out = array("Q", bytes(8 * n))
    oaddr, nout, ofmt, osize = _address(out, "out")
    if _kind(ofmt) not in ("unsigned", "signed") or osize != 8:
        raise TypeError(f"out: elements must be 8-byte integers (indices), not format {ofmt!r}, {osize}-byte items")
    if nout != n:
        raise ValueError(f"out: room for {nout} indices, but there are {n} keys")
    _check(getattr(_lib, f"gpusort_argsort_{t}")(handle, kaddr, n, oaddr, order))
    return out


def _offsets(offsets):
    """(address or None, count, object to keep alive) of segment offsets as size_t: a 1-D buffer
    of unsigned size_t items (array('Q'), NumPy uint64 on 64-bit) is read in place, any other
    iterable of integers (list, range, NumPy int64) is checked and copied."""
    try:
        view = memoryview(offsets)
    except TypeError:
        view = None
    if (view is not None and view.ndim == 1 and view.c_contiguous and _kind(view.format) == "unsigned"
            and view.itemsize == ctypes.sizeof(ctypes.c_size_t)):
        addr, keep = _read_address(view)
        return addr, len(view), keep
    try:
        items = [_size_t(o, "offsets") for o in (view.tolist() if view is not None else offsets)]
    except TypeError as e:
        raise TypeError(f"offsets: a sequence of integers is required ({e})") from None
    copy = (ctypes.c_size_t * len(items))(*items)
    return (ctypes.addressof(copy) if items else None), len(items), copy


def sort_segments(keys, offsets, values=None, descending=False, sorter=None):
    """Sorts each segment of `keys` (any key type of sort_keys) in place on its own, stably, the
    u32 `values` (as many, or None: keys only) moving with their keys. Segment s is
    keys[offsets[s]:offsets[s + 1]]; `offsets` runs from 0 to len(keys) and never falls (empty
    segments are fine), else GpusortError(INVALID_ARGUMENT) with the arrays untouched. Rows of
    `cols` keys: offsets range(0, len(keys) + 1, cols)."""
    order, handle = _order(descending), _handle(sorter)
    kaddr, n, fmt, size = _address(keys, "keys")
    t = _key_type(fmt, size, "keys", _ALL_KEYS)
    vaddr = None
    if values is not None:
        vaddr, nv, vfmt, vsize = _address(values, "values")
        _key_type(vfmt, vsize, "values", ("u32",))
        if nv != n:
            raise ValueError(f"values: {nv} values for {n} keys; split pairs need one value per key")
    oaddr, m, _keep = _offsets(offsets)
    _check(getattr(_lib, f"gpusort_sort_segments_{t}")(handle, kaddr, vaddr, n, oaddr, m, order))


# array.array type codes of the key types; 'I' and 'i' are 4 bytes, 'Q' and 'q' 8, wherever
# CPython runs ('L' and 'l' are not).
_ARRAY_CODES = {"u32": "I", "i32": "i", "f32": "f", "u64": "Q", "i64": "q", "f64": "d"}


def top_k(keys, k, descending=False, with_indices=True, sorter=None):
    """The `k` smallest keys (the `k` largest when `descending`), sorted, and where each stood in
    `keys`: exactly the first `k` of the stable sort, so ties at the k-th key go to the earliest
    positions. `keys`: any key type of sort_keys, only read (read-only buffers are fine). Returns
    (values, indices): an array.array of the keys' type and an array('Q'), or None for the
    indices when not `with_indices`. `k` from 0 to len(keys); above it GpusortError
    (INVALID_ARGUMENT)."""
    order, handle = _order(descending), _handle(sorter)
    k = _size_t(k, "k")
    view = _view(keys, "keys", writable=False)
    n, t = len(view), _key_type(view.format, view.itemsize, "keys", _ALL_KEYS)
    kaddr, _keep = _read_address(view)
    # k past n: no outputs of k items are made (k may be huge); the library refuses k first.
    m = k if k <= n else 0
    values = array(_ARRAY_CODES[t], bytes(view.itemsize * m))
    indices = array("Q", bytes(8 * m)) if with_indices else None
    vaddr = _address(values, "values")[0]
    iaddr = _address(indices, "indices")[0] if indices is not None else None
    _check(getattr(_lib, f"gpusort_top_k_{t}")(handle, kaddr, n, k, vaddr, iaddr, order))
    return values, indices


_KEY_NAMES = {name: code for code, name in enumerate(_ALL_KEYS)}


def sort_records(records, key_offset, key_type, record_size=None, descending=False, sorter=None):
    """Sorts fixed-size records in place, stably, by the key each holds at byte `key_offset`.

    `records`: a writable, C-contiguous buffer: a ctypes array of Structures, a NumPy structured
    array, or raw bytes (bytearray, any shape) with `record_size` given. `record_size` defaults to
    the buffer's item size (the Structure's size). `key_type`: "u32", "i32", "f32", "u64", "i64",
    "f64" or a KEY_* value. The key may be unaligned (a packed Structure); records move whole."""
    order, handle = _order(descending), _handle(sorter)
    if isinstance(key_type, str):
        if key_type not in _KEY_NAMES:
            raise ValueError(f"key_type {key_type!r} is not one of {list(_KEY_NAMES)}")
        key_type = _KEY_NAMES[key_type]
    key_type = _enum(key_type, "key_type", range(len(_ALL_KEYS)))
    addr, count, _, itemsize = _address(records, "records", flat=False)
    record_size = itemsize if record_size is None else _size_t(record_size, "record_size")
    key_offset = _size_t(key_offset, "key_offset")
    nbytes = count * itemsize
    # record_size 0 goes to the library, which refuses it with its own message.
    if record_size and nbytes % record_size:
        raise ValueError(f"records: {nbytes} bytes are not whole records of {record_size} bytes")
    n = nbytes // record_size if record_size else 0
    _check(_lib.gpusort_sort_records(handle, addr, n, record_size, key_offset, key_type, order))


def version():
    return _lib.gpusort_version().decode()
