"""``gpusort.arrow``: ``pyarrow.compute.sort_indices`` with gpusort's lexsort doing the sort.

:func:`sort_indices` returns exactly what ``pyarrow.compute.sort_indices`` returns (a
``pyarrow.UInt64Array`` of row numbers, stable) for Arrays, ChunkedArrays, RecordBatches and
Tables whose sort keys are integer, floating point, boolean, timestamp, date, time or duration
columns, nulls and NaN placed as Arrow places them: at the end, values then NaN then nulls; at
the start, nulls then NaN then values; in either order, ``-0.0 == +0.0``. Keys of other types
(strings, binary, decimals, dictionaries, nested types) are sorted by pyarrow instead, with an
:class:`ArrowFallbackWarning`.

>>> import pyarrow as pa, gpusort.arrow
>>> t = pa.table({"k": [2, 1, None, 1], "x": [0.5, float("nan"), 1.0, -1.0]})
>>> gpusort.arrow.sort_indices(t, [("k", "ascending"), ("x", "descending")]).to_pylist()
[3, 1, 0, 2]
"""

from __future__ import annotations

import warnings
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import gpusort

from ._lexsort import host_keys

__all__ = ["sort_indices", "column_keys", "ArrowFallbackWarning"]


class ArrowFallbackWarning(UserWarning):
    """A sort key gpusort does not sort was sorted by pyarrow instead."""


def _storage(t: pa.DataType) -> Optional[pa.DataType]:
    """The integer, float or bool type whose values order as ``t``'s (temporal types: the
    integers that hold them), or None when there is none."""
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
        return t
    if pa.types.is_timestamp(t) or pa.types.is_duration(t) or pa.types.is_date64(t) or pa.types.is_time64(t):
        return pa.int64()
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return pa.int32()
    return None


def column_keys(column: Any) -> Optional[Tuple[np.ndarray, Optional[np.ndarray]]]:
    """``(keys, nulls)``: an Arrow Array or ChunkedArray as a NumPy array of a gpusort key type in
    Arrow's order (nulls' slots zero) and its null mask (None without nulls), or None for types
    gpusort does not sort."""
    storage = _storage(column.type)
    if storage is None:
        return None
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if storage != arr.type:
        arr = arr.view(storage)
    nulls = arr.is_null().to_numpy(zero_copy_only=False) if arr.null_count else None
    if arr.null_count:
        arr = arr.fill_null(False if pa.types.is_boolean(storage) else 0)
    values = arr.to_numpy(zero_copy_only=False)
    keys, _ = host_keys(values, "column")
    return keys, nulls


def _sort_keys(data: Any, sort_keys: Any, null_placement: Optional[str]) -> List[Tuple[Any, bool, bool]]:
    """``(column, descending, nulls_first)`` of each sort key, as pyarrow reads ``sort_keys``:
    ``(name, order)`` or ``(name, order, null_placement)`` (default ``"at_end"``), the
    ``null_placement`` argument, when given, for every key; an Array's keys name no column."""
    keys = list(sort_keys)
    if isinstance(data, (pa.Array, pa.ChunkedArray)):
        keys = keys[:1] or [("", "ascending")]
    elif not keys:
        raise pa.ArrowInvalid("Must specify one or more sort keys")
    out = []
    for key in keys:
        name, order, placement = (tuple(key) + ("at_end",))[:3]
        if order not in ("ascending", "descending"):
            raise ValueError(f'"{order}" is not a valid sort order')
        placement = null_placement or placement
        if placement not in ("at_start", "at_end"):
            raise ValueError(f'"{placement}" is not a valid null placement')
        column = data if isinstance(data, (pa.Array, pa.ChunkedArray)) else _column(data, name)
        out.append((column, order == "descending", placement == "at_start"))
    return out


def _column(data: Any, name: Any) -> Any:
    if not isinstance(name, str) or data.schema.get_field_index(name) < 0:
        raise KeyError(name)  # a field reference pyarrow resolves, or an unknown name: pyarrow's to say
    return data.column(name)


def sort_indices(
    data: Any,
    sort_keys: Sequence[Any] = (),
    *,
    null_placement: Optional[str] = None,
    sorter: Optional[gpusort.Sorter] = None,
) -> Any:
    """``pyarrow.compute.sort_indices(data, sort_keys, null_placement=...)`` computed with
    gpusort: the stable permutation as a ``pyarrow.UInt64Array``. ``data`` is an Array or
    ChunkedArray (``sort_keys`` then gives at most its order, and names no column) or a
    RecordBatch or Table; ``sort_keys`` lists ``(name, "ascending" | "descending")`` or, as
    pyarrow 25 and newer take them, ``(name, order, "at_start" | "at_end")``;
    ``null_placement``, when given, places the nulls of every key (``"at_end"`` otherwise).
    Nulls and NaN go where Arrow puts them (see the module). ``sorter`` picks a
    :class:`gpusort.Sorter` (default: the process-wide one).

    Keys of types gpusort does not sort, names that are not a column of ``data`` (field
    references, nested fields) and inputs that are not Arrow data go to pyarrow, which also
    raises the errors: the first with an :class:`ArrowFallbackWarning`.

    >>> import pyarrow as pa
    >>> sort_indices(pa.array([1.0, None, float("nan"), -0.0, 0.0]), null_placement="at_start").to_pylist()
    [1, 2, 3, 4, 0]
    """

    def arrow() -> Any:
        if null_placement is None:
            return pc.sort_indices(data, sort_keys=sort_keys)
        return pc.sort_indices(data, sort_keys=sort_keys, null_placement=null_placement)

    if not isinstance(data, (pa.Array, pa.ChunkedArray, pa.RecordBatch, pa.Table)):
        return arrow()
    try:
        keys = _sort_keys(data, sort_keys, null_placement)
    except KeyError:
        return arrow()
    specs = []
    for column, descending, nulls_first in keys:
        found = column_keys(column)
        if found is None:
            warnings.warn(
                f"gpusort.arrow: pyarrow sorts this input: gpusort does not sort keys of type {column.type}",
                ArrowFallbackWarning,
                stacklevel=2,
            )
            return arrow()
        values, nulls = found
        # Arrow keeps NaN beside the nulls: after the values at the end, before them at the start.
        specs.append((values, descending, "nan_first" if nulls_first else "nan_last", nulls, nulls_first))
    if len(data) == 0:
        return pa.array([], type=pa.uint64())
    perm = (sorter or gpusort.default_sorter())._lexsort_columns(specs)
    return pa.array(perm.view(np.uint64), type=pa.uint64())
