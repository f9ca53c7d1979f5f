"""``gpusort.pandas``: pandas' stable ``sort_values`` with gpusort's lexsort doing the sort.

:func:`sort_values` returns exactly what ``df.sort_values(by, ascending=..., na_position=...,
ignore_index=..., kind="stable")`` returns (the same rows in the same order, the same index),
with one lexsort of every key column (:meth:`gpusort.Sorter.lexsort`: the columns' bits packed
into as few radix keys as their widths allow) and one ``take`` of the rows. Key columns of int, uint, float, bool,
datetime64 (naive and tz-aware), timedelta64, period and categorical dtypes (categoricals by code
order, as pandas sorts them), and pandas' nullable ``Int*``, ``UInt*``, ``Float*`` and
``boolean``, are sorted by gpusort; NaN, NaT and NA go first or last as ``na_position`` says, in
their input order, and ``-0.0 == +0.0``. Other key columns (strings, objects, Arrow-backed
columns) are sorted by pandas instead, with a :class:`PandasFallbackWarning`: never another
order than pandas'.

>>> import pandas as pd, gpusort.pandas
>>> df = pd.DataFrame({"city": [2, 1, 2, 1], "score": [0.5, None, 0.9, 0.1]})
>>> gpusort.pandas.sort_values(df, ["city", "score"], ascending=[True, False]).index.tolist()
[3, 1, 2, 0]
"""

from __future__ import annotations

import warnings
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

import gpusort

from ._lexsort import host_keys

__all__ = ["sort_values", "argsort", "column_keys", "PandasFallbackWarning"]


class PandasFallbackWarning(UserWarning):
    """A key column gpusort does not sort was sorted by pandas instead."""


# pandas' wrapper of a NumPy array (PandasArray before pandas 2.1).
_NUMPY_ARRAY = getattr(pd.arrays, "NumpyExtensionArray", None) or getattr(pd.arrays, "PandasArray")

# (keys of a gpusort key type, null mask or None, float order)
ColumnKeys = Tuple[np.ndarray, Optional[np.ndarray], str]


def column_keys(column: Any) -> Optional[ColumnKeys]:
    """``(keys, nulls, float order)``: a pandas Series (or array) as gpusort sorts it in pandas'
    order (NaN, NaT and NA as nulls; ``nulls`` None when there are none), or None when gpusort
    cannot sort its dtype. The keys are the column's own memory where its dtype allows.

    >>> keys, nulls, _ = column_keys(pd.Series(pd.Categorical(["b", None, "a"], categories=["b", "a"])))
    >>> keys.tolist(), nulls.tolist()
    ([0, -1, 1], [False, True, False])
    """
    # (pd.array would make NumPy floats nullable Float64, whose NaN is NA: a Series keeps them.)
    arr = column.array if isinstance(column, (pd.Series, pd.Index)) else pd.Series(column, copy=False).array
    floats = "nan_last"
    if isinstance(arr, pd.Categorical):
        keys: Any = arr.codes
        nulls: Optional[np.ndarray] = keys == -1
    elif isinstance(arr, (pd.arrays.DatetimeArray, pd.arrays.TimedeltaArray, pd.arrays.PeriodArray)):
        # int64 counts (tz-aware ones in UTC, as pandas orders them); NaT is int64's minimum.
        keys = arr.asi8
        nulls = keys == np.iinfo(np.int64).min
    elif isinstance(arr, (pd.arrays.IntegerArray, pd.arrays.FloatingArray, pd.arrays.BooleanArray)):
        keys, nulls = arr._data, arr._mask
        # A NaN that is not NA (rare: set through the constructor) sorts as NumPy's argsort of the
        # reversed values puts it: largest.
        floats = "nan_largest"
    elif isinstance(arr, _NUMPY_ARRAY) and arr.dtype.numpy_dtype.kind in "biuf":
        keys = arr.to_numpy()
        nulls = np.isnan(keys) if keys.dtype.kind == "f" else None
    else:
        return None
    try:
        keys, more = host_keys(np.asarray(keys), "column")
    except TypeError:
        return None
    if more is not None:
        nulls = more if nulls is None else nulls | more
    return keys, (nulls if nulls is not None and nulls.any() else None), floats


def _orders(ascending: Union[bool, Sequence[bool]], n: int) -> List[bool]:
    if isinstance(ascending, (list, tuple)):
        if len(ascending) != n:
            raise ValueError(f"Length of ascending ({len(ascending)}) != length of by ({n})")
        return [bool(a) for a in ascending]
    return [bool(ascending)] * n


def argsort(
    columns: Sequence[Any],
    ascending: Union[bool, Sequence[bool]] = True,
    na_position: str = "last",
    *,
    sorter: Optional[gpusort.Sorter] = None,
) -> Optional[np.ndarray]:
    """The int64 permutation that sorts rows by the pandas Series (or arrays) ``columns``, the
    first the most significant, as pandas' stable ``sort_values`` orders them; None when one of
    them has a dtype gpusort does not sort (see :func:`column_keys`).

    >>> argsort([pd.Series([2.0, None, -0.0, 0.0])], ascending=False).tolist()
    [0, 2, 3, 1]
    """
    if na_position not in ("first", "last"):
        raise ValueError(f"invalid na_position: {na_position}")
    orders = _orders(ascending, len(columns))
    specs = []
    for column, asc in zip(columns, orders):
        found = column_keys(column)
        if found is None:
            return None
        keys, nulls, floats = found
        specs.append((keys, not asc, floats, nulls, na_position == "first"))
    if not specs:
        raise ValueError("columns: at least one")
    return (sorter or gpusort.default_sorter())._lexsort_columns(specs)


def _label_list(by: Any) -> List[Any]:
    return list(by) if isinstance(by, list) else [by]


def sort_values(
    obj: Any,
    by: Any = None,
    ascending: Union[bool, Sequence[bool]] = True,
    na_position: str = "last",
    ignore_index: bool = False,
    *,
    sorter: Optional[gpusort.Sorter] = None,
) -> Any:
    """``obj.sort_values(by, ascending=ascending, na_position=na_position,
    ignore_index=ignore_index, kind="stable")`` of a pandas DataFrame (``by``: a column label or a
    list of them) or Series (``by`` None), computed with gpusort: the same rows, the same order,
    the same index. ``sorter`` picks a :class:`gpusort.Sorter` (default: the process-wide one).

    Key columns gpusort cannot sort (see :func:`column_keys`) are sorted by pandas with a
    :class:`PandasFallbackWarning`; so, silently, are ``by`` labels that are not one column
    (index levels, duplicated labels), and an empty ``by``. Errors are pandas': a missing label
    raises ``KeyError``, ``ascending`` of another length or a bad ``na_position``
    ``ValueError``.

    >>> s = pd.Series([3.0, None, 1.0, 3.0], index=list("abcd"))
    >>> sort_values(s, ascending=False, na_position="first").index.tolist()
    ['b', 'a', 'd', 'c']
    """
    if na_position not in ("first", "last"):
        raise ValueError(f"invalid na_position: {na_position}")
    if isinstance(obj, pd.Series):
        if by is not None:
            raise TypeError("by: a Series is sorted by its values; by is for DataFrames")
        columns = [obj]
        orders = _orders(ascending[0] if isinstance(ascending, (list, tuple)) and len(ascending) == 1 else ascending, 1)

        def pandas_sort() -> Any:
            return obj.sort_values(
                ascending=orders[0], na_position=na_position, ignore_index=ignore_index, kind="stable"
            )

    elif isinstance(obj, pd.DataFrame):
        labels = _label_list(by)
        orders = _orders(ascending, len(labels))

        def pandas_sort() -> Any:
            return obj.sort_values(
                by, ascending=ascending, na_position=na_position, ignore_index=ignore_index, kind="stable"
            )

        cols = obj.columns
        if not labels or not all(_is_one_column(cols, label) for label in labels):
            return pandas_sort()
        columns = [obj[label] for label in labels]
    else:
        raise TypeError(f"obj: a pandas DataFrame or Series, not {type(obj).__name__}")
    perm = argsort(columns, orders, na_position, sorter=sorter)
    if perm is None:
        bad = [f"{c.name!r} ({c.dtype})" for c in columns if column_keys(c) is None]
        warnings.warn(
            f"gpusort.pandas: pandas sorts by {', '.join(bad)}: gpusort does not sort that dtype",
            PandasFallbackWarning,
            stacklevel=2,
        )
        return pandas_sort()
    out = obj.take(perm)
    return out.reset_index(drop=True) if ignore_index else out


def _is_one_column(columns: Any, label: Any) -> bool:
    """Whether ``label`` names exactly one column (not an index level, not a duplicated label)."""
    try:
        loc = columns.get_loc(label)
    except (KeyError, TypeError):
        return False
    return isinstance(loc, (int, np.integer))
