"""``gpusort.dask``: sort Dask DataFrames with gpusort doing each partition's sort.

Needs the ``dask`` extra (``pip install "gpusort[dask]"``). :func:`sort_values` is Dask's own
distributed sort (``DataFrame.sort_values``: sampled quantiles, a shuffle of the rows to their
output partitions) with :func:`sort_partition` as its ``sort_function``: one lexsort of the key
columns by gpusort, then a take of the rows. Each worker process sorts with its default
:class:`gpusort.Sorter` ("auto": its GPU when it has one, else its CPU cores);
:func:`local_cluster` starts one worker per GPU, each seeing its own GPU first, as Dask-CUDA does.

>>> import pandas as pd, dask.dataframe as dd, gpusort.dask
>>> df = pd.DataFrame({"k": [3, 1, 2, 1], "v": [0, 1, 2, 3]}).astype("uint32")
>>> gpusort.dask.sort_values(dd.from_pandas(df, npartitions=2), "k").compute()["v"].tolist()
[1, 3, 2, 0]

The result is the one of pandas' stable sort on the whole frame: ``na_position`` is honoured,
``-0.0`` and ``+0.0`` are equal keys, and equal keys keep their input order (partition by
partition, as Dask's shuffles keep it; Dask's default partition sort, pandas' quicksort, does
not promise that). Where a key column's dtype is not one :func:`sortable_dtype` takes (strings,
objects, and, as Dask partitions them without splitting off their NA, categoricals and pandas'
nullable dtypes), pandas sorts the partitions instead, with a :class:`PandasFallbackWarning`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

import dask.dataframe as dd  # noqa: F401  (the extra is required: fail here, not on a worker)
import gpusort
import gpusort.pandas as gpandas
from gpusort._key_types import is_float_dtype
from gpusort._lexsort import host_keys
from gpusort.pandas import PandasFallbackWarning

__all__ = [
    "sort_values",
    "sort_partition",
    "argsort_column",
    "sortable_dtype",
    "PandasFallbackWarning",
    "cuda_visible_devices",
    "gpu_devices",
    "local_cluster",
]


# ---------------------------------------------------------------------------------------------
# Which keys gpusort sorts


def sortable_dtype(dtype: Any) -> bool:
    """Whether :func:`sort_values` has gpusort sort the partitions by key columns of ``dtype``
    (rather than pandas): the NumPy integer, float, bool, datetime and timedelta dtypes in native
    byte order, whose NaN and NaT Dask's partitioning sends to the last partition.
    (:func:`sort_partition` itself also sorts the dtypes of :mod:`gpusort.pandas`.)

    >>> sortable_dtype("uint32"), sortable_dtype("int64"), sortable_dtype(object)
    (True, True, False)
    """
    try:
        dt = np.dtype(dtype)
    except TypeError:  # pandas extension dtypes (nullable, categorical, strings)
        return False
    if dt.kind not in "biufmM" or dt.itemsize > 8 or dt.byteorder not in "=|":
        return False
    try:
        host_keys(np.zeros(1, dtype=dt))
        return True
    except TypeError:
        return False


# ---------------------------------------------------------------------------------------------
# One partition


_sorters: Dict[str, gpusort.Sorter] = {}
_sorters_lock = threading.Lock()


def _sorter(backend: Optional[str]) -> gpusort.Sorter:
    if backend is None:
        return gpusort.default_sorter()
    with _sorters_lock:
        s = _sorters.get(backend)
        if s is None:
            s = _sorters[backend] = gpusort.Sorter(backend)
        return s


def argsort_column(
    values: np.ndarray,
    ascending: bool = True,
    na_position: str = "last",
    sorter: Optional[gpusort.Sorter] = None,
) -> np.ndarray:
    """The int64 permutation that sorts ``values`` as pandas' stable ``sort_values`` does:
    equal keys (``-0.0`` and ``+0.0`` among them) keep their order in either direction, and NaN
    and NaT go first or last as ``na_position`` says, in their input order. One lexsort of the
    column and its NaN / NaT mask by gpusort; ``values`` is left as it is. Raises ``TypeError``
    for dtypes gpusort cannot sort.

    >>> argsort_column(np.array([2.0, np.nan, -0.0, 0.0, 2.0]), ascending=False)
    array([0, 4, 2, 3, 1])
    """
    if na_position not in ("first", "last"):
        raise ValueError(f"na_position: 'first' or 'last', not {na_position!r}")
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError(f"values: a 1-D array, not shape {values.shape}")
    keys, nulls = host_keys(values, "values")  # NaT as nulls
    if is_float_dtype(keys.dtype):
        nan = np.isnan(keys)
        nulls = nan if nan.any() else None
    spec = (keys, not ascending, "nan_last", nulls, na_position == "first")
    return (sorter or gpusort.default_sorter())._lexsort_columns([spec])


def sort_partition(
    df: Any,
    by: Union[str, Sequence[str]],
    ascending: Union[bool, Sequence[bool]] = True,
    na_position: str = "last",
    ignore_index: bool = False,
    backend: Optional[str] = None,
    **kwargs: Any,
) -> Any:
    """``df.sort_values(by, ascending=..., na_position=..., kind="stable")`` of one pandas
    DataFrame, with one gpusort lexsort of its key columns (:func:`gpusort.pandas.argsort`: the
    dtypes of :mod:`gpusort.pandas`, NaN / NaT / NA as nulls) and one ``take`` of the rows.
    ``backend`` picks a :class:`gpusort.Sorter` (default: the process's default sorter). Key
    columns of dtypes gpusort cannot sort are sorted by pandas, with a
    :class:`PandasFallbackWarning`. This is the ``sort_function`` that :func:`sort_values` gives
    Dask; ``kwargs`` (other arguments Dask may pass) go to pandas.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"k": [2, 1, 2, 1], "v": list("abcd")})
    >>> sort_partition(df, "k", ascending=False)["v"].tolist()
    ['a', 'c', 'b', 'd']
    """
    cols: List[str] = [by] if isinstance(by, str) else list(by)
    orders = [bool(ascending)] * len(cols) if isinstance(ascending, bool) else [bool(a) for a in ascending]
    if len(orders) != len(cols):
        raise ValueError(f"ascending: {len(orders)} values for {len(cols)} columns")
    perm: Optional[np.ndarray] = None
    if not kwargs:
        if cols:
            perm = gpandas.argsort([df[c] for c in cols], orders, na_position, sorter=_sorter(backend))
        if perm is None and cols:
            bad = [f"{c!r} ({df[c].dtype})" for c in cols if gpandas.column_keys(df[c]) is None]
            why = ", ".join(bad)
            warnings.warn(f"gpusort.dask: pandas sorts this partition ({why})", PandasFallbackWarning, stacklevel=2)
        if perm is not None or not cols:
            out = df.take(perm) if perm is not None else df.copy()
            return out.reset_index(drop=True) if ignore_index else out
    kwargs.setdefault("kind", "stable")
    return df.sort_values(cols, ascending=orders, na_position=na_position, ignore_index=ignore_index, **kwargs)


def _pandas_stable(df: Any, by: Any, ascending: Any = True, na_position: str = "last", ignore_index: bool = False) -> Any:
    return df.sort_values(by, ascending=ascending, na_position=na_position, ignore_index=ignore_index, kind="stable")


# ---------------------------------------------------------------------------------------------
# The whole frame


def sort_values(
    ddf: Any,
    by: Union[str, Sequence[str]],
    ascending: Union[bool, Sequence[bool]] = True,
    na_position: str = "last",
    *,
    npartitions: Optional[Union[int, str]] = None,
    ignore_index: bool = False,
    backend: Optional[str] = None,
    **kwargs: Any,
) -> Any:
    """``ddf.sort_values(by, ...)`` (a lazy Dask DataFrame) with gpusort sorting each output
    partition on its worker; see :func:`sort_partition`. ``kwargs`` go to Dask's
    ``DataFrame.sort_values`` (``shuffle_method``, ``upsample``, ``partition_size``); ``backend``
    to :func:`sort_partition`. Where a key column has a dtype gpusort does not sort, a
    :class:`PandasFallbackWarning` is issued here and pandas' stable sort does the partitions.

    The partitions come out in order: concatenated, they are pandas' stable ``sort_values`` of
    the whole frame. (Dask's own partitioning sends NaN keys to the last partition whatever
    ``na_position`` says; with ``na_position="first"`` the rows whose first key is NaN are
    therefore split off before the sort and put in front, in their input order.)

    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"k": [2.0, None, 1.0, 2.0]}), npartitions=2)
    >>> sort_values(ddf, "k", ascending=False).compute().index.tolist()
    [0, 3, 2, 1]
    """
    if na_position not in ("first", "last"):
        raise ValueError(f"na_position: 'first' or 'last', not {na_position!r}")
    cols = [by] if isinstance(by, str) else list(by)
    if not cols:
        raise ValueError("by: at least one column")
    dtypes = ddf.dtypes
    bad = [c for c in cols if not sortable_dtype(dtypes[c])]
    sort_function: Callable[..., Any] = sort_partition
    fkwargs: Optional[Dict[str, Any]] = {"backend": backend} if backend is not None else None
    if bad:
        warnings.warn(
            "gpusort.dask: pandas sorts the partitions: gpusort does not sort the dtypes of key columns "
            + ", ".join(f"{c!r} ({dtypes[c]})" for c in bad),
            PandasFallbackWarning,
            stacklevel=2,
        )
        sort_function, fkwargs = _pandas_stable, None

    def dask_sort(frame: Any, by: List[str], asc: Any) -> Any:
        return frame.sort_values(
            by if len(by) > 1 else by[0],
            npartitions=npartitions,
            ascending=asc,
            na_position=na_position,
            sort_function=sort_function,
            sort_function_kwargs=fkwargs,
            ignore_index=ignore_index,
            **kwargs,
        )

    if na_position == "last" or ddf.npartitions == 1 or getattr(dtypes[cols[0]], "kind", "O") not in "fmM":
        return dask_sort(ddf, cols, ascending)
    import dask.dataframe as dd

    na = ddf[cols[0]].isna()
    nans = ddf[na]
    if len(cols) > 1:  # rows with a NaN first key are ordered by the other keys
        nans = dask_sort(nans, cols[1:], ascending if isinstance(ascending, bool) else list(ascending)[1:])
    out = dd.concat([nans, dask_sort(ddf[~na], cols, ascending)])
    return out.reset_index(drop=True) if ignore_index else out


# ---------------------------------------------------------------------------------------------
# Workers and GPUs


def cuda_visible_devices(i: int, devices: Sequence[Union[int, str]]) -> str:
    """The ``CUDA_VISIBLE_DEVICES`` of worker ``i`` among workers on ``devices``, as Dask-CUDA
    sets it: its own device first, then the others in order from there, so the worker's
    default gpusort sorter (device 0 of those it sees) uses its own GPU.

    >>> cuda_visible_devices(1, [0, 1, 2, 3])
    '1,2,3,0'
    """
    if not devices:
        raise ValueError("devices: at least one")
    k = i % len(devices)
    return ",".join(str(d) for d in list(devices[k:]) + list(devices[:k]))


def gpu_devices() -> List[str]:
    """The GPUs this process may give workers: ``CUDA_VISIBLE_DEVICES`` when it is set (empty:
    none), else those ``nvidia-smi`` lists, else none. Nothing here initialises CUDA."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [d.strip() for d in env.split(",") if d.strip() and d.strip() != "-1"]
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        out = subprocess.run(
            [smi, "--query-gpu=index", "--format=csv,noheader"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.stdout.splitlines() if line.strip().isdigit()] if out.returncode == 0 else []


def local_cluster(
    n_workers: Optional[int] = None,
    *,
    devices: Optional[Sequence[Union[int, str]]] = None,
    threads_per_worker: int = 1,
    memory_limit: Union[str, int, float, None] = "auto",
    **kwargs: Any,
) -> Any:
    """A ``distributed.LocalCluster`` of worker processes for :func:`sort_values`: with GPUs
    (``devices``, default :func:`gpu_devices`), one worker per GPU unless ``n_workers`` says
    otherwise, worker ``i`` started with ``CUDA_VISIBLE_DEVICES=cuda_visible_devices(i,
    devices)`` (a ``SpecCluster`` of ``Nanny`` processes, as Dask-CUDA's ``LocalCUDACluster``);
    without, a ``LocalCluster`` of ``n_workers`` (default 4) CPU workers. ``kwargs`` go to each
    worker (``local_directory``, ...; ``LocalCluster``'s own arguments without GPUs) but
    ``dashboard_address`` (the scheduler's, default none).

    >>> from distributed import Client                     # doctest: +SKIP
    >>> client = Client(local_cluster())                   # doctest: +SKIP
    """
    from distributed import LocalCluster, Nanny, Scheduler, SpecCluster
    from distributed.system import MEMORY_LIMIT

    devs = list(gpu_devices() if devices is None else devices)
    if not devs:
        return LocalCluster(
            n_workers=4 if n_workers is None else n_workers,
            threads_per_worker=threads_per_worker,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=kwargs.pop("dashboard_address", None),
            **kwargs,
        )
    n = len(devs) if n_workers is None else n_workers
    if memory_limit == "auto":  # as LocalCluster: the host's memory shared by the workers
        memory_limit = MEMORY_LIMIT // max(n, 1)
    address = kwargs.pop("dashboard_address", None)
    # Without a dashboard the scheduler still serves its HTTP routes: on any free port.
    scheduler_opts = {"dashboard": address is not None, "dashboard_address": address or ":0"}
    workers = {
        f"gpu-{i}": {
            "cls": Nanny,
            "options": {
                "nthreads": threads_per_worker,
                "memory_limit": memory_limit,
                "env": {"CUDA_VISIBLE_DEVICES": cuda_visible_devices(i, devs)},
                "dashboard": False,
                **kwargs,
            },
        }
        for i in range(n)
    }
    return SpecCluster(workers=workers, scheduler={"cls": Scheduler, "options": scheduler_opts})
