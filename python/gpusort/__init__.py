"""gpusort: sort NumPy arrays, and CuPy and PyTorch arrays on the GPU, in the manner of NumPy.

>>> import numpy as np, gpusort
>>> a = np.array([3, 1, 2], dtype=np.uint32)
>>> gpusort.sort(a)                    # in place, like a.sort()
>>> a
array([1, 2, 3], dtype=uint32)
>>> gpusort.argsort(np.array([2.0, np.nan, -1.0, 2.0], dtype=np.float32))  # NaN last, as NumPy
array([2, 0, 3, 1])
>>> gpusort.lexsort([np.array([2, 1, 2]), np.array([1, 1, 0])])  # the last key primary
array([2, 1, 0])
>>> k = np.array([3, 1, 2, 9, 7], dtype=np.int64)
>>> gpusort.sort_segments(k, [0, 3, 5])  # each segment on its own
>>> k
array([1, 2, 3, 7, 9])
>>> gpusort.top_k(np.array([0.5, 2.0, -1.0, 2.0], dtype=np.float32), 2, descending=True)
(array([2., 2.], dtype=float32), array([1, 3]))

The module-level functions use one process-wide ``Sorter("auto")``: the GPU when one is
usable and the array is large enough to gain from it, else all CPU cores. Make a
:class:`Sorter` to choose the backend or the algorithm. CUDA arrays (``torch.Tensor``,
``cupy.ndarray``, ``__cuda_array_interface__``) are sorted in place on their device, on the
caller's current stream; ``argsort`` and ``top_k`` of CuPy and PyTorch arrays return arrays of
the same library, on the device. ``GPUSORT_BACKEND=cpu|cuda|auto`` overrides what ``"auto"`` picks.
``sort``, ``argsort`` and ``lexsort`` order floats as the array's library does (NumPy, CuPy: NaN
last, ``-0.0 == +0.0``; torch: NaN largest); ``float_order="total"`` gives IEEE total order.
Tables: :mod:`gpusort.pandas` (``sort_values``), :mod:`gpusort.arrow` (``sort_indices``),
:mod:`gpusort.dask`. Files larger than memory: :func:`sort_file` (records of a fixed size, by a
key field), :func:`sort_mapped` (a ``numpy.memmap`` in place), :func:`check_file`.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Optional, Tuple

from ._errors import (
    CudaError,
    FileSortError,
    GpusortError,
    InvalidArgumentError,
    KernelImageError,
    NoDeviceError,
    OutOfMemoryError,
    SortCancelledError,
    UnsupportedError,
)
from ._files import FileCheck, FileProgress, FileSortReport, PathLike
from ._native import __version__
from ._sorter import Sorter

__all__ = [
    "Sorter",
    "sort",
    "sort_pairs",
    "argsort",
    "lexsort",
    "sort_segments",
    "sort_records",
    "top_k",
    "sort_file",
    "sort_mapped",
    "prepare",
    "scratch_bytes",
    "sort_with_scratch",
    "argsort_with_scratch",
    "top_k_with_scratch",
    "check_file",
    "FileSortReport",
    "FileCheck",
    "FileProgress",
    "default_sorter",
    "GpusortError",
    "NoDeviceError",
    "UnsupportedError",
    "InvalidArgumentError",
    "OutOfMemoryError",
    "CudaError",
    "KernelImageError",
    "FileSortError",
    "SortCancelledError",
    "__version__",
]

_default: Optional[Sorter] = None
_default_lock = threading.Lock()


def default_sorter() -> Sorter:
    """The process-wide ``Sorter("auto")`` of the module-level functions, made on first use."""
    global _default
    sorter = _default
    if sorter is None:
        with _default_lock:
            if _default is None:
                _default = Sorter("auto")
            sorter = _default
    return sorter


def _reset_lock_in_child() -> None:
    # A thread of the parent may have held the lock at the fork; the child has no such thread.
    global _default_lock
    _default_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_lock_in_child)


def sort(a: Any, descending: bool = False, *, float_order: Optional[str] = None, stream: Any = None) -> None:
    """Sorts the 1-D array ``a`` in place, or each row (last axis) of an N-D NumPy array, floats
    as ``a``'s library orders them unless ``float_order`` says otherwise; see :meth:`Sorter.sort`."""
    default_sorter().sort(a, descending, float_order=float_order, stream=stream)


def prepare() -> None:
    """Loads the default sorter's kernels on its device before a CUDA graph capture; see
    :meth:`Sorter.prepare`."""
    default_sorter().prepare()


def scratch_bytes(a: Any, call: str = "sort", descending: bool = False, *, k: Optional[int] = None) -> int:
    """The scratch bytes a call on caller scratch needs for the device array ``a``; see
    :meth:`Sorter.scratch_bytes`."""
    return default_sorter().scratch_bytes(a, call, descending, k=k)


def sort_with_scratch(
    a: Any, scratch: Any, descending: bool = False, *, float_order: str = "total", stream: Any = None
) -> None:
    """Sorts the device array ``a`` in place on the caller's ``scratch``, allocating nothing (for
    CUDA graphs); see :meth:`Sorter.sort_with_scratch`."""
    default_sorter().sort_with_scratch(a, scratch, descending, float_order=float_order, stream=stream)


def argsort_with_scratch(
    keys: Any, scratch: Any, descending: bool = False, *, float_order: str = "total", stream: Any = None
) -> Any:
    """The int64 indices that sort the device array ``keys``, on the caller's ``scratch``; see
    :meth:`Sorter.argsort_with_scratch`."""
    return default_sorter().argsort_with_scratch(keys, scratch, descending, float_order=float_order, stream=stream)


def top_k_with_scratch(
    a: Any, k: int, scratch: Any, descending: bool = False, *, float_order: str = "total", stream: Any = None
) -> Tuple[Any, Any]:
    """The ``k`` first keys of the device array ``a`` and their int64 positions, on the caller's
    ``scratch``; see :meth:`Sorter.top_k_with_scratch`."""
    return default_sorter().top_k_with_scratch(a, k, scratch, descending, float_order=float_order, stream=stream)


def sort_pairs(keys: Any, values: Any, descending: bool = False, *, stream: Any = None) -> None:
    """Sorts ``keys`` in place, stably, values moving with their keys; see :meth:`Sorter.sort_pairs`."""
    default_sorter().sort_pairs(keys, values, descending, stream=stream)


def argsort(
    keys: Any, stable: bool = True, descending: bool = False, *, float_order: Optional[str] = None, stream: Any = None
) -> Any:
    """The int64 indices that sort ``keys`` (left as it is), stably in either order; see
    :meth:`Sorter.argsort`."""
    return default_sorter().argsort(keys, stable, descending, float_order=float_order, stream=stream)


def lexsort(keys: Any, descending: Any = False, *, float_order: Optional[str] = None, stream: Any = None) -> Any:
    """The stable int64 permutation that sorts rows by several keys, as ``numpy.lexsort``: the
    last key of ``keys`` (a sequence of 1-D arrays, or a 2-D array's rows) the primary one;
    ``descending`` one bool or one per key; NumPy arrays, or CUDA torch / CuPy arrays on the
    device. See :meth:`Sorter.lexsort`.

    >>> import numpy as np, gpusort
    >>> gpusort.lexsort([np.array([0.5, 0.1, 0.2]), np.array([1, 0, 1], dtype=np.uint8)])
    array([1, 2, 0])
    """
    return default_sorter().lexsort(keys, descending, float_order=float_order, stream=stream)


def sort_segments(keys: Any, offsets: Any, values: Any = None, descending: bool = False, *, stream: Any = None) -> None:
    """Sorts each segment ``keys[offsets[s]:offsets[s + 1]]`` of a NumPy array, or of a CUDA array
    on its device, in place on its own, stably, values (optional) moving with their
    keys; see :meth:`Sorter.sort_segments`."""
    default_sorter().sort_segments(keys, offsets, values, descending, stream=stream)


def sort_records(a: Any, key: str, descending: bool = False, *, stream: Any = None) -> None:
    """Sorts the rows of the 1-D NumPy structured array ``a`` in place by its field ``key``,
    stably; see :meth:`Sorter.sort_records`."""
    default_sorter().sort_records(a, key, descending, stream=stream)


def top_k(a: Any, k: int, descending: bool = False, *, stream: Any = None) -> Tuple[Any, Any]:
    """The ``k`` smallest keys of ``a`` (the ``k`` largest when ``descending``), sorted, and their
    int64 positions in ``a``, ties to the earliest, as arrays of ``a``'s library: NumPy, or for a
    CuPy or PyTorch CUDA array, on its device; see :meth:`Sorter.top_k`."""
    return default_sorter().top_k(a, k, descending, stream=stream)


def sort_file(
    input: PathLike,
    output: PathLike,
    *,
    record_size: Optional[int] = None,
    key_offset: int = 0,
    key: Any = None,
    key_size: Optional[int] = None,
    dtype: Any = None,
    big_endian: Optional[bool] = None,
    descending: bool = False,
    memory_limit: Any = None,
    temp_dir: Optional[PathLike] = None,
    progress: Optional[Callable[[FileProgress], Any]] = None,
) -> FileSortReport:
    """Sorts the file ``input`` of fixed-size records by a key field into the file ``output``
    (which may be ``input``), stably, within ``memory_limit`` of host memory; see
    :meth:`Sorter.sort_file`.

    >>> import numpy as np, gpusort, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> rows = np.array([(3, b"c"), (1, b"a"), (2, b"b")], dtype=[("id", ">u8"), ("name", "S3")])
    >>> rows.tofile(os.path.join(d, "rows"))
    >>> gpusort.sort_file(os.path.join(d, "rows"), os.path.join(d, "sorted"), dtype=rows.dtype, key="id").records
    3
    >>> np.fromfile(os.path.join(d, "sorted"), dtype=rows.dtype)["name"]
    array([b'a', b'b', b'c'], dtype='|S3')
    """
    return default_sorter().sort_file(
        input,
        output,
        record_size=record_size,
        key_offset=key_offset,
        key=key,
        key_size=key_size,
        dtype=dtype,
        big_endian=big_endian,
        descending=descending,
        memory_limit=memory_limit,
        temp_dir=temp_dir,
        progress=progress,
    )


def sort_mapped(
    a: Any,
    key: Any = None,
    *,
    big_endian: Optional[bool] = None,
    descending: bool = False,
    memory_limit: Any = None,
    temp_dir: Optional[PathLike] = None,
    progress: Optional[Callable[[FileProgress], Any]] = None,
) -> FileSortReport:
    """Sorts the NumPy array ``a`` (a ``numpy.memmap`` larger than memory) in place through runs
    and a merge, by its field ``key`` or by its values; see :meth:`Sorter.sort_mapped`."""
    return default_sorter().sort_mapped(
        a,
        key,
        big_endian=big_endian,
        descending=descending,
        memory_limit=memory_limit,
        temp_dir=temp_dir,
        progress=progress,
    )


def check_file(
    path: PathLike,
    *,
    record_size: Optional[int] = None,
    key_offset: int = 0,
    key: Any = None,
    key_size: Optional[int] = None,
    dtype: Any = None,
    big_endian: Optional[bool] = None,
    descending: bool = False,
) -> FileCheck:
    """Whether the records of the file ``path`` are sorted by their key, and a checksum of them
    that does not depend on their order: ``(records, is_sorted, first_unsorted, checksum)``; see
    :meth:`Sorter.check_file`."""
    return default_sorter().check_file(
        path,
        record_size=record_size,
        key_offset=key_offset,
        key=key,
        key_size=key_size,
        dtype=dtype,
        big_endian=big_endian,
        descending=descending,
    )
