"""NumPy byte-string (``S<n>``) keys in :class:`gpusort.Sorter`'s sorts: each key is a row of
``n`` bytes ordered as ``memcmp`` orders them (NumPy's order of ``S<n>`` values), sorted by the
native byte-key sorts. ``U<n>`` arrays come here too, to be refused with a pointer to ``S<n>``."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _lexsort


def is_strings(dt: np.dtype) -> bool:
    """Whether ``dt`` is a string dtype (``S<n>`` or ``U<n>``), which the byte-key paths take."""
    return dt.kind in "SU"


def sort(native: Any, a: np.ndarray, descending: bool) -> None:
    """:meth:`Sorter.sort` of a 1-D NumPy ``S<n>`` array: byte strings in ``memcmp`` order (NumPy's
    order of them), in place, as rows that are all key."""
    width = _lexsort.byte_width(a.dtype, "a")
    if a.ndim != 1:
        raise ValueError(f"a: byte strings sort as a 1-D array; this one has shape {a.shape}")
    if not a.flags.c_contiguous:
        raise ValueError("a: not contiguous; sort a contiguous copy (numpy.ascontiguousarray)")
    rows = a.view(np.uint8) if a.size else np.zeros(0, dtype=np.uint8)
    native.sort_records_by_bytes(rows, width, 0, width, descending)


def argsort(sorter: Any, keys: np.ndarray, descending: bool) -> Any:
    """:meth:`Sorter.argsort` of a 1-D NumPy ``S<n>`` array: the lexsort of it as its one key."""
    _lexsort.byte_width(keys.dtype, "keys")
    if keys.ndim != 1:
        raise ValueError(f"keys: byte strings argsort as a 1-D array; this one has shape {keys.shape}")
    return sorter.lexsort([keys], descending)


def sort_records(native: Any, rows: np.ndarray, a: np.ndarray, key: str, descending: bool) -> None:
    """:meth:`Sorter.sort_records` of ``a`` (its bytes: ``rows``) by its string field ``key``,
    checked by the caller to be a plain field of a 1-D contiguous structured array."""
    field, offset = a.dtype.fields[key][0], a.dtype.fields[key][1]
    width = _lexsort.byte_width(field, f"key {key!r}")
    native.sort_records_by_bytes(rows, a.dtype.itemsize, offset, width, descending)
