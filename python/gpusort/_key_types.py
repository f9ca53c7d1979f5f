"""The key types gpusort sorts, as the native module lists them (``_native.KEY_TYPES``, made from
the library's one list of key types), and the tables and messages the package derives from them:
NumPy dtypes for host arrays, interface typestrs and native key names for CUDA arrays.

bfloat16 has no NumPy dtype of its own: NumPy arrays of it are ml_dtypes' (where that package is
installed), and CUDA arrays of it are torch tensors, known here by a typestr no interface gives."""

from __future__ import annotations

from typing import Dict, Iterable, NamedTuple, Tuple

import numpy as np

from ._native import KEY_TYPES as _NATIVE_KEY_TYPES


class KeyType(NamedTuple):
    """One key type: its NumPy dtype name (``"uint32"``), the native module's key name
    (``"u32"``), bytes per key, whether CUDA arrays of it sort on the device, and whether it is a
    float type (which float orders apply to)."""

    numpy_dtype: str
    name: str
    itemsize: int
    sorts_on_device: bool
    is_float: bool

    @property
    def typestr(self) -> str:
        """The ``__cuda_array_interface__`` typestr of the keys (little-endian on every CUDA host);
        for a type NumPy has no number dtype of (bfloat16: none, or ml_dtypes' ``"<V2"``, which
        any 2-byte record has too), ``"<"`` and the key name."""
        try:
            dt = np.dtype(self.numpy_dtype)
        except TypeError:
            dt = None
        if dt is None or dt.kind not in "biuf":
            return "<" + self.name
        return dt.newbyteorder("<").str


KEY_TYPES: Tuple[KeyType, ...] = tuple(KeyType(*k) for k in _NATIVE_KEY_TYPES)
DEVICE_KEY_TYPES: Tuple[KeyType, ...] = tuple(k for k in KEY_TYPES if k.sorts_on_device)
HOST_ONLY_KEY_TYPES: Tuple[KeyType, ...] = tuple(k for k in KEY_TYPES if not k.sorts_on_device)

# Host (NumPy) key dtypes by name: a native dtype whose ``.name`` is one of these is a key type.
HOST_DTYPE_NAMES = frozenset(k.numpy_dtype for k in KEY_TYPES)
# The float key types, by NumPy dtype name and by native key name.
FLOAT_DTYPE_NAMES = frozenset(k.numpy_dtype for k in KEY_TYPES if k.is_float)
FLOAT_KEY_NAMES = frozenset(k.name for k in KEY_TYPES if k.is_float)

# The interface typestrs of the keys CUDA arrays take, to their native key names.
DEVICE_TYPESTRS: Dict[str, str] = {k.typestr: k.name for k in DEVICE_KEY_TYPES}
# Those of device lexsort columns: every key type (the column kernels pack each).
COLUMN_TYPESTRS: Dict[str, str] = {k.typestr: k.name for k in KEY_TYPES}


def one_of(names: Iterable[str], last: str = "or") -> str:
    """``names`` as an English list: ``"a, b or c"``."""
    items = list(names)
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def _device_key_dtypes() -> str:
    text = one_of(k.numpy_dtype for k in DEVICE_KEY_TYPES)
    if HOST_ONLY_KEY_TYPES:
        text += f"; {one_of((k.numpy_dtype for k in HOST_ONLY_KEY_TYPES), 'and')} in host arrays only"
    return text


# The key dtypes of CUDA arrays, for messages: those the device sorts take, then those that sort
# in host (NumPy) arrays only (the device sorts have no kernels for them, so CUDA arrays of them
# are refused).
DEVICE_KEY_DTYPES = _device_key_dtypes()


def is_host_key(dtype: np.dtype) -> bool:
    """Whether NumPy arrays of ``dtype`` sort as they are (a key type in native byte order)."""
    return dtype.isnative and dtype.fields is None and dtype.name in HOST_DTYPE_NAMES


def is_float_dtype(dtype: np.dtype) -> bool:
    """Whether ``dtype`` holds floats: NumPy's, and ml_dtypes' bfloat16 (whose kind is ``"V"``)."""
    return dtype.kind == "f" or (dtype.fields is None and dtype.name in FLOAT_DTYPE_NAMES)
